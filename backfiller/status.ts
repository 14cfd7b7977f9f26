// The status a Runtime should have now: KIM's states, conditions and messages (the contract KEB waits on,
// docs/contracts/runtime-status.md §1, §2, §4 and keb-and-gardener-shoot.md §A.4), Kubernetes-standard
// Ready/Reconciling/Stalled next to them, and the GitOps trail (proposed, merged, applied, reconciled).
// Pure: the Runtime, the live Shoot, whether the kubeconfig Secret exists and what the pipeline knows in;
// the whole status out (the caller writes it through the status subresource as a full replace, like KIM's
// `Status().Update()`, and only when `statusChanged` says so).
import { stringify } from 'safe-stable-stringify';
import { setCondition } from '../model/conditions.js';
import {
  ANNOTATION_RUNTIME_GENERATION,
  ANNOTATION_SUSPEND_PATCH,
  APPLIED_COMMIT_ANNOTATION,
  LABEL_RUNTIME_ID,
  OPERATION_TIMED_OUT_ANNOTATION,
  RUNTIME_FINALIZER,
  KUBECONFIG_SECRET_PREFIX,
} from '../model/contract.js';
import { rfc3339Seconds } from '../model/go-time.js';
import type { ObjectMeta } from '../model/kube-object.js';
import type { PipelineState } from '../model/pipeline-facts.js';
import {
  type ConditionStatus,
  type RuntimeCondition,
  type RuntimeShootLastError,
  type RuntimeShootLastOperation,
  type RuntimeState,
  type RuntimeStatus,
  readRuntimeStatus,
  CONDITION_PROVISIONED,
  CONDITION_KUBECONFIG_READY,
  CONDITION_DEPROVISIONED,
  CONDITION_KYMA_SYSTEM_NS_CREATED,
  CONDITION_OIDC_AND_CONFIG_MAP_CONFIGURED,
  CONDITION_CONFIGURED,
  REASON_INITIALISED,
  REASON_PENDING,
  REASON_PROCESSING,
  REASON_SHOOT_CREATION_COMPLETED,
  REASON_CONFIGURATION_COMPLETED,
  REASON_CREATION_ERR,
  REASON_PROCESSING_ERR,
  REASON_CONVERSION_ERR,
  REASON_SEED_NOT_FOUND,
  REASON_GARDENER_ERR,
  REASON_GARDENER_CLUSTER_CR_CREATED,
  REASON_GARDENER_CLUSTER_CR_READY,
  REASON_GARDENER_SHOOT_DELETED,
  REASON_DELETION_ERR,
  CONDITION_READY,
  CONDITION_RECONCILING,
  CONDITION_STALLED,
  REASON_RUNTIME_READY,
  CONDITION_CHANGE_PROPOSED,
  CONDITION_CHANGE_MERGED,
  CONDITION_CHANGE_APPLIED,
  CONDITION_SHOOT_RECONCILED,
  REASON_PULL_REQUEST_OPEN,
  REASON_WAITING_FOR_REVIEW,
  REASON_PULL_REQUEST_MERGED,
  REASON_CHANGE_BLOCKED,
  REASON_MERGED,
  REASON_APPLIED,
  REASON_APPLY_PENDING,
  REASON_APPLY_FAILED,
  REASON_SHOOT_NOT_FOUND,
  REASON_SHOOT_SUCCEEDED,
  REASON_SHOOT_PROGRESSING,
  REASON_SHOOT_FAILED,
  REASON_SHOOT_STATUS_UNKNOWN,
  REASON_SHOOT_DELETED,
  type RuntimeConditionType,
  type RuntimeConditionReason,
} from '../model/runtime-status.js';
import type { AuditLog } from '../model/audit-log.js';
import type { Extension, NamedResource, ShootStatus } from '../model/shoot.js';
import { type ShootHealth, isRetryable, shootHealth } from '../rules/shoot-health.js';
import { assignedTo } from '../rules/audit-log-pool.js';
import type { LiveRuntime } from '../model/runtime.js';
import { type SkrShoot, skrVerdict } from './skr-status.js';
import { registryCacheCondition } from './registry-cache-condition.js';
import {
  type CopyFailure,
  auditLogFailureCondition,
  auditLogStep,
  customAuditLogCondition,
  inShoot,
} from './audit-log-conditions.js';

// ---------------------------------------------------------------------------------------------------------
// KIM's vocabulary. Every string is KIM's own (api/v1 runtime_types.go and the FSM states), as recorded in
// docs/contracts/runtime-status.md; the section is named next to each. Keep them exact: KEB, its operators and
// their alerts read them.
// ---------------------------------------------------------------------------------------------------------

// Messages (docs/contracts/runtime-status.md §1, §2, §4).
/** §1 Initialize. */
const MSG_RUNTIME_INITIALIZED = 'Runtime initialized';
/** §1 CreateShoot, after a successful create (kimops: the Shoot exists, Gardener has not reported an operation yet). */
const MSG_SHOOT_PENDING = 'Shoot is pending';
/** §2 Create, Processing/Pending/Aborted/Error. */
const MSG_SHOOT_CREATION_IN_PROGRESS = 'Shoot creation in progress';
/** §2 Create, scheduling failed. */
const MSG_NO_MATCHING_SEEDS = 'Shoot creation failed, no matching seeds';
/** §2 Create, Failed with retryable errors. */
const MSG_RETRYABLE_PROVISIONING = 'Retryable gardener errors during cluster provisioning';
/** §2 Create, Failed. */
const MSG_SHOOT_CREATION_FAILED = 'Shoot creation failed';
/** §2 Reconcile, Processing/Pending/Aborted/Error. */
const MSG_SHOOT_UPDATE_IN_PROGRESS = 'Shoot update is in progress';
/** §2 Reconcile, Failed with retryable errors. */
export const MSG_RETRYABLE_RECONCILE = 'Retryable gardener errors during cluster reconcile';
/** §2 Create Succeeded. */
const MSG_SHOOT_CREATION_COMPLETED = 'Shoot creation completed';
/** §2 Reconcile Succeeded. */
const MSG_RUNTIME_PROCESSING_COMPLETED = 'Runtime processing completed successfully';
/** §1 HandleKubeconfig, created. */
const MSG_GARDENER_CLUSTER_CR_CREATED = 'Gardener Cluster CR created, waiting for readiness';
/** §1 HandleKubeconfig, Ready (the trailing dot is KIM's). */
const MSG_GARDENER_CLUSTER_CR_READY = 'Gardener Cluster CR is ready.';
/** §4 1. and 2. */
const MSG_SHOOT_DELETION_STARTED = 'Runtime shoot deletion started';
/** §4 2., `Delete(shoot)` failed (KIM writes it without the error). */
const MSG_SHOOT_DELETE_ERROR = 'Gardener API shoot delete error';
/** §1 CreateShoot / §3: `Runtime conversion error <err>` (Go `%v`, no colon). */
const MSG_CONVERSION_ERROR_PREFIX = 'Runtime conversion error';
/** §1 CreateShoot: `Gardener API create error: <err>`. */
const MSG_CREATE_ERROR_PREFIX = 'Gardener API create error:';
/** §3 Errors: `Gardener API shoot patch error: <err>`. */
const MSG_PATCH_ERROR_PREFIX = 'Gardener API shoot patch error:';

