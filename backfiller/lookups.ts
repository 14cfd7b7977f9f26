// Where a reconcile finds the facts about its Runtime: the Shoot, the GardenerCluster, the kubeconfig Secret and
// what the applier's report says — from one LIST each (--once) or from the watching backfiller's caches.
import type { ListAllResult } from '../adapters/kube/kube-client.js';
import { AUDIT_LOG_API_VERSION, AUDIT_LOG_KIND, type AuditLog } from '../model/audit-log.js';
import { describeFailure, fixFor } from '../model/kube-result.js';
import { type BackoffPolicy, backoffDelayMs } from '../model/backoff.js';
import { LABEL_CLUSTER_NAME, APPLY_REPORT_NAME } from '../model/contract.js';
import { TransportError } from '../model/errors.js';
import type { KubeObject } from '../model/kube-object.js';
import { readApplyReport, type ApplyFacts } from '../rules/apply-report.js';
import {
  GARDENER_CLUSTER_TYPE,
  SECRET_TYPE,
  SHOOT_TYPE,
  type GardenerClusterObject,
  type SecretObject,
  type ShootObject,
} from './objects.js';
import type { BackfillContext } from './ports.js';
import { failure } from './step-error.js';

/** Only KIM's kubeconfig Secrets carry it (the GardenerCluster's name): the one LIST of Secrets a pass makes. */
export const KUBECONFIG_SECRET_SELECTOR = LABEL_CLUSTER_NAME;

/**
 * Where a reconcile reads the Shoot, GardenerCluster and Secret: a pass's LIST snapshot, or (--watch) the
 * Shoot informer's cache and a GET each. Each answers the object, or undefined when it does not exist; an
 * API failure throws a `StepError`.
 */
export interface Lookup {
  shoot(name: string): Promise<ShootObject | undefined>;
  gardenerCluster(namespace: string, name: string): Promise<GardenerClusterObject | undefined>;
  secret(namespace: string, name: string): Promise<SecretObject | undefined>;
  /** What the applier's report (rules/apply-report.ts) says it could not do for this Shoot. */
  applyFacts(shoot: string): ApplyFacts | undefined;
  /** The KCP namespace's AuditLogs (KALM's pool); only with the landscape's dedicated-audit-log switch on. */
  auditLogs?(): readonly AuditLog[];
  /** The Secret read again from the API, where `secret` may answer from a cache behind the backfiller's own writes. */
  secretFresh?(namespace: string, name: string): Promise<SecretObject | undefined>;
  /** Why some facts are missing (a report the identity may not read), one line each, for the command to print. */
  warnings?: string[];
}

/**
 * One LIST each of Shoots, GardenerClusters and kubeconfig Secrets, as a `Lookup`; throws TransportError when
 * one fails.
 */
