// The one shape of a Kubernetes object in kimops: what the API serves, what the landscape repo holds and
// what the components pass between them. Typed where kimops reads a field, open everywhere else, because
// kimops carries whole objects through untouched.

export interface ObjectMeta {
  name: string;
  namespace?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  generation?: number;
  uid?: string;
  resourceVersion?: string;
  /** Set by the API server once a DELETE was accepted; the object stays until its finalizers are gone. */
  deletionTimestamp?: string;
  [key: string]: unknown;
}

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  [key: string]: unknown;
}