/**
 * §2 Create row: KIM's `stateNoMatchingSeeds` scans `lastOperation.description` with Go's
 * `fmt.Sscanf("Failed to schedule Shoot: none out of the %d seeds has a matching provider for %q")`: the
 * description must start with it, the number and the quoted provider parse, anything after is ignored.
 */
const NO_MATCHING_SEEDS_DESCRIPTION =
  /^Failed to schedule Shoot: none out of the [+-]?\d+ seeds has a matching provider for ("(?:[^"\\]|\\.)*"|`[^`]*`)/;

/** §2: the `lastOperation.state`s KIM's wait states treat as in progress (Error/Aborted: Gardener still retrying). */
const IN_PROGRESS_STATES: readonly string[] = ['Processing', 'Pending', 'Aborted', 'Error'];

// ---------------------------------------------------------------------------------------------------------
// kimops's own vocabulary (not KIM's; documented in backfiller/README.md).
// ---------------------------------------------------------------------------------------------------------

/** kimops: the Shoot is gone during a Runtime deletion (KIM writes no status there: it releases the finalizer). */
const MSG_SHOOT_DELETED = 'Runtime shoot deleted';
/** kimops, pipeline: the policy check of the rendered Shoot failed; reported with `ConversionErr` like KIM's conversion errors. */
const MSG_VALIDATION_ERROR_PREFIX = 'Runtime validation error';
/** kimops, pipeline: the change was proposed but is blocked (a change Gardener would reject); followed by the PR URL. */
const MSG_CHANGE_BLOCKED_PREFIX = 'Runtime change cannot be applied to the Shoot, see';
/** kimops, rules/operation-timeouts.ts: the Shoot's operation ran past `apply.timeouts`; followed by the annotation's text. */
const MSG_OPERATION_TIMED_OUT_PREFIX = 'Shoot operation timed out:';

// What to do, appended to the `Stalled` message of a Failed Runtime (docs/design.md §4: every failure names the fix).
const FIX_CONVERSION =
  "fix the Runtime's labels or spec (KEB writes them) or the landscape's converter config; kimops converts the Runtime again on its next change";
const FIX_VALIDATION =
  "fix the Runtime's spec or the landscape policy it violates; kimops validates again on the next change";
const FIX_BLOCKED =
  "Gardener would reject this change of the existing Shoot: the pull request says why; revert the Runtime's change or recreate the Runtime";
const FIX_SEED_NOT_FOUND =
  'provision the Runtime in a region with a ready Seed, or without spec.shoot.enforceSeedLocation';
const FIX_NO_MATCHING_SEEDS =
  "no Seed has a provider matching the Shoot's: check its provider type and region against the Garden's Seeds";
const FIX_APPLY =
  'Gardener refused the Shoot manifest: fix it in the landscape repo (or git revert the change); the applier retries on every sync';
const FIX_AUDIT_LOG_RESERVE =
  "no free AuditLog for the Runtime's region in the KCP's pool: ask the audit-log team (KALM) for one, or turn spec.auditLogAccessEnabled off; the generator tries again on every pass";
const FIX_AUDIT_LOG_CLAIM =
  "the generator could not claim the Runtime's reserved AuditLog: check it in the KCP namespace (state, reservation label) and the generator's KCP access; it tries again on every pass";
const FIX_TIMEOUT =
  "check the Shoot's status.lastOperation and status.lastErrors, fix the cause (annotate the Shoot gardener.cloud/operation=retry if Gardener gave up) or raise apply.timeouts in kimops.yaml; the Runtime leaves Failed by itself once the operation ends";

// ---------------------------------------------------------------------------------------------------------
// Input
// ---------------------------------------------------------------------------------------------------------

/**
 * The live Shoot (model/shoot.ts's `Shoot` fits, as does a watch event's object). Of the spec only the
 * extensions (whether OIDC is on, skr-status.ts); backfiller/compact-objects.ts keeps what this reads.
 */
export interface StatusShoot extends SkrShoot {
  metadata: ObjectMeta;
  /** The extensions and resources; the audit-log extension's providerConfig and its Secrets' entries are read too. */
  spec?: { extensions?: readonly Extension[]; resources?: readonly NamedResource[] };
  status?: ShootStatus;
}

/**
 * The dedicated audit log's facts (docs/skr.md "Dedicated audit log"), given only when the landscape's switch
 * `features.dedicatedAuditLogging` is on: the AuditLogs of the KCP namespace, and the read-credentials copy the
 * reconcile made in this pass (none yet: undefined).
 */
export interface AuditLogFacts {
  pool: readonly AuditLog[];
  copied?: { failure?: CopyFailure };
}

export interface StatusInput {
  runtime: LiveRuntime;
  /** The live Shoot; undefined only when Gardener answered NotFound (not while a cache is still syncing). */
  shoot: StatusShoot | undefined;
  /** The Secret `kcp-system/kubeconfig-<runtimeID>` exists with key `config`. */
  kubeconfigReady: boolean;
  pipeline: PipelineState;
  /** Present when the landscape's dedicated-audit-log switch is on. */
  auditLog?: AuditLogFacts;
  now: Date;
}

