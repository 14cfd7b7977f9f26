import { describe, expect, it } from 'vitest';
import type { KubeResult } from '../model/kube-result.js';
import type { KubeObject } from '../model/kube-object.js';
import type { ObjectRef } from '../adapters/kube/resources.js';
import { testShoot } from '../test/helpers/test-shoot.js';
import type { ConfigMap, Shoot } from '../model/shoot.js';
import type { DesiredShoot } from './desired.js';
import { planSync } from './plan.js';
import {
  OWNERSHIP_LABEL,
  OWNERSHIP_VALUE,
  COMPANION_OF_LABEL,
  DELETION_CONFIRMATION_ANNOTATION,
} from '../model/contract.js';
import { executePlan, orphanedCompanions } from './sync.js';
import type { GardenWriter } from './garden-writer.js';
import { withLeader } from '../rules/leader.js';

const NS = 'garden-kyma-dev';
const POLICY = { maxShoots: 1, maxPercent: 100 };

function shoot(name: string, labels: Record<string, string> = {}): Shoot {
  const s = testShoot();
  s.metadata = { ...s.metadata, name, namespace: NS, labels: { ...s.metadata.labels, ...labels } };
  return s;
}
const owned = (name: string) => shoot(name, { [OWNERSHIP_LABEL]: OWNERSHIP_VALUE });
const configMap = (name: string, of?: string): ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: {
    name,
    namespace: NS,
    ...(of ? { labels: { [OWNERSHIP_LABEL]: OWNERSHIP_VALUE, [COMPANION_OF_LABEL]: of } } : {}),
  },
  data: { k: 'v' },
});
const want = (s: Shoot, companions: ConfigMap[] = []): DesiredShoot => ({
  name: s.metadata.name,
  path: `shoots/${s.metadata.name}/shoot.yaml`,
  shoot: s,
  companions: companions.map((object) => ({ path: `shoots/${s.metadata.name}/${object.metadata.name}.yaml`, object })),
  skr: [],
});

/** Records every request; answers from `failures` (by "VERB kind/name") or with success; `present` Shoots exist for GET. */
function fakeGarden(failures: Record<string, { status: number; message: string }> = {}, present = new Set<string>()) {
  const calls: string[] = [];
  const patches: { name: string; patch: unknown }[] = [];
  const answer = <T>(call: string, body: T): KubeResult<T> => {
    calls.push(call);
    const failure = failures[call];
    return failure
      ? { ok: false, status: failure.status, error: { message: failure.message } }
      : { ok: true, status: 200, body };
  };
  const garden: GardenWriter = {
    apply: async <T extends KubeObject>(object: T, fieldManager: string, options?: { force?: boolean }) => {
      expect(fieldManager).toBe('kimops');
      expect(options?.force).toBe(true);
      return answer(`APPLY ${object.kind}/${object.metadata.name}`, object);
    },
    create: async <T extends KubeObject>(object: T) => answer(`CREATE ${object.kind}/${object.metadata.name}`, object),
    patch: async <T extends KubeObject>(ref: ObjectRef, patch: unknown) => {
      patches.push({ name: ref.name ?? '', patch });
      return answer(`PATCH ${ref.kind}/${ref.name}`, {} as T);
    },
    delete: async (ref: ObjectRef) => answer(`DELETE ${ref.kind}/${ref.name}`, {}),
    get: async <T extends KubeObject>(ref: ObjectRef) => {
      calls.push(`GET ${ref.kind}/${ref.name}`);
      return present.has(ref.name ?? '')
        ? { ok: true, status: 200, body: {} as T }
        : { ok: false, status: 404, error: { message: 'not found' } };
    },
  };
  return { garden, calls, patches };
}

/** No waiting in unit tests: transient failures are retried at once. */
const NO_WAIT = { sleep: async () => undefined };