export async function snapshotLookup(context: BackfillContext, kcpNamespace: string): Promise<Lookup> {
  const [shoots, clusters, secrets, report, auditLogs] = await Promise.all([
    listWithRetry(() =>
      context.garden.listAll<ShootObject>({ ...SHOOT_TYPE, namespace: context.gardenNamespace }, { limit: PAGE }),
    ),
    listWithRetry(() =>
      context.kcp.listAll<GardenerClusterObject>(
        { ...GARDENER_CLUSTER_TYPE, namespace: kcpNamespace },
        { limit: PAGE },
      ),
    ),
    listWithRetry(() =>
      context.kcp.listAll<SecretObject>(
        { ...SECRET_TYPE, namespace: kcpNamespace },
        { labelSelector: KUBECONFIG_SECRET_SELECTOR, limit: PAGE },
      ),
    ),
    context.garden.get<KubeObject>({ ...APPLY_REPORT_TYPE, namespace: context.gardenNamespace }),
    context.dedicatedAuditLogging
      ? listWithRetry(() =>
          context.kcp.listAll<AuditLog>({ ...AUDIT_LOG_TYPE, namespace: kcpNamespace }, { limit: PAGE }),
        )
      : undefined,
  ]);
  // The report only adds facts: one that cannot be read leaves the status to the Shoot, and says why.
  const warnings =
    !report.ok && report.status !== 404
      ? [
          `read ConfigMap ${context.gardenNamespace}/${APPLY_REPORT_NAME} (kubeconfig ${context.garden.label}): ${describeFailure(report)} — the applier's failures are left out of this pass; ${report.status === 403 ? `grant the identity get, list and watch on configmaps in ${context.gardenNamespace}` : fixFor(report.status, 'configmaps')}`,
        ]
      : [];
  const applied = readApplyReport(report.ok ? report.body : undefined);
  if (!shoots.ok) throw new TransportError(`kubeconfig ${context.garden.label}`, shoots.message);
  if (!clusters.ok) throw new TransportError(`kubeconfig ${context.kcp.label}`, clusters.message);
  if (!secrets.ok) throw new TransportError(`kubeconfig ${context.kcp.label}`, secrets.message);
  // Without the pool a dedicated Runtime's status would be a guess (Ready without its tenant, or Pending for good).
  if (auditLogs && !auditLogs.ok)
    throw new TransportError(`kubeconfig ${context.kcp.label}`, auditLogListFailure(auditLogs, kcpNamespace));
  const byName = <T extends KubeObject>(items: T[]) =>
    new Map(items.map((item) => [`${item.metadata.namespace ?? ''}/${item.metadata.name}`, item]));
  const shootMap = byName(shoots.items);
  const clusterMap = byName(clusters.items);
  const secretMap = byName(secrets.items);
  // What the snapshot's namespace lacks does not exist; another namespace (a hand-made GardenerCluster's ref) is read.
  const inSnapshot = <T extends KubeObject>(
    map: Map<string, T>,
    type: { apiVersion: string; kind: string },
    namespace: string,
    name: string,
  ): Promise<T | undefined> =>
    namespace === kcpNamespace
      ? Promise.resolve(map.get(`${namespace}/${name}`))
      : getOrUndefined<T>(context.kcp, { ...type, namespace, name });
  return {
    shoot: async (name) => shootMap.get(`${context.gardenNamespace}/${name}`),
    gardenerCluster: (namespace, name) => inSnapshot(clusterMap, GARDENER_CLUSTER_TYPE, namespace, name),
    // A kubeconfig Secret without the label (made by hand) counts as missing: the next write takes it over.
    secret: (namespace, name) => inSnapshot(secretMap, SECRET_TYPE, namespace, name),
    applyFacts: (shoot) => applied.get(shoot),
    ...(auditLogs?.ok && { auditLogs: () => auditLogs.items }),
    warnings,
  };
}

/** KALM's AuditLog (model/audit-log.ts), read-only: the backfiller never writes the pool (the generator does). */
export const AUDIT_LOG_TYPE = { apiVersion: AUDIT_LOG_API_VERSION, kind: AUDIT_LOG_KIND } as const;

/** A failed LIST of the AuditLogs, with the fix: they are read only because the landscape's switch is on. */
function auditLogListFailure(result: { status: number; message: string }, namespace: string): string {
  const resource = 'auditlogs.auditlogmanager.kyma-project.io';
  const fix =
    result.status === 404
      ? `the KCP does not serve KALM's ${resource} (KALM is not installed there)`
      : fixFor(result.status, resource);
  return `list AuditLogs in ${namespace} (features.dedicatedAuditLogging is on): ${result.message} — ${fix}, or set features.dedicatedAuditLogging: false in landscape.yaml`;
}

/** The applier's report: one ConfigMap of garden-<project>. */
const APPLY_REPORT_TYPE = { apiVersion: 'v1', kind: 'ConfigMap', name: APPLY_REPORT_NAME } as const;

/**
 * LIST pages of 500 (as client-go's pager): each page, not a whole namespace, must arrive within the request
 * deadline.
 */
export const PAGE = 500;

/** Attempts of a LIST answered 429 or 5xx (an API server whose watch cache is still initializing answers 429). */
const LIST_ATTEMPTS = 4;
/** 0.5 s doubling, as client-go retries them: 0.5, 1 and 2 s between the four attempts. */
const LIST_BACKOFF: BackoffPolicy = { initialMs: 500, maxMs: 2_000 };

