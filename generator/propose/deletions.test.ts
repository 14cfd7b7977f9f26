import { describe, expect, it } from 'vitest';
import { DEFAULT_MASS_DELETION } from '../../model/kimops-config.js';
import type { Runtime } from '../../model/runtime.js';
import { planDeletions, type DeletionInput } from './deletions.js';

const runtime = (shoot: string, more: Partial<Runtime['metadata']> = {}): Runtime =>
  ({
    apiVersion: 'infrastructuremanager.kyma-project.io/v1',
    kind: 'Runtime',
    metadata: {
      name: `rt-${shoot}`,
      namespace: 'kcp-system',
      labels: { 'kyma-project.io/runtime-id': `id-${shoot}`, 'kyma-project.io/broker-plan-name': 'aws' },
      creationTimestamp: '2026-01-10T08:00:00Z',
      ...more,
    },
    spec: { shoot: { name: shoot } },
  }) as unknown as Runtime;
const deleting = (shoot: string) => runtime(shoot, { deletionTimestamp: '2026-12-01T10:00:00Z', generation: 3 });

/** A landscape of `total` Shoots whose `unasked` no live Runtime names; a live Runtime keeps the landscape non-empty. */
function input(unasked: string[], more: Partial<DeletionInput> = {}): DeletionInput {
  return {
    unasked: unasked.map((name) => ({ name, runtimeId: `id-${name}` })),
    runtimes: [runtime('kept')],
    runtimesComplete: true,
    failed: [],
    total: 1000,
    config: { massDeletion: DEFAULT_MASS_DELETION, deprovisioning: { batchSize: 2 } },
    ...more,
  };
}
const shoots = (plan: ReturnType<typeof planDeletions>) =>
  plan.deletions.map((d) => `${d.shoot} ${d.askedByKeb ? 'keb' : 'absent'}`);

