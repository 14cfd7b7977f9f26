// What happens to a proposed PR under the landscape's kimops.yaml: merged at once, waiting for
// reviewers, or blocked. (Whether deletions may be proposed at all is rules/mass-deletion.ts.)
import type { ClassPolicy, KimopsConfig, PolicyClass } from '../../model/kimops-config.js';
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
