// Drift: a live Shoot that differs, on the fields kimops applies, from the very files it was last applied
// from. A plan's `update` is either Git moving on (a merge: always applied) or the live Shoot moving away
// from Git (drift: handled per the landscape's kimops.yaml `drift` mode). Which one is told by the git tree
// of the Shoot's folder recorded on the live Shoot (model/contract.ts's APPLIED_TREE_ANNOTATION, kept current even when
// a Git change needs no write to the Shoot): if it is the folder's tree now, Git has not changed since, and
// every difference is drift. Pure.
import type { KimopsConfig } from '../model/kimops-config.js';
import type { PlanEntry, SyncPlan } from './plan.js';

export type DriftMode = KimopsConfig['drift'];

/**
 * The plan with drift marked: `update` entries of `drifted` Shoots keep their write under `correct`, and
 * become `drifted` (no write) under `report` and `adopt`. Reasons say which, for the report and the Event.
 */
export function withDrift(plan: SyncPlan, drifted: ReadonlySet<string>, mode: DriftMode): SyncPlan {
  if (drifted.size === 0) return plan;
  const entries = plan.entries.map((entry): PlanEntry => {
    if (entry.action !== 'update' || !drifted.has(entry.shoot)) return entry;
    if (mode === 'correct')
      return {
        ...entry,
        drift: true,
        reasons: [`drift corrected (kimops.yaml drift: correct): ${entry.reasons.join('; ')}`],
      };
    return { ...entry, action: 'drifted', drift: true, reasons: [`${driftText(mode)}: ${entry.reasons.join('; ')}`] };
  });
  const drifts = entries.filter((entry) => entry.action === 'drifted').length;
  return {
    ...plan,
    entries,
    counts: { ...plan.counts, update: plan.counts.update - drifts, drifted: plan.counts.drifted + drifts },
  };
}

function driftText(mode: Exclude<DriftMode, 'correct'>): string {
  return mode === 'report'
    ? 'drifted from Git, left as it is (kimops.yaml drift: report; set drift: correct to re-apply Git, or change Git)'
    : 'drifted from Git, left for the generator (kimops.yaml drift: adopt: what Gardener changed legitimately comes back as an adopt pull request; anything else stays reported)';
}

/** The `update` entries that are drift: the live Shoot was applied from the folder's tree as it is now. */
export function driftedShoots(plan: SyncPlan): Set<string> {
  return new Set(
    plan.entries
      .filter((entry) => entry.action === 'update' && entry.tree !== undefined && entry.appliedTree === entry.tree)
      .map((entry) => entry.shoot),
  );
}
