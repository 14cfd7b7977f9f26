import { describe, expect, it, vi } from 'vitest';
import type { AuditLog } from '../model/audit-log.js';
import type { KubeObject } from '../model/kube-object.js';
import type { GardenerClusterObject, SecretObject, ShootObject } from './objects.js';
import type { KcpPort } from './ports.js';
import { fakeClient, NOW, ok, runtime, shootObject } from '../test/helpers/backfiller-doubles.js';
import { backfillWatcher, type WatchedKind } from './watcher.js';

function kind<T extends KubeObject>(
  items: T[],
  synced: Promise<void> = Promise.resolve(),
): WatchedKind<T> & { emit(type: 'added' | 'modified' | 'deleted', object: T): void } {
  const listeners = new Set<(change: { type: 'added' | 'modified' | 'deleted'; object: T }) => void>();
  return {
    synced: () => synced,
    items: () => items,
    get: (_namespace, name) => items.find((item) => item.metadata.name === name),
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    emit(type, object) {
      for (const listener of listeners) listener({ type, object });
    },
  };
}

describe('backfillWatcher', () => {
  it("reconciles a Runtime on its event and on its Shoot's event, never twice at once, and all of them on a full pass", async () => {
    const runtimes = kind([
      runtime(),
      { ...runtime(), metadata: { ...runtime().metadata, name: 'other' }, spec: { shoot: { name: 'c-2' } } },
    ]);
    const shoots = kind<ShootObject>([]);
    let active = 0;
    let maxActive = 0;
    const kcp = fakeClient();
    const slowKcp: KcpPort = {
      ...kcp.client,
      replace: async <T extends KubeObject>(object: T) => {
        active++;
        maxActive = Math.max(maxActive, active);
        await new Promise((resolve) => setTimeout(resolve, 5));
        active--;
        return ok(object);
      },
    };
    const seen: string[] = [];
    const watcher = backfillWatcher(
      { kcp: slowKcp, garden: fakeClient().client, gardenNamespace: 'garden-p', now: () => NOW },
      { runtimes, shoots, kcpNamespace: 'kcp-system' },
      (o) => seen.push(o.runtime),
      1,
    );
    await new Promise((resolve) => setTimeout(resolve, 0)); // the caches' synced() have resolved
    runtimes.emit('modified', runtime());
    runtimes.emit('modified', runtime());
    shoots.emit('modified', {
      apiVersion: 'core.gardener.cloud/v1beta1',
      kind: 'Shoot',
      metadata: { name: 'c-2', namespace: 'garden-p' },
    });
    await watcher.idle();
    // The second event of rt came while it ran: it runs once more after, not beside it.
    expect(seen.sort()).toEqual(['kcp-system/other', 'kcp-system/rt', 'kcp-system/rt']);
    const report = await watcher.fullPass();
    expect(report.outcomes.map((o) => o.runtime).sort()).toEqual(['kcp-system/other', 'kcp-system/rt']);
    expect(maxActive).toBe(1);
    watcher.close();
  });
});

