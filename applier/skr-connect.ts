// How the applier reaches a Shoot's own cluster (the SKR): a client made for one SKR of one sync from Gardener's
// short-lived admin kubeconfig (adapters/kube/skr-client.ts), used by the SKR phase (skr-sync.ts) and the registry
// caches' credentials copy (registry-cache-sync.ts).
import type { ListAllOptions, ListAllResult } from '../adapters/kube/kube-client.js';
import type { ObjectRef } from '../adapters/kube/resources.js';
import type { KubeObject } from '../model/kube-object.js';
import type { KubeResult } from '../model/kube-result.js';

/** What configuring one SKR needs of its API: KubeClient has it. */
export interface SkrApi {
  get<T extends KubeObject>(ref: ObjectRef): Promise<KubeResult<T>>;
  apply<T extends KubeObject>(object: T, fieldManager: string, options?: { force?: boolean }): Promise<KubeResult<T>>;
  delete(ref: ObjectRef): Promise<KubeResult<unknown>>;
  listAll<T extends KubeObject>(ref: Omit<ObjectRef, 'name'>, options?: ListAllOptions): Promise<ListAllResult<T>>;
  /** Its connections closed: the client is made for one SKR of one sync. */
  close(): void;
}

/** A client for the SKR of Shoot `namespace/shoot` (adapters/kube/skr-client.ts), made anew each time, never kept. */
export type SkrConnect = (
  namespace: string,
  shoot: string,
) => Promise<{ ok: true; client: SkrApi } | { ok: false; message: string }>;
