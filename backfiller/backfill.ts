// The backfiller's orchestration: for each Runtime, read its Shoot (and, once the Shoot has been created, its
// GardenerCluster and kubeconfig Secret), keep KIM's finalizer, the kubeconfig and the GardenerCluster status,
// and write the status `status.ts` computes through the status subresource with optimistic concurrency, one
// Event per changed condition. I/O only through the KubeClients passed in; every decision is status.ts's or
// kubeconfig.ts's.
import { randomBytes } from 'node:crypto';
import { stringify } from 'safe-stable-stringify';
import {
  CONTENT_TYPE,
  describeFailure,
  fixFor,
  type KubeClient,
  type KubeObject,
  type KubeResult,
  type ListAllResult,
} from '../adapters/kube/kube-client.js';
import { ConfigError, TransportError } from '../model/errors.js';
import { readPipelineAnnotation, withApplyFacts, type PipelineState } from '../model/pipeline-facts.js';
import { APPLY_REPORT_NAME, readApplyReport, type ApplyFacts } from '../applier/apply-report.js';
import { RUNTIME_API_VERSION } from '../model/runtime.js';
import { readRuntimeStatus, type RuntimeState, type RuntimeStatus } from '../model/runtime-status.js';
import { SHOOT_API_VERSION, type ShootStatus } from '../model/shoot.js';
import {
  adminKubeconfigRequest,
  ADMIN_KUBECONFIG_SUBRESOURCE,
  forceRotationRemovalPatch,
  GARDENER_CLUSTER_API_VERSION,
  GARDENER_CLUSTER_KIND,
  gardenerClusterFor,
  gardenerClusterSeries,
  gardenerClusterStatus,
  type GardenerCluster,
  type GardenerClusterLike,
  type GardenerClusterStatus,
  kubeconfigExpirationSample,
  type KubeconfigOutcome,
  kubeconfigSecretFor,
  LABEL_CLUSTER_NAME,
  readAdminKubeconfigResponse,
  rotationDecision,
  type RotationOptions,
  secretRefOf,
  type SecretLike,
} from './kubeconfig.js';
import {
  readyAfterSeconds,
  runtimeStateSeries,
  type KubeconfigObservation,
  type RuntimeObservation,
  type RuntimeProgress,
} from './metrics.js';
import {
  appliedRuntimeGeneration,
  CONDITION_KUBECONFIG_READY,
  conditionEvent,
  eventConditions,
  finalizerAction,
  KUBECONFIG_SECRET_KEY,
  kubeconfigSecretName,
  RUNTIME_FINALIZER,
  runtimeStatus,
  statusChanged,
  type StatusRuntime,
  type StatusShoot,
} from './status.js';

/** The field manager of kimops's server-side applies (GardenerCluster, kubeconfig Secret). */
export const FIELD_MANAGER = 'kimops';
/** `source.component` / `reportingComponent` of the Events kimops records on Runtimes. */
export const EVENT_COMPONENT = 'kimops-backfiller';
/** Only KIM's kubeconfig Secrets carry it (the GardenerCluster's name): the one LIST of Secrets a pass makes. */
export const KUBECONFIG_SECRET_SELECTOR = LABEL_CLUSTER_NAME;

const RUNTIME_TYPE = { apiVersion: RUNTIME_API_VERSION, kind: 'Runtime' } as const;
const SHOOT_TYPE = { apiVersion: SHOOT_API_VERSION, kind: 'Shoot' } as const;
const GARDENER_CLUSTER_TYPE = { apiVersion: GARDENER_CLUSTER_API_VERSION, kind: GARDENER_CLUSTER_KIND } as const;
const SECRET_TYPE = { apiVersion: 'v1', kind: 'Secret' } as const;

export type RuntimeObject = KubeObject &
  StatusRuntime & { spec?: { shoot?: { name?: string; platformRegion?: string; region?: string } } };
export type ShootObject = KubeObject & StatusShoot & { spec?: { dns?: { domain?: string } }; status?: ShootStatus };
export type GardenerClusterObject = KubeObject & GardenerClusterLike;
export type SecretObject = KubeObject & SecretLike;

export interface BackfillContext {
  kcp: KubeClient;
  garden: KubeClient;
  /** Where the Shoots are: `garden-<project>`. */
  gardenNamespace: string;
  now?: () => Date;
  /** What the AdminKubeconfigRequest asks for (default KIM's 24 h). */
  expirationSeconds?: number;
  /** The rotation period's share of the expiration (default KIM's 0.6). */
  minimalRotationTime?: number;
}

/**
 * Where a reconcile reads the Shoot, GardenerCluster and Secret: a pass's LIST snapshot, or (--watch) the
 * Shoot informer's cache and a GET each. Each answers the object, or undefined when it does not exist; an
 * API failure throws a `StepError`.
 */
export interface Lookup {
  shoot(name: string): Promise<ShootObject | undefined>;
  gardenerCluster(namespace: string, name: string): Promise<GardenerClusterObject | undefined>;
  secret(namespace: string, name: string): Promise<SecretObject | undefined>;
  /** What the applier's report (applier/apply-report.ts) says it could not do for this Shoot. */
  applyFacts(shoot: string): ApplyFacts | undefined;
  /** The Secret read again from the API, where `secret` may answer from a cache behind the backfiller's own writes. */
  secretFresh?(namespace: string, name: string): Promise<SecretObject | undefined>;
  /** Why some facts are missing (a report the identity may not read), one line each, for the command to print. */
  warnings?: string[];
}

/** A failed call: `unreachable` when the API did not answer at all (the command then exits 69). */
export class StepError extends Error {
  override readonly name = 'StepError';
  constructor(
    message: string,
    readonly unreachable: boolean,
  ) {
    super(message);
  }
}

export interface RuntimeOutcome {
  /** `<namespace>/<name>`. */
  runtime: string;
  /** The state now written (or already there). */
  state?: RuntimeState;
  statusWritten: boolean;
  /** The write met a 409 twice: left to the next pass (not a failure). */
  conflict: boolean;
  events: number;
  finalizer?: 'added' | 'released';
  kubeconfig?: 'created' | 'rotated';
  /** What went wrong, one line each (naming the object, the server's answer and the fix). */
  errors: string[];
  unreachable: boolean;
  /** For the metrics: the Runtime's series as its status now is, and how long its change took to be Ready. */
  observation?: RuntimeObservation;
  /** The Runtime's id (KIM's label), for the metrics of a released Runtime. */
  runtimeId?: string;
  /** For KIM's GardenerCluster and kubeconfig-expiration metrics: what this reconcile found or wrote. */
  kubeconfigMetrics?: KubeconfigObservation;
}

