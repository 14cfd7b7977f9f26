// KEB's kubeconfig after Ready (docs/contracts/keb-and-gardener-shoot.md §A.4): KIM's GardenerCluster CR, the Secret
// `kcp-system/kubeconfig-<runtimeID>` (key `config`) filled from Gardener's `shoots/adminkubeconfig`, the rule
// that decides when it is rotated, and the GardenerCluster status KIM writes (docs/contracts/runtime-status.md §5, §6).
// Pure: objects and decisions in and out; the caller reads, writes and requests (adapters/kube).
import {
  ANNOTATION_FORCE_KUBECONFIG_ROTATION,
  ANNOTATION_LAST_SYNC,
  ANNOTATION_SKR_DOMAIN,
  LABEL_BROKER_PLAN_ID,
  LABEL_BROKER_PLAN_NAME,
  LABEL_CLUSTER_NAME,
  LABEL_GLOBAL_ACCOUNT_ID,
  LABEL_INSTANCE_ID,
  LABEL_INTERNAL,
  LABEL_KYMA_NAME,
  LABEL_MANAGED_BY,
  LABEL_PLATFORM_REGION,
  LABEL_REGION,
  LABEL_RUNTIME_ID,
  LABEL_SHOOT_NAME,
  LABEL_SUBACCOUNT_ID,
  KUBECONFIG_SECRET_KEY,
  KUBECONFIG_SECRET_PREFIX,
  DEFAULT_KCP_NAMESPACE,
} from '../model/contract.js';
import { formatGoDurationMs, rfc3339Seconds } from '../model/go-time.js';
import { isJsonObject } from '../model/json.js';
import {
  adminKubeconfigRequest as requestFor,
  readAdminKubeconfig,
  type AdminKubeconfigRequest,
} from '../model/admin-kubeconfig.js';
import type { ObjectMeta } from '../model/kube-object.js';
import { type RuntimeCondition, readRuntimeStatus } from '../model/runtime-status.js';
import { kubeconfigSecretName } from './status.js';
import { setCondition } from '../model/conditions.js';
import type { LiveRuntime } from '../model/runtime.js';

// ---------------------------------------------------------------------------------------------------------
// KIM's vocabulary (api/v1 GardenerCluster types, internal/controller/kubeconfig, fsm HandleKubeconfig,
// cmd/main.go). Keep the strings exact: KEB, Lifecycle Manager and dashboards select and alert on them.
// ---------------------------------------------------------------------------------------------------------

export const GARDENER_CLUSTER_API_VERSION = 'infrastructuremanager.kyma-project.io/v1';
export const GARDENER_CLUSTER_KIND = 'GardenerCluster';

/**
 * KIM's value, kept on purpose (README "Kubeconfig"): Secrets and GardenerClusters KIM created carry it, kimops
 * takes them over in place, and whoever selects on it (dashboards, clean-up jobs) keeps finding both.
 */
const MANAGED_BY = 'infrastructure-manager';

/**
 * The Runtime labels KIM copies onto the GardenerCluster (`makeGardenerClusterForRuntime`): exactly these, a
 * missing one as `""`. Region, platform region and shoot name come from the Runtime's spec instead.
 */
const GARDENER_CLUSTER_RUNTIME_LABELS = [
  LABEL_INSTANCE_ID,
  LABEL_RUNTIME_ID,
  LABEL_BROKER_PLAN_ID,
  LABEL_BROKER_PLAN_NAME,
  LABEL_GLOBAL_ACCOUNT_ID,
  LABEL_SUBACCOUNT_ID,
  LABEL_KYMA_NAME,
] as const;

/** GardenerCluster `status.conditions[].type`, the only one KIM writes. */
const CONDITION_KUBECONFIG_MANAGEMENT = 'KubeconfigManagement';

/** GardenerCluster `status.state` (KIM writes only these two; the CRD's description also names Processing and Deleting). */
type GardenerClusterState = 'Ready' | 'Error';

