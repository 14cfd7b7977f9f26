import { describe, expect, it, vi } from 'vitest';
import type { KubeClient, KubeObject, KubeResult } from '../adapters/kube/kube-client.js';
import { PIPELINE_ANNOTATION } from '../model/pipeline-facts.js';
import { ConfigError } from '../model/errors.js';
import {
  backfillWatcher,
  cachedLookup,
  compactSecret,
  compactShootForStatus,
  type GardenerClusterObject,
  reconcileRuntime,
  SECRET_VALUE_PRESENT,
  type SecretObject,
  StepError,
  verifyGardenNamespace,
  type Lookup,
  type RuntimeObject,
  type ShootObject,
  type WatchedKind,
  withoutManagedFields,
} from './backfill.js';
import { RUNTIME_FINALIZER } from './status.js';

const NOW = new Date('2026-01-01T00:00:00Z');
const ok = <T>(body: T): KubeResult<T> => ({ ok: true, status: 200, body });
const fail = (status: number): KubeResult<never> => ({ ok: false, status, error: { message: `status ${status}` } });

function runtime(overrides: Partial<RuntimeObject['metadata']> = {}): RuntimeObject {
  return {
    apiVersion: 'infrastructuremanager.kyma-project.io/v1',
    kind: 'Runtime',
    metadata: {
      name: 'rt',
      namespace: 'kcp-system',
      generation: 1,
      resourceVersion: '10',
      labels: { 'kyma-project.io/runtime-id': 'rid' },
      finalizers: [RUNTIME_FINALIZER],
      ...overrides,
    },
    spec: { shoot: { name: 'c-1' } },
  };
}

/** A KubeClient double: every call recorded; answers from `answer`, else 200 with the request body. */
function fakeClient(answer: (method: string, args: unknown[]) => KubeResult<unknown> | undefined = () => undefined) {
  const calls: { method: string; args: unknown[] }[] = [];
  const call =
    (method: string) =>
    async (...args: unknown[]) => {
      calls.push({ method, args });
      return answer(method, args) ?? ok(args[0] ?? {});
    };
  const client = {
    label: 'fake.kubeconfig',
    server: 'https://fake',
    get: call('get'),
    replace: call('replace'),
    patch: call('patch'),
    apply: call('apply'),
    create: call('create'),
    delete: call('delete'),
    request: call('request'),
  } as unknown as KubeClient;
  return { client, calls };
}

const noShoot: Lookup = {
  shoot: async () => undefined,
  gardenerCluster: async () => undefined,
  secret: async () => undefined,
  applyFacts: () => undefined,
};

const shootObject = (name = 'c-1'): ShootObject => ({
  apiVersion: 'core.gardener.cloud/v1beta1',
  kind: 'Shoot',
  metadata: {
    name,
    namespace: 'garden-p',
    generation: 3,
    annotations: { 'infrastructuremanager.kyma-project.io/runtime-generation': '1' },
  },
  spec: { dns: { domain: 'c-1.example.com' } },
  status: {
    observedGeneration: 3,
    lastOperation: {
      type: 'Create',
      state: 'Succeeded',
      progress: 100,
      description: 'done',
      lastUpdateTime: '2026-01-01T00:00:00Z',
    },
  },
});

/** A Shoot whose Create succeeded (Runtime generation 1 on it); no GardenerCluster, no Secret yet. */
const succeededShoot = (): Lookup => ({
  shoot: async () => shootObject(),
  gardenerCluster: async () => undefined,
  secret: async () => undefined,
  applyFacts: () => undefined,
});

