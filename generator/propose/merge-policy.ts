// What happens to a proposed PR under the landscape's kimops.yaml: merged at once, waiting for reviewers
// or for the required checks, or blocked. Each reason names what the PR waits for or why it cannot merge, so
// the PR body and the log say it in words. Approvals count as code-owners.ts tallies them: by the code owners
// CODEOWNERS names for the PR's files, or by collaborators where it names none. (Whether deletions may be
// proposed at all is rules/mass-deletion.ts.)
import { VALIDATE_CONTEXT } from '../../model/contract.js';
import type { ClassPolicy, KimopsConfig, PolicyClass } from '../../model/kimops-config.js';
import type { ChangeClassName } from './classify.js';
import type { ApprovalTally, OwnedFiles } from './code-owners.js';

export interface CheckResult {
  name: string;
  /** False stops the merge; a warning passes. */
  passed: boolean;
  /** What failed (or warns) and how to fix it; empty when passed cleanly. */
  messages: string[];
  /** Passed, but a `warn` policy failed: shown to the reviewer, never blocking. */
  warning?: boolean;
}

/** await-checks: the policy lets it merge, but a required check on its head is pending or not reported yet. */
export type MergeAction = 'auto-merge' | 'await-review' | 'await-checks' | 'blocked';

export interface MergeDecision {
  action: MergeAction;
  reason: string;
}

export interface MergeInput {
  class: ChangeClassName;
  disruptive: boolean;
  checks: readonly CheckResult[];
  /** The approvals on the PR's head that count: its code owners', or collaborators' (propose/code-owners.ts). */
  approvals: ApprovalTally;
  policy: KimopsConfig['mergePolicy'];
}

export function decideMerge({ class: changeClass, disruptive, checks, approvals, policy }: MergeInput): MergeDecision {
  if (changeClass === 'immutable') {
    return {
      action: 'blocked',
      reason: 'Gardener would reject this change; change the Runtime back or recreate the cluster',
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
      'a delete no Runtime asked for',
    );
  }
  // A cut-over whose live Shoot differs from main in a field main sets, or was not read (no Garden), changes a live
  // Shoot or may: a person looks at the fields, whatever the cut-over policy says (ADR 0011).
  if (changeClass === 'cut-over' && disruptive) {
    return decideByPolicy(
      { mode: 'review', approvals: Math.max(1, approvalsOf(policy['cut-over'])) },
      approvals,
      'a cut-over whose live Shoot is not known to match main',
    );
  }
  // A bootstrap writes a whole landscape into main at once: a person reviews it, whatever kimops.yaml says.
  if (changeClass === 'bootstrap')
    return decideByPolicy({ mode: 'review', approvals: 1 }, approvals, 'a bootstrap is always reviewed');
  const policyClass: PolicyClass = changeClass === 'update' && disruptive ? 'update-disruptive' : changeClass;
  return decideByPolicy(policy[policyClass], approvals, `mergePolicy.${policyClass}`);
}

function decideByPolicy(policy: ClassPolicy, approvals: ApprovalTally, rule: string): MergeDecision {
  if (policy.mode === 'auto-merge') return { action: 'auto-merge', reason: `auto-merge per ${rule}` };
  const { count, reviewers, waitingFor } = approvals;
  const one = policy.approvals === 1;
  const who =
    reviewers.by === 'code-owners' ? (one ? 'a code owner' : 'code owners') : one ? 'a collaborator' : 'collaborators';
  const wanted = `${policy.approvals} ${one ? 'approval' : 'approvals'} by ${who}`;
  const source =
    reviewers.by === 'code-owners'
      ? `CODEOWNERS: ${reviewers.owners.join(', ')}`
      : 'CODEOWNERS names no owner of its files';
  const why = `(${rule}; ${source})`;
  const unread = approvals.unreadable?.length ? `; ${approvals.unreadable.join('; ')}` : '';
  if (count < policy.approvals)
    return { action: 'await-review', reason: `waits for ${wanted} ${why}, has ${count}${unread}` };
  if (waitingFor.length > 0)
    return {
      action: 'await-review',
      reason: `waits for ${wanted} ${why}, has ${count}, but none yet by an owner of ${waitingFor.map(filesText).join('; ')}${unread}`,
    };
  return { action: 'auto-merge', reason: `approved: ${count} of ${wanted} ${why}` };
}

