import { describe, expect, it } from 'vitest';
import { adminKubeconfigPath, adminKubeconfigRequest, readAdminKubeconfig } from './admin-kubeconfig.js';

describe('adminKubeconfigRequest', () => {
  it('asks for the validity given, at least Gardener’s 10 minutes', () => {
    expect(adminKubeconfigRequest(600)).toEqual({
      apiVersion: 'authentication.gardener.cloud/v1alpha1',
      kind: 'AdminKubeconfigRequest',
      spec: { expirationSeconds: 600 },
    });
    expect(() => adminKubeconfigRequest(599)).toThrow(RangeError);
    expect(() => adminKubeconfigRequest(600.5)).toThrow(RangeError);
  });

  it('posts to the Shoot’s subresource', () => {
    expect(adminKubeconfigPath('garden-p', 'c-1')).toBe(
      '/apis/core.gardener.cloud/v1beta1/namespaces/garden-p/shoots/c-1/adminkubeconfig',
    );
  });
});

describe('readAdminKubeconfig', () => {
  const kubeconfig = 'apiVersion: v1\nkind: Config\n';
  const encoded = Buffer.from(kubeconfig).toString('base64');

  it('decodes the kubeconfig and keeps the expiration as written', () => {
    expect(
      readAdminKubeconfig({ status: { kubeconfig: encoded, expirationTimestamp: '2026-07-01T10:10:00Z' } }),
    ).toEqual({
      ok: true,
      kubeconfig,
      expirationTimestamp: '2026-07-01T10:10:00Z',
    });
  });

  it.each<[string, unknown, string]>([
    ['no body', undefined, 'the AdminKubeconfigRequest answer has no status.kubeconfig'],
    [
      'not base64',
      { status: { kubeconfig: 'a b' } },
      'status.kubeconfig of the AdminKubeconfigRequest answer is not base64',
    ],
    [
      'empty',
      { status: { kubeconfig: Buffer.from(' \n').toString('base64') } },
      'the AdminKubeconfigRequest answer has an empty kubeconfig',
    ],
  ])('refuses an answer with %s', (_what, body, error) => {
    expect(readAdminKubeconfig(body)).toEqual({ ok: false, error });
  });
});
