// The one condition setter. By default apimachinery's meta.SetStatusCondition semantics, because KEB and
// every Kubernetes client read `lastTransitionTime` as "when the status last changed": a new type is
// appended as given; an existing one takes the new reason, message and observedGeneration, and takes the
// new `lastTransitionTime` only when its status changes — rewriting the same status keeps the old time.

export interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
  lastTransitionTime: string;
  observedGeneration?: number;
}

/**
 * What counts as a transition: a changed `status` (the default, apimachinery's rule), or `any` change of
 * status, reason or message — for a condition that reports a step's latest outcome rather than a lasting
 * state (the GardenerCluster's KubeconfigManagement: "rotated" is news after "created", both True).
 */
export type TransitionOn = 'status' | 'any';

/** Sets `condition` in `conditions`, in place (the caller owns the list it is building). */
export function setCondition<C extends Condition>(
  conditions: C[],
  condition: C,
  transitionOn: TransitionOn = 'status',
): void {
  const existing = conditions.find((candidate) => candidate.type === condition.type);
  if (!existing) {
    conditions.push({ ...condition });
    return;
  }
  const transition =
    existing.status !== condition.status ||
    (transitionOn === 'any' && (existing.reason !== condition.reason || existing.message !== condition.message));
  if (transition) existing.lastTransitionTime = condition.lastTransitionTime;
  existing.status = condition.status;
  existing.reason = condition.reason;
  existing.message = condition.message;
  if (condition.observedGeneration === undefined) delete existing.observedGeneration;
  else existing.observedGeneration = condition.observedGeneration;
}