describe('executePlan', () => {
  it('applies companions before their Shoot, with the ownership label and the commit', async () => {
    const plan = planSync({
      desired: { shoots: [want(shoot('a'), [configMap('auth-a')])], problems: [] },
      live: [],
      liveCompanions: [],
      commit: 'c1',
      massDeletion: POLICY,
    });
    const applied: KubeObject[] = [];
    const { garden, calls } = fakeGarden();
    const recording: GardenWriter = {
      ...garden,
      apply: async (object, manager, options) => (applied.push(object), garden.apply(object, manager, options)),
    };
    const result = await executePlan({ plan, garden: recording, namespace: NS, pacing: NO_WAIT });
    expect(calls).toEqual(['APPLY ConfigMap/auth-a', 'APPLY Shoot/a']);
    expect(applied[0]?.metadata.labels).toMatchObject({
      [OWNERSHIP_LABEL]: OWNERSHIP_VALUE,
      [COMPANION_OF_LABEL]: 'a',
    });
    expect(applied[1]?.metadata).toMatchObject({
      labels: { [OWNERSHIP_LABEL]: OWNERSHIP_VALUE },
      annotations: { 'kimops.kyma-project.io/applied-commit': 'c1' },
    });
    expect(result.applied).toEqual([
      { shoot: 'a', action: 'create', lines: ['created ConfigMap auth-a', 'created Shoot a'] },
    ]);
    expect(result.failed).toEqual([]);
  });

  it('sends nothing for an unchanged Shoot and nothing at all for a refused plan', async () => {
    // Applied at an older commit: the annotation differs, which alone is never a write.
    const live = owned('a');
    live.metadata.annotations = { ...live.metadata.annotations, 'kimops.kyma-project.io/applied-commit': 'old' };
    const unchanged = planSync({
      desired: { shoots: [want(shoot('a'))], problems: [] },
      live: [live],
      liveCompanions: [],
      commit: 'c2',
      massDeletion: POLICY,
    });
    const quiet = fakeGarden();
    expect(
      (await executePlan({ plan: unchanged, garden: quiet.garden, namespace: NS, pacing: NO_WAIT })).skipped,
    ).toMatchObject([{ shoot: 'a', action: 'unchanged' }]);
    expect(quiet.calls).toEqual([]);

    const refused = planSync({
      desired: { shoots: [], problems: [] },
      live: [owned('a'), owned('b')],
      liveCompanions: [],
      commit: 'c2',
      massDeletion: POLICY,
    });
    const none = fakeGarden();
    const result = await executePlan({ plan: refused, garden: none.garden, namespace: NS, pacing: NO_WAIT });
    expect(result.refused).toContain('refusing to delete 2 of 2 shoots');
    expect(none.calls).toEqual([]);
  });

  it('reports a failed Shoot with the server message and the fix, and goes on with the others', async () => {
    const plan = planSync({
      desired: { shoots: [want(shoot('a'), [configMap('auth-a')]), want(shoot('b'))], problems: [] },
      live: [],
      liveCompanions: [],
      commit: 'c1',
      massDeletion: POLICY,
    });
    const { garden, calls } = fakeGarden({ 'APPLY ConfigMap/auth-a': { status: 409, message: 'conflict' } });
    const result = await executePlan({ plan, garden, namespace: NS, pacing: NO_WAIT });
    // A conflict is tried four times; the Shoot of a companion that still failed is not applied: Gardener
    // would refuse it without its ConfigMap.
    expect(calls).toEqual([...Array(4).fill('APPLY ConfigMap/auth-a'), 'APPLY Shoot/b']);
    expect(result.failed).toEqual([
      {
        shoot: 'a',
        action: 'create',
        lines: [
          'apply ConfigMap auth-a: 409: conflict — another writer changed the object at the same time: the next sync applies it again',
        ],
        status: 409,
      },
    ]);
    expect(result.applied.map((o) => o.shoot)).toEqual(['b']);
    expect(result.unreachable).toBe(false);
  });

  it('deletes with confirmation first, and the companions only once the Shoot is gone', async () => {
    const companions = [configMap('auth-a', 'a')];
    const plan = planSync({
      desired: { shoots: [want(shoot('keep'))], problems: [] },
      live: [owned('a'), owned('keep')],
      liveCompanions: companions,
      commit: 'c3',
      massDeletion: POLICY,
    });
    const gone = fakeGarden();
    const done = await executePlan({ plan, garden: gone.garden, namespace: NS, pacing: NO_WAIT });
    expect(gone.calls).toEqual(['PATCH Shoot/a', 'DELETE Shoot/a', 'GET Shoot/a', 'DELETE ConfigMap/auth-a']);
    expect(gone.patches).toEqual([
      { name: 'a', patch: { metadata: { annotations: { [DELETION_CONFIRMATION_ANNOTATION]: 'true' } } } },
    ]);
    expect(done.applied[0]?.lines).toEqual([
      'deletion of Shoot a confirmed and requested',
      'deleted ConfigMap auth-a',
      'Shoot a is gone',
    ]);

    const still = fakeGarden({}, new Set(['a']));
    const pending = await executePlan({ plan, garden: still.garden, namespace: NS, pacing: NO_WAIT });
    expect(still.calls.filter((c) => c.includes('/a'))).toEqual(['PATCH Shoot/a', 'DELETE Shoot/a', 'GET Shoot/a']);
    expect(pending.applied[0]?.lines.at(-1)).toBe(
      'Gardener is deleting Shoot a; ConfigMap auth-a left for a sync after it is gone',
    );
  });

  it('cleans up companions whose Shoot is gone, and only those', async () => {
    const plan = planSync({
      desired: { shoots: [want(shoot('b'))], problems: [] },
      live: [],
      liveCompanions: [],
      commit: 'c4',
      massDeletion: POLICY,
    });
    const live = [
      configMap('auth-a', 'a'),
      configMap('auth-b', 'b'),
      configMap('auth-c', 'c'),
      configMap('unlabelled'),
    ];
    const orphans = orphanedCompanions(plan, new Set(['c']), live);
    expect(orphans.map((o) => o.metadata.name)).toEqual(['auth-a']);
    const { garden, calls } = fakeGarden({ 'APPLY Shoot/b': { status: 503, message: 'overloaded' } });
    const result = await executePlan({ plan, garden, namespace: NS, orphans, pacing: NO_WAIT });
    expect(calls).toEqual([...Array(4).fill('APPLY Shoot/b'), 'DELETE ConfigMap/auth-a']);
    expect(result.cleaned).toEqual(['ConfigMap auth-a (its Shoot a is gone)']);
    expect(result.failed.map((f) => f.shoot)).toEqual(['b']);
    expect(result.unreachable).toBe(false);
  });

  it('stops at the first request that cannot reach the Garden instead of trying every other Shoot', async () => {
    const plan = planSync({
      desired: { shoots: [want(shoot('b')), want(shoot('c'))], problems: [] },
      live: [],
      liveCompanions: [],
      commit: 'c5',
      massDeletion: POLICY,
    });
    const orphans = [configMap('auth-a', 'a')];
    const { garden, calls } = fakeGarden({ 'APPLY Shoot/b': { status: 0, message: 'cannot reach' } });
    const result = await executePlan({ plan, garden, namespace: NS, orphans, pacing: NO_WAIT, concurrency: 1 });
    expect(calls).toEqual(Array(4).fill('APPLY Shoot/b'));
    expect(result.unreachable).toBe(true);
    expect(result.failed).toEqual([
      { shoot: 'b', action: 'create', lines: ['apply Shoot b: unreachable: cannot reach'], status: 0 },
    ]);
    expect(result.notAttempted).toBe(2);
  });

  it('writes several Shoots at once within the limit, and reports them in name order', async () => {
    const names = ['e', 'd', 'c', 'b', 'a'];
    const plan = planSync({
      desired: { shoots: names.map((n) => want(shoot(n))), problems: [] },
      live: [],
      liveCompanions: [],
      commit: 'c6',
      massDeletion: POLICY,
    });
    let running = 0;
    let most = 0;
    const { garden } = fakeGarden();
    const slow = {
      ...garden,
      apply: async <T extends KubeObject>(object: T, fieldManager: string, options?: { force?: boolean }) => {
        most = Math.max(most, ++running);
        await new Promise((resolve) => setTimeout(resolve, 5));
        running--;
        return garden.apply(object, fieldManager, options);
      },
    };
    const result = await executePlan({
      plan,
      garden: slow,
      namespace: NS,
      pacing: { ...NO_WAIT, qps: 1000, burst: 1000 },
      concurrency: 3,
    });
    expect(most).toBe(3);
    expect(result.applied.map((a) => a.shoot)).toEqual(['a', 'b', 'c', 'd', 'e']);
  });
});