// ---------------------------------------------------------------------------------------------------------
// The mapping
// ---------------------------------------------------------------------------------------------------------

/**
 * A condition kimops sets: only its own vocabulary's types (model/runtime-status.ts). The reason is typed where
 * the state machine chooses it (`pending`, `failed`, `deletion`); Ready and Stalled repeat the reason of the
 * condition that decided the state, which may be one KIM wrote before kimops took over.
 */
interface ConditionSpec extends Pick<RuntimeCondition, 'status' | 'reason' | 'message'> {
  type: RuntimeConditionType;
}

/** The condition that decided the state: the verdict's last, or the live `Provisioned`. */
type DecidingCondition = Pick<RuntimeCondition, 'type' | 'status' | 'reason' | 'message'>;

/** What KIM's state machine would have set at this point. */
interface Verdict {
  state: RuntimeState;
  /** KIM's conditions to set, in order (each through model/conditions.ts's `setCondition`). */
  set: ConditionSpec[];
  /** What to do: goes to `Stalled` when Failed, to `Reconciling` when Pending or Terminating. */
  fix?: string;
  provisioningCompleted?: true;
  /** The dedicated audit log's read credentials are to be copied now, from this KCP Secret (audit-log-conditions.ts). */
  copyFrom?: { namespace: string; name: string };
}

/**
 * KIM's `UpdateStatePending` (api/v1 runtime_types.go), but Failed when the condition is False: those rows need a
 * fix in Git (backfiller/README.md, "False ⇒ Failed"). KIM keeps Pending; the SKR's steps do too (shootSucceeded).
 */
function pending(
  type: RuntimeConditionType,
  reason: RuntimeConditionReason,
  status: ConditionStatus,
  message: string,
  fix?: string,
): Verdict {
  return {
    state: status === 'False' ? 'Failed' : 'Pending',
    set: [{ type, status, reason, message }],
    ...(fix !== undefined && { fix }),
  };
}

/** KIM's `UpdateStateFailed`: Failed, condition False. */
function failed(type: RuntimeConditionType, reason: RuntimeConditionReason, message: string, fix: string): Verdict {
  return { state: 'Failed', set: [{ type, status: 'False', reason, message }], fix };
}

/** KIM's `UpdateStateDeletion`, but Failed when the condition is False (as `pending`; KIM keeps Terminating). */
function deletion(reason: RuntimeConditionReason, status: ConditionStatus, message: string, fix?: string): Verdict {
  return {
    state: status === 'False' ? 'Failed' : 'Terminating',
    set: [{ type: CONDITION_DEPROVISIONED, status, reason, message }],
    ...(fix !== undefined && { fix }),
  };
}

/**
 * The status the Runtime should have now (docs/design.md §1.2). KIM's conditions are set on top of the current ones
 * with apimachinery's `meta.SetStatusCondition` rules (an unchanged status keeps its `lastTransitionTime`;
 * conditions this step does not decide stay as they are, as in KIM); every condition written carries
 * `observedGeneration` = the Runtime's generation.
 */
export function runtimeStatus(input: StatusInput): RuntimeStatus {
  const { runtime, shoot, now } = input;
  const previous = readRuntimeStatus(runtime.status);
  const generation = runtime.metadata.generation;
  const health = shoot ? shootHealth(shoot) : undefined;
  const current = pipelineCurrent(input);
  const failures = currentFailures(input);
  const facts: PipelineState = current
    ? input.pipeline
    : { ...(input.pipeline.proposal && { proposal: input.pipeline.proposal }) };
  const deleting = Boolean(runtime.metadata.deletionTimestamp);

  const verdict = verdictOf(input, failures, previous.state, health);

  const conditions = (previous.conditions ?? []).map((condition) => ({ ...condition }));
  const lastTransitionTime = rfc3339Seconds(now);
  const set = (spec: ConditionSpec): void =>
    setCondition(conditions, {
      ...spec,
      lastTransitionTime,
      ...(generation !== undefined && { observedGeneration: generation }),
    });

  verdict.set.forEach(set);
  // KIM's RegistryCacheConfigured, beside the chain (a Runtime with caches only; registry-cache-condition.ts).
  const registryCache = deleting ? undefined : registryCacheCondition(runtime, shoot, input.pipeline);
  if (registryCache) set(registryCache);
  const head: DecidingCondition = verdict.set.at(-1) ??
    conditions.find((condition) => condition.type === CONDITION_PROVISIONED) ?? {
      type: CONDITION_PROVISIONED,
      status: 'Unknown',
      reason: REASON_PENDING,
      message: MSG_SHOOT_PENDING,
    };
  standardConditions(verdict, head, runtime, shoot).forEach(set);
  trailConditions(input, facts, health, deleting).forEach(set);

  const status: RuntimeStatus = { state: verdict.state, conditions };
  if (previous.provisioningCompleted === true || verdict.provisioningCompleted) status.provisioningCompleted = true;
  const lastOperation = shoot ? copyLastOperation(shoot, now) : previous.shootLastOperation;
  if (lastOperation) status.shootLastOperation = lastOperation;
  const lastErrors = shoot ? copyLastErrors(shoot) : previous.shootLastErrors;
  if (lastErrors && lastErrors.length > 0) status.shootLastErrors = lastErrors;
  if (previous.auditLogCR !== undefined) status.auditLogCR = previous.auditLogCR;
  return status;
}

/**
 * Where the dedicated audit log's read credentials are to be copied from now: the chain has reached KIM's
 * CopyAuditLogReadCredentials and no copy was made in this pass (the caller copies, then computes the status with
 * the outcome in `auditLog.copied`).
 */
export function readCredentialsCopyFrom(input: StatusInput): { namespace: string; name: string } | undefined {
  if (!dedicatedAuditLog(input) || input.auditLog?.copied) return undefined;
  const previous = readRuntimeStatus(input.runtime.status);
  const health = input.shoot ? shootHealth(input.shoot) : undefined;
  return verdictOf(input, currentFailures(input), previous.state, health).copyFrom;
}