export interface PassReport {
  outcomes: RuntimeOutcome[];
  /** Facts the pass had to do without (Lookup.warnings). */
  warnings?: string[];
}

// ---------------------------------------------------------------------------------------------------------
// Lookups
// ---------------------------------------------------------------------------------------------------------

/** One LIST each of Shoots, GardenerClusters and kubeconfig Secrets, as a `Lookup`; throws TransportError when one fails. */
export async function snapshotLookup(context: BackfillContext, kcpNamespace: string): Promise<Lookup> {
  const [shoots, clusters, secrets, report] = await Promise.all([
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
      : getOrUndefined<T>(context.kcp, { ...type, namespace, name }, true);
  return {
    shoot: async (name) => shootMap.get(`${context.gardenNamespace}/${name}`),
    gardenerCluster: (namespace, name) => inSnapshot(clusterMap, GARDENER_CLUSTER_TYPE, namespace, name),
    // A kubeconfig Secret without the label (made by hand) counts as missing: the next write takes it over.
    secret: (namespace, name) => inSnapshot(secretMap, SECRET_TYPE, namespace, name),
    applyFacts: (shoot) => applied.get(shoot),
    warnings,
  };
}

/** The applier's report: one ConfigMap of garden-<project>. */
const APPLY_REPORT_TYPE = { apiVersion: 'v1', kind: 'ConfigMap', name: APPLY_REPORT_NAME } as const;

/** LIST pages of 500 (as client-go's pager): each page, not a whole namespace, must arrive within the request deadline. */
const PAGE = 500;

/** Attempts of a LIST answered 429 or 5xx (an API server whose watch cache is still initializing answers 429). */
const LIST_ATTEMPTS = 4;
const LIST_RETRY_MS = 500;

/** A LIST again after a 429 or 5xx, 0.5 s doubling, as client-go retries them; other failures at once. */
async function listWithRetry<T extends KubeObject>(list: () => Promise<ListAllResult<T>>): Promise<ListAllResult<T>> {
  for (let attempt = 1; ; attempt++) {
    const result = await list();
    if (result.ok || attempt >= LIST_ATTEMPTS || !(result.status === 429 || result.status >= 500)) return result;
    await new Promise((resolve) => setTimeout(resolve, LIST_RETRY_MS * 2 ** (attempt - 1)));
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
): Lookup {
  // A cache hit is used as it is; a miss is asked by GET: the object may be one this process has just written,
  // which its watch has not delivered yet (a miss taken for "none" would write Pending over a Ready, rotate twice).
  const fromCache = async <T extends KubeObject>(
    cached: T | undefined,
    type: { apiVersion: string; kind: string },
    namespace: string,
    name: string,
  ): Promise<T | undefined> => cached ?? getOrUndefined<T>(context.kcp, { ...type, namespace, name }, true);
  return {
    applyFacts: (name) => applyReport().get(name),
    shoot: async (name) => {
      const cached = shoot(name);
      if (cached || synced()) return cached;
      return getOrUndefined<ShootObject>(
        context.garden,
        { ...SHOOT_TYPE, namespace: context.gardenNamespace, name },
        true,
      );
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
        getOrUndefined<SecretObject>(context.kcp, { ...SECRET_TYPE, namespace, name }, true),
    }),
  };
}

/**
 * What the Secret cache keeps of a kubeconfig Secret: its metadata (without managedFields) and which keys hold
 * a value — not the kubeconfigs. The backfiller only asks whether `config` is there and when it was synced; it
 * never writes a cached Secret back. So 10,000 customers' admin credentials are not held in its memory.
 */
export function compactSecret(item: KubeObject): KubeObject {
  const data = (item as { data?: Record<string, unknown> }).data ?? {};
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: withoutManagedFields(item).metadata,
    data: Object.fromEntries(
      Object.entries(data).map(([key, value]) => [
        key,
        typeof value === 'string' && value !== '' ? SECRET_VALUE_PRESENT : '',
      ]),
    ),
  };
}

/** The object without its managedFields: what a cache of the backfiller's needs of any kind (it never writes a cached object back whole, and an update without managedFields keeps the server's). */
export function withoutManagedFields<T extends KubeObject>(item: T): T {
  if (!('managedFields' in item.metadata)) return item;
  return {
    ...item,
    metadata: Object.fromEntries(
      Object.entries(item.metadata).filter(([key]) => key !== 'managedFields'),
    ) as T['metadata'],
  };
}

/**
 * What the Shoot cache keeps: metadata (without managedFields), the status, and of the spec only the DNS domain
 * (the GardenerCluster's `skr-domain`) — the status mapping reads nothing else, and 10,000 Shoots' specs and
 * managedFields are most of their size.
 */
export function compactShootForStatus(item: KubeObject): KubeObject {
  const shoot = withoutManagedFields(item) as ShootObject;
  const domain = shoot.spec?.dns?.domain;
  return {
    apiVersion: SHOOT_API_VERSION,
    kind: 'Shoot',
    metadata: shoot.metadata,
    ...(domain !== undefined && { spec: { dns: { domain } } }),
    ...(shoot.status !== undefined && { status: shoot.status }),
  };
}

/** Stands for a Secret value a compacted Secret does not hold. */
export const SECRET_VALUE_PRESENT = '(present)';

async function getOrUndefined<T extends KubeObject>(
  client: KubeClient,
  ref: { apiVersion: string; kind: string; namespace: string; name: string },
  ask: boolean,
): Promise<T | undefined> {
  if (!ask) return undefined;
  const got = await client.get<T>(ref);
  if (got.ok) return { ...got.body, apiVersion: ref.apiVersion, kind: ref.kind };
  if (got.status === 404) return undefined;
  throw failure(`read ${ref.kind} ${ref.namespace}/${ref.name}`, client, got);
}

function failure(what: string, client: KubeClient, result: Extract<KubeResult<unknown>, { ok: false }>): StepError {
  return new StepError(
    `${what} on ${client.server} (kubeconfig ${client.label}): ${describeFailure(result)}`,
    result.status === 0,
  );
}

// ---------------------------------------------------------------------------------------------------------
// Start-up check
// ---------------------------------------------------------------------------------------------------------

/**
 * Refuses to start when the Garden namespace does not exist: a GET of a Shoot in a missing namespace answers
 * 404 like a deleted Shoot, so a wrong project would read every Shoot as gone (and release the finalizers of
 * deleted Runtimes in bulk). GETs the Namespace; a Garden user who may not read Namespaces (403) is checked
 * through the Project instead (`spec.namespace`). A missing one is a `ConfigError` naming the landscape, the
 * project and the fix; an API that does not answer a `TransportError`.
 */
export async function verifyGardenNamespace(
  context: BackfillContext,
  landscape: { name: string; project: string },
): Promise<void> {
  const namespace = context.gardenNamespace;
  const refuse = (found: string) =>
    new ConfigError(
      `landscape ${landscape.name}`,
      'gardener.project',
      `${found} in the Garden of --garden-kubeconfig ${context.garden.label} (${context.garden.server}): every Shoot would read as gone. ` +
        `Set gardener.project (or the converter config's gardener.projectName) to the Project whose namespace holds the Shoots, or pass the Garden's kubeconfig; nothing was written`,
    );
  // Every failure here is a ConfigError or a TransportError: the CLI reports those (a StepError would read as a bug).
  const unreachable = (result: Extract<KubeResult<unknown>, { ok: false }>, what: string) =>
    result.status === 0 || result.status === 429 || result.status >= 500
      ? new TransportError(`kubeconfig ${context.garden.label}`, describeFailure(result))
      : new ConfigError(
          `--garden-kubeconfig ${context.garden.label}`,
          '',
          `read ${what} on ${context.garden.server}: ${describeFailure(result)}; the backfiller checks that the Garden namespace exists before it starts: give this user get on that Namespace or on Project ${landscape.project}`,
        );
  const got = await context.garden.get({ apiVersion: 'v1', kind: 'Namespace', name: namespace });
  if (got.ok) return;
  if (got.status === 404) throw refuse(`namespace ${namespace} (project ${landscape.project}) does not exist`);
  if (got.status !== 403) throw unreachable(got, `Namespace ${namespace}`);
  const project = await context.garden.get<KubeObject & { spec?: { namespace?: string } }>({
    apiVersion: 'core.gardener.cloud/v1beta1',
    kind: 'Project',
    name: landscape.project,
  });
  if (!project.ok) {
    if (project.status === 404) throw refuse(`Project ${landscape.project} does not exist`);
    throw unreachable(project, `Project ${landscape.project}`);
  }
  const actual = project.body.spec?.namespace;
  if (actual !== undefined && actual !== namespace)
    throw refuse(`Project ${landscape.project} has namespace ${actual}, not ${namespace}`);
}

// ---------------------------------------------------------------------------------------------------------
// A pass
// ---------------------------------------------------------------------------------------------------------

/** --once: one LIST each of Runtimes, Shoots, GardenerClusters and kubeconfig Secrets, then every Runtime. */
export async function backfillPass(context: BackfillContext, kcpNamespace: string): Promise<PassReport> {
  const runtimes = await listWithRetry(() =>
    context.kcp.listAll<RuntimeObject>({ ...RUNTIME_TYPE, namespace: kcpNamespace }, { limit: PAGE }),
  );
  if (!runtimes.ok) throw new TransportError(`kubeconfig ${context.kcp.label}`, runtimes.message);
  const lookup = await snapshotLookup(context, kcpNamespace);
  const outcomes: RuntimeOutcome[] = [];
  for (const runtime of runtimes.items)
    outcomes.push(await reconcileRuntime(context, { ...runtime, ...RUNTIME_TYPE }, lookup));
  return { outcomes, ...(lookup.warnings && lookup.warnings.length > 0 && { warnings: lookup.warnings }) };
}

// ---------------------------------------------------------------------------------------------------------
// One Runtime
// ---------------------------------------------------------------------------------------------------------

/**
 * One Runtime brought up to date: finalizer, status and Events (from the Secret as read), then the kubeconfig
 * (after the Shoot's Create succeeded; its errors are reported and never keep the status from being written;
 * the status is written again when the Secret appeared); during deletion, once the Shoot is gone (confirmed by a GET), the GardenerCluster and Secret are
 * removed and the finalizer released. Never throws for API failures: they are in the outcome.
 */
export async function reconcileRuntime(
  context: BackfillContext,
  read: RuntimeObject,
  lookup: Lookup,
): Promise<RuntimeOutcome> {
  const namespace = read.metadata.namespace ?? '';
  const outcome: RuntimeOutcome = {
    runtime: `${namespace}/${read.metadata.name}`,
    statusWritten: false,
    conflict: false,
    events: 0,
    errors: [],
    unreachable: false,
  };
  const now = context.now ?? (() => new Date());
  let runtime = read;
  try {
    const shootName = runtime.spec?.shoot?.name;
    let shoot = shootName ? await lookup.shoot(shootName) : undefined;
    const deleting = Boolean(runtime.metadata.deletionTimestamp);

    // The Shoot is gone: make sure (a cache or snapshot may be behind) before anything final happens.
    if (deleting && !shoot && shootName)
      shoot = await getOrUndefined<ShootObject>(
        context.garden,
        { ...SHOOT_TYPE, namespace: context.gardenNamespace, name: shootName },
        true,
      );

    if (finalizerAction(runtime, shoot) === 'add') {
      runtime = await addFinalizer(context, runtime);
      outcome.finalizer = 'added';
    }

    // The status first, from what was read: no kubeconfig step can keep a generation bump from showing Pending.
    const read = deleting ? { ready: false } : await readKubeconfigSecret(runtime, lookup, outcome);
    const applied = shootName ? lookup.applyFacts(shootName) : undefined;
    runtime = await writeStatus(context, runtime, shoot, read.ready, applied, now, outcome);

    if (!deleting && shoot && createSucceeded(shoot)) {
      let ready = read.ready;
      try {
        const ensured = await ensureKubeconfig(context, runtime, shoot, lookup, now, read);
        ready = ensured.ready;
        if (ensured.written) outcome.kubeconfig = ensured.written;
        if (ensured.metrics) outcome.kubeconfigMetrics = ensured.metrics;
        if (ensured.error) outcome.errors.push(ensured.error);
      } catch (error) {
        if (!(error instanceof StepError)) throw error;
        // Reported; the status stays as written (a failed step never makes the Secret exist).
        outcome.errors.push(`${error.message}; the status was written without it, the next pass tries again`);
        outcome.unreachable ||= error.unreachable;
      }
      // The Secret appeared (or went) in this pass: the status follows at once.
      if (ready !== read.ready) runtime = await writeStatus(context, runtime, shoot, ready, applied, now, outcome);
    }

    if (finalizerAction(runtime, shoot) === 'release') {
      await removeKubeconfig(context, runtime, lookup);
      await releaseFinalizer(context, runtime);
      outcome.finalizer = 'released';
      outcome.runtimeId = runtime.metadata.labels?.['kyma-project.io/runtime-id'] ?? runtime.metadata.name;
    }
  } catch (error) {
    if (error instanceof StepError) {
      outcome.errors.push(error.message);
      outcome.unreachable ||= error.unreachable;
    } else throw error;
  }
  return outcome;
}

/** KIM handles the kubeconfig once the Shoot's Create has succeeded; it stays handled through later reconciles. */
function createSucceeded(shoot: ShootObject): boolean {
  const operation = shoot.status?.lastOperation;
  if (!operation) return false;
  return operation.type !== 'Create' || operation.state === 'Succeeded';
}

interface SecretRead {
  /** The Secret has key `config` (on a failed read: the Runtime's `KubeconfigReady` stays as it was). */
  ready: boolean;
  /** Read, and where: `ensureKubeconfig` does not read it again. */
  read?: { namespace: string; name: string; secret: SecretObject | undefined };
}

/** The kubeconfig Secret as read now. A failed read is reported and changes nothing: a Ready Runtime stays Ready. */
async function readKubeconfigSecret(
  runtime: RuntimeObject,
  lookup: Lookup,
  outcome: RuntimeOutcome,
): Promise<SecretRead> {
  const name = kubeconfigSecretName(runtime);
  if (!name) return { ready: false };
  const namespace = runtime.metadata.namespace ?? '';
  try {
    const secret = await lookup.secret(namespace, name);
    return { ready: hasConfig(secret), read: { namespace, name, secret } };
  } catch (error) {
    if (!(error instanceof StepError)) throw error;
    outcome.errors.push(error.message);
    outcome.unreachable ||= error.unreachable;
    const was = readRuntimeStatus(runtime.status).conditions?.find(
      (condition) => condition.type === CONDITION_KUBECONFIG_READY,
    );
    return { ready: was?.status === 'True' };
  }
}

function hasConfig(secret: SecretLike | undefined): boolean {
  const value = secret?.data?.[KUBECONFIG_SECRET_KEY];
  return typeof value === 'string' && value !== '';
}

// ---------------------------------------------------------------------------------------------------------
// Status and Events
// ---------------------------------------------------------------------------------------------------------

/**
 * `runtimeStatus` written through `/status` as a full replace carrying the Runtime's resourceVersion, only when
 * `statusChanged`. A 409: read the Runtime again, compute again, write once more; a second 409 is left to the
 * next pass. Returns the Runtime as written (or as last read).
 */
async function writeStatus(
  context: BackfillContext,
  read: RuntimeObject,
  shoot: ShootObject | undefined,
  kubeconfigReady: boolean,
  applied: ApplyFacts | undefined,
  now: () => Date,
  outcome: RuntimeOutcome,
): Promise<RuntimeObject> {
  let runtime = read;
  for (let attempt = 0; attempt < 2; attempt++) {
    const at = now();
    // The generator's facts ride on the Runtime (the one read now is the newest); the applier's come from its report.
    const pipeline = withApplyFacts(
      readPipelineAnnotation(runtime.metadata.annotations),
      applied,
      runtime.metadata.generation,
    );
    const next = runtimeStatus({ runtime, shoot, kubeconfigReady, pipeline, now: at });
    outcome.state = next.state;
    // The metrics follow the status the Runtime has (unchanged, or written), never one a failed write meant.
    const progress = progressOf(outcome.runtime, runtime, shoot, pipeline, next);
    if (!statusChanged(runtime.status, next)) {
      outcome.observation = { series: runtimeStateSeries(runtime, next), ...(progress && { progress }) };
      return runtime;
    }
    const written = await context.kcp.replace<RuntimeObject>({ ...runtime, ...RUNTIME_TYPE, status: next }, 'status');
    if (written.ok) {
      outcome.statusWritten = true;
      const seconds = readyAfterSeconds(readRuntimeStatus(runtime.status), next, at);
      outcome.observation = {
        series: runtimeStateSeries(runtime, next),
        ...(seconds !== undefined && { readyAfterSeconds: seconds }),
        ...(progress && { progress }),
      };
      for (const condition of eventConditions(runtime.status, next)) {
        if (await recordEvent(context, runtime, conditionEvent(runtime, condition), now())) outcome.events++;
      }
      return { ...written.body, ...RUNTIME_TYPE };
    }
    if (written.status !== 409) throw failure(`write status of Runtime ${outcome.runtime}`, context.kcp, written);
    const again = await context.kcp.get<RuntimeObject>({
      ...RUNTIME_TYPE,
      namespace: runtime.metadata.namespace,
      name: runtime.metadata.name,
    });
    if (!again.ok) {
      if (again.status === 404) return runtime; // gone meanwhile: nothing to write
      throw failure(`read Runtime ${outcome.runtime}`, context.kcp, again);
    }
    runtime = { ...again.body, ...RUNTIME_TYPE };
  }
  outcome.conflict = true;
  return runtime;
}

/** KIM's Event for a changed condition, on the Runtime; a refused Event does not fail the Runtime (returns false). */
/** Where the Runtime's newest generation is, for the per-stage latencies; none for a Runtime being deleted. */
function progressOf(
  key: string,
  runtime: RuntimeObject,
  shoot: ShootObject | undefined,
  pipeline: PipelineState,
  next: RuntimeStatus,
): RuntimeProgress | undefined {
  const generation = runtime.metadata.generation;
  if (typeof generation !== 'number' || runtime.metadata.deletionTimestamp) return undefined;
  const appliedGeneration = shoot ? appliedRuntimeGeneration(shoot) : undefined;
  return {
    runtime: key,
    generation,
    created: readRuntimeStatus(runtime.status)?.state === undefined,
    proposed: pipeline.proposal !== undefined && (pipeline.generation ?? generation) >= generation,
    merged: pipeline.proposal?.state === 'merged' && (pipeline.generation ?? generation) >= generation,
    applied: appliedGeneration !== undefined && appliedGeneration >= generation,
    ready: next.state === 'Ready',
  };
}

async function recordEvent(
  context: BackfillContext,
  runtime: RuntimeObject,
  event: { type: string; reason: string; message: string },
  now: Date,
): Promise<boolean> {
  const time = now.toISOString().replace(/\.\d+Z$/, 'Z');
  const created = await context.kcp.create({
    apiVersion: 'v1',
    kind: 'Event',
    metadata: {
      name: `${runtime.metadata.name}.${now.getTime().toString(16)}${randomBytes(4).toString('hex')}`,
      namespace: runtime.metadata.namespace,
    },
    involvedObject: {
      apiVersion: RUNTIME_API_VERSION,
      kind: 'Runtime',
      name: runtime.metadata.name,
      namespace: runtime.metadata.namespace,
      uid: runtime.metadata.uid,
      resourceVersion: runtime.metadata.resourceVersion,
    },
    type: event.type,
    reason: event.reason,
    message: event.message,
    source: { component: EVENT_COMPONENT },
    reportingComponent: EVENT_COMPONENT,
    reportingInstance: EVENT_COMPONENT,
    firstTimestamp: time,
    lastTimestamp: time,
    count: 1,
  });
  return created.ok;
}

// ---------------------------------------------------------------------------------------------------------
// Finalizer
// ---------------------------------------------------------------------------------------------------------

function finalizersOf(runtime: RuntimeObject): string[] {
  const finalizers = runtime.metadata.finalizers;
  return Array.isArray(finalizers) ? finalizers.filter((f): f is string => typeof f === 'string') : [];
}

/** A merge patch of `metadata.finalizers` with the resourceVersion read: a concurrent change is a 409, retried once on a fresh read. */
async function patchFinalizers(
  context: BackfillContext,
  read: RuntimeObject,
  change: (finalizers: string[]) => string[],
  what: string,
  goneIsDone = false,
): Promise<RuntimeObject | undefined> {
  let runtime = read;
  for (let attempt = 0; ; attempt++) {
    const finalizers = change(finalizersOf(runtime));
    const ref = { ...RUNTIME_TYPE, namespace: runtime.metadata.namespace, name: runtime.metadata.name };
    const patched = await context.kcp.patch<RuntimeObject>(ref, {
      metadata: { finalizers, resourceVersion: runtime.metadata.resourceVersion },
    });
    if (patched.ok) return { ...patched.body, ...RUNTIME_TYPE };
    if (goneIsDone && patched.status === 404) return undefined;
    if (patched.status !== 409 || attempt > 0)
      throw failure(`${what} of Runtime ${runtime.metadata.namespace}/${runtime.metadata.name}`, context.kcp, patched);
    const again = await context.kcp.get<RuntimeObject>(ref);
    if (goneIsDone && !again.ok && again.status === 404) return undefined;
    if (!again.ok)
      throw failure(`read Runtime ${runtime.metadata.namespace}/${runtime.metadata.name}`, context.kcp, again);
    runtime = { ...again.body, ...RUNTIME_TYPE };
  }
}

async function addFinalizer(context: BackfillContext, runtime: RuntimeObject): Promise<RuntimeObject> {
  return (await patchFinalizers(
    context,
    runtime,
    (finalizers) => (finalizers.includes(RUNTIME_FINALIZER) ? finalizers : [...finalizers, RUNTIME_FINALIZER]),
    `add finalizer ${RUNTIME_FINALIZER}`,
  )) as RuntimeObject;
}

/** A Runtime already gone (another reconcile released it first, and the API server removed it) is what was wanted. */
async function releaseFinalizer(context: BackfillContext, runtime: RuntimeObject): Promise<void> {
  await patchFinalizers(
    context,
    runtime,
    (finalizers) => finalizers.filter((f) => f !== RUNTIME_FINALIZER),
    `release finalizer ${RUNTIME_FINALIZER}`,
    true,
  );
}

// ---------------------------------------------------------------------------------------------------------
// Kubeconfig
// ---------------------------------------------------------------------------------------------------------

interface Ensured {
  ready: boolean;
  written?: 'created' | 'rotated';
  error?: string;
  metrics?: KubeconfigObservation;
}

/**
 * The GardenerCluster (applied when missing or when kimops's fields differ; forced for the fields kimops sets,
 * fields other managers own and kimops does not set stay theirs), the Secret per `rotationDecision` from Gardener's `adminkubeconfig`, the force
 * annotation removed after a forced rotation, and the GardenerCluster status when it changes. A failure of the
 * kubeconfig steps lands in the GardenerCluster status (KIM's reasons) and in the outcome; `already` is the
 * Secret as the caller read it (not read again when the GardenerCluster points at it).
 */
async function ensureKubeconfig(
  context: BackfillContext,
  runtime: RuntimeObject,
  shoot: ShootObject,
  lookup: Lookup,
  now: () => Date,
  already: SecretRead,
): Promise<Ensured> {
  const desired = gardenerClusterFor(runtime, shoot.spec?.dns?.domain);
  const name = `${runtime.metadata.namespace ?? ''}/${runtime.metadata.name}`;
  if (!desired)
    return {
      ready: false,
      error: `Runtime ${name}: no label kyma-project.io/runtime-id or no spec.shoot.name; KEB sets both — no GardenerCluster or kubeconfig Secret without them`,
    };
  const gcName = `${desired.metadata.namespace}/${desired.metadata.name}`;
  let cluster = await lookup.gardenerCluster(desired.metadata.namespace, desired.metadata.name);
  if (!cluster || !covers(cluster, desired)) {
    // Forced: the apply carries only the fields kimops decides (KIM's labels, skr-domain, spec), which KIM's
    // manager owns on a GardenerCluster KIM created; unforced, that is a 409 on every such Runtime. Fields kimops
    // does not set (other labels, the force-rotation annotation, status) stay their managers'.
    const applied = await context.kcp.apply<GardenerClusterObject>(
      desired as unknown as GardenerClusterObject,
      FIELD_MANAGER,
      { force: true },
    );
    if (!applied.ok) {
      const error = failure(`apply GardenerCluster ${gcName}`, context.kcp, applied);
      if (applied.status === 409) {
        error.message +=
          `: another field manager (KIM's infrastructure-manager, when KIM created it) owns fields kimops sets, and the forced apply was still refused; ` +
          `make sure KIM's GardenerCluster controller is off (cut-over), or delete GardenerCluster ${gcName} for kimops to create it again`;
      }
      throw error;
    }
    cluster = { ...applied.body, ...GARDENER_CLUSTER_TYPE };
  }
  const ref = secretRefOf(cluster);
  let secret: SecretObject | undefined;
  let outcome: KubeconfigOutcome;
  let written: Ensured['written'];
  try {
    secret =
      already.read && already.read.namespace === ref.namespace && already.read.name === ref.name
        ? already.read.secret
        : await lookup.secret(ref.namespace, ref.name);
  } catch (error) {
    if (!(error instanceof StepError)) throw error;
    outcome = { result: 'failed', step: 'check-secret', error: error.message };
    await writeClusterStatus(context, cluster, outcome, now());
    throw error;
  }
  let decision = rotationDecision({ secret, gardenerCluster: cluster, now: now(), ...rotationOptionsOf(context) });
  if (decision.action === 'rotate' && lookup.secretFresh) {
    // Decided from a cache: a rotation this process has just written may not be in it yet. Rotate only on the API's word.
    secret = await lookup.secretFresh(ref.namespace, ref.name);
    decision = rotationDecision({ secret, gardenerCluster: cluster, now: now(), ...rotationOptionsOf(context) });
  }
  let error: string | undefined;
  if (decision.action === 'keep') {
    outcome = { result: 'kept' };
  } else {
    const issued = await context.garden.request<unknown>(
      'POST',
      `/apis/${SHOOT_API_VERSION}/namespaces/${context.gardenNamespace}/shoots/${encodeURIComponent(shoot.metadata.name)}/${ADMIN_KUBECONFIG_SUBRESOURCE}`,
      {
        body: adminKubeconfigRequest(context.expirationSeconds),
      },
    );
    const read = issued.ok
      ? readAdminKubeconfigResponse(issued.body)
      : ({ ok: false, error: describeFailure(issued) } as const);
    if (!read.ok) {
      if (!issued.ok && issued.status === 0)
        throw failure(
          `request adminkubeconfig of Shoot ${context.gardenNamespace}/${shoot.metadata.name}`,
          context.garden,
          issued,
        );
      outcome = { result: 'failed', step: 'get-kubeconfig', error: read.error };
      error = `Shoot ${context.gardenNamespace}/${shoot.metadata.name}: adminkubeconfig: ${read.error} (kubeconfig ${context.garden.label}); the next pass asks again`;
    } else {
      const body = kubeconfigSecretFor(cluster, read.kubeconfig, now());
      // The Secret's content is kimops's by definition (KIM wrote it before): force takes over KIM's fields.
      const applied = await context.kcp.apply<SecretObject>(body as unknown as SecretObject, FIELD_MANAGER, {
        force: true,
      });
      if (!applied.ok) {
        if (applied.status === 0) throw failure(`write Secret ${ref.namespace}/${ref.name}`, context.kcp, applied);
        outcome = {
          result: 'failed',
          step: secret ? 'update-secret' : 'create-secret',
          error: describeFailure(applied),
        };
        error = `write Secret ${ref.namespace}/${ref.name} (kubeconfig ${context.kcp.label}): ${describeFailure(applied)}`;
      } else {
        secret = applied.body;
        written = decision.action === 'create' ? 'created' : 'rotated';
        outcome = { result: written };
        if (decision.forced) {
          const patched = await context.kcp.patch<GardenerClusterObject>(
            { ...GARDENER_CLUSTER_TYPE, namespace: cluster.metadata.namespace, name: cluster.metadata.name },
            forceRotationRemovalPatch(),
          );
          if (patched.ok) cluster = { ...patched.body, ...GARDENER_CLUSTER_TYPE };
          else
            error = `remove the force-rotation annotation of GardenerCluster ${cluster.metadata.namespace ?? ''}/${cluster.metadata.name}: ${describeFailure(patched)}`;
        }
      }
    }
  }
  const status = await writeClusterStatus(context, cluster, outcome, now());
  const expiration = secret && kubeconfigExpirationSample(secret, rotationOptionsOf(context));
  const metrics = {
    runtimeId: cluster.metadata.name,
    cluster: gardenerClusterSeries(cluster, status),
    ...(expiration && { expiration }),
  };
  return { ready: hasConfig(secret), ...(written && { written }), ...(error !== undefined && { error }), metrics };
}

function rotationOptionsOf(context: BackfillContext): RotationOptions {
  return {
    ...(context.expirationSeconds !== undefined && { expirationSeconds: context.expirationSeconds }),
    ...(context.minimalRotationTime !== undefined && { minimalRotationTime: context.minimalRotationTime }),
  };
}

/** Whether the live GardenerCluster already has every label, annotation and spec field kimops would apply. */
function covers(live: GardenerClusterObject, desired: GardenerCluster): boolean {
  const labels = (live.metadata.labels ?? {}) as Record<string, string>;
  const annotations = (live.metadata.annotations ?? {}) as Record<string, string>;
  if (Object.entries(desired.metadata.labels).some(([key, value]) => labels[key] !== value)) return false;
  if (Object.entries(desired.metadata.annotations ?? {}).some(([key, value]) => annotations[key] !== value))
    return false;
  return stringify(live.spec ?? {}) === stringify(desired.spec);
}

/** The GardenerCluster's status for `outcome`, written when it differs; returns it (written or not: the metric follows it). */
async function writeClusterStatus(
  context: BackfillContext,
  cluster: GardenerClusterObject,
  outcome: KubeconfigOutcome,
  now: Date,
): Promise<GardenerClusterStatus> {
  const status = gardenerClusterStatus(outcome, now, cluster.status);
  if (stringify(status) === stringify(cluster.status ?? null)) return status;
  const ref = { ...GARDENER_CLUSTER_TYPE, namespace: cluster.metadata.namespace, name: cluster.metadata.name };
  const patched = await context.kcp.patch(ref, { status }, CONTENT_TYPE.mergePatch, 'status');
  if (!patched.ok && patched.status !== 404)
    throw failure(`write status of GardenerCluster ${ref.namespace ?? ''}/${ref.name}`, context.kcp, patched);
  return status;
}

/** After the Shoot is gone: the GardenerCluster, then the Secret (KIM deletes it by its cluster-name label; here by name). */
async function removeKubeconfig(context: BackfillContext, runtime: RuntimeObject, lookup: Lookup): Promise<void> {
  const desired = gardenerClusterFor(runtime);
  const namespace = runtime.metadata.namespace ?? '';
  const secretName = kubeconfigSecretName(runtime);
  if (desired) {
    const cluster = await lookup.gardenerCluster(desired.metadata.namespace, desired.metadata.name);
    const ref = cluster ? secretRefOf(cluster) : undefined;
    const deleted = await context.kcp.delete({
      ...GARDENER_CLUSTER_TYPE,
      namespace: desired.metadata.namespace,
      name: desired.metadata.name,
    });
    if (!deleted.ok && deleted.status !== 404)
      throw failure(
        `delete GardenerCluster ${desired.metadata.namespace}/${desired.metadata.name}`,
        context.kcp,
        deleted,
      );
    if (ref && ref.name !== secretName) await deleteSecret(context, ref.namespace, ref.name);
  }
  if (secretName) await deleteSecret(context, namespace, secretName);
}

async function deleteSecret(context: BackfillContext, namespace: string, name: string): Promise<void> {
  const deleted = await context.kcp.delete({ ...SECRET_TYPE, namespace, name });
  if (!deleted.ok && deleted.status !== 404) throw failure(`delete Secret ${namespace}/${name}`, context.kcp, deleted);
}

// ---------------------------------------------------------------------------------------------------------
// Reporting
// ---------------------------------------------------------------------------------------------------------

/** One line for a Runtime whose pass did something or failed; undefined for a quiet one. */
export function outcomeLine(outcome: RuntimeOutcome): string | undefined {
  const parts: string[] = [];
  if (outcome.statusWritten)
    parts.push(`status ${outcome.state ?? ''} written${outcome.events > 0 ? `, ${outcome.events} Event(s)` : ''}`);
  if (outcome.conflict) parts.push('status changed concurrently twice; left to the next pass');
  if (outcome.finalizer) parts.push(`finalizer ${outcome.finalizer}`);
  if (outcome.kubeconfig) parts.push(`kubeconfig Secret ${outcome.kubeconfig}`);
  if (parts.length === 0) return undefined;
  return `${outcome.runtime}: ${parts.join('; ')}`;
}

export function passSummary(report: PassReport): string {
  const count = (test: (o: RuntimeOutcome) => boolean) => report.outcomes.filter(test).length;
  return (
    `${report.outcomes.length} Runtime(s): ${count((o) => o.statusWritten)} status written, ` +
    `${count((o) => !o.statusWritten && o.errors.length === 0)} unchanged, ${count((o) => o.errors.length > 0)} failed` +
    `${count((o) => o.conflict) > 0 ? `, ${count((o) => o.conflict)} left to the next pass (conflict)` : ''}`
  );
}

// ---------------------------------------------------------------------------------------------------------
// --watch: per-Runtime work on events, a full pass every interval
// ---------------------------------------------------------------------------------------------------------

/** A cache of one kind that says what changed (adapters/kube/informer.ts's `Informer` fits). */
export interface WatchedKind<T> {
  /** Resolves once the first full list is in the cache; rejects when the cache is stopped before. */
  synced(): Promise<void>;
  items(): T[];
  get(namespace: string | undefined, name: string): T | undefined;
  onChange(listener: (change: { type: 'added' | 'modified' | 'deleted'; object: T }) => void): () => void;
}

/** Runtimes reconciled at once on events; this many at a time. */
export const DEFAULT_CONCURRENCY = 8;

export interface BackfillWatcher {
  /** Every Runtime in the cache (the periodic pass for rotation and anything missed); resolves when all are done. */
  fullPass(): Promise<PassReport>;
  /** Resolves when no Runtime is queued or running. */
  idle(): Promise<void>;
  /** Stops listening; queued work is dropped, running work finishes. */
  close(): void;
}

/**
 * Wires the caches to reconciles: a Runtime change reconciles that Runtime, a Shoot change the Runtime(s)
 * naming it — both ahead of a running full pass (KEB reads the status 4 s after its update), never two
 * reconciles of one Runtime at once (a change while it runs queues it once more). Nothing is reconciled
 * before both caches have synced: an empty Shoot cache would read as "no Shoot" (events meanwhile are queued).
 */
export function backfillWatcher(
  context: BackfillContext,
  sources: {
    runtimes: WatchedKind<RuntimeObject>;
    shoots: WatchedKind<ShootObject>;
    kcpNamespace: string;
    applyReports?: WatchedKind<KubeObject>;
    /** The namespace's GardenerClusters and kubeconfig Secrets (labelled, compactSecret): read from these instead of by GET. */
    gardenerClusters?: WatchedKind<GardenerClusterObject>;
    secrets?: WatchedKind<SecretObject>;
  },
  report: (outcome: RuntimeOutcome) => void,
  concurrency = DEFAULT_CONCURRENCY,
): BackfillWatcher {
  const { runtimes, shoots, kcpNamespace, applyReports, gardenerClusters, secrets } = sources;
  let synced = false;
  // The applier's report, read once per change of it (not once per reconcile).
  let applied: ReadonlyMap<string, ApplyFacts> = new Map();
  const readReport = () => readApplyReport(applyReports?.get(context.gardenNamespace, APPLY_REPORT_NAME));
  const kcpCaches: KcpCaches | undefined =
    gardenerClusters && secrets
      ? {
          kcpNamespace,
          gardenerCluster: (name) => gardenerClusters.get(kcpNamespace, name),
          secret: (name) => secrets.get(kcpNamespace, name),
        }
      : undefined;
  const lookup = cachedLookup(
    context,
    (name) => shoots.get(context.gardenNamespace, name),
    () => synced,
    () => applied,
    kcpCaches,
  );
  // Insertion-ordered sets: a name is in at most one of them, urgent taking it from routine.
  const urgent = new Set<string>();
  const routine = new Set<string>();
  const queued = new Set<string>();
  // Shoot name → the Runtimes naming it, kept from the Runtime events (a Shoot event then finds them without a scan).
  const byShoot = new Map<string, Set<string>>();
  const shootOf = new Map<string, string>();
  // Runtime ID → the Runtime's name: a GardenerCluster is named by it, a kubeconfig Secret labelled with it.
  const byRuntimeId = new Map<string, string>();
  const index = (runtime: RuntimeObject, deleted: boolean) => {
    const name = runtime.metadata.name;
    const runtimeId = runtime.metadata.labels?.['kyma-project.io/runtime-id'];
    if (runtimeId !== undefined) {
      if (deleted) byRuntimeId.delete(runtimeId);
      else byRuntimeId.set(runtimeId, name);
    }
    const before = shootOf.get(name);
    const after = deleted ? undefined : runtime.spec?.shoot?.name;
    if (before === after) return;
    if (before !== undefined) {
      const names = byShoot.get(before);
      names?.delete(name);
      if (names?.size === 0) byShoot.delete(before);
    }
    if (after === undefined) shootOf.delete(name);
    else {
      shootOf.set(name, after);
      byShoot.set(after, (byShoot.get(after) ?? new Set()).add(name));
    }
  };
  for (const runtime of runtimes.items()) index(runtime, false);
  const running = new Set<string>();
  const again = new Set<string>();
  const waiters = new Map<string, ((outcome: RuntimeOutcome | undefined) => void)[]>();
  let idleWaiters: (() => void)[] = [];
  let closed = false;

  const settle = (key: string, outcome: RuntimeOutcome | undefined) => {
    const list = waiters.get(key);
    waiters.delete(key);
    for (const resolve of list ?? []) resolve(outcome);
  };
  const checkIdle = () => {
    if (queued.size === 0 && running.size === 0) {
      const list = idleWaiters;
      idleWaiters = [];
      for (const resolve of list) resolve();
    }
  };
  const enqueue = (name: string, isUrgent: boolean) => {
    if (closed) return;
    if (running.has(name)) {
      again.add(name);
      return;
    }
    if (queued.has(name)) {
      if (isUrgent && routine.delete(name)) urgent.add(name);
      return;
    }
    queued.add(name);
    (isUrgent ? urgent : routine).add(name);
    pump();
  };
  const takeFirst = (set: Set<string>): string | undefined => {
    for (const name of set) {
      set.delete(name);
      return name;
    }
    return undefined;
  };
  const next = (): string | undefined => takeFirst(urgent) ?? takeFirst(routine);
  const pump = () => {
    while (synced && running.size < concurrency) {
      const name = next();
      if (name === undefined) break;
      queued.delete(name);
      running.add(name);
      void work(name);
    }
    checkIdle();
  };
  const work = async (name: string) => {
    let outcome: RuntimeOutcome | undefined;
    try {
      const runtime = runtimes.get(kcpNamespace, name);
      if (runtime) {
        outcome = await reconcileRuntime(context, { ...runtime, ...RUNTIME_TYPE }, lookup);
        report(outcome);
      }
    } catch (error) {
      outcome = {
        runtime: `${kcpNamespace}/${name}`,
        statusWritten: false,
        conflict: false,
        events: 0,
        errors: [`internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`],
        unreachable: false,
      };
      report(outcome);
    } finally {
      running.delete(name);
      if (again.delete(name) && !closed) enqueue(name, true);
      else settle(name, outcome);
      pump();
    }
  };

  const unsubscribeRuntimes = runtimes.onChange((change) => {
    index(change.object, change.type === 'deleted');
    if (change.type !== 'deleted') enqueue(change.object.metadata.name, true);
  });
  const unsubscribeShoots = shoots.onChange((change) => {
    for (const name of byShoot.get(change.object.metadata.name) ?? []) enqueue(name, true);
  });
  // A changed report: the Runtimes of the Shoots whose facts it changed.
  const refreshReport = () => {
    const before = applied;
    applied = readReport();
    for (const shoot of new Set([...before.keys(), ...applied.keys()])) {
      if (stringify(before.get(shoot)) === stringify(applied.get(shoot))) continue;
      for (const name of byShoot.get(shoot) ?? []) enqueue(name, true);
    }
  };
  const unsubscribeReports = applyReports?.onChange((change) => {
    if (change.object.metadata.name === APPLY_REPORT_NAME) refreshReport();
  });
  // A GardenerCluster or kubeconfig Secret someone deleted or changed: its Runtime at once (KIM's GardenerCluster
  // controller watches both), not at the next full pass — KEB hands the Secret to the customer.
  const onKubeconfigObject = (runtimeId: string | undefined) => {
    const name = runtimeId === undefined ? undefined : byRuntimeId.get(runtimeId);
    if (name !== undefined) enqueue(name, true);
  };
  const unsubscribeClusters = gardenerClusters?.onChange((change) => {
    if (change.type !== 'added') onKubeconfigObject(change.object.metadata.name);
  });
  const unsubscribeSecrets = secrets?.onChange((change) => {
    if (change.type !== 'added')
      onKubeconfigObject(change.object.metadata.labels?.[LABEL_CLUSTER_NAME] as string | undefined);
  });
  // A stopped cache rejects: then nothing runs any more (close() follows).
  // The report and the KCP caches only add facts or save GETs: an identity that may not read them (their informers
  // retry and log the fix) must not keep a bump from showing Pending.
  applyReports?.synced().then(refreshReport, () => {});
  Promise.all([runtimes.synced(), shoots.synced()]).then(
    () => {
      synced = true;
      pump();
    },
    () => {},
  );

  return {
    async fullPass() {
      const names = runtimes.items().map((runtime) => runtime.metadata.name);
      const results = names.map(
        (name) =>
          new Promise<RuntimeOutcome | undefined>((resolve) => {
            waiters.set(name, [...(waiters.get(name) ?? []), resolve]);
            if (!running.has(name)) enqueue(name, false);
            else again.add(name);
          }),
      );
      const outcomes = (await Promise.all(results)).filter((o): o is RuntimeOutcome => o !== undefined);
      return { outcomes };
    },
    idle() {
      return new Promise((resolve) => {
        idleWaiters.push(resolve);
        checkIdle();
      });
    },
    close() {
      closed = true;
      unsubscribeRuntimes();
      unsubscribeShoots();
      unsubscribeReports?.();
      unsubscribeClusters?.();
      unsubscribeSecrets?.();
      urgent.clear();
      routine.clear();
      for (const name of queued) settle(name, undefined);
      queued.clear();
      checkIdle();
    },
  };
}