describe('reconcileRuntime', () => {
  it('writes the status through /status with the resourceVersion read, and one Event per changed condition', async () => {
    const kcp = fakeClient();
    const outcome = await reconcileRuntime(
      { kcp: kcp.client, garden: fakeClient().client, gardenNamespace: 'garden-p', now: () => NOW },
      runtime(),
      noShoot,
    );
    expect(outcome).toMatchObject({ state: 'Pending', statusWritten: true, errors: [] });
    const write = kcp.calls.find((c) => c.method === 'replace');
    expect(write?.args[1]).toBe('status');
    expect((write?.args[0] as KubeObject).metadata.resourceVersion).toBe('10');
    expect(outcome.events).toBe(kcp.calls.filter((c) => c.method === 'create').length);
    expect(outcome.events).toBeGreaterThan(0);
  });

  it('writes the generator’s facts from the Runtime’s annotation and the applier’s from its report into the status', async () => {
    const written = async (read: RuntimeObject, lookup: Lookup) => {
      const kcp = fakeClient();
      await reconcileRuntime(
        { kcp: kcp.client, garden: fakeClient().client, gardenNamespace: 'garden-p', now: () => NOW },
        read,
        lookup,
      );
      const status = (
        kcp.calls.find((c) => c.method === 'replace')?.args[0] as {
          status: { state: string; conditions: { type: string; reason: string; message: string }[] };
        }
      ).status;
      return { state: status.state, provisioned: status.conditions.find((c) => c.type === 'Provisioned') };
    };
    const unconvertible = runtime({
      annotations: {
        [PIPELINE_ANNOTATION]: JSON.stringify({ generation: 1, conversionError: 'metadata.labels: region missing' }),
      },
    });
    expect(await written(unconvertible, noShoot)).toEqual({
      state: 'Failed',
      provisioned: expect.objectContaining({
        reason: 'ConversionErr',
        message: 'Runtime conversion error metadata.labels: region missing',
      }),
    });
    const noSeed: Lookup = {
      ...noShoot,
      applyFacts: (shoot) =>
        shoot === 'c-1' ? { generation: 1, seedNotFound: 'Cannot find available seed for the region x.' } : undefined,
    };
    expect(await written(runtime(), noSeed)).toEqual({
      state: 'Failed',
      provisioned: expect.objectContaining({
        reason: 'SeedNotFound',
        message: 'Cannot find available seed for the region x.',
      }),
    });
    // About an older generation than KEB's newest change: Pending, not Failed.
    expect((await written(runtime({ generation: 2 }), noSeed)).state).toBe('Pending');
  });

  it('on a 409 reads the Runtime again and writes once more; a second 409 leaves it to the next pass', async () => {
    let puts = 0;
    const kcp = fakeClient((method) => {
      if (method === 'replace') return ++puts <= 2 ? fail(409) : undefined;
      if (method === 'get') return ok(runtime({ resourceVersion: '11' }));
      return undefined;
    });
    const outcome = await reconcileRuntime(
      { kcp: kcp.client, garden: fakeClient().client, gardenNamespace: 'garden-p', now: () => NOW },
      runtime(),
      noShoot,
    );
    expect(puts).toBe(2);
    expect(
      kcp.calls.filter((c) => c.method === 'replace').map((c) => (c.args[0] as KubeObject).metadata.resourceVersion),
    ).toEqual(['10', '11']);
    expect(outcome).toMatchObject({ statusWritten: false, conflict: true, errors: [] });
  });

  it('adds the finalizer with a merge patch carrying the resourceVersion', async () => {
    const kcp = fakeClient((method) => (method === 'patch' ? ok(runtime({ resourceVersion: '11' })) : undefined));
    const outcome = await reconcileRuntime(
      { kcp: kcp.client, garden: fakeClient().client, gardenNamespace: 'garden-p', now: () => NOW },
      runtime({ finalizers: [] }),
      noShoot,
    );
    expect(outcome.finalizer).toBe('added');
    // The status write carries the resourceVersion the patch answered with.
    expect((kcp.calls.find((c) => c.method === 'replace')?.args[0] as KubeObject).metadata.resourceVersion).toBe('11');
    expect(kcp.calls.find((c) => c.method === 'patch')?.args[1]).toEqual({
      metadata: { finalizers: [RUNTIME_FINALIZER], resourceVersion: '10' },
    });
  });

  it('keeps the finalizer of a deleted Runtime while a GET still finds the Shoot, releases it once Gardener answers 404', async () => {
    const shoot: ShootObject = {
      apiVersion: 'core.gardener.cloud/v1beta1',
      kind: 'Shoot',
      metadata: { name: 'c-1', namespace: 'garden-p', deletionTimestamp: '2026-01-01T00:00:00Z' },
    };
    const deleting = runtime({ deletionTimestamp: '2026-01-01T00:00:00Z' });
    const kcp = fakeClient();
    const stillThere = fakeClient((method) => (method === 'get' ? ok(shoot) : undefined));
    const held = await reconcileRuntime(
      { kcp: kcp.client, garden: stillThere.client, gardenNamespace: 'garden-p', now: () => NOW },
      deleting,
      noShoot,
    );
    expect(held).toMatchObject({ state: 'Terminating', errors: [] });
    expect(held.finalizer).toBeUndefined();

    const gone = fakeClient((method) => (method === 'get' ? fail(404) : undefined));
    const kcp2 = fakeClient();
    const released = await reconcileRuntime(
      { kcp: kcp2.client, garden: gone.client, gardenNamespace: 'garden-p', now: () => NOW },
      deleting,
      noShoot,
    );
    expect(released.finalizer).toBe('released');
    const methods = kcp2.calls.map((c) => c.method);
    // Status first, then the GardenerCluster and Secret, the finalizer last.
    expect(methods.indexOf('replace')).toBeLessThan(methods.lastIndexOf('delete'));
    expect(methods.at(-1)).toBe('patch');
    expect(kcp2.calls.at(-1)?.args[1]).toMatchObject({ metadata: { finalizers: [] } });
  });

  it('one Event per changed KIM condition only: a first status makes one Event (Provisioned), not one per kimops condition', async () => {
    const kcp = fakeClient();
    const outcome = await reconcileRuntime(
      { kcp: kcp.client, garden: fakeClient().client, gardenNamespace: 'garden-p', now: () => NOW },
      runtime(),
      noShoot,
    );
    const events = kcp.calls.filter((c) => c.method === 'create').map((c) => (c.args[0] as { reason?: string }).reason);
    expect(events).toEqual(['Initialised']);
    expect(outcome.events).toBe(1);
  });

  it('a 409 on the GardenerCluster apply does not keep the status from being written, and the Runtime is not Ready', async () => {
    const kcp = fakeClient((method, args) =>
      method === 'apply' && (args[0] as KubeObject).kind === 'GardenerCluster' ? fail(409) : undefined,
    );
    const outcome = await reconcileRuntime(
      { kcp: kcp.client, garden: fakeClient().client, gardenNamespace: 'garden-p', now: () => NOW },
      runtime(),
      succeededShoot(),
    );
    expect(outcome).toMatchObject({ statusWritten: true, state: 'Pending' });
    const written = kcp.calls.find((c) => c.method === 'replace')?.args[0] as {
      status?: { conditions?: { type: string; reason: string }[] };
    };
    expect(written.status?.conditions?.find((c) => c.type === 'KubeconfigReady')).toMatchObject({
      reason: 'GardenerClusterCRCreated',
    });
    expect(outcome.errors).toHaveLength(1);
    expect(outcome.errors[0]).toContain('apply GardenerCluster kcp-system/rid');
    expect(outcome.errors[0]).toContain("KIM's GardenerCluster controller is off");
    // kimops takes over the fields it sets (KIM's manager owns them on a GardenerCluster KIM created).
    expect(kcp.calls.find((c) => c.method === 'apply')?.args[2]).toEqual({ force: true });
  });

  it('a new generation shows Pending even when the kubeconfig steps fail (adminkubeconfig unreachable)', async () => {
    const kcp = fakeClient();
    const garden = fakeClient((method) => (method === 'request' ? fail(0) : undefined));
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
    const bumped = { ...runtime({ generation: 2 }), status: ready };
    const outcome = await reconcileRuntime(
      { kcp: kcp.client, garden: garden.client, gardenNamespace: 'garden-p', now: () => NOW },
      bumped,
      succeededShoot(),
    );
    expect(outcome).toMatchObject({ statusWritten: true, state: 'Pending', unreachable: true });
    expect(outcome.errors[0]).toContain('adminkubeconfig of Shoot garden-p/c-1');
  });

  it('creates the Secret and writes Ready in the same pass; a failed Secret read keeps a Ready Runtime Ready', async () => {
    const kcp = fakeClient();
    const garden = fakeClient((method) =>
      method === 'request'
        ? ok({ status: { kubeconfig: Buffer.from('apiVersion: v1\nkind: Config\n').toString('base64') } })
        : undefined,
    );
    const outcome = await reconcileRuntime(
      { kcp: kcp.client, garden: garden.client, gardenNamespace: 'garden-p', now: () => NOW },
      runtime(),
      succeededShoot(),
    );
    expect(outcome).toMatchObject({ statusWritten: true, state: 'Ready', kubeconfig: 'created', errors: [] });

    const readyRuntime = {
      ...runtime(),
      status: (kcp.calls.filter((c) => c.method === 'replace').at(-1)?.args[0] as RuntimeObject).status,
    };
    const broken: Lookup = {
      ...succeededShoot(),
      secret: async () =>
        Promise.reject(new StepError('read Secret kcp-system/kubeconfig-rid on https://fake: status 500', false)),
    };
    const kcp2 = fakeClient();
    const again = await reconcileRuntime(
      { kcp: kcp2.client, garden: fakeClient().client, gardenNamespace: 'garden-p', now: () => NOW },
      readyRuntime,
      broken,
    );
    expect(again.state).toBe('Ready');
    expect(kcp2.calls.filter((c) => c.method === 'replace')).toHaveLength(0);
  });

  it('names an unreachable API as such', async () => {
    const kcp = fakeClient((method) => (method === 'replace' ? fail(0) : undefined));
    const outcome = await reconcileRuntime(
      { kcp: kcp.client, garden: fakeClient().client, gardenNamespace: 'garden-p', now: () => NOW },
      runtime(),
      noShoot,
    );
    expect(outcome.unreachable).toBe(true);
    expect(outcome.errors[0]).toContain(
      'write status of Runtime kcp-system/rt on https://fake (kubeconfig fake.kubeconfig)',
    );
  });
});

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
    const slowKcp = {
      ...kcp.client,
      label: 'fake.kubeconfig',
      server: 'https://fake',
      replace: async (...args: unknown[]) => {
        active++;
        maxActive = Math.max(maxActive, active);
        await new Promise((resolve) => setTimeout(resolve, 5));
        active--;
        return ok(args[0]);
      },
    } as unknown as KubeClient;
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

  it('compactShootForStatus keeps metadata without managedFields, the status and the DNS domain: what the status mapping reads', () => {
    const listed = {
      apiVersion: 'core.gardener.cloud/v1beta1',
      kind: 'Shoot',
      metadata: {
        name: 'c-1',
        namespace: 'garden-p',
        generation: 4,
        annotations: { a: 'b' },
        managedFields: [{ manager: 'kimops' }],
      },
      spec: { region: 'eu-west-1', dns: { domain: 'c-1.example.com' }, provider: { workers: [] } },
      status: { observedGeneration: 4, lastOperation: { type: 'Reconcile', state: 'Succeeded' } },
    };
    expect(compactShootForStatus(listed as unknown as KubeObject)).toEqual({
      apiVersion: 'core.gardener.cloud/v1beta1',
      kind: 'Shoot',
      metadata: { name: 'c-1', namespace: 'garden-p', generation: 4, annotations: { a: 'b' } },
      spec: { dns: { domain: 'c-1.example.com' } },
      status: { observedGeneration: 4, lastOperation: { type: 'Reconcile', state: 'Succeeded' } },
    });
    expect(
      compactShootForStatus({ apiVersion: 'core.gardener.cloud/v1beta1', kind: 'Shoot', metadata: { name: 'new' } }),
    ).toEqual({ apiVersion: 'core.gardener.cloud/v1beta1', kind: 'Shoot', metadata: { name: 'new' } });
    const runtimeLike = { apiVersion: 'v1', kind: 'X', metadata: { name: 'r', managedFields: [] }, spec: { a: 1 } };
    expect(withoutManagedFields(runtimeLike as unknown as KubeObject)).toEqual({
      apiVersion: 'v1',
      kind: 'X',
      metadata: { name: 'r' },
      spec: { a: 1 },
    });
  });

  it('compactSecret keeps the metadata and which keys hold a value, not the kubeconfig', () => {
    const listed = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: 'kubeconfig-rid',
        namespace: 'kcp-system',
        managedFields: [{ manager: 'kimops' }],
        annotations: { 'operator.kyma-project.io/last-sync': 't' },
      },
      data: { config: 'c2VjcmV0', empty: '' },
    };
    const compact = compactSecret(listed as unknown as KubeObject);
    expect(compact).toEqual({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: 'kubeconfig-rid',
        namespace: 'kcp-system',
        annotations: { 'operator.kyma-project.io/last-sync': 't' },
      },
      data: { config: SECRET_VALUE_PRESENT, empty: '' },
    });
    expect(JSON.stringify(compact)).not.toContain('c2VjcmV0');
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

