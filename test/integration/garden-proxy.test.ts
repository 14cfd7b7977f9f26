// The Garden proxy (test/helpers/garden-proxy.ts) in front of the real plane: our KubeClient reaches the Garden
// through it without credentials of its own, requests are counted, watches stream, and stop/start make the
// Garden unreachable and reachable again on the same address.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { KubeClient, type WatchEvent } from '../../adapters/kube/kube-client.js';
import type { KubeObject } from '../../model/kube-object.js';
import { startGardenProxy, type GardenProxy } from '../helpers/garden-proxy.js';
import { connect, eventually } from '../helpers/testenv.js';

const env = connect(inject('testenvStateDir'));
const NAMESPACES = { apiVersion: 'v1', kind: 'Namespace' } as const;

describe('the Garden proxy', () => {
  let proxy: GardenProxy;
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kimops-garden-proxy-'));
    proxy = await startGardenProxy({ kubeconfig: join(env.stateDir, 'garden.kubeconfig'), dir });
  });
  afterAll(async () => {
    await proxy.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('forwards with the Garden credentials, counts requests, and cuts and restores the Garden', async () => {
    const client = KubeClient.fromKubeconfigFile(proxy.kubeconfigPath);
    expect(client.server).toBe(proxy.url);
    expect(proxy.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    const listed = await client.list(NAMESPACES);
    expect(listed.ok).toBe(true);
    if (!listed.ok) return;
    expect(listed.body.items.map((n) => n.metadata.name)).toContain('garden');
    expect(proxy.requests).toEqual([
      { method: 'GET', at: expect.any(Number), path: '/api/v1/namespaces', status: 200 },
    ]);

    // The Garden's own errors pass through unchanged.
    const missing = await client.get({ ...NAMESPACES, name: 'no-such-namespace' });
    expect(missing).toMatchObject({ ok: false, status: 404, error: { reason: 'NotFound' } });
    expect(proxy.requests.at(-1)).toEqual({
      method: 'GET',
      at: expect.any(Number),
      path: '/api/v1/namespaces/no-such-namespace',
      status: 404,
    });

    // A watch streams events as they happen and is recorded when it ends.
    proxy.reset();
    const name = `proxy-watch-${Date.now()}`;
    const events: WatchEvent<KubeObject>[] = [];
    const controller = new AbortController();
    const watching = client.watch(
      { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'garden' },
      { resourceVersion: listed.body.metadata.resourceVersion, timeoutSeconds: 30 },
      (e) => events.push(e),
      controller.signal,
    );
    const configMap = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace: 'garden' },
      data: { a: 'b' },
    };
    try {
      expect((await env.garden.create(configMap)).ok).toBe(true);
      await eventually('the watch to deliver the ConfigMap', async () =>
        events.some((e) => e.type === 'ADDED' && e.object.metadata.name === name) ? true : undefined,
      );
      expect(proxy.requests).toEqual([]); // the watch is still open
    } finally {
      controller.abort();
      expect(await watching).toEqual({ reason: 'aborted' });
      await env.garden.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'garden', name });
    }
    await eventually('the watch to be recorded', async () => (proxy.requests.length === 1 ? true : undefined));
    expect(proxy.requests[0]).toMatchObject({ method: 'GET', status: 200 });
    expect(proxy.requests[0]?.path).toMatch(/^\/api\/v1\/namespaces\/garden\/configmaps\?watch=1&/);

    // Stopped: the Garden looks unreachable, and an open watch ends.
    proxy.reset();
    const cut = client.watch(NAMESPACES, { timeoutSeconds: 30 }, () => undefined);
    await eventually('the watch to reach the proxy', async () =>
      (await client.list(NAMESPACES)).ok ? true : undefined,
    );
    await proxy.stop();
    expect(await cut).toMatchObject({ reason: 'failed', status: 0 });
    const refused = await client.list(NAMESPACES);
    expect(refused.ok).toBe(false);
    if (refused.ok) return;
    expect(refused.status).toBe(0);
    expect(refused.error.message).toContain(`cannot reach ${proxy.url}`);
    expect(refused.error.message).toContain('ECONNREFUSED');
    // The cut watch is recorded when its connection closes, which may come after this line: only LISTs are counted.
    const lists = () => proxy.requests.filter((request) => request.path === '/api/v1/namespaces');
    const recorded = lists().length;

    // Started again: the same address works.
    await proxy.start();
    expect((await client.list(NAMESPACES)).ok).toBe(true);
    expect(lists().length).toBe(recorded + 1);
    expect(lists().at(-1)).toEqual({
      method: 'GET',
      at: expect.any(Number),
      path: '/api/v1/namespaces',
      status: 200,
    });
  });
});
