// The Runtime's status as the CRD serves it (crds/runtime.yaml `status`, KIM's api/v1 RuntimeStatus): the
// contract KEB reads (docs/contracts/keb-and-gardener-shoot.md §A.4). The backfiller writes it through the status
// subresource as a full replace. Pure: types and a tolerant reader, no I/O.
import { isJsonObject } from './json.js';
import { CONVERSION_ERROR_REASON } from './errors.js';

/** `status.state` (crds/runtime.yaml enum; the only field the CRD requires). */
const RUNTIME_STATES = ['Pending', 'Ready', 'Terminating', 'Failed'] as const;
export type RuntimeState = (typeof RUNTIME_STATES)[number];

/** metav1.ConditionStatus (crds/runtime.yaml `conditions[].status` enum). */
const CONDITION_STATUSES = ['True', 'False', 'Unknown'] as const;
export type ConditionStatus = (typeof CONDITION_STATUSES)[number];

/** metav1.Condition as the CRD validates it: `observedGeneration` is the only optional field. */
export interface RuntimeCondition {
  /** CamelCase (or `domain/CamelCase`), at most 316 characters. */
  type: string;
  status: ConditionStatus;
  /** CamelCase, `^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$`, 1–1024 characters. */
  reason: string;
  /** May be empty; at most 32768 characters. */
  message: string;
  /** RFC 3339, seconds precision as metav1.Time prints it. */
  lastTransitionTime: string;
  /** The Runtime's `metadata.generation` the condition was computed for. */
  observedGeneration?: number;
}

/** `status.shootLastOperation`: the Shoot's `status.lastOperation`, copied; the CRD requires all five fields. */
export interface RuntimeShootLastOperation {
  type: string;
  state: string;
  progress: number;
  description: string;
  lastUpdateTime: string;
}

/** One entry of `status.shootLastErrors`: the Shoot's `status.lastErrors[]`, copied (`description` required). */
export interface RuntimeShootLastError {
  description: string;
  taskID?: string;
  codes?: string[];
  lastUpdateTime?: string;
}

export interface RuntimeStatus {
  state: RuntimeState;
  conditions?: RuntimeCondition[];
  /** Set once the first provisioning reached Ready; never reset (KIM). */
  provisioningCompleted?: boolean;
  shootLastOperation?: RuntimeShootLastOperation;
  shootLastErrors?: RuntimeShootLastError[];
  /** Name of the AuditLog CR chosen for this Runtime (KIM's dedicated audit logging); kimops keeps it as found. */
  auditLogCR?: string;
}

function isRuntimeState(value: unknown): value is RuntimeState {
  return typeof value === 'string' && (RUNTIME_STATES as readonly string[]).includes(value);
}

/**
 * The status of a Runtime as read from the API (`Runtime.status` is untyped there), keeping only what has the
 * CRD's shape: a missing or unknown `state` is left out, conditions without a type or a valid status are
 * dropped. Never throws: a fresh Runtime (no status at all) reads as `{}`.
 */
export function readRuntimeStatus(value: unknown): Partial<RuntimeStatus> {
  if (!isJsonObject(value)) return {};
  const status: Partial<RuntimeStatus> = {};
  if (isRuntimeState(value.state)) status.state = value.state;
  if (Array.isArray(value.conditions)) status.conditions = value.conditions.filter(isCondition).map(copyCondition);
  if (typeof value.provisioningCompleted === 'boolean') status.provisioningCompleted = value.provisioningCompleted;
  if (isJsonObject(value.shootLastOperation)) {
    const op = value.shootLastOperation;
    status.shootLastOperation = {
      type: str(op.type),
      state: str(op.state),
      progress: typeof op.progress === 'number' ? op.progress : 0,
      description: str(op.description),
      lastUpdateTime: str(op.lastUpdateTime),
    };
  }
  if (Array.isArray(value.shootLastErrors)) {
    status.shootLastErrors = value.shootLastErrors.filter(isJsonObject).map((error) => ({
      description: str(error.description),
      ...(typeof error.taskID === 'string' && { taskID: error.taskID }),
      ...(Array.isArray(error.codes) && {
        codes: error.codes.filter((code): code is string => typeof code === 'string'),
      }),
      ...(typeof error.lastUpdateTime === 'string' && { lastUpdateTime: error.lastUpdateTime }),
    }));
  }
  if (typeof value.auditLogCR === 'string') status.auditLogCR = value.auditLogCR;
  return status;
}

