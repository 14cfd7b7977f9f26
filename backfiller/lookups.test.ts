import { describe, expect, it } from 'vitest';
import { TransportError } from '../model/errors.js';
import { cachedLookup, snapshotLookup } from './lookups.js';
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

describe('snapshotLookup and the AuditLogs', () => {
  const pool = [
    {
      apiVersion: 'auditlogmanager.kyma-project.io/v1beta1',
      kind: 'AuditLog',
      metadata: { name: 'pool-1', namespace: 'kcp-stage' },
    },
  ];
  /** A KCP whose AuditLog LIST answers `auditLogs`; everything else empty. */
  function kcpWith(auditLogs: { ok: true; items: unknown[] } | { ok: false; status: number; message: string }) {
    const double = fakeClient();
    const listed: string[] = [];
    const client = {
      ...double.client,
      listAll: async (ref: { kind: string; namespace?: string }) => {
        listed.push(`${ref.kind}/${ref.namespace ?? ''}`);
        return ref.kind === 'AuditLog'
          ? { ...auditLogs, resourceVersion: undefined }
          : { ok: true, items: [], resourceVersion: undefined };
      },
    } as typeof double.client;
    return { client, listed };
  }
  const skr = async () => ({ ok: false as const, message: 'unused' });

  it('lists them in the KCP namespace only with the switch on', async () => {
    const on = kcpWith({ ok: true, items: pool });
    const lookup = await snapshotLookup(
      { kcp: on.client, garden: fakeClient().client, gardenNamespace: 'garden-p', dedicatedAuditLogging: { skr } },
      'kcp-stage',
    );
    expect(on.listed).toContain('AuditLog/kcp-stage');
    expect(lookup.auditLogs?.()).toEqual(pool);

    const off = kcpWith({ ok: true, items: pool });
    const without = await snapshotLookup(
      { kcp: off.client, garden: fakeClient().client, gardenNamespace: 'garden-p' },
      'kcp-stage',
    );
    expect(off.listed).not.toContain('AuditLog/kcp-stage');
    expect(without.auditLogs).toBeUndefined();
  });

  it('a pool it cannot read stops the pass, naming the fix (a guessed pool would misreport every dedicated Runtime)', async () => {
    const refused = kcpWith({
      ok: false,
      status: 404,
      message: '404 NotFound: the server could not find the requested resource',
    });
    const failing = snapshotLookup(
      { kcp: refused.client, garden: fakeClient().client, gardenNamespace: 'garden-p', dedicatedAuditLogging: { skr } },
      'kcp-stage',
    );
    await expect(failing).rejects.toThrow(TransportError);
    await expect(failing).rejects.toThrow(
      "list AuditLogs in kcp-stage (features.dedicatedAuditLogging is on): 404 NotFound: the server could not find the requested resource — the KCP does not serve KALM's auditlogs.auditlogmanager.kyma-project.io (KALM is not installed there), or set features.dedicatedAuditLogging: false in landscape.yaml",
    );
  });
});
