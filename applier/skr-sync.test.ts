import { describe, expect, it } from 'vitest';
import type { ObjectRef } from '../adapters/kube/resources.js';
import { APPLIED_TREE_ANNOTATION, LABEL_RECONCILER_MANAGED_BY, MANAGED_BY_KIM } from '../model/contract.js';
import type { KubeObject } from '../model/kube-object.js';
import type { KubeResult } from '../model/kube-result.js';
import type { Shoot } from '../model/shoot.js';
import { testShoot } from '../test/helpers/test-shoot.js';
import type { PlanEntry, SyncPlan } from './plan.js';
import type { SkrCandidate, SkrObject } from './skr-plan.js';
import type { SkrApi, SkrConnect } from './skr-connect.js';
import { skrCandidates, syncSkrs, type SkrSyncInput } from './skr-sync.js';
import { emptySyncResult } from './sync.js';

const KIM = { [LABEL_RECONCILER_MANAGED_BY]: MANAGED_BY_KIM };
const OIDC_LABEL = { 'operator.kyma-project.io/managed-by': MANAGED_BY_KIM };

const binding = (name: string, user: string): KubeObject => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRoleBinding',
  metadata: { name, labels: KIM },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
  subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
});

const SKR: SkrObject[] = [
  {
    path: 'shoots/c-1/skr/clusterrolebinding-admin-a.yaml',
    object: binding('admin-a', 'a@example.com'),
  },
  {
    path: 'shoots/c-1/skr/configmap-kyma-provisioning-info.yaml',
    object: {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'kyma-provisioning-info', namespace: 'kyma-system', labels: KIM },
      data: { details: 'region: eu-central-1\n' },
    },
  },
  {
    path: 'shoots/c-1/skr/namespace-kyma-system.yaml',
    object: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kyma-system' } },
  },
  {
    path: 'shoots/c-1/skr/openidconnect-kyma-oidc-0.yaml',
    object: {
      apiVersion: 'authentication.gardener.cloud/v1alpha1',
      kind: 'OpenIDConnect',
      metadata: { name: 'kyma-oidc-0', labels: OIDC_LABEL },
      spec: { issuerURL: 'https://issuer', clientID: 'c', usernameClaim: 'sub' },
    },
  },
];

/** A reconciled live Shoot `name`, applied from `t2`, on Seed `aws-eu1`. */
function live(name: string): Shoot {
  const shoot = testShoot();
  shoot.metadata.name = name;
  shoot.metadata.generation = 1;
  shoot.metadata.annotations = { [APPLIED_TREE_ANNOTATION]: 't2' };
  shoot.spec.seedName = 'aws-eu1';
  shoot.status = {
    observedGeneration: 1,
    lastOperation: { type: 'Create', state: 'Succeeded', progress: 100, lastUpdateTime: '2026-07-01T10:00:00Z' },
  };
  return shoot;
}

const due = (name: string): SkrCandidate => ({
  shoot: name,
  tree: 't2',
  live: live(name),
  hasSkr: true,
  written: 'nothing',
});

const ok = <T>(body: T): KubeResult<T> => ({ ok: true, status: 200, body });
const refused = (status: number, message: string): KubeResult<never> => ({ ok: false, status, error: { message } });

/** One SKR per Shoot, recording its requests; `failures` by "VERB Kind/name" answer with a refusal. */
function fakeSkrs(
  listed: Record<string, KubeObject[]> = {},
  failures: Record<string, { status: number; message: string }> = {},
) {
  const calls: Record<string, string[]> = {};
  const closed: string[] = [];
  const connect: SkrConnect = (namespace, shoot) => {
    if (failures[`CONNECT ${shoot}`])
      return Promise.resolve({ ok: false, message: `${failures[`CONNECT ${shoot}`]?.message} (${namespace})` });
    const log = (calls[shoot] = [] as string[]);
    const answer = <T>(call: string, body: T): Promise<KubeResult<T>> => {
      log.push(call);
      const failure = failures[call];
      return Promise.resolve(failure ? refused(failure.status, failure.message) : ok(body));
    };
    const client: SkrApi = {
      get: <T extends KubeObject>(ref: ObjectRef) =>
        answer(`GET ${ref.kind}/${ref.name ?? ''}`, {
          apiVersion: 'v1',
          kind: ref.kind,
          metadata: { name: ref.name },
        } as T),
      apply: <T extends KubeObject>(object: T, manager: string, options?: { force?: boolean }) => {
        if (manager !== 'kimops' || !options?.force) throw new Error('applies as kimops, forced');
        return answer(`APPLY ${object.kind}/${object.metadata.name}`, object);
      },
      delete: (ref: ObjectRef) => answer(`DELETE ${ref.kind}/${ref.name ?? ''}`, {}),
      listAll: <T extends KubeObject>(ref: Omit<ObjectRef, 'name'>, options?: { labelSelector?: string }) => {
        const call = `LIST ${ref.kind}?${options?.labelSelector ?? ''}`;
        log.push(call);
        const failure = failures[call];
        return Promise.resolve(
          failure
            ? { ok: false as const, status: failure.status, message: failure.message }
            : { ok: true as const, items: (listed[ref.kind] ?? []) as T[], resourceVersion: '1' },
        );
      },
      close: () => closed.push(shoot),
    };
    return Promise.resolve({ ok: true, client });
  };
  return { connect, calls, closed };
}

