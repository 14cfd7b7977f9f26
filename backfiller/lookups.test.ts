import { describe, expect, it } from 'vitest';
import { cachedLookup } from './lookups.js';
import { fakeClient, ok, shootObject } from '../test/helpers/backfiller-doubles.js';

describe('cachedLookup', () => {
  it('cachedLookup reads a Shoot the cache lacks by GET until the cache has synced', async () => {
    const garden = fakeClient((method) => (method === 'get' ? ok(shootObject()) : undefined));
    let synced = false;
    const lookup = cachedLookup(
      { kcp: fakeClient().client, garden: garden.client, gardenNamespace: 'garden-p' },
      () => undefined,
      () => synced,
    );
    expect((await lookup.shoot('c-1'))?.metadata.name).toBe('c-1');
    expect(garden.calls).toHaveLength(1);
    synced = true;
    expect(await lookup.shoot('c-1')).toBeUndefined();
    expect(garden.calls).toHaveLength(1);
  });

  it('cachedLookup answers GardenerClusters and kubeconfig Secrets the caches hold, and asks the API for the others (one it has just written may not be in them yet)', async () => {
    const secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'kubeconfig-rid', namespace: 'kcp-system' },
      data: { config: 'x' },
    };
    const kcp = fakeClient((method) => (method === 'get' ? ok(secret) : undefined));
    const cluster = {
      apiVersion: 'infrastructuremanager.kyma-project.io/v1',
      kind: 'GardenerCluster',
      metadata: { name: 'rid', namespace: 'kcp-system' },
    };
    const caches = {
      kcpNamespace: 'kcp-system',
      gardenerCluster: (name: string) => (name === 'rid' ? cluster : undefined),
      secret: () => undefined,
    };
    const lookup = cachedLookup(
      { kcp: kcp.client, garden: fakeClient().client, gardenNamespace: 'garden-p' },
      () => undefined,
      () => true,
      undefined,
      caches,
    );
    expect(await lookup.gardenerCluster('kcp-system', 'rid')).toBe(cluster);
    expect(kcp.calls).toHaveLength(0);
    expect((await lookup.secret('kcp-system', 'kubeconfig-rid'))?.metadata.name).toBe('kubeconfig-rid'); // not cached yet: asked
    expect(kcp.calls).toHaveLength(1);
    expect((await lookup.secretFresh?.('kcp-system', 'kubeconfig-rid'))?.data).toEqual({ config: 'x' });
    expect(kcp.calls).toHaveLength(2);
  });
});
