import { describe, expect, it } from 'vitest';
import {
  ANNOTATION_FORCE_PATCH,
  ANNOTATION_SUSPEND_PATCH,
  FORCE_PATCH_ANNOTATION,
  FORCE_PATCH_PROPOSED_ANNOTATION,
} from '../model/contract.js';
import type { Runtime } from '../model/runtime.js';
import type { Shoot } from '../model/shoot.js';
import { fileMapOf, shootManifests } from '../rules/landscape-layout.js';
import { testShoot } from '../test/helpers/test-shoot.js';
import {
  counterOf,
  forcePatchCounter,
  forcePatchOutcomes,
  forcePatchRequested,
  forcePatchWrites,
  withCounter,
  withForcePatchCounters,
  withMainCounter,
  type ForcePatchRequest,
} from './force-patch.js';
import type { PassInput } from './plan-input.js';
import type { RenderedChange } from './render-changes.js';

function runtime(name: string, annotations: Record<string, string> = {}): Runtime {
  return { metadata: { name, namespace: 'kcp-system', annotations }, spec: { shoot: { name } } } as unknown as Runtime;
}
const FORCED = { [ANNOTATION_FORCE_PATCH]: 'true' };

function shoot(name: string, counter?: number): Shoot {
  const s = testShoot();
  s.metadata.name = name;
  return counter === undefined ? s : withCounter(s, counter);
}

describe('the counter rule', () => {
  it('asks for a re-apply only for force-patch-reconciliation "true", and never when suspended (suspend wins)', () => {
    expect(forcePatchRequested(runtime('r', FORCED))).toBe(true);
    expect(forcePatchRequested(runtime('r', { [ANNOTATION_FORCE_PATCH]: 'false' }))).toBe(false);
    expect(forcePatchRequested(runtime('r', { ...FORCED, [ANNOTATION_SUSPEND_PATCH]: 'true' }))).toBe(false);
    expect(forcePatchRequested(runtime('r'))).toBe(false);
  });

  it("reads main's counter; none, or a value that is no counter, is 0", () => {
    expect(counterOf(undefined)).toBe(0);
    expect(counterOf(shoot('a'))).toBe(0);
    expect(counterOf(shoot('a', 4))).toBe(4);
    for (const text of ['0', '-1', '1.5', 'x', '07'])
      expect(
        counterOf({ ...shoot('a'), metadata: { name: 'a', annotations: { [FORCE_PATCH_ANNOTATION]: text } } }),
      ).toBe(0);
  });

  it.each<[string, Record<string, string>, number, { counter: number; answered: boolean }]>([
    ['not forced: carries main', {}, 2, { counter: 2, answered: false }],
    ['never forced', {}, 0, { counter: 0, answered: false }],
    ["forced: main's + 1", FORCED, 0, { counter: 1, answered: false }],
    ['forced again later', FORCED, 2, { counter: 3, answered: false }],
    [
      'forced, its PR open: the same counter',
      { ...FORCED, [FORCE_PATCH_PROPOSED_ANNOTATION]: '3' },
      2,
      { counter: 3, answered: false },
    ],
    [
      'forced, its PR merged by a human: answered',
      { ...FORCED, [FORCE_PATCH_PROPOSED_ANNOTATION]: '3' },
      3,
      { counter: 3, answered: true },
    ],
    [
      'suspended and forced: carries main',
      { ...FORCED, [ANNOTATION_SUSPEND_PATCH]: 'true' },
      2,
      { counter: 2, answered: false },
    ],
  ])('%s', (_, annotations, onMain, expected) => {
    expect(forcePatchCounter(runtime('r', annotations), onMain)).toEqual(expected);
  });

  it('takes a request from a file, which keeps its annotation, as answered once main holds any re-apply', () => {
    expect(forcePatchCounter(runtime('r', FORCED), 0, true)).toEqual({ counter: 1, answered: false });
    expect(forcePatchCounter(runtime('r', FORCED), 1, true)).toEqual({ counter: 1, answered: true });
    expect(forcePatchCounter(runtime('r', FORCED), 4, true)).toEqual({ counter: 4, answered: true });
  });

  it("carries main's counter into a render against main's Shoot (the plan's adopt check)", () => {
    const [rendered] = withMainCounter(shootManifests(shoot('a'), []), shoot('a', 3)).slice(-1);
    expect(counterOf(rendered?.object as Shoot)).toBe(3);
  });

  it('sets the counter without touching the other annotations or the Shoot given, and drops it for 0', () => {
    const before = shoot('a');
    const counted = withCounter(before, 2);
    expect(counted.metadata.annotations).toEqual({ ...before.metadata.annotations, [FORCE_PATCH_ANNOTATION]: '2' });
    expect(before.metadata.annotations).not.toHaveProperty([FORCE_PATCH_ANNOTATION]);
    expect(withCounter(counted, 0).metadata.annotations).toEqual(before.metadata.annotations);
  });
});

