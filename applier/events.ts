// The Kubernetes Event kimops records on a drifted Shoot, so `kubectl describe shoot` and the project's
// event stream show it next to Gardener's own. Its name is derived from the Shoot and what drifted: the
// same drift is recorded once (a create of an existing name is refused and left alone), a different
// drift gets its own Event. Pure.
import { createHash } from 'node:crypto';
import type { KubeObject } from '../model/kube-object.js';
import { SHOOT_API_VERSION } from '../model/shoot.js';
import type { DriftMode } from './drift.js';
import type { PlanEntry } from './plan.js';
import { kubeEvent } from '../model/kube-events.js';

const EVENT_SOURCE = 'kimops-applier';
export const DRIFT_REASON = 'DriftDetected';

/** Event messages are capped by the API server at 1 KiB; longer ones are cut with a pointer to the dry run. */
const MAX_MESSAGE = 1024;

export function driftEvent(entry: PlanEntry, namespace: string, mode: DriftMode, now: Date): KubeObject {
  const full = entry.reasons.join('; ');
  const message =
    full.length <= MAX_MESSAGE ? full : `${full.slice(0, MAX_MESSAGE - 60)}… (kimops apply --dry-run shows all of it)`;
  const digest = createHash('sha256').update(`${mode}\n${full}`).digest('hex').slice(0, 10);
  return kubeEvent({
    name: `${entry.shoot}.kimops-drift-${digest}`,
    involvedObject: {
      apiVersion: SHOOT_API_VERSION,
      kind: 'Shoot',
      namespace,
      name: entry.shoot,
      ...(entry.live?.metadata.uid && { uid: entry.live.metadata.uid }),
    },
    type: mode === 'correct' ? 'Normal' : 'Warning',
    reason: DRIFT_REASON,
    message,
    component: EVENT_SOURCE,
    now,
  });
}