// Reasons, as KIM spells them (two carry a `ConditionReason` prefix in their value: KIM's, keep it).
const REASON_KUBECONFIG_SECRET_CREATED = 'KubeconfigSecretCreated';
const REASON_KUBECONFIG_SECRET_ROTATED = 'KubeconfigSecretRotated';
const REASON_FAILED_TO_CHECK_SECRET = 'FailedToCheckSecret';
const REASON_FAILED_TO_CREATE_SECRET = 'ConditionReasonFailedToCreateSecret';
const REASON_FAILED_TO_DELETE_SECRET = 'ConditionReasonFailedToDeleteSecret';
const REASON_FAILED_TO_UPDATE_SECRET = 'FailedToUpdateSecret';
const REASON_FAILED_TO_GET_KUBECONFIG = 'FailedToGetKubeconfig';

/** KIM's `getMessage` per reason; an error appends ` Error: <err>`. The delete reason has none ("Unknown condition"). */
const REASON_MESSAGES: Readonly<Record<string, string>> = {
  [REASON_KUBECONFIG_SECRET_CREATED]: 'Secret created successfully.',
  [REASON_KUBECONFIG_SECRET_ROTATED]: 'Secret rotated successfully.',
  [REASON_FAILED_TO_CREATE_SECRET]: 'Failed to create secret.',
  [REASON_FAILED_TO_UPDATE_SECRET]: 'Failed to rotate secret.',
  [REASON_FAILED_TO_CHECK_SECRET]: 'Failed to get secret.',
  [REASON_FAILED_TO_GET_KUBECONFIG]: 'Failed to get kubeconfig.',
};
const UNKNOWN_CONDITION_MESSAGE = 'Unknown condition';

// Rotation numbers (cmd/main.go flags and the kubeconfig controller's constant).
/** `--kubeconfig-expiration-time` 24h: what the AdminKubeconfigRequest asks for. */
const DEFAULT_KUBECONFIG_EXPIRATION_SECONDS = 24 * 60 * 60;
/** `--minimal-rotation-time` 0.6: the rotation period is this share of the expiration (14h24m for 24h). */
const DEFAULT_MINIMAL_ROTATION_TIME = 0.6;
/** `rotationPeriodRatio` 0.95: rotate once the kubeconfig is this share of the rotation period old (13h40m48s). */
const ROTATION_PERIOD_RATIO = 0.95;
/**
 * kimops, not KIM: a last-sync this far ahead of `now` is not clock skew but a bad value, and is rotated (KIM
 * would wait for it, possibly past the kubeconfig's expiry). Within it the kubeconfig counts as just synced.
 */
const LAST_SYNC_FUTURE_TOLERANCE_MS = 5 * 60 * 1000;

// ---------------------------------------------------------------------------------------------------------
// Objects
// ---------------------------------------------------------------------------------------------------------

export interface SecretKeyRef {
  name: string;
  namespace: string;
  key: string;
}

/** metav1.Condition; the GardenerCluster CRD validates it like the Runtime's (same shape). */
type GardenerClusterCondition = RuntimeCondition;

export interface GardenerClusterStatus {
  state: GardenerClusterState;
  conditions: GardenerClusterCondition[];
}

/**
 * crds/gardenercluster.yaml, as KIM creates it. A type alias, not an interface: only an alias fits KubeObject's
 * index signature, so it is written without a cast.
 */
export type GardenerCluster = {
  apiVersion: typeof GARDENER_CLUSTER_API_VERSION;
  kind: typeof GARDENER_CLUSTER_KIND;
  metadata: { name: string; namespace: string; labels: Record<string, string>; annotations?: Record<string, string> };
  spec: { shoot: { name: string }; kubeconfig: { secret: SecretKeyRef } };
  status?: GardenerClusterStatus;
};

/** A GardenerCluster as read from KCP (`GardenerCluster` fits). */
export interface GardenerClusterLike {
  metadata: ObjectMeta;
  spec?: { shoot?: { name?: string }; kubeconfig?: { secret?: Partial<SecretKeyRef> } };
  status?: unknown;
}

/** A type alias for the same reason as `GardenerCluster`. */
export type KubeconfigSecret = {
  apiVersion: 'v1';
  kind: 'Secret';
  metadata: { name: string; namespace: string; labels: Record<string, string>; annotations: Record<string, string> };
  type: 'Opaque';
  /** base64, as the API serves `data`. */
  data: Record<string, string>;
};

