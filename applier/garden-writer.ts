// The applier's port to the Garden: the five calls a sync makes. KubeClient has them; unit tests pass a
// fake; paced-writer.ts wraps one with pacing and retries. Its own file, so the sync and the pacing both
// depend on it and not on each other.
import type { KubeObject } from '../model/kube-object.js';
import type { KubeResult } from '../model/kube-result.js';
import type { ObjectRef } from '../adapters/kube/resources.js';

/** What sync needs of the Garden API: KubeClient has it; unit tests pass a fake. */
export interface GardenWriter {
  apply<T extends KubeObject>(object: T, fieldManager: string, options?: { force?: boolean }): Promise<KubeResult<T>>;
  create<T extends KubeObject>(object: T): Promise<KubeResult<T>>;
  patch<T extends KubeObject>(ref: ObjectRef, patch: unknown): Promise<KubeResult<T>>;
  delete(ref: ObjectRef): Promise<KubeResult<unknown>>;
  get<T extends KubeObject>(ref: ObjectRef): Promise<KubeResult<T>>;
}