function isCondition(value: unknown): value is RuntimeCondition {
  return (
    isJsonObject(value) &&
    typeof value.type === 'string' &&
    value.type !== '' &&
    typeof value.status === 'string' &&
    (CONDITION_STATUSES as readonly string[]).includes(value.status)
  );
}

function copyCondition(condition: RuntimeCondition): RuntimeCondition {
  return {
    type: condition.type,
    status: condition.status,
    reason: str(condition.reason),
    message: str(condition.message),
    lastTransitionTime: str(condition.lastTransitionTime),
    ...(typeof condition.observedGeneration === 'number' && { observedGeneration: condition.observedGeneration }),
  };
}

function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

// ---------------------------------------------------------------------------------------------------------
// The status vocabulary, as KIM keeps it on its API type (api/v1 runtime_types.go) plus kimops's own
// conditions: every condition type and reason the backfiller writes, exact — KEB, its operators and their
// alerts match on these strings (docs/contracts/runtime-status.md).
// ---------------------------------------------------------------------------------------------------------

// Condition types (docs/contracts/runtime-status.md §1, §4).
export const CONDITION_PROVISIONED = 'Provisioned';
export const CONDITION_KUBECONFIG_READY = 'KubeconfigReady';
export const CONDITION_CONFIGURED = 'Configured';
export const CONDITION_DEPROVISIONED = 'Deprovisioned';
/** KIM's CreateKymaNamespace step: the `kyma-system` Namespace on the SKR (docs/skr.md). */
export const CONDITION_KYMA_SYSTEM_NS_CREATED = 'KymaSystemNSCreated';
/** KIM's ConfigureSKR step: `kyma-provisioning-info` and the OpenIDConnect resources on the SKR (docs/skr.md). */
export const CONDITION_OIDC_AND_CONFIG_MAP_CONFIGURED = 'OidcAndConfigMapConfigured';

// Reasons (docs/contracts/runtime-status.md §1, §2, §4).
/** §1 Initialize: shoot=nil & no `Provisioned` condition. */
export const REASON_INITIALISED = 'Initialised';
/** §1 CreateShoot and §2 WaitForShootCreation (KIM's `ConditionReasonShootCreationPending`); also §2's retryable reconcile row. */
export const REASON_PENDING = 'Pending';
/** §2 WaitForShootReconcile, in progress. */
export const REASON_PROCESSING = 'Processing';
/** §2 Create Succeeded. */
export const REASON_SHOOT_CREATION_COMPLETED = 'ShootCreationCompleted';
/** §2 Reconcile Succeeded. */
export const REASON_CONFIGURATION_COMPLETED = 'ConfigurationCompleted';
/** §2 Create Failed (non-retryable, or no matching seeds). */
export const REASON_CREATION_ERR = 'CreationErr';
/** §2 Reconcile Failed (non-retryable); §3 patch errors. */
export const REASON_PROCESSING_ERR = 'ProcessingErr';
/** §1 CreateShoot / §3: the Runtime cannot be converted (the generator's `ConversionError` carries the same reason). */
export const REASON_CONVERSION_ERR = CONVERSION_ERROR_REASON;
/** §1 CreateShoot: no usable Seed in the enforced region (applier/seeds.ts writes the message). */
export const REASON_SEED_NOT_FOUND = 'SeedNotFound';
/** §1 CreateShoot: `Create(shoot)` failed. */
export const REASON_GARDENER_ERR = 'GardenerErr';
/** §1 HandleKubeconfig: GardenerCluster created, Secret not there yet. */
export const REASON_GARDENER_CLUSTER_CR_CREATED = 'GardenerClusterCRCreated';
/** §1 HandleKubeconfig: GardenerCluster Ready (kimops: the Secret exists). */
export const REASON_GARDENER_CLUSTER_CR_READY = 'GardenerClusterCRReady';
/** §1 ApplyClusterRoleBindings: done, the Runtime is Ready. */
export const REASON_ADMINISTRATORS_CONFIGURED = 'AdministratorsConfigured';
/** KIM's `ConditionReasonConfigurationErr`: no SKR client, or the administrators' bindings not applied (docs/skr.md). */
export const REASON_CONFIGURATION_ERR = 'ConfigurationError';
/** KIM's `ConditionReasonKymaSystemNSReady`: the `kyma-system` Namespace exists. */
export const REASON_KYMA_SYSTEM_NS_READY = 'KymaSystemNSReady';
/** KIM's `ConditionReasonKymaSystemNSError`: the `kyma-system` Namespace could not be created. */
export const REASON_KYMA_SYSTEM_NS_ERROR = 'KymaSystemNSError';
/** KIM's `ConditionReasonOidcAndCMsConfigured` (the type says ConfigMap, the reason ConfigMaps: KIM's spelling). */
export const REASON_OIDC_AND_CONFIG_MAPS_CONFIGURED = 'OidcAndConfigMapsConfigured';
/** KIM's `ConditionReasonCMError`: `kyma-provisioning-info` could not be applied. */
export const REASON_CONFIG_MAP_ERR = 'ConfigMapErr';
/** KIM's `ConditionReasonOidcError`: the OpenIDConnect resources could not be applied. */
export const REASON_OIDC_CONFIGURATION_ERR = 'OidcConfigurationErr';
/** §4 2.: `Delete(shoot)` issued / failed. */
export const REASON_GARDENER_SHOOT_DELETED = 'GardenerShootDeleted';
/** KIM's `ConditionReasonDeletionErr` (api/v1 runtime_types.go); kimops uses it for a deletion past its timeout. */
export const REASON_DELETION_ERR = 'DeletionErr';