/** The kubeconfig Secret as read from KCP (`data` base64), or what `kubeconfigSecretFor` built. */
export interface SecretLike {
  metadata: {
    name?: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  data?: Record<string, string>;
}

// ---------------------------------------------------------------------------------------------------------
// GardenerCluster and Secret
// ---------------------------------------------------------------------------------------------------------

/**
 * The GardenerCluster KIM creates for a Runtime (fsm `makeGardenerClusterForRuntime`): name = runtime ID, in the
 * Runtime's namespace; annotation `skr-domain` = the Shoot's `spec.dns.domain` (left out when not known yet —
 * KIM waits for the domain before it gets here, so should the caller); KIM's seven Runtime labels plus
 * platform region, region, shoot name, `managed-by` and `internal`; the Secret `kubeconfig-<runtimeID>`, key
 * `config`. Undefined when the Runtime has no runtime-id label or no `spec.shoot.name` (KIM stops there too).
 */
export function gardenerClusterFor(runtime: LiveRuntime, shootDomain?: string): GardenerCluster | undefined {
  const runtimeID = runtime.metadata.labels?.[LABEL_RUNTIME_ID];
  const secretName = kubeconfigSecretName(runtime);
  const shootName = runtime.spec?.shoot?.name;
  if (!runtimeID || !secretName || !shootName) return undefined;
  const namespace = runtime.metadata.namespace || DEFAULT_KCP_NAMESPACE;

  const labels: Record<string, string> = {};
  for (const label of GARDENER_CLUSTER_RUNTIME_LABELS) labels[label] = runtime.metadata.labels?.[label] ?? '';
  labels[LABEL_PLATFORM_REGION] = runtime.spec?.shoot?.platformRegion ?? '';
  labels[LABEL_REGION] = runtime.spec?.shoot?.region ?? '';
  labels[LABEL_SHOOT_NAME] = shootName;
  labels[LABEL_MANAGED_BY] = MANAGED_BY;
  labels[LABEL_INTERNAL] = 'true';

  return {
    apiVersion: GARDENER_CLUSTER_API_VERSION,
    kind: GARDENER_CLUSTER_KIND,
    metadata: {
      name: runtimeID,
      namespace,
      labels,
      ...(shootDomain !== undefined && shootDomain !== '' && { annotations: { [ANNOTATION_SKR_DOMAIN]: shootDomain } }),
    },
    spec: {
      shoot: { name: shootName },
      kubeconfig: { secret: { name: secretName, namespace, key: KUBECONFIG_SECRET_KEY } },
    },
  };
}

/** Where the GardenerCluster says the kubeconfig goes; KIM's defaults for what a hand-made one leaves out. */
export function secretRefOf(gardenerCluster: GardenerClusterLike): SecretKeyRef {
  const ref = gardenerCluster.spec?.kubeconfig?.secret;
  const namespace = ref?.namespace || gardenerCluster.metadata.namespace || DEFAULT_KCP_NAMESPACE;
  return {
    name: ref?.name || `${KUBECONFIG_SECRET_PREFIX}${gardenerCluster.metadata.name}`,
    namespace,
    key: ref?.key || KUBECONFIG_SECRET_KEY,
  };
}

/**
 * The kubeconfig Secret as KIM writes it (`newSecret` / `updateExistingSecret`): name, namespace and key from the
 * GardenerCluster; its labels plus `managed-by` and `cluster-name` (= the GardenerCluster's name); annotation
 * `operator.kyma-project.io/last-sync` = `now` in RFC 3339 UTC, whole seconds. The same object serves create and
 * rotation (apply it; labels and annotations others put on the Secret stay theirs).
 */
export function kubeconfigSecretFor(
  gardenerCluster: GardenerClusterLike,
  kubeconfigText: string,
  now: Date,
): KubeconfigSecret {
  const ref = secretRefOf(gardenerCluster);
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: ref.name,
      namespace: ref.namespace,
      labels: {
        ...gardenerCluster.metadata.labels,
        [LABEL_MANAGED_BY]: MANAGED_BY,
        [LABEL_CLUSTER_NAME]: gardenerCluster.metadata.name,
      },
      annotations: { [ANNOTATION_LAST_SYNC]: rfc3339Seconds(now) },
    },
    type: 'Opaque',
    data: { [ref.key]: Buffer.from(kubeconfigText, 'utf8').toString('base64') },
  };
}

