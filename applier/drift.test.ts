import { describe, expect, it } from 'vitest';
import { APPLIED_TREE_ANNOTATION, OWNERSHIP_LABEL, OWNERSHIP_VALUE } from '../model/contract.js';
import { withGardenerDefaults } from '../test/helpers/gardener-defaults.js';
import { testShoot, worker } from '../test/helpers/test-shoot.js';
import { planSync, type PlanEntry, type SyncPlan } from './plan.js';
import { driftedShoots, withDrift } from './drift.js';

const entry = (
  shoot: string,
  action: PlanEntry['action'],
  trees?: { tree: string; appliedTree?: string },
): PlanEntry => ({
  shoot,
  action,
  reasons: [`spec.provider.workers[a].maximum: 3 → 5`],
  object: { kind: 'Shoot', name: shoot, action: action === 'update' ? 'update' : 'unchanged', changes: [] },
  companions: [],
  ...trees,
});

const plan: SyncPlan = {
  commit: 'c2',
  fieldManager: 'kimops',
  entries: [
    entry('a', 'update', { tree: 't1', appliedTree: 't1' }),
    entry('b', 'update', { tree: 't2', appliedTree: 't1' }),
    entry('c', 'update', { tree: 't3' }),
    entry('d', 'unchanged', { tree: 't4', appliedTree: 't4' }),
  ],
  counts: {
    create: 0,
    update: 3,
    'take-over': 0,
    delete: 0,
    unchanged: 1,
    blocked: 0,
    drifted: 0,
    shadow: 0,
    'hand-back': 0,
  },
  problems: [],
};

describe('drift', () => {
  it('is drift only when the live Shoot was applied from the folder as it is now', () => {
    // b: main changed its folder since; c: never applied by kimops (a take-over's first sync); d: no difference.
    expect(driftedShoots(plan)).toEqual(new Set(['a']));
  });

  it('keeps the write under correct, saying it corrects drift', () => {
    const marked = withDrift(plan, new Set(['a']), 'correct');
    expect(marked.entries[0]).toMatchObject({
      action: 'update',
      drift: true,
      reasons: [expect.stringMatching(/^drift corrected/) as string],
    });
    expect(marked.counts).toEqual(plan.counts);
  });

  it.each(['report', 'adopt'] as const)('turns drift into no write under %s, leaving Git changes alone', (mode) => {
    const marked = withDrift(plan, new Set(['a']), mode);
    expect(marked.entries.map((e) => e.action)).toEqual(['drifted', 'update', 'update', 'unchanged']);
    expect(marked.entries[0]?.reasons[0]).toContain(`drift: ${mode}`);
    expect(marked.entries[0]?.reasons[0]).toContain('spec.provider.workers[a].maximum');
    expect(marked.counts).toMatchObject({ update: 2, drifted: 1, shadow: 0, 'hand-back': 0 });
  });

  it("is never what gardener-apiserver defaulted: a Shoot served with its defaults has drifted only where main's fields moved", () => {
    const main = testShoot();
    const served = withGardenerDefaults(main);
    served.metadata.labels = { ...served.metadata.labels, [OWNERSHIP_LABEL]: OWNERSHIP_VALUE };
    served.metadata.annotations = { ...served.metadata.annotations, [APPLIED_TREE_ANNOTATION]: 't1' };
    const drifted = (live: typeof served) =>
      driftedShoots(
        planSync({
          desired: {
            shoots: [{ name: 'c-1', path: 'shoots/c-1/shoot.yaml', shoot: main, companions: [], skr: [] }],
            problems: [],
          },
          live: [live],
          liveCompanions: [],
          commit: 'c1',
          trees: new Map([['c-1', 't1']]),
          massDeletion: { maxShoots: 20, maxPercent: 10 },
        }),
      );
    expect(drifted(served)).toEqual(new Set());
    const edited = structuredClone(served);
    worker(edited, 'a').maximum = 9;
    expect(drifted(edited)).toEqual(new Set(['c-1']));
  });
});