describe('backfillWatcher before the caches have synced', () => {
  it('reconciles nothing until both caches have synced, then reads the Shoot from the filled cache (a restart does not drop Ready Runtimes)', async () => {
    let syncShoots: () => void = () => {};
    const shootsSynced = new Promise<void>((resolve) => (syncShoots = resolve));
    const ready = {
      state: 'Ready',
      conditions: [
        {
          type: 'Provisioned',
          status: 'True',
          reason: 'ShootCreationCompleted',
          message: 'Shoot creation completed',
          lastTransitionTime: '2026-01-01T00:00:00Z',
          observedGeneration: 1,
        },
      ],
    };
    const live = { ...runtime(), status: ready };
    const runtimes = kind([live]);
    const shootItems: ShootObject[] = [];
    const shoots = kind<ShootObject>(shootItems, shootsSynced);
    const kcp = fakeClient();
    const seen: (string | undefined)[] = [];
    const watcher = backfillWatcher(
      { kcp: kcp.client, garden: fakeClient().client, gardenNamespace: 'garden-p', now: () => NOW },
      { runtimes, shoots, kcpNamespace: 'kcp-system' },
      (o) => seen.push(o.state),
    );
    runtimes.emit('added', live);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(kcp.calls).toEqual([]);
    shootItems.push(shootObject());
    syncShoots();
    await shootsSynced;
    await watcher.idle();
    const written = kcp.calls
      .filter((c) => c.method === 'replace')
      .map(
        (c) =>
          (c.args[0] as { status?: { conditions?: { type: string; reason: string }[] } }).status?.conditions?.find(
            (x) => x.type === 'Provisioned',
          )?.reason,
      );
    expect(written).not.toContain('Initialised');
    expect(seen).toHaveLength(1);
    watcher.close();
  });

  it('reconciles without waiting for the report and KCP caches an identity may not be allowed to list (they never sync)', async () => {
    const never = new Promise<void>(() => {});
    const seen: string[] = [];
    const watcher = backfillWatcher(
      { kcp: fakeClient().client, garden: fakeClient().client, gardenNamespace: 'garden-p', now: () => NOW },
      {
        runtimes: kind([runtime()]),
        shoots: kind<ShootObject>([]),
        kcpNamespace: 'kcp-system',
        applyReports: kind<KubeObject>([], never),
        secrets: kind<SecretObject>([], never),
        gardenerClusters: kind<GardenerClusterObject>([], never),
      },
      (o) => seen.push(o.runtime),
    );
    const passed = await Promise.race([
      watcher.fullPass(),
      new Promise<'stuck'>((resolve) => setTimeout(() => resolve('stuck'), 5_000)),
    ]);
    expect(passed === 'stuck' ? 'stuck' : passed.outcomes.map((o) => o.runtime)).toEqual(['kcp-system/rt']);
    expect(seen).toEqual(['kcp-system/rt']);
    watcher.close();
  });

  it('a deleted kubeconfig Secret or GardenerCluster reconciles its Runtime at once', async () => {
    const runtimes = kind([runtime()]);
    const secrets = kind<SecretObject>([]);
    const clusters = kind<GardenerClusterObject>([]);
    const seen: string[] = [];
    const watcher = backfillWatcher(
      { kcp: fakeClient().client, garden: fakeClient().client, gardenNamespace: 'garden-p', now: () => NOW },
      { runtimes, shoots: kind<ShootObject>([]), kcpNamespace: 'kcp-system', secrets, gardenerClusters: clusters },
      (o) => seen.push(o.runtime),
    );
    await watcher.idle();
    seen.length = 0;
    secrets.emit('deleted', {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: 'kubeconfig-rid',
        namespace: 'kcp-system',
        labels: { 'operator.kyma-project.io/cluster-name': 'rid' },
      },
    });
    await watcher.idle();
    expect(seen).toEqual(['kcp-system/rt']);
    clusters.emit('deleted', {
      apiVersion: 'infrastructuremanager.kyma-project.io/v1',
      kind: 'GardenerCluster',
      metadata: { name: 'rid', namespace: 'kcp-system' },
    });
    secrets.emit('deleted', {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: 'other',
        namespace: 'kcp-system',
        labels: { 'operator.kyma-project.io/cluster-name': 'unknown' },
      },
    });
    await watcher.idle();
    expect(seen).toEqual(['kcp-system/rt', 'kcp-system/rt']);
    watcher.close();
  });

  it('a Shoot event finds the Runtimes naming it through an index, not a scan, and follows a changed spec.shoot.name', async () => {
    const a = runtime();
    const b = { ...runtime(), metadata: { ...runtime().metadata, name: 'b' }, spec: { shoot: { name: 'c-2' } } };
    const runtimes = kind([a, b]);
    const shoots = kind<ShootObject>([]);
    const seen: string[] = [];
    const watcher = backfillWatcher(
      { kcp: fakeClient().client, garden: fakeClient().client, gardenNamespace: 'garden-p', now: () => NOW },
      { runtimes, shoots, kcpNamespace: 'kcp-system' },
      (o) => seen.push(o.runtime),
    );
    await watcher.idle();
    const items = vi.spyOn(runtimes, 'items');
    shoots.emit('modified', shootObject('c-2'));
    await watcher.idle();
    expect(seen).toEqual(['kcp-system/b']);
    expect(items).not.toHaveBeenCalled();
    // b now names c-3: a c-2 event no longer reconciles it, a c-3 event does.
    const moved = { ...b, spec: { shoot: { name: 'c-3' } } };
    runtimes.emit('modified', moved);
    await watcher.idle();
    seen.length = 0;
    shoots.emit('modified', shootObject('c-2'));
    shoots.emit('modified', shootObject('c-3'));
    await watcher.idle();
    expect(seen).toEqual(['kcp-system/b']);
    watcher.close();
  });
});

describe('backfillWatcher and the dedicated audit log', () => {
  const auditLog = (name: string, labels: Record<string, string>, assigned?: string): AuditLog => ({
    apiVersion: 'auditlogmanager.kyma-project.io/v1beta1',
    kind: 'AuditLog',
    metadata: { name, namespace: 'kcp-system', labels },
    spec: { regions: ['eu-central-1'], ...(assigned !== undefined && { assignedToRuntimeID: assigned }) },
  });

  it('waits for the pool too, then reconciles the Runtime an AuditLog is reserved for or assigned to', async () => {
    let syncPool: () => void = () => {};
    const poolSynced = new Promise<void>((resolve) => (syncPool = resolve));
    const runtimes = kind([
      runtime(),
      { ...runtime({ name: 'other', labels: { 'kyma-project.io/runtime-id': 'rid-2' } }) },
    ]);
    const auditLogs = kind<AuditLog>([], poolSynced);
    const seen: string[] = [];
    const watcher = backfillWatcher(
      { kcp: fakeClient().client, garden: fakeClient().client, gardenNamespace: 'garden-p', now: () => NOW },
      { runtimes, shoots: kind<ShootObject>([]), auditLogs, kcpNamespace: 'kcp-system' },
      (o) => seen.push(o.runtime),
    );
    runtimes.emit('added', runtime());
    await new Promise((resolve) => setTimeout(resolve, 10));
    // An empty pool before its first LIST would read as "nothing claimed": nothing runs yet.
    expect(seen).toEqual([]);
    syncPool();
    await watcher.idle();
    expect(seen).toEqual(['kcp-system/rt']);

    seen.length = 0;
    auditLogs.emit('modified', auditLog('pool-1', { 'reserved-for-runtime-id': 'rid-2' }));
    await watcher.idle();
    expect(seen).toEqual(['kcp-system/other']);
    seen.length = 0;
    auditLogs.emit('modified', auditLog('pool-2', {}, 'rid'));
    auditLogs.emit('added', auditLog('pool-3', {}));
    await watcher.idle();
    expect(seen).toEqual(['kcp-system/rt']);
    watcher.close();
  });
});