/** JSON merge patch for the GardenerCluster once a forced rotation is done (KIM `removeForceRotationAnnotation`). */
export function forceRotationRemovalPatch(): { metadata: { annotations: Record<string, null> } } {
  return { metadata: { annotations: { [ANNOTATION_FORCE_KUBECONFIG_ROTATION]: null } } };
}

// ---------------------------------------------------------------------------------------------------------
// Gardener's adminkubeconfig subresource
// ---------------------------------------------------------------------------------------------------------

/**
 * The body to POST to `shoots/<name>/adminkubeconfig` (KIM's provider: `spec.expirationSeconds` =
 * `--kubeconfig-expiration-time`, 24h). Throws a RangeError for a value Gardener would refuse (not a whole
 * number of seconds, or under 10 minutes): that is a configuration mistake, caught at start-up.
 */
export function adminKubeconfigRequest(
  expirationSeconds: number = DEFAULT_KUBECONFIG_EXPIRATION_SECONDS,
): AdminKubeconfigRequest {
  return requestFor(expirationSeconds);
}

export type AdminKubeconfigResult = { ok: true; kubeconfig: string; expiresAt?: Date } | { ok: false; error: string };

/**
 * Gardener's answer to the request: `status.kubeconfig` (base64 in JSON) as text, and
 * `status.expirationTimestamp` — Gardener may issue a shorter validity than asked for (its maximum).
 */
export function readAdminKubeconfigResponse(body: unknown): AdminKubeconfigResult {
  const answer = readAdminKubeconfig(body);
  if (!answer.ok) return answer;
  const expires = answer.expirationTimestamp === undefined ? undefined : parseRfc3339(answer.expirationTimestamp);
  return { ok: true, kubeconfig: answer.kubeconfig, ...(expires !== undefined && { expiresAt: new Date(expires) }) };
}

// ---------------------------------------------------------------------------------------------------------
// Rotation
// ---------------------------------------------------------------------------------------------------------

export interface RotationOptions {
  /** What the AdminKubeconfigRequest asks for; default 24h (`--kubeconfig-expiration-time`). */
  expirationSeconds?: number;
  /** The rotation period's share of the expiration; default 0.6 (`--minimal-rotation-time`). */
  minimalRotationTime?: number;
}

export interface RotationInput extends RotationOptions {
  /** The Secret as read; undefined when it does not exist. */
  secret: SecretLike | undefined;
  gardenerCluster: GardenerClusterLike;
  now: Date;
}

type RotationAction = 'create' | 'rotate' | 'keep';

/** Why, as a value (for Events and tests); `reason` says it in words. */
type RotationCause =
  | 'secret-missing'
  | 'forced'
  | 'key-missing'
  | 'last-sync-missing'
  | 'last-sync-garbled'
  | 'last-sync-in-future'
  | 'due'
  | 'fresh';

export interface RotationDecision {
  action: RotationAction;
  cause: RotationCause;
  reason: string;
  /**
   * When to look again: for `keep`, the time left until rotation is due; for `create`/`rotate`, the full
   * threshold (the Secret written now is next due then). KIM's `nextRequeue`. Whole milliseconds.
   */
  nextCheckInMs: number;
  /** The force annotation was set: once the Secret is written, remove it (`forceRotationRemovalPatch`). */
  forced: boolean;
}

/**
 * KIM's rotation period (cmd/main.go): `minimalRotationTime` × expiration, truncated to whole minutes as KIM's
 * `time.Duration(ratio*expiration.Minutes()) * time.Minute` does — 14h24m for 24h × 0.6. Throws a RangeError
 * for settings KIM would not run sensibly with.
 */
export function rotationPeriodMs(options: RotationOptions = {}): number {
  const expirationSeconds = options.expirationSeconds ?? DEFAULT_KUBECONFIG_EXPIRATION_SECONDS;
  const ratio = options.minimalRotationTime ?? DEFAULT_MINIMAL_ROTATION_TIME;
  checkExpiration(expirationSeconds);
  if (!Number.isFinite(ratio) || ratio <= 0 || ratio > 1)
    throw new RangeError(`minimal rotation time must be in (0, 1], got ${ratio}`);
  // Go's Duration.Minutes(): whole minutes plus the remainder as a fraction.
  const minutes = Math.floor(expirationSeconds / 60) + (expirationSeconds % 60) / 60;
  return Math.trunc(ratio * minutes) * 60_000;
}