// KIM's dedicated audit log (api/v1 runtime_types.go; docs/skr.md "Dedicated audit log"): the Shoot sends to the
// customer's tenant, and the customer's read credentials are on the SKR.
export const CONDITION_CUSTOM_AUDIT_LOG_CONFIGURED = 'CustomAuditLogConfigured';
export const CONDITION_AUDIT_LOG_CREDENTIALS_COPIED = 'AuditLogCredentialsCopied';
export const REASON_CUSTOM_AUDIT_LOG_ERR = 'CustomAuditLogErr';
export const REASON_CUSTOM_AUDIT_LOG_CONFIGURED = 'CustomAuditLogConfigured';
export const REASON_CREDENTIALS_COPY_ERR = 'CredentialsCopyErr';
export const REASON_CREDENTIALS_COPIED = 'CredentialsCopied';

// KIM's registry cache (api/v1 runtime_types.go; docs/skr.md "Registry cache"): the caches' credentials copied
// into the Garden, and the unused copies deleted. KIM's reason RegistryCacheError is defined but never written.
export const CONDITION_REGISTRY_CACHE_CONFIGURED = 'RegistryCacheConfigured';
export const REASON_REGISTRY_CACHE_CONFIGURED = 'RegistryCacheConfigured';
export const REASON_REGISTRY_CACHE_GARDEN_CLUSTER_CONFIGURATION_FAILED =
  'RegistryCacheGardenClusterConfigurationFailed';
export const REASON_REGISTRY_CACHE_GARDEN_CLUSTER_CLEANUP_FAILED = 'RegistryCacheGardenClusterCleanupFailed';
/** KIM's message once the cleanup is done. */
export const MSG_REGISTRY_CACHE_CONFIGURED = 'Registry cache configured successfully';

// Kubernetes-standard conditions (kstatus: Reconciling and Stalled are "abnormal-true").
export const CONDITION_READY = 'Ready';
export const CONDITION_RECONCILING = 'Reconciling';
export const CONDITION_STALLED = 'Stalled';
/** Ready=True; otherwise the three take the reason and message of the KIM condition that decided the state. */
export const REASON_RUNTIME_READY = 'RuntimeReady';

// The GitOps trail.
export const CONDITION_CHANGE_PROPOSED = 'ChangeProposed';
export const CONDITION_CHANGE_MERGED = 'ChangeMerged';
export const CONDITION_CHANGE_APPLIED = 'ChangeApplied';
export const CONDITION_SHOOT_RECONCILED = 'ShootReconciled';
export const REASON_PULL_REQUEST_OPEN = 'PullRequestOpen';
export const REASON_WAITING_FOR_REVIEW = 'WaitingForReview';
export const REASON_PULL_REQUEST_MERGED = 'PullRequestMerged';
export const REASON_CHANGE_BLOCKED = 'ChangeBlocked';
export const REASON_MERGED = 'Merged';
export const REASON_APPLIED = 'Applied';
export const REASON_APPLY_PENDING = 'ApplyPending';
export const REASON_APPLY_FAILED = 'ApplyFailed';
export const REASON_SHOOT_NOT_FOUND = 'ShootNotFound';
export const REASON_SHOOT_SUCCEEDED = 'ShootSucceeded';
export const REASON_SHOOT_PROGRESSING = 'ShootProgressing';
export const REASON_SHOOT_FAILED = 'ShootFailed';
export const REASON_SHOOT_STATUS_UNKNOWN = 'ShootStatusUnknown';
export const REASON_SHOOT_DELETED = 'ShootDeleted';

