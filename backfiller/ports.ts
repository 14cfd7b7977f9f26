// What the backfiller needs of the two APIs it talks to, and nothing more: adapters/kube's KubeClient has all
// of it (cli/backfill.ts passes one for each), unit tests pass plain objects. Every expected failure (404, 409,
// an API that does not answer) is a value, never an exception, as KubeClient answers them.
import type { ListAllOptions, ListAllResult } from '../adapters/kube/kube-client.js';
import type { ObjectRef } from '../adapters/kube/resources.js';
import type { KubeResult } from '../model/kube-result.js';
import type { KubeObject } from '../model/kube-object.js';
import type { Leader } from '../rules/leader.js';

interface ApiReads {
  /** Names the API in messages: the kubeconfig's path. */
  readonly label: string;
  /** The API server's address, for messages. */
  readonly server: string;
  get<T extends KubeObject>(ref: ObjectRef): Promise<KubeResult<T>>;
  /** A LIST in pages of `options.limit`. */
  listAll<T extends KubeObject>(ref: Omit<ObjectRef, 'name'>, options?: ListAllOptions): Promise<ListAllResult<T>>;
}

/**
 * The KCP cluster: the Runtimes (their status, finalizers and Events), and the GardenerClusters and kubeconfig
 * Secrets the backfiller keeps beside them.
 */
export interface KcpPort extends ApiReads {
  /** PUT, with optimistic concurrency on `metadata.resourceVersion` (the status write). */
  replace<T extends KubeObject>(object: T, subresource?: string): Promise<KubeResult<T>>;
  /** A JSON merge patch unless `contentType` says otherwise. */
  patch<T extends KubeObject>(
    ref: ObjectRef,
    patch: unknown,
    contentType?: string,
    subresource?: string,
  ): Promise<KubeResult<T>>;
  /** Server-side apply as `fieldManager`. */
  apply<T extends KubeObject>(object: T, fieldManager: string, options?: { force?: boolean }): Promise<KubeResult<T>>;
  create<T extends KubeObject>(object: T): Promise<KubeResult<T>>;
  delete(ref: ObjectRef): Promise<KubeResult<unknown>>;
}

/** The Garden: the Shoots and the applier's report are read; only a Shoot's `adminkubeconfig` is asked for. */
export interface GardenPort extends ApiReads {
  /** A request to any path (the `adminkubeconfig` subresource, which no typed call reaches). */
  request<T>(method: string, path: string, options?: { body?: unknown }): Promise<KubeResult<T>>;
}

/** A Shoot's own cluster (the SKR), for the dedicated audit log's read credentials: one server-side apply. */
export interface SkrPort {
  apply<T extends KubeObject>(object: T, fieldManager: string, options?: { force?: boolean }): Promise<KubeResult<T>>;
  /** Done with this cluster (its short-lived credentials dropped). */
  close(): void;
}

/** Connects to the SKR of a Shoot of the Garden namespace; a failure says why, naming the Shoot and the fix. */
export type SkrConnect = (shoot: string) => Promise<{ ok: true; client: SkrPort } | { ok: false; message: string }>;

/** What every step of the backfiller gets: the two APIs and the settings of the run. */
export interface BackfillContext<Kcp extends KcpPort = KcpPort, Garden extends GardenPort = GardenPort> {
  kcp: Kcp;
  garden: Garden;
  /** Where the Shoots are: `garden-<project>`. */
  gardenNamespace: string;
  now?: () => Date;
  /** What the AdminKubeconfigRequest asks for (default KIM's 24 h). */
  expirationSeconds?: number;
  /** The rotation period's share of the expiration (default KIM's 0.6). */
  minimalRotationTime?: number;
  /**
   * The landscape's `features.dedicatedAuditLogging` (KIM's -dedicated-audit-logging-enabled): the AuditLogs are
   * read and the read credentials copied to the SKR through `skr`. Off or absent: today's status, nothing copied.
   */
  dedicatedAuditLogging?: { skr: SkrConnect };
  /**
   * landscape.yaml's defaultLeader: who leads a Runtime without the `kimops.kyma-project.io/leader` label (absent:
   * kimops). A Runtime KIM leads is left to KIM: nothing is written for it (reconcile-runtime.ts, ADR 0011).
   */
  defaultLeader?: Leader;
}
