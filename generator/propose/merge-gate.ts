// The gate a pull request passes to be merged, read back from what the forge holds: the change class
// the generator recorded for the head (in the PR body, beside the heads it wrote), the approvals on that
// head that count (its code owners'), its kimops/validate status and every check kimops.yaml requires.
// `kimops pr merge` applies it, so a human's merge obeys the same decision as the auto-merge. The class is recorded per head, not as a label: a
// later pass may turn an open update into an immutable change.
import type { StatusState } from '../../adapters/forge/forge.js';
import { VALIDATE_CONTEXT } from '../../model/contract.js';
import type { KimopsConfig } from '../../model/kimops-config.js';
import type { ChangeClassName } from './classify.js';
import type { ApprovalTally } from './code-owners.js';
import { decideMerge, withRequiredChecks, type MergeDecision, type RequiredChecksInput } from './merge-policy.js';

const CLASSES: readonly ChangeClassName[] = [
  'create',
  'delete',
  'update',
  'immutable',
  'rollout',
  'adopt',
  'metadata-only',
  'skr',
  'skr-unrequested',
  'shadow',
  'cut-over',
  'bootstrap',
];
const CLASS_MARKER = /<!-- kimops:class ([0-9a-f]{40}) ([a-z-]+)( disruptive)? -->/g;

export interface RecordedClass {
  class: ChangeClassName;
  disruptive: boolean;
}

/** The hidden line of the PR body that records the class the generator decided for `head`. */
export function classLine(head: string, { class: name, disruptive }: RecordedClass): string {
  return `<!-- kimops:class ${head} ${name}${disruptive ? ' disruptive' : ''} -->\n`;
}

/** The class recorded for `head` in a PR body, or undefined when the generator recorded none for it. */
export function recordedClass(body: string, head: string): RecordedClass | undefined {
  for (const [, sha, name, disruptive] of body.matchAll(CLASS_MARKER)) {
    if (sha === head && CLASSES.includes(name as ChangeClassName))
      return { class: name as ChangeClassName, disruptive: disruptive !== undefined };
  }
  return undefined;
}

export interface GateInput {
  /** The class recorded for the head that would be merged. */
  recorded: RecordedClass | undefined;
  /** The approvals given on that head that count (code-owners.ts). */
  approvals: ApprovalTally;
  /** The head's kimops/validate status, if one was posted: kimops's own checks of the head. */
  validation: { state: StatusState; description: string } | undefined;
  policy: KimopsConfig['mergePolicy'];
  /** kimops.yaml's requiredChecks and what the forge reports on the head. */
  checks: RequiredChecksInput;
}

export function mergeGate({ recorded, approvals, validation, policy, checks }: GateInput): MergeDecision {
  if (recorded === undefined) {
    return {
      action: 'blocked',
      reason:
        'kimops recorded no change class for its head, so no merge policy applies: run kimops generate, which classifies and validates the head',
    };
  }
  const check =
    validation === undefined
      ? {
          name: `${VALIDATE_CONTEXT} (no status on the head: run kimops generate, which validates and posts it)`,
          passed: false,
          messages: [],
        }
      : {
          name: `${VALIDATE_CONTEXT} (${validation.state}: ${validation.description})`,
          passed: validation.state === 'success',
          messages: [],
        };
  return withRequiredChecks(decideMerge({ ...recorded, checks: [check], approvals, policy }), checks);
}
