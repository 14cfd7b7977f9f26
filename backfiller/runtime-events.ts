// The Events the backfiller records on a Runtime: KIM's one per changed condition (status.ts decides which).
import { randomBytes } from 'node:crypto';
import { kubeEvent } from '../model/kube-events.js';
import { RUNTIME_API_VERSION } from '../model/runtime.js';
import type { RuntimeObject } from './objects.js';
import type { BackfillContext } from './ports.js';
import type { ConditionEvent } from './status.js';

/** `source.component` / `reportingComponent` of the Events kimops records on Runtimes. */
const EVENT_COMPONENT = 'kimops-backfiller';

/** KIM's Event for a changed condition, on the Runtime; a refused Event does not fail the Runtime (returns false). */
export async function recordEvent(
  context: BackfillContext,
  runtime: RuntimeObject,
  event: ConditionEvent,
  now: Date,
): Promise<boolean> {
  const { name, namespace, uid, resourceVersion } = runtime.metadata;
  const created = await context.kcp.create(
    kubeEvent({
      // Unique, as client-go's recorder names them: one Event per change, never one updated in place.
      name: `${name}.${now.getTime().toString(16)}${randomBytes(4).toString('hex')}`,
      involvedObject: { apiVersion: RUNTIME_API_VERSION, kind: 'Runtime', name, namespace, uid, resourceVersion },
      ...event,
      component: EVENT_COMPONENT,
      now,
    }),
  );
  return created.ok;
}
