// The sentence of a PR body that says what happens to the PR and why: auto-merged per which policy, waiting for
// whom, or blocked by what. It states the rule kimops.yaml sets for the class — the same rule decideMerge
// (merge-policy.ts) applies on every pass — not the PR's state at one moment, so the body does not change when
// an approval comes in. Whose approval counts is said as a rule too (code owners of its files, collaborators where
// CODEOWNERS names none), as code-owners.ts decides it on each pass from the CODEOWNERS file on main.
import type { KimopsConfig, PolicyClass } from '../../model/kimops-config.js';
import { formatCount } from '../../rules/change-text.js';
import type { ChangeClassName } from './classify.js';

export interface MergeStatementInput {
  class: ChangeClassName;
  disruptive: boolean;
  policy: KimopsConfig['mergePolicy'];
  /** The checks the branch requires (kimops.yaml), by name, e.g. `kimops/validate` and the workflow's `validate`. */
  requiredChecks: readonly string[];
  /** For a blocked PR: each change Gardener would reject, as the class's reasons say it. */
  blockedBy?: readonly string[];
}

export interface MergeStatement {
  action: 'auto-merge' | 'await-review' | 'blocked';
  /** Markdown: one sentence, and for a blocked PR the list of its reasons. */
  text: string;
}

export function mergeStatement(input: MergeStatementInput): MergeStatement {
  const { class: changeClass, disruptive, policy, requiredChecks } = input;
  if (changeClass === 'immutable') {
    const reasons = input.blockedBy ?? [];
    return {
      action: 'blocked',
      text: [
        `blocked: Gardener would reject ${reasons.length <= 1 ? 'this change' : `${formatCount(reasons.length)} of its changes`}, so it never merges${reasons.length > 0 ? ':' : '.'}`,
        ...reasons.map((reason) => `- ${reason}`),
        '',
        'Change the Runtime back, or recreate the cluster.',
      ].join('\n'),
    };
  }
  const checks = checksText(requiredChecks);
  // decideMerge's rule: a delete no Runtime asked for waits for at least one person, whatever the delete policy.
  if (changeClass === 'delete' && disruptive) {
    const approvals = Math.max(1, approvalsOf(policy.delete));
    return {
      action: 'await-review',
      text: `waits for ${approvalsText(approvals, 'a delete no Runtime asked for always waits for a person, whatever `mergePolicy.delete` says')}; kimops merges it once approved and ${checks}.`,
    };
  }
  if (changeClass === 'cut-over' && disruptive) {
    const approvals = Math.max(1, approvalsOf(policy['cut-over']));
    return {
      action: 'await-review',
      text: `waits for ${approvalsText(approvals, 'a cut-over whose live Shoot is not known to match main always waits for a person, whatever `mergePolicy.cut-over` says')}; kimops merges it once approved and ${checks}.`,
    };
  }
  if (changeClass === 'bootstrap')
    return {
      action: 'await-review',
      text: `waits for ${approvalsText(1, 'a bootstrap is always reviewed, whatever kimops.yaml says')}; merge it once approved and ${checks}.`,
    };
  const key = policyKeyOf(changeClass, disruptive);
  const classPolicy = policy[key];
  if (classPolicy.mode === 'auto-merge')
    return { action: 'auto-merge', text: `auto-merges per \`mergePolicy.${key}\` when ${checks}.` };
  return {
    action: 'await-review',
    text: `waits for ${approvalsText(classPolicy.approvals, `\`mergePolicy.${key}\``)}; kimops merges it once approved and ${checks}.`,
  };
}

/** The kimops.yaml policy a class is merged by: a disruptive update has its own, every other class its name. */
function policyKeyOf(
  changeClass: Exclude<ChangeClassName, 'immutable' | 'bootstrap'>,
  disruptive: boolean,
): PolicyClass {
  return changeClass === 'update' && disruptive ? 'update-disruptive' : changeClass;
}

function checksText(checks: readonly string[]): string {
  if (checks.length === 0) return "kimops's own validation passes";
  return `the required ${checks.length === 1 ? 'check passes' : 'checks pass'}: ${checks.map((name) => `\`${name}\``).join(', ')}`;
}

/** The approvals, the rule asking for them, and whose count: code-owners.ts's rule, CODEOWNERS on main deciding. */
const approvalsText = (count: number, rule: string) =>
  count === 1
    ? `1 approval (${rule}) by a code owner of its files, or by a collaborator where CODEOWNERS names none`
    : `${formatCount(count)} approvals (${rule}) by code owners of its files, or by collaborators where CODEOWNERS names none`;
const approvalsOf = (policy: KimopsConfig['mergePolicy']['delete']) =>
  policy.mode === 'review' ? policy.approvals : 0;