/** A LIST again after a 429 or 5xx; other failures at once. */
export async function listWithRetry<T extends KubeObject>(
  list: () => Promise<ListAllResult<T>>,
): Promise<ListAllResult<T>> {
  for (let attempt = 1; ; attempt++) {
    const result = await list();
    if (result.ok || attempt >= LIST_ATTEMPTS || !(result.status === 429 || result.status >= 500)) return result;
    await new Promise((resolve) => setTimeout(resolve, backoffDelayMs(attempt, LIST_BACKOFF)));
  }
}

/**
 * The KCP objects a watching backfiller keeps in caches of its own (`kcpNamespace`'s GardenerClusters and
 * kubeconfig Secrets, the latter compacted by `compactSecret`): a quiet full pass over 10,000 Runtimes then reads
 * nothing from the KCP API instead of two GETs per Runtime.
 */
export interface KcpCaches {
  kcpNamespace: string;
  gardenerCluster(name: string): GardenerClusterObject | undefined;
  secret(name: string): SecretObject | undefined;
}

/**
 * The Shoots from a cache: one it lacks is "no Shoot" only once the cache has synced (`synced()` true), before
 * that it is read by GET, so an empty cache never reads as every Shoot gone. GardenerClusters and Secrets from
 * `kcp`'s caches where given (and for their namespace) when they hold them, by GET otherwise.
 */
export function cachedLookup(
  context: BackfillContext,
  shoot: (name: string) => ShootObject | undefined,
  synced: () => boolean = () => true,
  applyReport: () => ReadonlyMap<string, ApplyFacts> = () => new Map(),
  kcp?: KcpCaches,
  auditLogs?: () => readonly AuditLog[],
): Lookup {
  // A cache hit is used as it is; a miss is asked by GET: the object may be one this process has just written,
  // which its watch has not delivered yet (a miss taken for "none" would write Pending over a Ready, rotate twice).
  const fromCache = async <T extends KubeObject>(
    cached: T | undefined,
    type: { apiVersion: string; kind: string },
    namespace: string,
    name: string,
  ): Promise<T | undefined> => cached ?? getOrUndefined<T>(context.kcp, { ...type, namespace, name });
  return {
    applyFacts: (name) => applyReport().get(name),
    ...(auditLogs && { auditLogs }),
    shoot: async (name) => {
      const cached = shoot(name);
      if (cached || synced()) return cached;
      return getOrUndefined<ShootObject>(context.garden, { ...SHOOT_TYPE, namespace: context.gardenNamespace, name });
    },
    gardenerCluster: (namespace, name) =>
      fromCache(
        kcp?.kcpNamespace === namespace ? kcp.gardenerCluster(name) : undefined,
        GARDENER_CLUSTER_TYPE,
        namespace,
        name,
      ),
    // A kubeconfig Secret without the label (made by hand) is not in the cache: missing, the next write takes it over.
    secret: (namespace, name) =>
      fromCache(kcp?.kcpNamespace === namespace ? kcp.secret(name) : undefined, SECRET_TYPE, namespace, name),
    ...(kcp && {
      secretFresh: (namespace: string, name: string) =>
        getOrUndefined<SecretObject>(context.kcp, { ...SECRET_TYPE, namespace, name }),
    }),
  };
}

/** The object by GET (typed as asked), undefined on a 404; any other failure throws a StepError. */
export async function getOrUndefined<T extends KubeObject>(
  api: BackfillContext['kcp'] | BackfillContext['garden'],
  ref: { apiVersion: string; kind: string; namespace: string; name: string },
): Promise<T | undefined> {
  const got = await api.get<T>(ref);
  if (got.ok) return { ...got.body, apiVersion: ref.apiVersion, kind: ref.kind };
  if (got.status === 404) return undefined;
  throw failure(`read ${ref.kind} ${ref.namespace}/${ref.name}`, api, got);
}
