// The one label a kimops pull request carries: its change class, as a reviewer filters for it ("everything
// waiting for me is kimops:update-disruptive or kimops:rollout"). A PR's class can change while it is open
// (a later pass turns an update into an immutable change), so the label follows the class on every pass
// (`labelsToSet`); what the merge gate reads is the class recorded in the body (merge-gate.ts), never the label.
import { PR_LABEL_PREFIX as LABEL_PREFIX } from '../../model/contract.js';
import type { ChangeClass } from './classify.js';

/** The labels and what each means to a reviewer (the landscape repo's README lists the same). */
export const PR_LABELS = {
  'kimops:create': 'a new Runtime: Gardener creates the cluster',
  'kimops:update': "the Runtime's change; no node is replaced",
  'kimops:update-disruptive': 'nodes are replaced or workloads interrupted: waits for review',
  'kimops:blocked': 'Gardener would reject this change: it never merges',
  'kimops:rollout': 'a wave of a landscape-wide change no Runtime asked for',
  'kimops:adopt': 'git follows a change Gardener made to the live Shoot',
  'kimops:delete': 'KEB deprovisions the Runtime: Gardener deletes the cluster',
  'kimops:delete-runtime-absent': 'no Runtime asked for this delete: waits for a person',
  'kimops:metadata-only': 'only labels or annotations of the Shoot change',
  'kimops:skr': "the Runtime's change inside its cluster only: administrators, OIDC, provisioning info",
  'kimops:skr-unrequested': 'a change inside the cluster no Runtime asked for: waits for review',
  'kimops:shadow': 'a change of a Shoot KIM leads: merging it changes nothing live',
  'kimops:cut-over': 'kimops takes the Shoot over from KIM, or hands it back',
  'kimops:bootstrap': "the landscape's live Shoots written into the repo at once: always waits for review",
} as const satisfies Record<`${typeof LABEL_PREFIX}${string}`, string>;

export type PullRequestLabel = keyof typeof PR_LABELS;

/** The label of a PR of this class: an immutable change shows as blocked, since that is what it is for a reviewer. */
export function labelOf({ class: name, disruptive }: Pick<ChangeClass, 'class' | 'disruptive'>): PullRequestLabel {
  switch (name) {
    case 'update':
      return disruptive ? 'kimops:update-disruptive' : 'kimops:update';
    case 'immutable':
      return 'kimops:blocked';
    case 'delete':
      // A delete is disruptive exactly when no Runtime asked for it (classify.ts).
      return disruptive ? 'kimops:delete-runtime-absent' : 'kimops:delete';
    default:
      return `${LABEL_PREFIX}${name}`;
  }
}

/**
 * The labels to set so the PR carries exactly `wanted` among kimops's: the label of an earlier class goes, a
 * human's labels stay. Undefined when the PR has them already, so a pass that changed nothing writes nothing.
 */
export function labelsToSet(current: readonly string[], wanted: PullRequestLabel): string[] | undefined {
  const others = current.filter((label) => !label.startsWith(LABEL_PREFIX));
  const stale = current.some((label) => label.startsWith(LABEL_PREFIX) && label !== wanted);
  return stale || !current.includes(wanted) ? [...others, wanted] : undefined;
}