describe('verifyGardenNamespace', () => {
  const landscape = { name: 'dev', project: 'wrong' };
  const context = (answer: (method: string, args: unknown[]) => KubeResult<unknown> | undefined) => ({
    kcp: fakeClient().client,
    garden: fakeClient(answer).client,
    gardenNamespace: 'garden-wrong',
  });

  it('refuses a Garden namespace that does not exist with a ConfigError naming the landscape, the project and the fix', async () => {
    const refused = verifyGardenNamespace(
      context(() => fail(404)),
      landscape,
    );
    await expect(refused).rejects.toBeInstanceOf(ConfigError);
    await expect(refused).rejects.toThrow(
      /landscape dev: gardener.project: namespace garden-wrong \(project wrong\) does not exist .*Set gardener.project/,
    );
  });

  it('passes an existing namespace; without permission to read Namespaces, checks the Project', async () => {
    await expect(
      verifyGardenNamespace(
        context(() => undefined),
        landscape,
      ),
    ).resolves.toBeUndefined();
    const forbidden = (project: KubeResult<unknown>) => (method: string, args: unknown[]) =>
      (args[0] as { kind: string }).kind === 'Namespace' ? fail(403) : project;
    await expect(
      verifyGardenNamespace(
        context(forbidden(ok({ metadata: { name: 'wrong' }, spec: { namespace: 'garden-wrong' } }))),
        landscape,
      ),
    ).resolves.toBeUndefined();
    await expect(verifyGardenNamespace(context(forbidden(fail(404))), landscape)).rejects.toThrow(
      /Project wrong does not exist/,
    );
    await expect(
      verifyGardenNamespace(
        context(forbidden(ok({ metadata: { name: 'wrong' }, spec: { namespace: 'garden-other' } }))),
        landscape,
      ),
    ).rejects.toThrow(/has namespace garden-other/);
    // Neither readable: a ConfigError (what the CLI reports as such), not a StepError.
    await expect(verifyGardenNamespace(context(forbidden(fail(403))), landscape)).rejects.toBeInstanceOf(ConfigError);
  });
});