/** How old a kubeconfig may get before it is rotated: 0.95 × the rotation period (13h40m48s for 24h × 0.6). */
export function rotationThresholdMs(options: RotationOptions = {}): number {
  return ROTATION_PERIOD_RATIO * rotationPeriodMs(options);
}

/**
 * Create, rotate or keep the kubeconfig Secret now (KIM `secretNeedsToBeRotated` and `nextRequeue`):
 * no Secret → create; the GardenerCluster's force annotation → rotate; the Secret's last-sync annotation
 * missing or not RFC 3339 → rotate (KIM's `findLastSyncTime` fails → rotate); its age ≥ 0.95 × rotation period
 * → rotate; otherwise keep and look again when it is due. kimops adds two checks KIM lacks, both → rotate: a
 * Secret without the kubeconfig key (KIM's own forced rotation leaves one behind), and a last-sync more than
 * `LAST_SYNC_FUTURE_TOLERANCE_MS` in the future.
 */
export function rotationDecision(input: RotationInput): RotationDecision {
  const { secret, gardenerCluster, now } = input;
  const thresholdMs = rotationThresholdMs(input);
  const fullWait = Math.ceil(thresholdMs);
  const forced = gardenerCluster.metadata.annotations?.[ANNOTATION_FORCE_KUBECONFIG_ROTATION] !== undefined;
  const ref = secretRefOf(gardenerCluster);
  const where = `Secret ${ref.namespace}/${ref.name}`;
  const act = (action: 'create' | 'rotate', cause: RotationCause, reason: string): RotationDecision => ({
    action,
    cause,
    reason,
    nextCheckInMs: fullWait,
    forced,
  });
  const forcedNote = `rotation forced by annotation ${ANNOTATION_FORCE_KUBECONFIG_ROTATION} on GardenerCluster ${gardenerCluster.metadata.namespace ?? ref.namespace}/${gardenerCluster.metadata.name}`;

  if (!secret) return act('create', 'secret-missing', `${where} does not exist` + (forced ? ` (${forcedNote})` : ''));
  if (forced) return act('rotate', 'forced', forcedNote);
  const data = secret.data?.[ref.key];
  if (data === undefined || data === '') return act('rotate', 'key-missing', `${where} has no key ${ref.key}`);

  const text = secret.metadata.annotations?.[ANNOTATION_LAST_SYNC];
  if (text === undefined)
    return act('rotate', 'last-sync-missing', `${where} has no annotation ${ANNOTATION_LAST_SYNC}`);
  const synced = parseRfc3339(text);
  if (synced === undefined) {
    return act(
      'rotate',
      'last-sync-garbled',
      `annotation ${ANNOTATION_LAST_SYNC} of ${where} is not an RFC 3339 time: ${JSON.stringify(text)}`,
    );
  }
  const ageMs = now.getTime() - synced;
  if (-ageMs > LAST_SYNC_FUTURE_TOLERANCE_MS) {
    return act(
      'rotate',
      'last-sync-in-future',
      `annotation ${ANNOTATION_LAST_SYNC} of ${where} is in the future: ${text} (now ${rfc3339Seconds(now)})`,
    );
  }
  const rule = `${ROTATION_PERIOD_RATIO} × rotation period ${formatGoDurationMs(rotationPeriodMs(input))}`;
  if (ageMs >= thresholdMs) {
    return act(
      'rotate',
      'due',
      `kubeconfig in ${where} synced ${text}, ${formatGoDurationMs(ageMs)} ago: rotation is due after ${formatGoDurationMs(thresholdMs)} (${rule})`,
    );
  }
  const leftMs = Math.ceil(thresholdMs - ageMs);
  return {
    action: 'keep',
    cause: 'fresh',
    reason: `kubeconfig in ${where} synced ${text}, rotation due in ${formatGoDurationMs(leftMs)} (${rule})`,
    nextCheckInMs: leftMs,
    forced,
  };
}