function verdictOf(
  input: StatusInput,
  failures: PipelineState,
  previousState: RuntimeState | undefined,
  health: ShootHealth | undefined,
): Verdict {
  return input.runtime.metadata.deletionTimestamp
    ? deletionVerdict(input.shoot, failures)
    : lifecycleVerdict(input, failures, previousState, health);
}

/**
 * docs/contracts/runtime-status.md §4: Terminating with `Deprovisioned` while the Shoot exists; the finalizer goes
 * once it is gone.
 */
function deletionVerdict(shoot: StatusShoot | undefined, pipeline: PipelineState): Verdict {
  if (!shoot) return deletion(REASON_GARDENER_SHOOT_DELETED, 'True', MSG_SHOOT_DELETED);
  if (pipeline.applyError !== undefined) {
    return deletion(
      REASON_GARDENER_SHOOT_DELETED,
      'False',
      MSG_SHOOT_DELETE_ERROR,
      `${pipeline.applyError}; the applier retries on every sync`,
    );
  }
  const timedOut = gardenerBehind(shoot) ? undefined : shoot.metadata.annotations?.[OPERATION_TIMED_OUT_ANNOTATION];
  if (timedOut !== undefined && shoot.metadata.deletionTimestamp) {
    return deletion(REASON_DELETION_ERR, 'False', timeoutMessage(timedOut), FIX_TIMEOUT);
  }
  return deletion(REASON_GARDENER_SHOOT_DELETED, 'Unknown', MSG_SHOOT_DELETION_STARTED);
}

/**
 * docs/contracts/runtime-status.md §1 (CreateShoot, HandleKubeconfig, ApplyClusterRoleBindings) and §2, for a Runtime
 * not being deleted.
 */
function lifecycleVerdict(
  input: StatusInput,
  pipeline: PipelineState,
  previousState: RuntimeState | undefined,
  health: ShootHealth | undefined,
): Verdict {
  const { runtime, shoot } = input;
  const failure = pipelineFailure(
    input.auditLog ? pipeline : withoutAuditLogError(pipeline),
    shoot !== undefined,
    tenantWriteRefused(input, pipeline),
  );
  if (failure) return failure;
  if (!shoot || !health) {
    // §1 Initialize: "Runtime initialized" only while there is no `Provisioned` condition yet. A Shoot gone after
    // that (deleted out of band) is created again (KIM: CreateShoot; kimops: the applier on its next sync), and
    // §1 CreateShoot's row after the Create is `Pending/Provisioned/Pending/Unknown "Shoot is pending"`.
    const provisioned = readRuntimeStatus(runtime.status).conditions?.some(
      (condition) => condition.type === CONDITION_PROVISIONED,
    );
    return provisioned
      ? pending(CONDITION_PROVISIONED, REASON_PENDING, 'Unknown', MSG_SHOOT_PENDING)
      : pending(CONDITION_PROVISIONED, REASON_INITIALISED, 'Unknown', MSG_RUNTIME_INITIALIZED);
  }

  const operation = health.lastOperation;
  // KIM: lastOperation.type Create → WaitForShootCreation, anything else → WaitForShootReconcile (§2, §1 SelectShootProcessing).
  const create = (operation?.type ?? 'Create') === 'Create';
  const shootPending = pending(CONDITION_PROVISIONED, REASON_PENDING, 'Unknown', MSG_SHOOT_PENDING);
  // A new generation on a Shoot whose Create already succeeded is an update, whatever lastOperation.type still says.
  const inProgress =
    create && operation?.state !== 'Succeeded'
      ? pending(CONDITION_PROVISIONED, REASON_PENDING, 'Unknown', MSG_SHOOT_CREATION_IN_PROGRESS)
      : pending(CONDITION_PROVISIONED, REASON_PROCESSING, 'Unknown', MSG_SHOOT_UPDATE_IN_PROGRESS);

  // §2 point 3 (the re-entry guard) and §3 shouldPatchShoot: the Runtime's newest generation is not on the Shoot yet.
  if (changePending(runtime, shoot)) return operation ? inProgress : shootPending;

  const timedOut = currentTimeoutMark(runtime, shoot);
  if (timedOut !== undefined && (health.state === 'progressing' || health.state === 'unknown')) {
    return failed(
      CONDITION_PROVISIONED,
      create ? REASON_CREATION_ERR : REASON_PROCESSING_ERR,
      timeoutMessage(timedOut),
      FIX_TIMEOUT,
    );
  }
  // §1 SelectShootProcessing: no lastOperation yet → KIM waits, the status stays "Shoot is pending".
  if (!operation) return shootPending;

  switch (health.state) {
    case 'progressing':
      if (
        create &&
        IN_PROGRESS_STATES.includes(operation.state) &&
        NO_MATCHING_SEEDS_DESCRIPTION.test(operation.description ?? '')
      ) {
        return failed(CONDITION_PROVISIONED, REASON_CREATION_ERR, MSG_NO_MATCHING_SEEDS, FIX_NO_MATCHING_SEEDS);
      }
      if (operation.state === 'Failed' && isRetryable(health.lastErrors)) {
        return create
          ? pending(CONDITION_PROVISIONED, REASON_PENDING, 'Unknown', MSG_RETRYABLE_PROVISIONING)
          : pending(CONDITION_PROVISIONED, REASON_PENDING, 'Unknown', MSG_RETRYABLE_RECONCILE);
      }
      // Pending/Processing/Error/Aborted, or a generation Gardener has not observed yet (whatever the last result).
      return inProgress;
    case 'failed':
      return create
        ? failed(CONDITION_PROVISIONED, REASON_CREATION_ERR, MSG_SHOOT_CREATION_FAILED, health.reason)
        : failed(CONDITION_PROVISIONED, REASON_PROCESSING_ERR, health.codes.join(', '), health.reason);
    case 'healthy':
      return shootSucceeded(create, input, shoot);
    case 'unknown':
      // §2 "other": a state Gardener does not define; KIM stops and leaves the status as it is.
      return { state: previousState ?? 'Pending', set: [] };
  }
}

