// The one builder of core/v1 Events, so the Events kimops records on Shoots (drift) and on Runtimes (status
// changes) look alike to `kubectl describe` and event exporters: the Event lives in its object's namespace,
// names its component as source and reporter, and carries one timestamp in metav1.Time's form.
import type { KubeObject } from './kube-object.js';
import { rfc3339Seconds } from './go-time.js';

export interface EventInput {
  /** The Event's own name; the caller chooses it (a digest to record a thing once, or a unique suffix). */
  name: string;
  involvedObject: {
    apiVersion: string;
    kind: string;
    name: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
  };
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
  /** `source.component`, `reportingComponent` and `reportingInstance`. */
  component: string;
  now: Date;
}

export function kubeEvent(input: EventInput): KubeObject {
  const time = rfc3339Seconds(input.now);
  const { apiVersion, kind, name, namespace, uid, resourceVersion } = input.involvedObject;
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: input.name, ...(namespace !== undefined && { namespace }) },
    involvedObject: {
      apiVersion,
      kind,
      ...(namespace !== undefined && { namespace }),
      name,
      ...(uid !== undefined && { uid }),
      ...(resourceVersion !== undefined && { resourceVersion }),
    },
    reason: input.reason,
    message: input.message,
    type: input.type,
    source: { component: input.component },
    reportingComponent: input.component,
    reportingInstance: input.component,
    firstTimestamp: time,
    lastTimestamp: time,
    count: 1,
  };
}