/** The Garden: one Seed `aws-eu1` in eu-west-1 unless `seeds` says otherwise. */
function fakeGarden(
  failures: Record<string, { status: number; message: string }> = {},
  seeds: Record<string, string> = { 'aws-eu1': 'eu-west-1' },
) {
  const calls: string[] = [];
  const seedReads: SkrSyncInput['seeds'] = {
    listAll: <T extends KubeObject>(ref: Omit<ObjectRef, 'name'>) => {
      calls.push(`LIST ${ref.kind}`);
      const failure = failures[`LIST ${ref.kind}`];
      if (failure) return Promise.resolve({ ok: false as const, status: failure.status, message: failure.message });
      const items = Object.entries(seeds).map(([name, region]) => ({
        metadata: { name },
        spec: { provider: { region } },
      }));
      return Promise.resolve({ ok: true as const, items: items as unknown as T[], resourceVersion: '1' });
    },
  };
  const garden: SkrSyncInput['garden'] = {
    patch: <T extends KubeObject>(ref: ObjectRef, patch: unknown) => {
      calls.push(`PATCH ${ref.kind}/${ref.name ?? ''} ${JSON.stringify(patch)}`);
      const failure = failures[`PATCH ${ref.kind}/${ref.name ?? ''}`];
      return Promise.resolve(failure ? refused(failure.status, failure.message) : ok({} as T));
    },
  };
  return { garden, seeds: seedReads, calls };
}

function input(
  candidates: SkrCandidate[],
  skrs: ReturnType<typeof fakeSkrs>,
  garden = fakeGarden(),
  objects: ReadonlyMap<string, readonly SkrObject[]> = new Map(candidates.map((c) => [c.shoot, SKR])),
): SkrSyncInput {
  return {
    candidates,
    read: (names) => Promise.resolve(new Map(names.map((name) => [name, objects.get(name) ?? []]))),
    garden: garden.garden,
    seeds: garden.seeds,
    namespace: 'garden-kyma-dev',
    connect: skrs.connect,
    fieldManager: 'kimops',
    concurrency: 2,
  };
}

describe('syncSkrs with the registry caches’ cleanup', () => {
  const cleanup = (order: string[], failing = false): NonNullable<SkrSyncInput['registryCache']> => ({
    garden: {
      listAll: <T extends KubeObject>(_ref: Omit<ObjectRef, 'name'>, options?: { labelSelector?: string }) => {
        order.push(`LIST Secret?${options?.labelSelector ?? ''}`);
        return Promise.resolve(
          failing
            ? { ok: false as const, status: 403, message: 'forbidden' }
            : { ok: true as const, items: [] as T[], resourceVersion: '1' },
        );
      },
      delete: () => Promise.resolve(ok({})),
      patch: <T extends KubeObject>() => Promise.resolve(ok({} as T)),
    },
    stubs: (names) => Promise.resolve(new Map(names.map((name) => [name, []]))),
  });
  const shootWithRuntime = (): SkrCandidate => {
    const candidate = due('c-1');
    (candidate.live as Shoot).metadata.annotations = {
      ...(candidate.live as Shoot).metadata.annotations,
      'infrastructuremanager.kyma-project.io/runtime-id': 'rt-1',
    };
    return candidate;
  };

  it('lists the Runtime’s garden Secrets after the Namespace, before kyma-provisioning-info', async () => {
    const skrs = fakeSkrs();
    const order: string[] = [];
    const result = await syncSkrs({ ...input([shootWithRuntime()], skrs), registryCache: cleanup(order) });
    expect(result.failed).toEqual([]);
    expect(order).toEqual([
      'LIST Secret?kyma-project.io/runtime-id=rt-1,app.kubernetes.io/managed-by=infrastructure-manager',
    ]);
    const calls = skrs.calls['c-1'] ?? [];
    expect(calls.indexOf('APPLY Namespace/kyma-system')).toBeLessThan(
      calls.indexOf('APPLY ConfigMap/kyma-provisioning-info'),
    );
  });

  it('stops at the step registry-cache with KIM’s message when the Garden refuses', async () => {
    const skrs = fakeSkrs();
    const result = await syncSkrs({ ...input([shootWithRuntime()], skrs), registryCache: cleanup([], true) });
    expect(result.failed.map((f) => f.error)).toEqual([
      { step: 'registry-cache', message: 'failed to list garden secrets: forbidden', tree: 't2' },
    ]);
    expect(skrs.calls['c-1']).toEqual(['APPLY Namespace/kyma-system']);
  });
});