/**
 * §2 Succeeded → §1 HandleKubeconfig → the SKR's steps (skr-status.ts: CreateKymaNamespace, ConfigureSKR,
 * ApplyClusterRoleBindings) → Ready. The SKR's `skrError` is keyed by the tree it was about, not by the Runtime
 * generation, so it is read from the pipeline as given (skrVerdict ignores one of another tree).
 */
function shootSucceeded(create: boolean, input: StatusInput, shoot: StatusShoot): Verdict {
  const { kubeconfigReady } = input;
  const provisioned: ConditionSpec = create
    ? {
        type: CONDITION_PROVISIONED,
        status: 'True',
        reason: REASON_SHOOT_CREATION_COMPLETED,
        message: MSG_SHOOT_CREATION_COMPLETED,
      }
    : {
        type: CONDITION_PROVISIONED,
        status: 'True',
        reason: REASON_CONFIGURATION_COMPLETED,
        message: MSG_RUNTIME_PROCESSING_COMPLETED,
      };
  if (!kubeconfigReady) {
    return {
      state: 'Pending',
      set: [
        provisioned,
        {
          type: CONDITION_KUBECONFIG_READY,
          status: 'Unknown',
          reason: REASON_GARDENER_CLUSTER_CR_CREATED,
          message: MSG_GARDENER_CLUSTER_CR_CREATED,
        },
      ],
    };
  }
  const kubeconfig: ConditionSpec = {
    type: CONDITION_KUBECONFIG_READY,
    status: 'True',
    reason: REASON_GARDENER_CLUSTER_CR_READY,
    message: MSG_GARDENER_CLUSTER_CR_READY,
  };
  const skr = skrVerdict(shoot, input.pipeline.skrError, readRuntimeStatus(input.runtime.status));
  // KIM's UpdateStatePending along the way (Pending also with a False condition), Ready only at the end.
  if (!skr.configured)
    return { state: 'Pending', set: [provisioned, kubeconfig, ...skr.set], ...(skr.fix && { fix: skr.fix }) };
  const dedicated = dedicatedAuditLog(input);
  if (dedicated) {
    // KIM's ApplyClusterRoleBindings → MigrateToDedicatedAuditLog → CopyAuditLogReadCredentials.
    const step = auditLogStep({
      runtimeID: runtimeIdOf(input.runtime),
      runtimeNamespace: input.runtime.metadata.namespace ?? '',
      generation: input.runtime.metadata.generation,
      previous: readRuntimeStatus(input.runtime.status).conditions ?? [],
      pool: dedicated.pool,
      live: shoot,
      ...(dedicated.copied && { copied: dedicated.copied }),
    });
    const set = [provisioned, kubeconfig, ...skr.set, ...step.set.map(asSpec)];
    if (!step.done)
      return {
        state: 'Pending',
        set,
        ...(step.fix && { fix: step.fix }),
        ...(step.copyFrom && { copyFrom: step.copyFrom }),
      };
    return { state: 'Ready', set, provisioningCompleted: true };
  }
  return { state: 'Ready', set: [provisioned, kubeconfig, ...skr.set], provisioningCompleted: true };
}

/** Facts about an older Runtime generation than the newest: the failures among them are stale (PipelineState.generation). */
function pipelineCurrent(input: StatusInput): boolean {
  const generation = input.runtime.metadata.generation;
  return input.pipeline.generation === undefined || generation === undefined || input.pipeline.generation >= generation;
}

function currentFailures(input: StatusInput): PipelineState {
  return pipelineCurrent(input) ? input.pipeline : {};
}

/** The dedicated audit log's facts when they apply: the switch on and the Runtime asking (KIM's IsDedicatedAuditLogEnabled). */
function dedicatedAuditLog(input: StatusInput): AuditLogFacts | undefined {
  // KEB's field, read as served (LiveRuntime declares only what every reader needs).
  const spec = input.runtime.spec as { auditLogAccessEnabled?: unknown } | undefined;
  return input.auditLog && spec?.auditLogAccessEnabled === true ? input.auditLog : undefined;
}

/** KIM's runtime ID: the Runtime's `kyma-project.io/runtime-id` label. */
function runtimeIdOf(runtime: LiveRuntime): string {
  return runtime.metadata.labels?.[LABEL_RUNTIME_ID] ?? '';
}

function asSpec(condition: ReturnType<typeof auditLogStep>['set'][number]): ConditionSpec {
  return { type: condition.type, status: condition.status, reason: condition.reason, message: condition.message };
}

/**
 * The generator's audit-log failure counts only while the landscape's switch is on: one written before it was
 * turned off would otherwise keep the Runtime Failed (the generator drops it too, generator/runtime-facts.ts).
 */
function withoutAuditLogError(pipeline: PipelineState): PipelineState {
  const rest = { ...pipeline };
  delete rest.auditLogError;
  return rest;
}

/**
 * The applier refused the Shoot's write that carries the Runtime's claimed tenant: main holds the Runtime's render
 * (no proposal of it is pending: the generator renders a claimed AuditLog's tenant, and merges it as the Runtime's
 * own change) and the live Shoot is not on that tenant yet. KIM's "could not be patched, will retry" (Pending, as
 * KIM: the applier retries on every sync), the applier's error in Reconciling. Any other refusal, e.g. one while
 * the tenant change still waits in its pull request, keeps the applier's ordinary verdict.
 */
function tenantWriteRefused(input: StatusInput, pipeline: PipelineState): Verdict | undefined {
  const dedicated = dedicatedAuditLog(input);
  if (!dedicated || !input.shoot || pipeline.applyError === undefined) return undefined;
  if (pipeline.proposal !== undefined && pipeline.proposal.state !== 'merged') return undefined;
  const assigned = assignedTo(dedicated.pool, runtimeIdOf(input.runtime));
  if (!assigned || inShoot(assigned, input.shoot)) return undefined;
  const refused = customAuditLogCondition({ assigned, live: input.shoot, applyRefused: true });
  return {
    state: refused.state,
    set: [asSpec(refused)],
    fix: `${pipeline.applyError}; the applier retries on every sync`,
  };
}

/**
 * The generator's and applier's failures, in KIM's words where KIM has them (§1 CreateShoot, §3 Errors); a refused
 * write of an existing Shoot is `refusedTenant` when that write carried the dedicated audit log's tenant.
 */
