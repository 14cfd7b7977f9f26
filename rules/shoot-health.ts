// The health of one Shoot by Gardener's own rules (docs/design.md §1.3, docs/contracts/keb-and-gardener-shoot.md §B.2,
// docs/contracts/runtime-status.md §2). One function from object to status, like Argo CD's health checks; it reads only
// `metadata.generation` and `status`, so the backfiller uses it as is. Pure: values in, values out.
import type { ShootStatus } from '../model/shoot.js';

export type ShootHealthState = 'progressing' | 'healthy' | 'failed' | 'unknown';

type LastOperation = NonNullable<ShootStatus['lastOperation']>;
export type LastError = NonNullable<ShootStatus['lastErrors']>[number];

export interface ShootHealth {
  state: ShootHealthState;
  /** One sentence for a human: what Gardener is doing and, for `failed`, what to do. */
  reason: string;
  /** What the decision was read from, copied as is (the backfiller mirrors them into Runtime status). */
  lastOperation?: LastOperation;
  lastErrors: readonly LastError[];
  /** Every error code of `lastErrors`, in order, without repeats; KIM joins them with ", " as the `ProcessingErr` message. */
  codes: string[];
}

/** What shootHealth reads: any Shoot, live or from a watch event. */
export interface ShootHealthInput {
  metadata: { generation?: number };
  status?: ShootStatus;
}

// Gardener's error codes (pkg/apis/core/v1beta1/types_common.go), the ones kimops's rules name (here and in
// force-deletion.ts).
export const ERR_INFRA_UNAUTHENTICATED = 'ERR_INFRA_UNAUTHENTICATED';
export const ERR_INFRA_UNAUTHORIZED = 'ERR_INFRA_UNAUTHORIZED';
const ERR_INFRA_QUOTA_EXCEEDED = 'ERR_INFRA_QUOTA_EXCEEDED';
const ERR_INFRA_RATE_LIMITS_EXCEEDED = 'ERR_INFRA_RATE_LIMITS_EXCEEDED';
export const ERR_INFRA_DEPENDENCIES = 'ERR_INFRA_DEPENDENCIES';
export const ERR_CONFIGURATION_PROBLEM = 'ERR_CONFIGURATION_PROBLEM';
const ERR_PROBLEMATIC_WEBHOOK = 'ERR_PROBLEMATIC_WEBHOOK';
export const ERR_CLEANUP_CLUSTER_RESOURCES = 'ERR_CLEANUP_CLUSTER_RESOURCES';

/**
 * KIM `IsRetryable` (kyma-infrastructure-manager `pkg/gardener/gardener_error_handler.go`, HEAD f271b80a as
 * recorded in docs/contracts/runtime-status.md §2): these codes make a `Failed` Shoot final, whatever else is reported.
 */
const KIM_NON_RETRYABLE_CODES: readonly string[] = [ERR_INFRA_UNAUTHENTICATED, ERR_INFRA_UNAUTHORIZED];

/** KIM `IsRetryable`, same source: these codes keep a `Failed` Shoot `Pending` for KEB (checked after the list above). */
const KIM_RETRYABLE_CODES: readonly string[] = [
  ERR_INFRA_RATE_LIMITS_EXCEEDED,
  ERR_INFRA_QUOTA_EXCEEDED,
  ERR_INFRA_DEPENDENCIES,
  ERR_CONFIGURATION_PROBLEM,
  ERR_PROBLEMATIC_WEBHOOK,
];

/**
 * Gardener `helper.HasNonRetryableErrorCode` (gardener `pkg/apis/core/v1beta1/helper/errors.go`), KIM's last
 * check: a code outside all three lists (a new one, `ERR_INFRA_RESOURCES_DEPLETED`, `ERR_RETRYABLE_*`, …)
 * counts as retryable.
 */
const GARDENER_NON_RETRYABLE_CODES: readonly string[] = [
  ERR_INFRA_UNAUTHENTICATED,
  ERR_INFRA_UNAUTHORIZED,
  ERR_INFRA_DEPENDENCIES,
  ERR_INFRA_QUOTA_EXCEEDED,
  ERR_INFRA_RATE_LIMITS_EXCEEDED,
  ERR_CONFIGURATION_PROBLEM,
  ERR_PROBLEMATIC_WEBHOOK,
];