describe('executePlan for Shoots KIM leads (ADR 0011)', () => {
  it('writes nothing for a shadow; a hand-back applies the fields as kim, then the identity as kimops, both forced', async () => {
    const plan = planSync({
      desired: { shoots: [want(withLeader(shoot('a'), 'kim')), want(withLeader(shoot('b'), 'kim'))], problems: [] },
      live: [
        shoot('a'),
        {
          ...owned('b'),
          metadata: {
            ...owned('b').metadata,
            annotations: { 'kimops.kyma-project.io/skr-applied-tree': 't1', other: 'x' },
          },
        },
      ],
      liveCompanions: [],
      commit: 'c1',
      massDeletion: POLICY,
    });
    expect(plan.entries.map((e) => e.action)).toEqual(['shadow', 'hand-back']);
    const applies: [string, string, boolean | undefined, KubeObject][] = [];
    const { garden, calls, patches } = fakeGarden();
    const recording: GardenWriter = {
      ...garden,
      apply: async (object, manager, options) => {
        applies.push([object.metadata.name, manager, options?.force, object]);
        return { ok: true, status: 200, body: object };
      },
    };
    const result = await executePlan({ plan, garden: recording, namespace: NS, pacing: NO_WAIT });
    expect(calls).toEqual(['PATCH Shoot/b']);
    expect(patches).toEqual([
      { name: 'b', patch: { metadata: { annotations: { 'kimops.kyma-project.io/skr-applied-tree': null } } } },
    ]);
    expect(applies.map(([name, manager, force]) => [name, manager, force])).toEqual([
      ['b', 'kim', true],
      ['b', 'kimops', true],
    ]);
    expect(applies[1]?.[3]).toEqual({
      apiVersion: 'core.gardener.cloud/v1beta1',
      kind: 'Shoot',
      metadata: { name: 'b', namespace: NS },
    });
    expect(result.skipped.map((o) => [o.shoot, o.action])).toEqual([['a', 'shadow']]);
    expect(result.applied).toEqual([
      {
        shoot: 'b',
        action: 'hand-back',
        lines: [
          "handed Shoot b's fields to field manager kim",
          `released kimops's ownership of Shoot b (its ${OWNERSHIP_LABEL} label and fields): KIM leads it`,
        ],
      },
    ]);
  });
});
