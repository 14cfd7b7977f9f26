// The gate a pull request passes to be merged, read back from what the forge holds: its class labels
// (written by the generator), the approvals on its head and the kimops/validate status of its head.
// `kimops pr merge` applies it, so a human's merge obeys the same decision as the auto-merge.
import type { StatusState } from '../../adapters/forge/forge.js';
import { VALIDATE_CONTEXT } from '../../adapters/forge/forge.js';
import type { KimopsConfig } from '../../model/kimops-config.js';
import type { ChangeClassName } from './classify.js';
import { decideMerge, type MergeDecision } from './merge-policy.js';

const CLASS_LABEL_PREFIX = 'kimops:';
/** Beside the class label: the change replaces nodes (or deletes a Shoot no Runtime asked to delete). */
const DISRUPTIVE_LABEL = 'kimops:disruptive';
const CLASSES: readonly ChangeClassName[] = ['create', 'delete', 'update', 'immutable', 'rollout', 'adopt', 'metadata-only'];

/** The labels the generator puts on a PR of this class. */
export function classLabels({ class: name, disruptive }: { class: ChangeClassName; disruptive: boolean }): string[] {
  return [`${CLASS_LABEL_PREFIX}${name}`, ...(disruptive ? [DISRUPTIVE_LABEL] : [])];
}

export interface GateInput {
  labels: readonly string[];
  /** Approvals given on the head that would be merged. */
  approvals: number;
  /** The head's kimops/validate status, if one was posted. */
  validation: { state: StatusState; description: string } | undefined;
  policy: KimopsConfig['mergePolicy'];
}

export function mergeGate({ labels, approvals, validation, policy }: GateInput): MergeDecision {
  const name = labels.map((label) => label.slice(CLASS_LABEL_PREFIX.length)).find((rest) => CLASSES.includes(rest as ChangeClassName)) as ChangeClassName | undefined;
  if (name === undefined) {
    return { action: 'blocked', reason: `it carries no change class label (${CLASS_LABEL_PREFIX}<class>), so no merge policy applies: kimops did not propose it` };
  }
  const check =
    validation === undefined
      ? { name: `${VALIDATE_CONTEXT} (no status on the head: run kimops generate, which validates and posts it)`, passed: false, messages: [] }
      : { name: `${VALIDATE_CONTEXT} (${validation.state}: ${validation.description})`, passed: validation.state === 'success', messages: [] };
  return decideMerge({ class: name, disruptive: labels.includes(DISRUPTIVE_LABEL), checks: [check], approvals, policy });
}