/** KIM's `IsRetryable`, rule for rule: no errors is not retryable; then the three lists above, in that order. */
export function isRetryable(lastErrors: readonly LastError[] | undefined): boolean {
  if (!lastErrors || lastErrors.length === 0) return false;
  const codes = codesOf(lastErrors);
  if (codes.some((code) => KIM_NON_RETRYABLE_CODES.includes(code))) return false;
  if (codes.some((code) => KIM_RETRYABLE_CODES.includes(code))) return true;
  return !codes.some((code) => GARDENER_NON_RETRYABLE_CODES.includes(code));
}

/**
 * - `progressing`: `generation > observedGeneration` (Gardener has not started on the newest spec: this wins
 *   over any earlier outcome, as KIM's re-entry guard does), or `lastOperation.state` Pending/Processing, or
 *   Error/Aborted (Gardener still retrying, for up to its retry window), or Failed with only retryable errors.
 * - `healthy`: Succeeded with matching generations.
 * - `failed`: Failed with a non-retryable code, or with no errors at all (KIM: not retryable). Gardener runs
 *   the operation again only after `gardener.cloud/operation=retry` or a spec change.
 * - `unknown`: no `status.lastOperation` yet (a Shoot just created), or a state Gardener does not define.
 */
export function shootHealth(shoot: ShootHealthInput): ShootHealth {
  const lastOperation = shoot.status?.lastOperation;
  const lastErrors = shoot.status?.lastErrors ?? [];
  const result = (state: ShootHealthState, reason: string): ShootHealth => ({
    state,
    reason,
    ...(lastOperation ? { lastOperation } : {}),
    lastErrors,
    codes: codesOf(lastErrors),
  });
  const generation = shoot.metadata.generation;
  const observed = shoot.status?.observedGeneration ?? 0;
  if (!lastOperation) return result('unknown', 'Gardener has not reported an operation on this Shoot yet');
  const operation = `${lastOperation.type} ${lastOperation.state}`;
  if (generation !== undefined && generation > observed) {
    return result(
      'progressing',
      `Gardener has not yet observed generation ${generation} (observed ${observed}; last operation ${operation})`,
    );
  }
  switch (lastOperation.state) {
    case 'Pending':
    case 'Processing':
      return result(
        'progressing',
        `${lastOperation.type} in progress (${lastOperation.state}${progressOf(lastOperation)})`,
      );
    case 'Error':
    case 'Aborted':
      return result('progressing', `${operation}: Gardener is still retrying${describeErrors(lastErrors)}`);
    case 'Failed':
      if (isRetryable(lastErrors)) {
        return result(
          'progressing',
          `${operation} with retryable errors only; Gardener will retry${describeErrors(lastErrors)}`,
        );
      }
      return result(
        'failed',
        `${operation}${describeErrors(lastErrors)}; Gardener has given up: fix the cause, then annotate the Shoot ` +
          'gardener.cloud/operation=retry or change its spec',
      );
    case 'Succeeded':
      return result('healthy', `${lastOperation.type} succeeded at generation ${observed}`);
    default:
      return result(
        'unknown',
        `lastOperation.state ${JSON.stringify(lastOperation.state)} is not one Gardener defines`,
      );
  }
}

/** Every error code of `lastErrors`, in order, without repeats. */
export function codesOf(lastErrors: readonly LastError[]): string[] {
  return [...new Set(lastErrors.flatMap((error) => error.codes ?? []))];
}

function progressOf(lastOperation: LastOperation): string {
  return lastOperation.progress === undefined ? '' : `, ${lastOperation.progress} %`;
}

function describeErrors(lastErrors: readonly LastError[]): string {
  if (lastErrors.length === 0) return ' (no errors reported)';
  const codes = codesOf(lastErrors);
  const first = lastErrors[0]?.description ?? '';
  const more = lastErrors.length > 1 ? ` and ${lastErrors.length - 1} more` : '';
  return ` (${codes.length > 0 ? `${codes.join(', ')}: ` : ''}${first}${more})`;
}