// ---------------------------------------------------------------------------------------------------------
// GardenerCluster status
// ---------------------------------------------------------------------------------------------------------

/** What the last pass did, after its writes: the Secret written (`created`, `rotated`), left (`kept`), or a failure. */
export type KubeconfigOutcome =
  { result: 'created' | 'rotated' | 'kept' } | { result: 'failed'; step: KubeconfigFailureStep; error: string };

/**
 * Where a pass failed, one KIM reason each: reading the Secret (`FailedToCheckSecret`), fetching the kubeconfig
 * (`FailedToGetKubeconfig`), creating (`ConditionReasonFailedToCreateSecret`), updating
 * (`FailedToUpdateSecret`) or deleting the Secret (`ConditionReasonFailedToDeleteSecret`).
 */
type KubeconfigFailureStep = 'check-secret' | 'get-kubeconfig' | 'create-secret' | 'update-secret' | 'delete-secret';

const FAILURE_REASONS: Readonly<Record<KubeconfigFailureStep, string>> = {
  'check-secret': REASON_FAILED_TO_CHECK_SECRET,
  'get-kubeconfig': REASON_FAILED_TO_GET_KUBECONFIG,
  'create-secret': REASON_FAILED_TO_CREATE_SECRET,
  'update-secret': REASON_FAILED_TO_UPDATE_SECRET,
  'delete-secret': REASON_FAILED_TO_DELETE_SECRET,
};

/**
 * The GardenerCluster status KIM writes for an outcome (`UpdateConditionForReadyState` /
 * `UpdateConditionForErrorState`): state `Ready` with `KubeconfigManagement=True` — reason
 * `KubeconfigSecretRotated` after a rotation, `KubeconfigSecretCreated` after a create and on a pass that kept
 * the Secret (KIM's wording, whatever happened before) — or state `Error` with `KubeconfigManagement=False`,
 * the step's reason and `"<KIM message> Error: <err>"`. Other condition types in `previous` stay. Unlike KIM
 * (which replaces the condition each pass), an unchanged status keeps its `lastTransitionTime`, so a quiet pass
 * yields an equal status and needs no write.
 */
export function gardenerClusterStatus(
  outcome: KubeconfigOutcome,
  now: Date,
  previous?: unknown,
): GardenerClusterStatus {
  const conditions =
    readRuntimeStatus(isJsonObject(previous) ? { conditions: previous.conditions } : undefined).conditions ?? [];
  let state: GardenerClusterState;
  let condition: Omit<GardenerClusterCondition, 'lastTransitionTime'>;
  if (outcome.result === 'failed') {
    const reason = FAILURE_REASONS[outcome.step];
    state = 'Error';
    condition = {
      type: CONDITION_KUBECONFIG_MANAGEMENT,
      status: 'False',
      reason,
      message: `${reasonMessage(reason)} Error: ${outcome.error}`,
    };
  } else {
    const reason = outcome.result === 'rotated' ? REASON_KUBECONFIG_SECRET_ROTATED : REASON_KUBECONFIG_SECRET_CREATED;
    state = 'Ready';
    condition = { type: CONDITION_KUBECONFIG_MANAGEMENT, status: 'True', reason, message: reasonMessage(reason) };
  }
  // KIM removes and re-adds the condition on every pass; here a changed status, reason or message is a transition.
  setCondition(conditions, { ...condition, lastTransitionTime: rfc3339Seconds(now) }, 'any');
  return { state, conditions };
}

function reasonMessage(reason: string): string {
  return REASON_MESSAGES[reason] ?? UNKNOWN_CONDITION_MESSAGE;
}

// ---------------------------------------------------------------------------------------------------------
// Metric (docs/contracts/runtime-status.md §6)
// ---------------------------------------------------------------------------------------------------------

/** KIM's `infrastructure_manager_im_gardener_clusters_state` labels (value 1). */
export interface GardenerClusterSeries extends Record<string, string> {
  runtimeId: string;
  shoot: string;
  state: string;
  /** The reason of the first condition, as KIM reads `conditions[0]`. */
  reason: string;
}