function pipelineFailure(
  pipeline: PipelineState,
  shootExists: boolean,
  refusedTenant: Verdict | undefined,
): Verdict | undefined {
  if (pipeline.conversionError !== undefined) {
    return failed(
      CONDITION_PROVISIONED,
      REASON_CONVERSION_ERR,
      `${MSG_CONVERSION_ERROR_PREFIX} ${pipeline.conversionError}`,
      FIX_CONVERSION,
    );
  }
  if (pipeline.validationError !== undefined) {
    return failed(
      CONDITION_PROVISIONED,
      REASON_CONVERSION_ERR,
      `${MSG_VALIDATION_ERROR_PREFIX} ${pipeline.validationError}`,
      FIX_VALIDATION,
    );
  }
  if (pipeline.auditLogError !== undefined) {
    const failure = auditLogFailureCondition(pipeline.auditLogError);
    return failed(
      failure.type,
      failure.reason,
      failure.message,
      pipeline.auditLogError.step === 'reserve' ? FIX_AUDIT_LOG_RESERVE : FIX_AUDIT_LOG_CLAIM,
    );
  }
  if (pipeline.proposal?.state === 'blocked') {
    const reason = shootExists ? REASON_PROCESSING_ERR : REASON_CREATION_ERR;
    return failed(CONDITION_PROVISIONED, reason, `${MSG_CHANGE_BLOCKED_PREFIX} ${pipeline.proposal.url}`, FIX_BLOCKED);
  }
  if (!shootExists && pipeline.seedNotFound !== undefined) {
    return failed(CONDITION_PROVISIONED, REASON_SEED_NOT_FOUND, pipeline.seedNotFound, FIX_SEED_NOT_FOUND);
  }
  if (pipeline.applyError !== undefined) {
    if (shootExists && refusedTenant) return refusedTenant;
    return shootExists
      ? failed(
          CONDITION_PROVISIONED,
          REASON_PROCESSING_ERR,
          `${MSG_PATCH_ERROR_PREFIX} ${pipeline.applyError}`,
          FIX_APPLY,
        )
      : pending(
          CONDITION_PROVISIONED,
          REASON_GARDENER_ERR,
          'False',
          `${MSG_CREATE_ERROR_PREFIX} ${pipeline.applyError}`,
          FIX_APPLY,
        );
  }
  return undefined;
}

/**
 * The Runtime generation applied to the Shoot: KIM's converter writes it as the Shoot annotation
 * `infrastructuremanager.kyma-project.io/runtime-generation` on every create and patch
 * (docs/contracts/runtime-status.md §3).
 */
export function appliedRuntimeGeneration(shoot: StatusShoot): number | undefined {
  const value = shoot.metadata.annotations?.[ANNOTATION_RUNTIME_GENERATION];
  if (value === undefined || !/^\d+$/.test(value)) return undefined;
  return Number(value);
}

/**
 * Whether the Runtime's newest generation has yet to reach the Shoot: KIM's `shouldPatchShoot` (§3) — the
 * Shoot lacks the annotation or it is lower than `metadata.generation` — unless the Runtime suspends patching
 * (`operator.kyma-project.io/suspend-patch-reconciliation: "true"`: the Shoot is never touched, so its
 * annotation says nothing about the Runtime).
 */
export function changePending(runtime: LiveRuntime, shoot: StatusShoot): boolean {
  const generation = runtime.metadata.generation;
  if (generation === undefined) return false;
  if (runtime.metadata.annotations?.[ANNOTATION_SUSPEND_PATCH] === 'true') return false;
  const applied = appliedRuntimeGeneration(shoot);
  return applied === undefined || applied < generation;
}

/** Gardener has not observed the Shoot's newest generation yet (`metadata.generation > status.observedGeneration`). */
function gardenerBehind(shoot: StatusShoot): boolean {
  const generation = shoot.metadata.generation;
  return generation !== undefined && generation > (shoot.status?.observedGeneration ?? 0);
}

/**
 * The applier's `operation-timed-out` mark (rules/operation-timeouts.ts), when it can be about the operation now running.
 * The applier clears it only on its next sync, so right after it applied a new generation the old operation's
 * mark is still there: it is ignored while Gardener has not observed the Shoot's newest generation, and while the
 * Runtime's newest generation is not on the Shoot yet (`changePending`), so a timeout of update N never fails
 * KEB's update N+1.
 */
function currentTimeoutMark(runtime: LiveRuntime, shoot: StatusShoot): string | undefined {
  const mark = shoot.metadata.annotations?.[OPERATION_TIMED_OUT_ANNOTATION];
  if (mark === undefined || gardenerBehind(shoot) || changePending(runtime, shoot)) return undefined;
  return mark;
}

function timeoutMessage(annotation: string): string {
  return `${MSG_OPERATION_TIMED_OUT_PREFIX} ${annotation}`;
}

/**
 * kstatus: Ready True only when the state is Ready; Reconciling True while Pending or Terminating; Stalled True
 * when Failed (its message adds the fix). Reason and message are those of the KIM condition that decided.
 */
function standardConditions(
  verdict: Verdict,
  head: DecidingCondition,
  runtime: LiveRuntime,
  shoot: StatusShoot | undefined,
): ConditionSpec[] {
  const { state } = verdict;
  const flag = (on: boolean): ConditionStatus => (on ? 'True' : 'False');
  const ready: ConditionSpec =
    state === 'Ready'
      ? { type: CONDITION_READY, status: 'True', reason: REASON_RUNTIME_READY, message: readyMessage(runtime, shoot) }
      : { type: CONDITION_READY, status: 'False', reason: head.reason, message: head.message };
  const reconciling = state === 'Pending' || state === 'Terminating';
  const told = withFix(head.message, verdict.fix);
  return [
    ready,
    {
      type: CONDITION_RECONCILING,
      status: flag(reconciling),
      reason: head.reason,
      message: reconciling ? told : head.message,
    },
    {
      type: CONDITION_STALLED,
      status: flag(state === 'Failed'),
      reason: head.reason,
      message: state === 'Failed' ? told : head.message,
    },
  ];
}