describe('syncSkrs', () => {
  it('configures a due SKR in KIM’s order, prunes KIM’s leftovers, closes its client, then records the tree', async () => {
    const skrs = fakeSkrs({
      OpenIDConnect: [{ apiVersion: '', kind: '', metadata: { name: 'kyma-oidc-1', labels: OIDC_LABEL } }],
      ClusterRoleBinding: [
        binding('admin-a', 'a@example.com'),
        binding('admin-k8x2q', 'a@example.com'),
        binding('admin-b', 'gone@example.com'),
      ],
    });
    const garden = fakeGarden();
    const result = await syncSkrs(input([due('c-1')], skrs, garden));
    expect(skrs.calls['c-1']).toEqual([
      'APPLY Namespace/kyma-system',
      'APPLY ConfigMap/kyma-provisioning-info',
      'APPLY OpenIDConnect/kyma-oidc-0',
      'LIST OpenIDConnect?operator.kyma-project.io/managed-by=infrastructure-manager',
      'DELETE OpenIDConnect/kyma-oidc-1',
      'APPLY ClusterRoleBinding/admin-a',
      'LIST ClusterRoleBinding?reconciler.kyma-project.io/managed-by=infrastructure-manager',
      'DELETE ClusterRoleBinding/admin-k8x2q',
      'DELETE ClusterRoleBinding/admin-b',
    ]);
    expect(skrs.closed).toEqual(['c-1']);
    expect(garden.calls).toEqual([
      'LIST Seed',
      'PATCH Shoot/c-1 {"metadata":{"annotations":{"kimops.kyma-project.io/skr-applied-tree":"t2"}}}',
    ]);
    expect(result.failed).toEqual([]);
    expect(result.configured).toEqual([
      {
        shoot: 'c-1',
        lines: [
          'applied Namespace kyma-system',
          'applied ConfigMap kyma-system/kyma-provisioning-info',
          'applied OpenIDConnect kyma-oidc-0',
          'deleted OpenIDConnect kyma-oidc-1: not in Git',
          'applied ClusterRoleBinding admin-a',
          'deleted ClusterRoleBinding admin-k8x2q: not in Git',
          'deleted ClusterRoleBinding admin-b: not in Git',
          'recorded kimops.kyma-project.io/skr-applied-tree t2 on Shoot c-1',
        ],
      },
    ]);
  });

  it('fills kyma-provisioning-info with the Seed’s region and the last reconcile, listing the Seeds once', async () => {
    const applied: KubeObject[] = [];
    const skrs = fakeSkrs();
    const connect: SkrConnect = async (namespace, shoot) => {
      const connected = await skrs.connect(namespace, shoot);
      if (!connected.ok) return connected;
      const client = connected.client;
      return {
        ok: true,
        client: {
          ...client,
          apply: (object, manager, options) => {
            applied.push(object);
            return client.apply(object, manager, options);
          },
        },
      };
    };
    const garden = fakeGarden();
    await syncSkrs({ ...input([due('c-1'), due('c-2')], skrs, garden), connect });
    const details = applied
      .filter((o) => o.kind === 'ConfigMap')
      .map((o) => (o.data as Record<string, string>).details);
    expect(details).toEqual([
      'lastReconcileTime: "2026-07-01T10:00:00Z"\nregion: eu-central-1\nseedRegion: eu-west-1\n',
      'lastReconcileTime: "2026-07-01T10:00:00Z"\nregion: eu-central-1\nseedRegion: eu-west-1\n',
    ]);
    expect(garden.calls.filter((c) => c.startsWith('LIST'))).toEqual(['LIST Seed']);
  });

  it('asks nothing of a Shoot that is not due, or whose folder has no readable skr/ objects', async () => {
    const skrs = fakeSkrs();
    const garden = fakeGarden();
    const result = await syncSkrs(
      input([{ ...due('c-1'), written: 'shoot' }, due('c-2')], skrs, garden, new Map([['c-2', []]])),
    );
    expect(skrs.calls).toEqual({});
    expect(garden.calls).toEqual([]);
    expect(result).toEqual({ configured: [], failed: [], unrecorded: [] });
  });

  it.each<[string, Record<string, { status: number; message: string }>, string, string, string[]]>([
    [
      'no client (adminkubeconfig refused)',
      { 'CONNECT c-1': { status: 403, message: 'request adminkubeconfig of Shoot garden-kyma-dev/c-1: 403' } },
      'client',
      'request adminkubeconfig of Shoot garden-kyma-dev/c-1: 403 (garden-kyma-dev)',
      [],
    ],
    [
      'the namespace refused',
      { 'APPLY Namespace/kyma-system': { status: 403, message: 'forbidden' } },
      'namespace',
      'apply Namespace kyma-system: 403: forbidden',
      ['APPLY Namespace/kyma-system'],
    ],
    [
      'an invalid OpenIDConnect',
      { 'APPLY OpenIDConnect/kyma-oidc-0': { status: 422, message: 'spec.usernameClaim: Required value' } },
      'oidc',
      'apply OpenIDConnect kyma-oidc-0: 422: spec.usernameClaim: Required value',
      ['APPLY Namespace/kyma-system', 'APPLY ConfigMap/kyma-provisioning-info', 'APPLY OpenIDConnect/kyma-oidc-0'],
    ],
    [
      'the bindings not listable',
      {
        'LIST ClusterRoleBinding?reconciler.kyma-project.io/managed-by=infrastructure-manager': {
          status: 403,
          message: 'list clusterrolebindings: 403',
        },
      },
      'administrators',
      'list clusterrolebindings: 403',
      [
        'APPLY Namespace/kyma-system',
        'APPLY ConfigMap/kyma-provisioning-info',
        'APPLY OpenIDConnect/kyma-oidc-0',
        'LIST OpenIDConnect?operator.kyma-project.io/managed-by=infrastructure-manager',
        'APPLY ClusterRoleBinding/admin-a',
        'LIST ClusterRoleBinding?reconciler.kyma-project.io/managed-by=infrastructure-manager',
      ],
    ],
  ])(
    'stops at the failing step (%s), records nothing and reports the step',
    async (_what, failures, step, message, calls) => {
      const skrs = fakeSkrs({}, failures);
      const garden = fakeGarden();
      const result = await syncSkrs(input([due('c-1')], skrs, garden));
      expect(result.failed.map((f) => [f.shoot, f.error])).toEqual([['c-1', { step, message, tree: 't2' }]]);
      expect(skrs.calls['c-1'] ?? []).toEqual(calls);
      expect(garden.calls.filter((c) => c.startsWith('PATCH'))).toEqual([]);
      expect(skrs.closed).toEqual(step === 'client' ? [] : ['c-1']);
    },
  );

  it('fails kyma-provisioning-info, after the namespace, when the Shoot’s Seed cannot be read', async () => {
    const skrs = fakeSkrs();
    const gone = await syncSkrs(input([due('c-1')], skrs, fakeGarden({}, {})));
    expect(gone.failed[0]?.error).toEqual({
      step: 'provisioning-info',
      message: 'read Seed aws-eu1: not found',
      tree: 't2',
    });
    expect(skrs.calls['c-1']).toEqual(['APPLY Namespace/kyma-system']);
    const refusedList = fakeGarden({ 'LIST Seed': { status: 403, message: 'list seeds: 403 Forbidden' } });
    const unreadable = await syncSkrs(input([due('c-2')], skrs, refusedList));
    expect(unreadable.failed[0]?.error.message).toBe('read Seed aws-eu1: list seeds: 403 Forbidden');
  });

  it('takes a missing OpenIDConnect API for nothing to prune when Git holds no OpenIDConnect (the extension is off)', async () => {
    const skrs = fakeSkrs(
      {},
      {
        'LIST OpenIDConnect?operator.kyma-project.io/managed-by=infrastructure-manager': {
          status: 404,
          message: 'the server could not find the requested resource',
        },
      },
    );
    const withoutOidc = SKR.filter((o) => o.object.kind !== 'OpenIDConnect');
    const result = await syncSkrs(input([due('c-1')], skrs, fakeGarden(), new Map([['c-1', withoutOidc]])));
    expect(result.failed).toEqual([]);
    expect(result.configured.map((c) => c.shoot)).toEqual(['c-1']);
  });

  it('reports an SKR API server that gives no answer as the client step, whatever step it was at', async () => {
    const skrs = fakeSkrs({}, { 'APPLY Namespace/kyma-system': { status: 0, message: 'connect ECONNREFUSED' } });
    const result = await syncSkrs(input([due('c-1')], skrs));
    expect(result.failed[0]?.error).toMatchObject({ step: 'client', tree: 't2' });
    expect(result.failed[0]?.error.message).toContain('apply Namespace kyma-system: unreachable: connect ECONNREFUSED');
    expect(skrs.closed).toEqual(['c-1']);
  });

  it('keeps one Shoot’s failure from the others', async () => {
    const skrs = fakeSkrs({}, { 'CONNECT c-1': { status: 0, message: 'unreachable' } });
    const result = await syncSkrs(input([due('c-1'), due('c-2'), due('c-3')], skrs));
    expect(result.failed.map((f) => f.shoot)).toEqual(['c-1']);
    expect(result.configured.map((c) => c.shoot)).toEqual(['c-2', 'c-3']);
  });

  it('says so when the annotation cannot be written: the next sync configures the SKR again', async () => {
    const garden = fakeGarden({ 'PATCH Shoot/c-1': { status: 403, message: 'forbidden' } });
    const result = await syncSkrs(input([due('c-1')], fakeSkrs(), garden));
    expect(result.configured).toEqual([]);
    expect(result.failed).toEqual([]);
    expect(result.unrecorded.map((u) => [u.shoot, u.message])).toEqual([
      [
        'c-1',
        'annotate Shoot c-1 with kimops.kyma-project.io/skr-applied-tree: 403: forbidden; the next sync configures its cluster again',
      ],
    ]);
  });
});

