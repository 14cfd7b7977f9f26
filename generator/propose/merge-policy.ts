// What happens to a proposed PR under the landscape's kimops.yaml: merged at once, waiting for
// reviewers, or blocked; and whether a batch of deletions may be proposed at all.
import { type ClassPolicy, type KimopsConfig, type PolicyClass } from '../../model/kimops-config.js';
import type { ChangeClassName } from './classify.js';

export interface CheckResult {
  name: string;
  /** False stops the merge; a warning passes. */
  passed: boolean;
  /** What failed (or warns) and how to fix it; empty when passed cleanly. */
  messages: string[];
  /** Passed, but a `warn` policy failed: shown to the reviewer, never blocking. */
  warning?: boolean;
}

export type MergeAction = 'auto-merge' | 'await-review' | 'blocked';

export interface MergeDecision {
  action: MergeAction;
  reason: string;
}

export interface MergeInput {
  class: ChangeClassName;
  disruptive: boolean;
  checks: readonly CheckResult[];
  /** Approvals the PR has now. */
  approvals: number;
  policy: KimopsConfig['mergePolicy'];
}

export function decideMerge({ class: changeClass, disruptive, checks, approvals, policy }: MergeInput): MergeDecision {
  if (changeClass === 'immutable') {
    return {
      action: 'blocked',
      reason:
        'Gardener would reject this change (see the reasons above); change the Runtime back or recreate the cluster',
    };
  }
  const failed = checks.filter((check) => !check.passed).map((check) => check.name);
  if (failed.length > 0)
    return { action: 'blocked', reason: `failed checks: ${failed.join(', ')}; fix them before this can merge` };
  // A delete no Runtime asked for (its Runtime is absent, not being deleted by KEB) always waits for a human,
  // whatever the delete policy says: absence alone may be a broken Runtime source, not a deprovisioning.
  if (changeClass === 'delete' && disruptive) {
    return decideByPolicy(
      { mode: 'review', approvals: Math.max(1, approvalsOf(policy.delete)) },
      approvals,
      'delete no Runtime asked for',
    );
  }
  const policyClass: PolicyClass = changeClass === 'update' && disruptive ? 'update-disruptive' : changeClass;
  return decideByPolicy(policy[policyClass], approvals, policyClass);
}

function decideByPolicy(policy: ClassPolicy, approvals: number, what: string): MergeDecision {
  if (policy.mode === 'auto-merge')
    return { action: 'auto-merge', reason: `${what}: auto-merge when checks pass (kimops.yaml mergePolicy)` };
  if (approvals >= policy.approvals)
    return { action: 'auto-merge', reason: `${what}: ${approvals} of ${policy.approvals} required approvals` };
  return {
    action: 'await-review',
    reason: `${what}: needs ${policy.approvals} ${policy.approvals === 1 ? 'approval' : 'approvals'}, has ${approvals}`,
  };
}

const approvalsOf = (policy: ClassPolicy) => (policy.mode === 'review' ? policy.approvals : 0);

export type GuardResult = { allowed: true } | { allowed: false; message: string };

export interface MassDeletionInput {
  /** Shoots this run would propose deleting (the generator: those no Runtime asked for; KEB's deletions pass in batches). */
  deleting: number;
  /** Shoots in the landscape before the deletion. */
  total: number;
  policy: KimopsConfig['massDeletion'];
  /** The number of deletions a human confirmed (e.g. `--allow-mass-deletion 40`); must cover `deleting`. */
  override?: number;
  /** Who refuses what, and how a human approves: the generator's proposal by default; the applier says its own. */
  wording?: { refusing: string; approve: (deleting: number) => string };
}

const GENERATOR_WORDING: NonNullable<MassDeletionInput['wording']> = {
  refusing: 'refusing to propose deleting',
  approve: (deleting) =>
    `These are Shoots whose Runtime is absent (deletions KEB asked for, by a deletionTimestamp, are not counted): check that the Runtime source is complete; ` +
    `if the deletions are intended, re-run with --allow-mass-deletion ${deleting} or raise massDeletion in kimops.yaml.`,
};

/** The most deletions `massDeletionGuard` lets through at once in a landscape of `total` Shoots (one always, unless maxShoots is 0). */
export function deletionsAllowedAtOnce(total: number, policy: KimopsConfig['massDeletion']): number {
  return Math.min(policy.maxShoots, Math.max(1, Math.floor((policy.maxPercent * total) / 100)));
}

/**
 * Refuses more than `maxShoots` deletions, or more than `maxPercent` of the landscape, at once. A
 * single deletion never trips the percentage: in a landscape of three Shoots one is 33 %.
 */
export function massDeletionGuard({
  deleting,
  total,
  policy,
  override,
  wording = GENERATOR_WORDING,
}: MassDeletionInput): GuardResult {
  const percent = total > 0 ? (deleting / total) * 100 : 100;
  const tooMany = deleting > policy.maxShoots;
  // Compared in integers: 13 of 130 is 10 % exactly, which floating point makes 10.000000000000002.
  const tooLarge = deleting > 1 && deleting * 100 > policy.maxPercent * total;
  if (!tooMany && !tooLarge) return { allowed: true };
  if (override !== undefined && override >= deleting) return { allowed: true };
  const share = `${deleting} of ${total} shoots (${Math.round(percent)} %)`;
  return {
    allowed: false,
    message: `${wording.refusing} ${share} at once: kimops.yaml massDeletion allows ${policy.maxShoots} shoots or ${policy.maxPercent} %. ${wording.approve(deleting)}`,
  };
}
