// Per-operation timeouts (kimops.yaml apply.timeouts). Gardener retries an operation for a long time
// (its retry window), but KEB gives a provisioning 60 minutes: an operation running longer must surface
// as failed for the backfiller while Gardener, and the applier's polling, go on. Surfacing means an
// annotation on the Shoot, so the verdict survives restarts without state outside the API; it is set once
// per operation and removed when the operation ends. Pure: the caller lists the Shoots and patches.
import type { ApplySettings } from '../model/kimops-config.js';
import type { Shoot } from '../model/shoot.js';
import { formatGoDuration } from '../model/go-time.js';
import { shootHealth } from './shoot-health.js';
import { OPERATION_TIMED_OUT_ANNOTATION } from '../model/contract.js';

export type TimeoutChange =
  | { shoot: string; set: string }
  /** The operation ended (or another began): the annotation goes. */
  | { shoot: string; clear: true };

/**
 * When the Shoot's current operation began: its creation for a Create, its deletion for a Delete. Any other
 * operation (a Reconcile of a spec change, or Gardener's periodic one) is timed only while Gardener reports it
 * failing (Error, Aborted, Failed), from `status.retryCycleStartTime`: gardenlet resets that when a new
 * generation starts, not for a periodic reconcile nor a retry, so a healthy reconcile in progress is never
 * timed against a cycle that began days ago, while a change that keeps failing is timed from its start.
 * Undefined when the operation is not timed or its start is unknown.
 */
export function operationStart(shoot: Shoot): { type: string; since: string } | undefined {
  const type = shoot.metadata.deletionTimestamp ? 'Delete' : (shoot.status?.lastOperation?.type ?? 'Create');
  // A generation Gardener has not started on yet is a new operation: the old one's failure no longer counts.
  const newer = (shoot.metadata.generation ?? 0) > (shoot.status?.observedGeneration ?? 0);
  const failing = !newer && ['Error', 'Aborted', 'Failed'].includes(shoot.status?.lastOperation?.state ?? '');
  const since =
    type === 'Delete'
      ? shoot.metadata.deletionTimestamp
      : type === 'Create'
        ? shoot.metadata.creationTimestamp
        : failing
          ? (shoot.status?.retryCycleStartTime as string | undefined)
          : undefined;
  return typeof since === 'string' && since !== '' ? { type, since } : undefined;
}

function timeoutFor(type: string, timeouts: ApplySettings['timeouts']): number {
  return type === 'Create' ? timeouts.create : type === 'Delete' ? timeouts.delete : timeouts.update;
}

/** The Shoots whose operation is still in progress past its timeout at `now`: name → the annotation's value. */
export function overdueOperations(
  shoots: readonly Shoot[],
  timeouts: ApplySettings['timeouts'],
  now: Date,
): Map<string, string> {
  const overdue = new Map<string, string>();
  for (const shoot of shoots) {
    // `unknown` is a Shoot Gardener has not reported on yet: its Create has begun all the same.
    const state = shootHealth(shoot).state;
    const progressing =
      shoot.metadata.deletionTimestamp !== undefined || state === 'progressing' || state === 'unknown';
    const start = progressing ? operationStart(shoot) : undefined;
    if (!start) continue;
    const limit = timeoutFor(start.type, timeouts);
    if (now.getTime() - Date.parse(start.since) <= limit) continue;
    overdue.set(
      shoot.metadata.name,
      `${start.type} started ${start.since} has no result after ${formatGoDuration(limit * 1e6)} (kimops.yaml apply.timeouts); Gardener goes on trying`,
    );
  }
  return overdue;
}

/**
 * The annotation changes `overdue` asks for: set on an overdue Shoot (once: an equal value is not written
 * again), cleared from a Shoot whose operation is no longer in progress or is a newer one.
 */
export function timeoutChanges(shoots: readonly Shoot[], overdue: ReadonlyMap<string, string>): TimeoutChange[] {
  const changes: TimeoutChange[] = [];
  for (const shoot of shoots) {
    const name = shoot.metadata.name;
    const current = shoot.metadata.annotations?.[OPERATION_TIMED_OUT_ANNOTATION];
    const value = overdue.get(name);
    if (value !== undefined && current !== value) changes.push({ shoot: name, set: value });
    else if (value === undefined && current !== undefined) changes.push({ shoot: name, clear: true });
  }
  return changes;
}