/** The series of a GardenerCluster (its name is the runtime ID) with the status it now has. */
export function gardenerClusterSeries(
  cluster: GardenerClusterLike,
  status: GardenerClusterStatus,
): GardenerClusterSeries {
  return {
    runtimeId: cluster.metadata.name,
    shoot: cluster.spec?.shoot?.name ?? '',
    state: status.state,
    reason: status.conditions[0]?.reason ?? '',
  };
}

export interface KubeconfigExpirationSample {
  labels: { runtimeId: string; shoot: string; expires: string; rotationDuration: string; expirationDuration: string };
  /** Unix seconds when the kubeconfig expires: last-sync + rotation period / minimal rotation time. */
  value: number;
}

/**
 * KIM's `infrastructure_manager_im_kubeconfig_expiration` sample for a Secret (`SetKubeconfigExpiration`):
 * labels `runtimeId`, `shoot` (the Secret's labels), `expires` (the value as text), `rotationDuration` and
 * `expirationDuration` in seconds, printed as Go's `FormatFloat(x, 'G', -1, 64)`. Undefined when KIM sets none:
 * no runtime ID or an unreadable last-sync (the caller then deletes the runtime's series).
 */
export function kubeconfigExpirationSample(
  secret: SecretLike,
  options: RotationOptions = {},
): KubeconfigExpirationSample | undefined {
  const runtimeId = secret.metadata.labels?.[LABEL_RUNTIME_ID] ?? '';
  const synced = parseRfc3339(secret.metadata.annotations?.[ANNOTATION_LAST_SYNC] ?? '');
  if (runtimeId === '' || synced === undefined) return undefined;
  const rotationSeconds = rotationPeriodMs(options) / 1000;
  const expirationSeconds = rotationSeconds / (options.minimalRotationTime ?? DEFAULT_MINIMAL_ROTATION_TIME);
  // Go: lastSync.Add(Duration(expirationSeconds * 1e9)).Unix() — truncation towards the earlier second.
  const expires = Math.floor((synced + Math.trunc(expirationSeconds * 1e9) / 1e6) / 1000);
  return {
    labels: {
      runtimeId,
      shoot: secret.metadata.labels?.[LABEL_SHOOT_NAME] ?? '',
      expires: String(expires),
      rotationDuration: goFormatFloatG(rotationSeconds),
      expirationDuration: goFormatFloatG(expirationSeconds),
    },
    value: expires,
  };
}

// ---------------------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------------------

/** Throws the RangeError adminKubeconfigRequest throws for a validity Gardener would refuse. */
function checkExpiration(expirationSeconds: number): void {
  requestFor(expirationSeconds);
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|([+-])(\d{2}):(\d{2}))$/;

/**
 * Go's `time.Parse(time.RFC3339, s)` as epoch milliseconds, or undefined: upper-case `T` and `Z`, fractional
 * seconds allowed, every field in range for its month (JavaScript's Date.parse would roll 02-31 over to March).
 */
export function parseRfc3339(text: string): number | undefined {
  const match = RFC3339.exec(text);
  if (!match) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour > 23 || minute > 59 || second > 59)
    return undefined;
  const fraction = match[7] ? Math.floor(Number(`0${match[7]}`) * 1000) : 0;
  let offsetMinutes = 0;
  if (match[8] !== 'Z') {
    const offsetHours = Number(match[10]);
    const offsetMins = Number(match[11]);
    if (offsetHours > 23 || offsetMins > 59) return undefined;
    offsetMinutes = (match[9] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMins);
  }
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, fraction);
  return date.getTime() - offsetMinutes * 60_000;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] as const;

function daysIn(year: number, month: number): number {
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return month === 2 && leap ? 29 : (DAYS_IN_MONTH[month - 1] ?? 0);
}

/**
 * Go's `strconv.FormatFloat(x, 'G', -1, 64)`: the shortest digits that read back as `x`, in exponent form
 * (`1.0368E+06`, two exponent digits at least) when the decimal exponent is below -4 or 6 and above.
 */
export function goFormatFloatG(x: number): string {
  if (x === 0) return '0';
  const [mantissa, exponentText] = x.toExponential().split('e') as [string, string];
  const exponent = Number(exponentText);
  if (exponent < -4 || exponent >= 6)
    return `${mantissa}E${exponent < 0 ? '-' : '+'}${String(Math.abs(exponent)).padStart(2, '0')}`;
  return String(x);
}