/** A pass gathered over `main` (Shoot name → main's Shoot), with these renders changed and held. */
function gathered(main: Map<string, Shoot>, changed: [Runtime, Shoot][], held: Runtime[], defaultLeader?: 'kim') {
  const filesOf = (s: Shoot) => fileMapOf(shootManifests(s, []));
  const change = ([r, s]: [Runtime, Shoot]): RenderedChange => ({
    entry: { source: 'test', runtime: r },
    rendered: {
      runtime: `kcp-system/${r.metadata.name}`,
      source: 'test',
      shootName: s.metadata.name,
      mode: 'update',
      manifests: shootManifests(s, []),
    },
    files: filesOf(s),
  });
  const input = {
    selection: { toRender: [...changed.map(([r]) => r), ...held].map((r) => ({ source: 'test', runtime: r })) },
    renders: {
      changed: changed.map(change),
      inMain: held.map((r) => ({ runtime: `kcp-system/${r.metadata.name}`, shoot: r.spec.shoot.name })),
    },
    main: { read: new Map() },
    ...(defaultLeader && { leaders: { defaultLeader, problems: [] } }),
  } as unknown as PassInput;
  const view = {
    shoot: async (name: string) => main.get(name),
    folder: async (name: string) => {
      const s = main.get(name);
      return s ? { files: filesOf(s), shoot: s } : { files: new Map<string, string>() };
    },
    holds: (name: string, files: ReadonlyMap<string, string>) => {
      const s = main.get(name);
      const mine = s && filesOf(s);
      return mine !== undefined && mine.size === files.size && [...files].every(([p, t]) => mine.get(p) === t);
    },
  };
  return withForcePatchCounters(input, view);
}

const shootOf = (change: RenderedChange) => change.rendered.manifests.at(-1)?.object as Shoot;

describe('withForcePatchCounters', () => {
  it("makes a render that differs from main only by main's counter main's: no change", async () => {
    const { input, requests } = await gathered(new Map([['a', shoot('a', 2)]]), [[runtime('a'), shoot('a')]], []);
    expect(input.renders.changed).toEqual([]);
    expect(input.renders.inMain).toEqual([{ runtime: 'kcp-system/a', shoot: 'a' }]);
    expect(requests).toEqual([]);
  });

  it('carries the counter into a real change of a Runtime not forced', async () => {
    const changed = shoot('a');
    changed.spec.kubernetes.version = '1.33.0';
    const { input } = await gathered(new Map([['a', shoot('a', 2)]]), [[runtime('a'), changed]], []);
    const [change] = input.renders.changed;
    expect(shootOf(change as RenderedChange).metadata.annotations?.[FORCE_PATCH_ANNOTATION]).toBe('2');
    expect((change as RenderedChange).files.get('shoots/a/shoot.yaml')).toContain(`${FORCE_PATCH_ANNOTATION}: "2"`);
  });

  it("turns a forced Runtime's render main holds into main's folder with the counter raised, its folder read", async () => {
    const forced = runtime('a', FORCED);
    const { input, requests } = await gathered(new Map([['a', shoot('a')]]), [], [forced]);
    expect(input.renders.inMain).toEqual([]);
    const [change] = input.renders.changed;
    expect(change?.entry.runtime).toBe(forced);
    expect(shootOf(change as RenderedChange)).toEqual(shoot('a', 1));
    expect(input.main.read.has('a')).toBe(true);
    expect(requests).toEqual([{ runtime: forced, shoot: 'a', counter: 1, answered: false }]);
  });

  it('raises the counter on a forced Runtime that changes anyway, and keeps a request main answered as held', async () => {
    const forced = runtime('a', FORCED);
    const answered = runtime('b', { ...FORCED, [FORCE_PATCH_PROPOSED_ANNOTATION]: '4' });
    const main = new Map([
      ['a', shoot('a', 1)],
      ['b', shoot('b', 4)],
    ]);
    const { input, requests } = await gathered(main, [[forced, shoot('a')]], [answered]);
    expect(input.renders.changed.map((c) => counterOf(shootOf(c)))).toEqual([2]);
    expect(input.renders.inMain).toEqual([{ runtime: 'kcp-system/b', shoot: 'b' }]);
    expect(requests).toEqual([
      { runtime: forced, shoot: 'a', counter: 2, answered: false },
      { runtime: answered, shoot: 'b', counter: 4, answered: true },
    ]);
  });

  it('leaves the request of a Runtime KIM leads to KIM: no counter raised, nothing to settle', async () => {
    const forced = runtime('a', FORCED);
    const { input, requests } = await gathered(new Map([['a', shoot('a', 1)]]), [], [forced], 'kim');
    expect(input.renders.changed).toEqual([]);
    expect(requests).toEqual([]);
    const changing = await gathered(new Map([['a', shoot('a', 1)]]), [[forced, shoot('a')]], [], 'kim');
    expect(changing.input.renders.changed).toEqual([]);
    expect(changing.requests).toEqual([]);
  });

  it('proposes a create of a forced Runtime with counter 1', async () => {
    const forced = runtime('a', FORCED);
    const { input } = await gathered(new Map(), [[forced, shoot('a')]], []);
    expect(input.renders.changed.map((c) => counterOf(shootOf(c)))).toEqual([1]);
  });
});