/** Every condition type kimops writes on a Runtime. */
export type RuntimeConditionType =
  | typeof CONDITION_PROVISIONED
  | typeof CONDITION_KUBECONFIG_READY
  | typeof CONDITION_CONFIGURED
  | typeof CONDITION_DEPROVISIONED
  | typeof CONDITION_KYMA_SYSTEM_NS_CREATED
  | typeof CONDITION_OIDC_AND_CONFIG_MAP_CONFIGURED
  | typeof CONDITION_CUSTOM_AUDIT_LOG_CONFIGURED
  | typeof CONDITION_AUDIT_LOG_CREDENTIALS_COPIED
  | typeof CONDITION_REGISTRY_CACHE_CONFIGURED
  | typeof CONDITION_READY
  | typeof CONDITION_RECONCILING
  | typeof CONDITION_STALLED
  | typeof CONDITION_CHANGE_PROPOSED
  | typeof CONDITION_CHANGE_MERGED
  | typeof CONDITION_CHANGE_APPLIED
  | typeof CONDITION_SHOOT_RECONCILED;

/** Every reason kimops writes on a Runtime condition. */
export type RuntimeConditionReason =
  | typeof REASON_INITIALISED
  | typeof REASON_PENDING
  | typeof REASON_PROCESSING
  | typeof REASON_SHOOT_CREATION_COMPLETED
  | typeof REASON_CONFIGURATION_COMPLETED
  | typeof REASON_CREATION_ERR
  | typeof REASON_PROCESSING_ERR
  | typeof REASON_CONVERSION_ERR
  | typeof REASON_SEED_NOT_FOUND
  | typeof REASON_GARDENER_ERR
  | typeof REASON_GARDENER_CLUSTER_CR_CREATED
  | typeof REASON_GARDENER_CLUSTER_CR_READY
  | typeof REASON_ADMINISTRATORS_CONFIGURED
  | typeof REASON_CONFIGURATION_ERR
  | typeof REASON_KYMA_SYSTEM_NS_READY
  | typeof REASON_KYMA_SYSTEM_NS_ERROR
  | typeof REASON_OIDC_AND_CONFIG_MAPS_CONFIGURED
  | typeof REASON_CONFIG_MAP_ERR
  | typeof REASON_OIDC_CONFIGURATION_ERR
  | typeof REASON_GARDENER_SHOOT_DELETED
  | typeof REASON_DELETION_ERR
  | typeof REASON_CUSTOM_AUDIT_LOG_ERR
  | typeof REASON_CUSTOM_AUDIT_LOG_CONFIGURED
  | typeof REASON_CREDENTIALS_COPY_ERR
  | typeof REASON_CREDENTIALS_COPIED
  | typeof REASON_REGISTRY_CACHE_CONFIGURED
  | typeof REASON_REGISTRY_CACHE_GARDEN_CLUSTER_CONFIGURATION_FAILED
  | typeof REASON_REGISTRY_CACHE_GARDEN_CLUSTER_CLEANUP_FAILED
  | typeof REASON_RUNTIME_READY
  | typeof REASON_PULL_REQUEST_OPEN
  | typeof REASON_WAITING_FOR_REVIEW
  | typeof REASON_PULL_REQUEST_MERGED
  | typeof REASON_CHANGE_BLOCKED
  | typeof REASON_MERGED
  | typeof REASON_APPLIED
  | typeof REASON_APPLY_PENDING
  | typeof REASON_APPLY_FAILED
  | typeof REASON_SHOOT_NOT_FOUND
  | typeof REASON_SHOOT_SUCCEEDED
  | typeof REASON_SHOOT_PROGRESSING
  | typeof REASON_SHOOT_FAILED
  | typeof REASON_SHOOT_STATUS_UNKNOWN
  | typeof REASON_SHOOT_DELETED;
