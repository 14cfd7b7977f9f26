// The timeline of a Runtime's newest change (status/landscape-status.ts `Timeline`): when it changed, its PR opened
// and merged, kimops applied its Shoot and the Runtime turned Ready, each from where the system recorded it. A time
// before the change is an earlier change's (the Runtime was Ready long before KEB's update) and is left out; so is
// an apply (and the Ready after it) of another main than the change's merge: a rollout since, or several merges
// in one sync. A step not attributed is missing, never taken from another change. Pure.
import { CONDITION_PROVISIONED, CONDITION_READY, type RuntimeStatus } from '../model/runtime-status.js';
import type { Timeline } from './landscape-status.js';
import type { ManagedFieldsEntry } from './status-input.js';

export interface TimelineFacts {
  runtime?: {
    creationTimestamp?: string;
    managedFields?: readonly ManagedFieldsEntry[];
    status: Partial<RuntimeStatus>;
  };
  /** The field managers of kimops's own writes: not a change anyone asked for. */
  ownManagers: ReadonlySet<string>;
  proposedAt?: string;
  mergedAt?: string;
  /**
   * The commits main may have been at when the change was merged (the generator's record, the forge's merge commit):
   * the Shoot's apply is this change's only when it was applied from one of them. Absent: no apply is attributed.
   */
  mergeCommits?: readonly string[];
  /** The Shoot's applied-commit annotation. */
  appliedCommit?: string;
  shoot?: { managedFields?: readonly ManagedFieldsEntry[] };
  /** The field manager of kimops's applies of the Shoots. */
  fieldManager: string;
}

export function timelineOf(facts: TimelineFacts): Timeline {
  const changed = facts.runtime && changedAt(facts.runtime, facts.ownManagers);
  const applied = newest(
    facts.shoot?.managedFields?.filter(
      (entry) => entry.manager === facts.fieldManager && entry.operation === 'Apply' && !entry.subresource,
    ),
  );
  const ready = facts.runtime && readyAt(facts.runtime.status);
  // In whole seconds, as managedFields and git keep them: a PR opened in the change's second is this change's.
  const second = (time: string) => Math.floor(Date.parse(time) / 1000);
  const attributed =
    facts.runtime === undefined ||
    (facts.appliedCommit !== undefined && (facts.mergeCommits ?? []).includes(facts.appliedCommit));
  const readyAfterApply = ready !== undefined && (applied === undefined || second(ready) >= second(applied));
  // A fast-forward merge (the local forge's, where it can) keeps the branch's commit, made before its PR opened:
  // the merge was then no earlier than the opening, which is the time told.
  const merged =
    facts.mergedAt !== undefined && facts.proposedAt !== undefined && second(facts.mergedAt) < second(facts.proposedAt)
      ? facts.proposedAt
      : facts.mergedAt;
  const steps: Timeline = {
    ...(changed !== undefined && { changed }),
    ...(facts.proposedAt !== undefined && { proposed: facts.proposedAt }),
    ...(merged !== undefined && { merged }),
    ...(attributed && applied !== undefined && { applied }),
    ...(attributed && readyAfterApply && { ready }),
  };
  if (changed === undefined) return steps;
  return Object.fromEntries(Object.entries(steps).filter(([, time]) => second(time) >= second(changed))) as Timeline;
}

/** The newest write to the Runtime by anyone but kimops (its status is kimops's), else its creation. */
function changedAt(
  runtime: NonNullable<TimelineFacts['runtime']>,
  ownManagers: ReadonlySet<string>,
): string | undefined {
  const writes = runtime.managedFields?.filter(
    (entry) => entry.subresource !== 'status' && !ownManagers.has(entry.manager ?? ''),
  );
  return newest(writes) ?? runtime.creationTimestamp;
}

/** When the Runtime turned Ready: its Ready condition's transition, else Provisioned's (a status KIM wrote). */
function readyAt(status: Partial<RuntimeStatus>): string | undefined {
  if (status.state !== 'Ready') return undefined;
  const condition = (type: string) => status.conditions?.find((c) => c.type === type && c.status === 'True');
  return (condition(CONDITION_READY) ?? condition(CONDITION_PROVISIONED))?.lastTransitionTime || undefined;
}

function newest(entries: readonly ManagedFieldsEntry[] | undefined): string | undefined {
  let found: string | undefined;
  for (const { time } of entries ?? [])
    if (
      time !== undefined &&
      !Number.isNaN(Date.parse(time)) &&
      (found === undefined || Date.parse(time) > Date.parse(found))
    )
      found = time;
  return found;
}
