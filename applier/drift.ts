// Drift: a live Shoot that differs, on the fields kimops applies, from the very files it was last applied
// from. A plan's `update` is either Git moving on (a merge: always applied) or the live Shoot moving away
// from Git (drift: handled per the landscape's kimops.yaml `drift` mode). Which one is told by the commit
// the Shoot was last written from (its applied-commit annotation): if its folder there is the folder now,
// Git has not changed since, and every difference is drift. Pure.
import type { KimopsConfig } from '../model/kimops-config.js';
import type { PlanEntry, SyncPlan } from './plan.js';

export type DriftMode = KimopsConfig['drift'];

/** Shoot name → the commit its live object was last applied from (absent: never applied by kimops). */
export type AppliedCommits = ReadonlyMap<string, string>;

/**
 * The plan with drift marked: `update` entries of `drifted` Shoots keep their write under `correct`, and
 * become `drifted` (no write) under `report` and `adopt`. Reasons say which, for the report and the Event.
 */
export function withDrift(plan: SyncPlan, drifted: ReadonlySet<string>, mode: DriftMode): SyncPlan {
  if (drifted.size === 0) return plan;
  const entries = plan.entries.map((entry): PlanEntry => {
    if (entry.action !== 'update' || !drifted.has(entry.shoot)) return entry;
    if (mode === 'correct') return { ...entry, drift: true, reasons: [`drift corrected (kimops.yaml drift: correct): ${entry.reasons.join('; ')}`] };
    return { ...entry, action: 'drifted', drift: true, reasons: [`${driftText(mode)}: ${entry.reasons.join('; ')}`] };
  });
  const drifts = entries.filter((entry) => entry.action === 'drifted').length;
  return { ...plan, entries, counts: { ...plan.counts, update: plan.counts.update - drifts, drifted: plan.counts.drifted + drifts } };
}

function driftText(mode: Exclude<DriftMode, 'correct'>): string {
  return mode === 'report'
    ? 'drifted from Git, left as it is (kimops.yaml drift: report; set drift: correct to re-apply Git, or change Git)'
    : 'drifted from Git, left for the generator (kimops.yaml drift: adopt: what Gardener changed legitimately comes back as an adopt pull request; anything else stays reported)';
}

/**
 * The `update` entries whose difference may be drift: the live Shoot names the commit it was applied
 * from. The caller decides with the repo whether that commit's folder is the current one (`isDrift`).
 */
export function driftCandidates(plan: SyncPlan): { shoot: string; appliedCommit: string }[] {
  return plan.entries.flatMap((entry) => (entry.action === 'update' && entry.appliedCommit !== undefined ? [{ shoot: entry.shoot, appliedCommit: entry.appliedCommit }] : []));
}

/**
 * Whether a Shoot's folder at the applied commit is its folder now (tree oids, so nothing is read). An
 * applied commit the repo does not know (history rewritten) counts as a Git change: Git is applied.
 */
export function isDrift(folderNow: string | undefined, folderThen: string | undefined): boolean {
  return folderNow !== undefined && folderThen === folderNow;
}