/** Owned files as a reason names them: the first, how many more, and who may approve them. */
function filesText({ owners, paths }: OwnedFiles): string {
  const more = paths.length > 1 ? ` and ${paths.length - 1} more` : '';
  return `${paths[0] ?? ''}${more} (${owners.join(' or ')})`;
}

const approvalsOf = (policy: ClassPolicy) => (policy.mode === 'review' ? policy.approvals : 0);

/** A check on the head as the forge reports it (adapters/forge's CommitCheck). */
export interface ReportedCheck {
  name: string;
  state: 'pending' | 'success' | 'failure';
  description: string;
}

export interface RequiredChecksInput {
  /** kimops.yaml's requiredChecks. */
  required: readonly string[];
  /** Every status and check run on the head. */
  reported: readonly ReportedCheck[];
  /**
   * Why a required check that is not reported never will be, for a forge nothing but kimops posts to (the local
   * one); undefined where CI may still report it.
   */
  unreportable?: (name: string) => string | undefined;
}

/**
 * The required checks' verdict on a head the merge policy lets merge: undefined when every one is green; else
 * blocked by a failed one, or waiting for a pending or missing one, each named with its state. A name reported
 * more than once (a status and a check run) counts by its worst report, as GitHub's branch rules do.
 */
export function requiredChecksDecision({
  required,
  reported,
  unreportable,
}: RequiredChecksInput): MergeDecision | undefined {
  const failed: string[] = [];
  const waiting: string[] = [];
  for (const name of required) {
    const reports = reported.filter((check) => check.name === name);
    const failure = reports.find((check) => check.state === 'failure');
    const pending = reports.find((check) => check.state === 'pending');
    if (failure) failed.push(`${name} (${failure.description})`);
    else if (pending) waiting.push(`${name} (${pending.description})`);
    else if (reports.length === 0) {
      const never = unreportable?.(name);
      waiting.push(never === undefined ? `${name} (not reported yet)` : `${name} (${never})`);
    }
  }
  if (failed.length > 0)
    return {
      action: 'blocked',
      reason: `required ${plural(failed.length, 'check')} failed: ${failed.join(', ')}; fix the cause and run ${failed.length === 1 ? 'it' : 'them'} again`,
    };
  if (waiting.length > 0)
    return {
      action: 'await-checks',
      reason: `waits for required ${plural(waiting.length, 'check')}: ${waiting.join(', ')}`,
    };
  return undefined;
}

/**
 * `unreportable` for a forge only kimops posts to (the local one): kimops's own status arrives, nothing else
 * ever does, and the reason says so with the fix instead of leaving the PR to wait in silence.
 */
export function onlyKimopsReports(name: string): string | undefined {
  return name === VALIDATE_CONTEXT
    ? undefined
    : `never reported: only kimops posts statuses to a local repository; remove it from requiredChecks in kimops.yaml, or merge with kimops pr merge --force --reason`;
}

/** The decision once the required checks are known: the policy's own, unless a required check holds it back. */
export function withRequiredChecks(policy: MergeDecision, checks: RequiredChecksInput): MergeDecision {
  if (policy.action !== 'auto-merge') return policy;
  const held = requiredChecksDecision(checks);
  if (held !== undefined) return { action: held.action, reason: `${policy.reason}, but ${held.reason}` };
  const green = checks.required.length > 0 ? `; required checks green: ${checks.required.join(', ')}` : '';
  return { action: 'auto-merge', reason: `${policy.reason}${green}` };
}

const plural = (count: number, word: string) => (count === 1 ? word : `${word}s`);