/** The deciding message and what to do: `<message>: <fix>`, or `<message>. <Fix>` after KIM's sentences that end in a dot. */
function withFix(message: string, fix: string | undefined): string {
  if (fix === undefined || fix === '') return message;
  if (message === '') return fix;
  return message.endsWith('.') ? `${message} ${fix.charAt(0).toUpperCase()}${fix.slice(1)}` : `${message}: ${fix}`;
}

function readyMessage(runtime: LiveRuntime, shoot: StatusShoot | undefined): string {
  const secret = kubeconfigSecretName(runtime);
  const shootName = shoot ? [shoot.metadata.namespace, shoot.metadata.name].filter(Boolean).join('/') : '';
  const generation = runtime.metadata.generation;
  return (
    `Shoot ${shootName} reconciled` +
    (generation !== undefined ? ` at Runtime generation ${generation}` : '') +
    ', SKR configured' +
    (secret ? `, kubeconfig Secret ${runtime.metadata.namespace ?? 'kcp-system'}/${secret} present` : '')
  );
}

/** The GitOps trail: proposed (PR URL), merged (commit), applied (the Shoot's applied-commit), Shoot reconciled. */
function trailConditions(
  input: StatusInput,
  pipeline: PipelineState,
  health: ShootHealth | undefined,
  deleting: boolean,
): ConditionSpec[] {
  const { runtime, shoot } = input;
  const trail: ConditionSpec[] = [];
  const proposal = pipeline.proposal;
  if (proposal) {
    const reason = {
      open: REASON_PULL_REQUEST_OPEN,
      'waiting-for-review': REASON_WAITING_FOR_REVIEW,
      merged: REASON_PULL_REQUEST_MERGED,
      blocked: REASON_CHANGE_BLOCKED,
    }[proposal.state];
    trail.push({ type: CONDITION_CHANGE_PROPOSED, status: 'True', reason, message: proposal.url });
    trail.push(
      proposal.state === 'merged'
        ? {
            type: CONDITION_CHANGE_MERGED,
            status: 'True',
            reason: REASON_MERGED,
            message: proposal.commit ?? proposal.url,
          }
        : { type: CONDITION_CHANGE_MERGED, status: 'False', reason, message: proposal.url },
    );
  }

  const appliedCommit = shoot?.metadata.annotations?.[APPLIED_COMMIT_ANNOTATION];
  if (pipeline.applyError !== undefined) {
    trail.push({
      type: CONDITION_CHANGE_APPLIED,
      status: 'False',
      reason: REASON_APPLY_FAILED,
      message: pipeline.applyError,
    });
  } else if (shoot && appliedCommit !== undefined) {
    if (changePending(runtime, shoot)) {
      const applied = appliedRuntimeGeneration(shoot);
      const message =
        `${appliedCommit} (Runtime generation ${applied ?? 'unknown'} applied, ` +
        `generation ${runtime.metadata.generation ?? 'unknown'} not yet)`;
      trail.push({ type: CONDITION_CHANGE_APPLIED, status: 'False', reason: REASON_APPLY_PENDING, message });
    } else {
      trail.push({ type: CONDITION_CHANGE_APPLIED, status: 'True', reason: REASON_APPLIED, message: appliedCommit });
    }
  } else if (!shoot && !deleting) {
    trail.push({
      type: CONDITION_CHANGE_APPLIED,
      status: 'False',
      reason: REASON_SHOOT_NOT_FOUND,
      message: shootNotFoundMessage(runtime),
    });
  }

  if (!shoot || !health) {
    trail.push(
      deleting
        ? { type: CONDITION_SHOOT_RECONCILED, status: 'True', reason: REASON_SHOOT_DELETED, message: MSG_SHOOT_DELETED }
        : {
            type: CONDITION_SHOOT_RECONCILED,
            status: 'Unknown',
            reason: REASON_SHOOT_NOT_FOUND,
            message: shootNotFoundMessage(runtime),
          },
    );
  } else {
    trail.push(shootReconciled(shoot, health));
  }
  return trail;
}

function shootNotFoundMessage(runtime: LiveRuntime): string {
  const name = runtime.spec?.shoot?.name;
  return name ? `Shoot ${name} does not exist yet` : 'The Shoot does not exist yet';
}

/**
 * The Shoot's own health (rules/shoot-health.ts). While it progresses the message leaves out `progress` so that
 * Gardener's percentage ticks do not make a condition change (and an Event) each time.
 */
function shootReconciled(shoot: StatusShoot, health: ShootHealth): ConditionSpec {
  const type = CONDITION_SHOOT_RECONCILED;
  switch (health.state) {
    case 'healthy':
      return { type, status: 'True', reason: REASON_SHOOT_SUCCEEDED, message: health.reason };
    case 'failed':
      return { type, status: 'False', reason: REASON_SHOOT_FAILED, message: health.reason };
    case 'unknown':
      return { type, status: 'Unknown', reason: REASON_SHOOT_STATUS_UNKNOWN, message: health.reason };
    case 'progressing': {
      const operation = health.lastOperation;
      const generation = shoot.metadata.generation;
      const observed = shoot.status?.observedGeneration ?? 0;
      const parts = [operation ? `${operation.type} ${operation.state}` : 'no operation reported'];
      if (generation !== undefined && generation > observed)
        parts.push(`generation ${generation} not yet observed by Gardener (observed ${observed})`);
      if (health.codes.length > 0) parts.push(health.codes.join(', '));
      return { type, status: 'Unknown', reason: REASON_SHOOT_PROGRESSING, message: parts.join('; ') };
    }
  }
}

/** `status.shootLastOperation`: the CRD requires all five fields; Gardener always sets them, defaults fill a gap. */
function copyLastOperation(shoot: StatusShoot, now: Date): RuntimeShootLastOperation | undefined {
  const operation = shoot.status?.lastOperation;
  if (!operation) return undefined;
  const created = shoot.metadata.creationTimestamp;
  return {
    type: operation.type,
    state: operation.state,
    progress: operation.progress ?? 0,
    description: operation.description ?? '',
    lastUpdateTime: operation.lastUpdateTime ?? (typeof created === 'string' ? created : rfc3339Seconds(now)),
  };
}