describe('settling the requests', () => {
  const request = (r: Runtime, counter: number, answered = false): ForcePatchRequest => ({
    runtime: r,
    shoot: r.spec.shoot.name,
    counter,
    answered,
  });

  it('is done where main answered it or the pass merged its PR; open while the PR waits; nothing without a PR', () => {
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((n) => runtime(n, FORCED)) as [Runtime, Runtime, Runtime, Runtime];
    const outcomes = forcePatchOutcomes(
      [request(a, 3, true), request(b, 1), request(c, 2), request(d, 1)],
      [
        { shoot: 'b', action: 'auto-merge' },
        { shoot: 'c', action: 'await-review' },
        { shoot: 'd', action: 'auto-merge', rollout: true },
      ],
    );
    expect(outcomes.map(({ shoot, counter, done }) => [shoot, counter, done])).toEqual([
      ['a', 3, true],
      ['b', 1, true],
      ['c', 2, false],
    ]);
  });

  it('takes force-patch-reconciliation (and the note) off a done request, notes an open one once, and drops a stale note', () => {
    const done = runtime('done', { ...FORCED, [FORCE_PATCH_PROPOSED_ANNOTATION]: '2' });
    const merged = runtime('merged', FORCED);
    const open = runtime('open', FORCED);
    const noted = runtime('noted', { ...FORCED, [FORCE_PATCH_PROPOSED_ANNOTATION]: '5' });
    const withdrawn = runtime('withdrawn', { [FORCE_PATCH_PROPOSED_ANNOTATION]: '5' });
    const suspended = runtime('suspended', {
      ...FORCED,
      [ANNOTATION_SUSPEND_PATCH]: 'true',
      [FORCE_PATCH_PROPOSED_ANNOTATION]: '5',
    });
    const outcome = (r: Runtime, counter: number, isDone: boolean) => ({
      runtime: r,
      shoot: r.spec.shoot.name,
      counter,
      done: isDone,
    });
    const writes = forcePatchWrites(
      [done, merged, open, noted, withdrawn, suspended, runtime('plain')],
      [outcome(done, 2, true), outcome(merged, 1, true), outcome(open, 3, false), outcome(noted, 5, false)],
    );
    expect(writes).toEqual([
      { runtime: done, remove: { ...FORCED, [FORCE_PATCH_PROPOSED_ANNOTATION]: '2' }, counter: 2 },
      { runtime: merged, remove: FORCED, counter: 1 },
      { runtime: open, proposed: '3' },
      { runtime: withdrawn, proposed: null },
    ]);
  });
});
