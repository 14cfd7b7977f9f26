// The watching backfiller's caches, kept by WATCH after one LIST each: the KCP namespace's Runtimes,
// GardenerClusters and kubeconfig Secrets, and the Garden namespace's Shoots and the applier's report. Each keeps
// only what a reconcile reads, compacted as it arrives (without managedFields; of a Shoot its status and DNS
// domain; of a Secret which keys hold a value, never a kubeconfig), so a reconcile GETs nothing and 10,000
// Runtimes' worth stays small.
import type { InformerOptions } from '../adapters/kube/informer.js';
import type { AuditLog } from '../model/audit-log.js';
import type { KubeObject } from '../model/kube-object.js';
import { APPLY_REPORT_SELECTOR } from '../model/contract.js';
import { compactSecret, compactShootForStatus, withoutManagedFields } from './compact-objects.js';
import { AUDIT_LOG_TYPE, KUBECONFIG_SECRET_SELECTOR } from './lookups.js';
import {
  GARDENER_CLUSTER_TYPE,
  RUNTIME_TYPE,
  SECRET_TYPE,
  SHOOT_TYPE,
  type GardenerClusterObject,
  type RuntimeObject,
  type SecretObject,
  type ShootObject,
} from './objects.js';
import type { WatchedKind } from './watcher.js';

/** One cache: an informer (adapters/kube/informer.ts), listening from its creation, filled once started. */
export interface CachedKind<T> extends WatchedKind<T> {
  start(): void;
  stop(): Promise<void>;
}

/** Makes a cache of one kind on one cluster (adapters/kube/informer-factory.ts's informersOn). */
export type StartCache = <T extends KubeObject>(
  type: { apiVersion: string; kind: string },
  options: InformerOptions,
) => CachedKind<T>;

export interface BackfillCaches {
  runtimes: CachedKind<RuntimeObject>;
  shoots: CachedKind<ShootObject>;
  /** The applier's report of what it could not do (one ConfigMap): SeedNotFound and refused writes. */
  applyReports: CachedKind<KubeObject>;
  gardenerClusters: CachedKind<GardenerClusterObject>;
  secrets: CachedKind<SecretObject>;
  /** KALM's AuditLogs of the KCP namespace, only with the landscape's dedicated-audit-log switch on. */
  auditLogs?: CachedKind<AuditLog>;
  /** Starts them all: register listeners first, the first lists' events go to those already there. */
  start(): void;
  stop(): Promise<void>;
}

export function backfillCaches(
  on: { kcp: StartCache; garden: StartCache },
  namespaces: { kcp: string; garden: string },
  log: (line: string) => void,
  options: { auditLogs?: boolean } = {},
): BackfillCaches {
  const kcp = { namespace: namespaces.kcp, log };
  const garden = { namespace: namespaces.garden, log };
  const caches = {
    runtimes: on.kcp<RuntimeObject>(RUNTIME_TYPE, { ...kcp, transform: withoutManagedFields }),
    shoots: on.garden<ShootObject>(SHOOT_TYPE, { ...garden, transform: compactShootForStatus }),
    applyReports: on.garden<KubeObject>(
      { apiVersion: 'v1', kind: 'ConfigMap' },
      { ...garden, labelSelector: APPLY_REPORT_SELECTOR },
    ),
    gardenerClusters: on.kcp<GardenerClusterObject>(GARDENER_CLUSTER_TYPE, { ...kcp, transform: withoutManagedFields }),
    secrets: on.kcp<SecretObject>(SECRET_TYPE, {
      ...kcp,
      labelSelector: KUBECONFIG_SECRET_SELECTOR,
      transform: compactSecret,
    }),
    ...(options.auditLogs && {
      auditLogs: on.kcp<AuditLog>(AUDIT_LOG_TYPE, { ...kcp, transform: withoutManagedFields }),
    }),
  };
  const all = Object.values(caches);
  return {
    ...caches,
    start: () => {
      for (const cache of all) cache.start();
    },
    stop: async () => void (await Promise.all(all.map((cache) => cache.stop()))),
  };
}