/** `status.shootLastErrors`: only the CRD's fields (anything else would be pruned and read as a change each time). */
function copyLastErrors(shoot: StatusShoot): RuntimeShootLastError[] | undefined {
  const errors = shoot.status?.lastErrors as
    (NonNullable<ShootStatus['lastErrors']>[number] & { lastUpdateTime?: unknown })[] | undefined;
  if (!errors || errors.length === 0) return undefined;
  return errors.map((error) => ({
    description: error.description,
    ...(error.taskID !== undefined && { taskID: error.taskID }),
    ...(error.codes !== undefined && { codes: [...error.codes] }),
    ...(typeof error.lastUpdateTime === 'string' && { lastUpdateTime: error.lastUpdateTime }),
  }));
}

// ---------------------------------------------------------------------------------------------------------
// Conditions, changes, Events, finalizer
// ---------------------------------------------------------------------------------------------------------

/**
 * Whether `next` differs from the status the Runtime has (`old`, as the API serves it) in anything but
 * `lastTransitionTime` and the order of conditions: the caller writes only then (KIM's sFnUpdateStatus).
 * Absent and empty lists, and `provisioningCompleted: false` and absent, count as the same.
 */
export function statusChanged(old: unknown, next: RuntimeStatus): boolean {
  return canonical(old) !== canonical(next);
}

function canonical(status: unknown): string {
  const read = readRuntimeStatus(status);
  const conditions = (read.conditions ?? [])
    .map(({ lastTransitionTime: _ignored, ...rest }) => rest)
    .sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
  return (
    stringify({
      state: read.state ?? null,
      conditions,
      provisioningCompleted: read.provisioningCompleted === true,
      shootLastOperation: read.shootLastOperation ?? null,
      shootLastErrors: read.shootLastErrors ?? [],
      auditLogCR: read.auditLogCR ?? null,
    }) ?? ''
  );
}

/**
 * The conditions of `next` that are new or whose status, reason or message changed since `old`: one Event
 * each (sFnEmmitEvent, docs/contracts/runtime-status.md §0). `observedGeneration` and `lastTransitionTime` alone do
 * not count.
 */
export function changedConditions(old: unknown, next: RuntimeStatus): RuntimeCondition[] {
  const before = readRuntimeStatus(old).conditions ?? [];
  return (next.conditions ?? []).filter((condition) => {
    const was = before.find((candidate) => candidate.type === condition.type);
    return (
      !was || was.status !== condition.status || was.reason !== condition.reason || was.message !== condition.message
    );
  });
}

/**
 * KIM's condition types (api/v1 runtime_types.go; docs/contracts/runtime-status.md §1, §4): the only ones KIM
 * emits Events for.
 * kimops's own conditions (Ready/Reconciling/Stalled and the GitOps trail) change with them and would
 * multiply every transition's Events; they are read from the status, not from Events.
 */
const KIM_CONDITION_TYPES: ReadonlySet<string> = new Set([
  CONDITION_PROVISIONED,
  CONDITION_KUBECONFIG_READY,
  CONDITION_CONFIGURED,
  CONDITION_DEPROVISIONED,
  CONDITION_KYMA_SYSTEM_NS_CREATED,
  'RegistryCacheConfigured',
  'RuntimeBootstrapperReady',
  CONDITION_OIDC_AND_CONFIG_MAP_CONFIGURED,
  'CustomAuditLogConfigured',
  'AuditLogCredentialsCopied',
]);

/** The changed conditions that get an Event: `changedConditions` of KIM's condition types only. */
export function eventConditions(old: unknown, next: RuntimeStatus): RuntimeCondition[] {
  return changedConditions(old, next).filter((condition) => KIM_CONDITION_TYPES.has(condition.type));
}

export interface ConditionEvent {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

/** KIM's Event for a changed condition (§0): Warning if False, reason = the condition's, message `<msg>: <ns>/<name>`. */
export function conditionEvent(runtime: LiveRuntime, condition: RuntimeCondition): ConditionEvent {
  return {
    type: condition.status === 'False' ? 'Warning' : 'Normal',
    reason: condition.reason,
    message: `${condition.message}: ${runtime.metadata.namespace ?? ''}/${runtime.metadata.name}`,
  };
}

/** The kubeconfig Secret KEB reads after Ready (§A.4): `kubeconfig-<runtimeID>` in the Runtime's namespace. */
export function kubeconfigSecretName(runtime: LiveRuntime): string | undefined {
  const id = runtime.metadata.labels?.[LABEL_RUNTIME_ID];
  return id ? `${KUBECONFIG_SECRET_PREFIX}${id}` : undefined;
}

/** The Runtime's finalizers as strings (anything else in the list is ignored). */
export function finalizersOf(runtime: LiveRuntime): string[] {
  const finalizers = runtime.metadata.finalizers;
  return Array.isArray(finalizers)
    ? finalizers.filter((finalizer): finalizer is string => typeof finalizer === 'string')
    : [];
}

/**
 * docs/contracts/runtime-status.md §4 3. and docs/contracts/keb-and-gardener-shoot.md §A.4 Delete 5.:
 * release KIM's finalizer once the Runtime is being deleted and its
 * Shoot is gone (`shoot` undefined must mean Gardener answered NotFound). The caller removes it; the Runtime
 * then disappears, which is what KEB waits for.
 */
export function finalizerRelease(runtime: LiveRuntime, shoot: StatusShoot | undefined): boolean {
  return (
    Boolean(runtime.metadata.deletionTimestamp) &&
    shoot === undefined &&
    finalizersOf(runtime).includes(RUNTIME_FINALIZER)
  );
}

export type FinalizerAction = 'add' | 'release' | 'none';

/** §1 Initialize: a Runtime not being deleted gets the finalizer first; a deleted one loses it when its Shoot is gone. */
export function finalizerAction(runtime: LiveRuntime, shoot: StatusShoot | undefined): FinalizerAction {
  if (finalizerRelease(runtime, shoot)) return 'release';
  if (!runtime.metadata.deletionTimestamp && !finalizersOf(runtime).includes(RUNTIME_FINALIZER)) return 'add';
  return 'none';
}