describe('skrCandidates', () => {
  const entry = (shoot: string, over: Partial<PlanEntry> = {}): PlanEntry => ({
    shoot,
    action: 'unchanged',
    reasons: [],
    object: { kind: 'Shoot', name: shoot, action: 'unchanged', changes: [] },
    companions: [],
    skr: true,
    ...over,
  });

  it('tells what the sync wrote: the spec, only the markers, or nothing (a failed write included)', () => {
    const plan: SyncPlan = {
      commit: 'c0ffee',
      fieldManager: 'kimops',
      counts: {
        create: 0,
        update: 2,
        'take-over': 1,
        delete: 0,
        unchanged: 2,
        blocked: 0,
        drifted: 0,
        shadow: 0,
        'hand-back': 0,
      },
      problems: [],
      entries: [
        entry('spec', { action: 'update', object: { kind: 'Shoot', name: 'spec', action: 'update', changes: [] } }),
        entry('taken', { action: 'take-over' }),
        entry('markers', { moveMarkers: { [APPLIED_TREE_ANNOTATION]: 't2' } }),
        entry('failed', { action: 'update', object: { kind: 'Shoot', name: 'failed', action: 'update', changes: [] } }),
        entry('old', { skr: undefined }),
      ],
    };
    const result = emptySyncResult('c0ffee');
    for (const shoot of ['spec', 'taken', 'markers']) result.applied.push({ shoot, action: 'update', lines: [] });
    result.failed.push({ shoot: 'failed', action: 'update', lines: [], status: 422 });
    const liveShoots = new Map(['spec', 'markers'].map((name) => [name, live(name)]));
    const candidates = skrCandidates(plan, result, liveShoots, new Map([['markers', 't3']]));
    expect(candidates.map((c) => [c.shoot, c.written, c.hasSkr, c.tree, c.live?.metadata.name])).toEqual([
      ['spec', 'shoot', true, undefined, 'spec'],
      ['taken', 'shoot', true, undefined, undefined],
      ['markers', 'markers', true, 't3', 'markers'],
      ['failed', 'nothing', true, undefined, undefined],
      ['old', 'nothing', false, undefined, undefined],
    ]);
  });
});
