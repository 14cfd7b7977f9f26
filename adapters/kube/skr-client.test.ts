import { describe, expect, it } from 'vitest';
import type { KubeResult } from '../../model/kube-result.js';
import { skrClient } from './skr-client.js';

const KUBECONFIG = `apiVersion: v1
kind: Config
current-context: shoot--p--c-1
clusters:
- name: shoot--p--c-1
  cluster:
    server: https://api.c-1.example.com
    insecure-skip-tls-verify: true
contexts:
- name: shoot--p--c-1
  context: {cluster: shoot--p--c-1, user: admin}
users:
- name: admin
  user: {token: secret-token-value}
`;

/** A Garden that answers the one POST with `answer`, recording what it was asked. */
function garden(answer: KubeResult<unknown>) {
  const asked: { method: string; path: string; body: unknown }[] = [];
  return {
    asked,
    label: 'garden.kubeconfig',
    request<T>(method: string, path: string, options: { body?: unknown } = {}): Promise<KubeResult<T>> {
      asked.push({ method, path, body: options.body });
      return Promise.resolve(answer as KubeResult<T>);
    },
  };
}

describe('skrClient', () => {
  it('asks Gardener for a 10-minute admin kubeconfig and makes a client of it, named without its credential', async () => {
    const api = garden({
      ok: true,
      status: 201,
      body: { status: { kubeconfig: Buffer.from(KUBECONFIG).toString('base64') } },
    });
    const made = await skrClient(api, 'garden-p', 'c-1');
    expect(api.asked).toEqual([
      {
        method: 'POST',
        path: '/apis/core.gardener.cloud/v1beta1/namespaces/garden-p/shoots/c-1/adminkubeconfig',
        body: {
          apiVersion: 'authentication.gardener.cloud/v1alpha1',
          kind: 'AdminKubeconfigRequest',
          spec: { expirationSeconds: 600 },
        },
      },
    ]);
    if (!made.ok) throw new Error(made.message);
    expect(made.client.server).toBe('https://api.c-1.example.com');
    expect(made.client.label).toBe('adminkubeconfig of Shoot garden-p/c-1');
    made.client.close();
  });

  it('says why and what to do when Gardener refuses, never quoting a kubeconfig', async () => {
    const refused = await skrClient(
      garden({ ok: false, status: 403, error: { message: 'shoots.core.gardener.cloud "c-1" is forbidden' } }),
      'garden-p',
      'c-1',
    );
    expect(refused).toEqual({
      ok: false,
      status: 403,
      message:
        'request adminkubeconfig of Shoot garden-p/c-1 (kubeconfig garden.kubeconfig): 403: shoots.core.gardener.cloud "c-1" is forbidden — grant the Garden identity create on shoots/adminkubeconfig in garden-p',
    });
    const garbled = await skrClient(
      garden({ ok: true, status: 201, body: { status: { kubeconfig: Buffer.from('users: [a').toString('base64') } } }),
      'garden-p',
      'c-1',
    );
    expect(garbled.ok).toBe(false);
    if (!garbled.ok)
      expect(garbled.message).toBe("adminkubeconfig of Shoot garden-p/c-1: the answer's kubeconfig cannot be read");
  });
});