describe('planDeletions', () => {
  it("proposes KEB's deletions in batches by name, the rest in later passes, and names the Runtime being deleted", () => {
    // The Runtime's plan and timestamps go with it: the PR's summary names the cluster by them.
    const plan = planDeletions(
      input(['c', 'a', 'b'], { runtimes: [runtime('kept'), deleting('c'), deleting('a'), deleting('b')] }),
    );
    expect(shoots(plan)).toEqual(['a keb', 'b keb']);
    expect(plan.later).toBe(1);
    expect(plan.withheld).toBeUndefined();
    expect(plan.deletions[0]).toMatchObject({
      runtime: {
        namespace: 'kcp-system',
        name: 'rt-a',
        generation: 3,
        plan: 'aws',
        createdAt: '2026-01-10T08:00:00Z',
        deletionRequestedAt: '2026-12-01T10:00:00Z',
      },
      reason: expect.stringContaining(
        'runtime kcp-system/rt-a is being deleted (deletionTimestamp 2026-12-01T10:00:00Z',
      ),
    });
  });

  it("takes KEB's deletion for proof only from the Shoot's own Runtime: another Runtime naming it proves nothing", () => {
    const impostor = runtime('a', {
      deletionTimestamp: '2026-12-01T10:00:00Z',
      labels: { 'kyma-project.io/runtime-id': 'id-other' },
    });
    expect(shoots(planDeletions(input(['a'], { runtimes: [runtime('kept'), impostor] })))).toEqual(['a absent']);
    // Without the runtime id on the Shoot (written before KIM's annotation), the name is all there is to go by.
    expect(
      shoots(planDeletions({ ...input([], { runtimes: [runtime('kept'), impostor] }), unasked: [{ name: 'a' }] })),
    ).toEqual(['a keb']);
  });

  it("lets KEB's deletions pass a mass-deletion guard that refuses the absent Runtimes' Shoots", () => {
    const many = Array.from({ length: 50 }, (_, i) => `s-${String(i).padStart(2, '0')}`);
    const plan = planDeletions(
      input(many, {
        total: 400,
        runtimes: [runtime('kept'), ...many.slice(0, 25).map(deleting)],
        config: { massDeletion: DEFAULT_MASS_DELETION, deprovisioning: { batchSize: 20 } },
      }),
    );
    // 25 deletions KEB asked for while 25 Runtimes are absent: KEB's go in a batch of 20, the rest next pass.
    expect(plan.deletions.every((d) => d.askedByKeb)).toBe(true);
    expect(plan.deletions).toHaveLength(20);
    expect(plan.later).toBe(5);
    // The 25 absent ones: more than 20 shoots, refused all together.
    expect(plan.withheld).toMatch(/^refusing to propose deleting 25 of 400 shoots \(6 %\) at once/);
  });

  it("sizes KEB's batch to what the applier's mass-deletion guard lets through in one sync", () => {
    const fifteen = Array.from({ length: 15 }, (_, i) => `s-${String(i).padStart(2, '0')}`);
    const keb = {
      runtimes: [runtime('kept'), ...fifteen.map(deleting)],
      config: { massDeletion: DEFAULT_MASS_DELETION, deprovisioning: { batchSize: 10 } },
    };
    // 10 % of a landscape of 50 is 5: a batch of 10 would stop at the applier for a human.
    const small = planDeletions(input(fifteen, { ...keb, total: 50 }));
    expect(small.deletions).toHaveLength(5);
    expect(small).toMatchObject({
      later: 10,
      batchLimit: "the applier's mass-deletion guard lets 5 through at once in a landscape of 50",
    });
    // Merged deletions the applier has not started count against it; the Garden's owned Shoots are its total.
    expect(
      planDeletions(input(fifteen, { ...keb, total: 50, garden: { unapplied: 3, total: 60 } })).deletions,
    ).toHaveLength(3);
    const full = planDeletions(input(fifteen, { ...keb, total: 50, garden: { unapplied: 6, total: 60 } }));
    expect(full).toMatchObject({
      deletions: [],
      later: 15,
      batchLimit:
        "the applier's mass-deletion guard lets 6 through at once in a landscape of 60, 6 merged deletions not applied yet",
    });
    // A batch the guard allows whole is kimops.yaml's, with nothing to explain.
    const large = planDeletions(input(fifteen, { ...keb, total: 1000 }));
    expect(large.deletions).toHaveLength(10);
    expect(large.batchLimit).toBeUndefined();
  });

  it("proposes an absent Runtime's Shoot for approval, naming only what is known: the runtime id on its Shoot", () => {
    const plan = planDeletions(input(['gone']));
    expect(shoots(plan)).toEqual(['gone absent']);
    expect(plan.deletions[0]?.runtime).toEqual({ namespace: '', name: 'id-gone', absent: true });
    expect(plan.deletions[0]?.reason).toContain(
      "its Runtime (runtime id id-gone, from the Shoot's annotation) is absent",
    );
    const unlabelled = planDeletions({ ...input([]), unasked: [{ name: 'bare' }] });
    expect(unlabelled.deletions[0]?.runtime).toEqual({ namespace: '', name: '', absent: true });
  });

  it('keeps absent deletions under the guard, and lets a human override it', () => {
    const many = Array.from({ length: 21 }, (_, i) => `s-${i}`);
    expect(planDeletions(input(many)).deletions).toEqual([]);
    expect(planDeletions(input(many, { allowMassDeletion: 21 })).deletions).toHaveLength(21);
  });

  it.each<[string, Partial<DeletionInput>, RegExp]>([
    [
      'an unreadable input',
      { runtimesComplete: false },
      /some Runtime inputs could not be read \(each is named above\)/,
    ],
    ['an empty input', { runtimes: [] }, /no Runtime was read at all, and an empty Runtime source never deletes/],
    [
      'a Runtime without spec.shoot.name',
      { runtimes: [runtime('kept'), { ...runtime('x'), spec: {} } as unknown as Runtime] },
      /runtime kcp-system\/rt-x has no spec\.shoot\.name, so it may be the Runtime of any of them — set spec\.shoot\.name/,
    ],
  ])('deletes nothing at all after %s, and says so once', (_what, more, why) => {
    const plan = planDeletions(input(['absent', 'keb'], { runtimes: [runtime('kept'), deleting('keb')], ...more }));
    expect(plan.deletions).toEqual([]);
    expect(plan.later).toBe(0);
    expect(plan.withheld).toMatch(/^not proposing to delete absent, keb: /);
    expect(plan.withheld).toMatch(why);
  });

  it("holds back absent Runtimes' Shoots while a Runtime fails, but not the deletions KEB asked for", () => {
    const plan = planDeletions(
      input(['absent', 'keb'], { runtimes: [runtime('kept'), deleting('keb')], failed: ['kcp-system/rt-kept'] }),
    );
    expect(shoots(plan)).toEqual(['keb keb']);
    expect(plan.withheld).toBe(
      'not proposing to delete absent, whose Runtime is absent: runtime kcp-system/rt-kept failed this pass (see above), and a Shoot counts as gone only when every Runtime was understood — fix them and the next pass proposes the deletions',
    );
  });

  it('names a few Shoots and counts the rest', () => {
    const plan = planDeletions(input(['a', 'b', 'c', 'd', 'e'], { runtimes: [] }));
    expect(plan.withheld).toMatch(/^not proposing to delete a, b, c and 2 more: /);
  });

  it('has nothing to say when no Shoot lacks its Runtime', () => {
    expect(planDeletions(input([], { runtimes: [] }))).toEqual({ deletions: [], later: 0 });
  });
});
