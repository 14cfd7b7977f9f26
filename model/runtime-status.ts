// The Runtime's status as the CRD serves it (crds/runtime.yaml `status`, KIM's api/v1 RuntimeStatus): the
// contract KEB reads (contracts/keb-and-gardener-shoot.md §A.4). The backfiller writes it through the status
// subresource as a full replace. Pure: types and a tolerant reader, no I/O.
import { isJsonObject } from './json.js';

/** `status.state` (crds/runtime.yaml enum; the only field the CRD requires). */
export const RUNTIME_STATES = ['Pending', 'Ready', 'Terminating', 'Failed'] as const;
export type RuntimeState = (typeof RUNTIME_STATES)[number];

/** metav1.ConditionStatus (crds/runtime.yaml `conditions[].status` enum). */
export const CONDITION_STATUSES = ['True', 'False', 'Unknown'] as const;
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

export function isRuntimeState(value: unknown): value is RuntimeState {
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
