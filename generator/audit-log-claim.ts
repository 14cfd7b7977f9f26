// What the generator does with KALM's AuditLog pool for one Runtime before it renders it: KIM's dedicated audit log
// (docs/adr/0003-dedicated-audit-log-is-kept.md) as a decision on what is there now, not on where a state machine
// stands. A Runtime asking for its own audit log (`auditLogAccessEnabled`, on a landscape that enables it) gets an
// AuditLog reserved before its Shoot is created (the Shoot starts on the landscape's shared tenant, as with KIM),
// claimed once the Runtime is provisioned up to its administrators, and from then on rendered with that tenant, which
// then reaches the Shoot through a pull request like any change. A Shoot that exists without one (the Runtime turned
// it on later) claims one directly. Once claimed it stays, whatever the Runtime says later; it is released when the
// Runtime is deleted. The writes are compare-and-swap on the AuditLog's resourceVersion, as KIM's Update. Pure.
import {
  LABEL_RESERVED_AT,
  LABEL_RESERVED_FOR_RUNTIME_ID,
  AUDIT_LOG_STATE_ASSIGNED,
  type AuditLog,
  type AuditLogFailure,
} from '../model/audit-log.js';
import { LABEL_RUNTIME_ID } from '../model/contract.js';
import type { AuditLogTenant } from '../model/converter-config.js';
import type { Runtime } from '../model/runtime.js';
import { CONDITION_CONFIGURED, REASON_ADMINISTRATORS_CONFIGURED, readRuntimeStatus } from '../model/runtime-status.js';
import { assignedTo, firstAvailable, reservedFor, tenantOfAuditLog } from '../rules/audit-log-pool.js';

export interface AuditLogDecisionInput {
  /** The landscape's switch, KIM's `-dedicated-audit-logging-enabled`. */
  enabled: boolean;
  runtime: Runtime;
  /** Its Shoot exists: live in the Garden, or its create is on main. */
  shootExists: boolean;
  /** kcp-system's AuditLogs, as listed. */
  pool: readonly AuditLog[];
}

/**
 * - `shared`: render with the landscape's tenant; nothing to write.
 * - `reserve`: label the AuditLog for the Runtime, then render the create with the shared tenant.
 * - `claim`: the reserved AuditLog becomes the Runtime's; then render with its tenant.
 * - `direct-claim`: an existing Shoot's first AuditLog, claimed and labelled at once; then render with its tenant.
 * - `dedicated`: the Runtime's AuditLog; render with its tenant.
 * - `fail`: nothing available; no render, the Runtime fails with KIM's condition (`failure`).
 * - `release`: the Runtime is deleted: its AuditLog is marked orphaned (KALM keeps the logs for the retention).
 * - `unreserve`: the Runtime is deleted before it claimed its reserved AuditLog: the reservation labels go, so the
 *   AuditLog is back in the pool (KIM leaves them for good; ADR 0003).
 * - `none`: a deleted Runtime with nothing to release.
 */
export type AuditLogDecision =
  | { kind: 'shared' | 'none' }
  | { kind: 'reserve' | 'claim' | 'direct-claim' | 'dedicated' | 'release' | 'unreserve'; auditLog: AuditLog }
  | { kind: 'fail'; failure: AuditLogFailure };

export function decideAuditLog({ enabled, runtime, shootExists, pool }: AuditLogDecisionInput): AuditLogDecision {
  const runtimeID = runtime.metadata.labels?.[LABEL_RUNTIME_ID] ?? '';
  const assigned = assignedTo(pool, runtimeID);
  if (runtime.metadata.deletionTimestamp !== undefined) {
    if (!enabled) return { kind: 'none' };
    // Also when the Runtime had switched the access off since (KIM releases only while it is on, and so leaves
    // such an AuditLog assigned for good): the tenant stayed, so it is released with the Runtime.
    if (assigned) return releasable(assigned) ? { kind: 'release', auditLog: assigned } : { kind: 'none' };
    // A reservation never claimed frees only with the Runtime's deletion (switching the access off keeps it, as KIM).
    const reservation = reservedFor(pool, runtimeID);
    return reservation && !reservation.spec?.assignedToRuntimeID
      ? { kind: 'unreserve', auditLog: reservation }
      : { kind: 'none' };
  }
  if (!enabled) return { kind: 'shared' };
  // Irreversible: a claimed tenant stays even when the Runtime no longer asks for it (KIM ignores the switch-off).
  if (assigned) return { kind: 'dedicated', auditLog: assigned };
  if (!runtime.spec.auditLogAccessEnabled) return { kind: 'shared' };
  // KIM's first check: without an ID nothing could find the reservation again, and every pass would take another.
  if (runtimeID === '') return { kind: 'fail', failure: { step: 'reserve', message: 'runtimeID is empty' } };

  const reserved = reservedFor(pool, runtimeID);
  const region = runtime.spec.shoot.region;
  if (reserved) return provisioned(runtime) ? { kind: 'claim', auditLog: reserved } : { kind: 'shared' };
  const available = firstAvailable(pool, region);
  if (!shootExists)
    return available
      ? { kind: 'reserve', auditLog: available }
      : {
          kind: 'fail',
          failure: { step: 'reserve', message: `no available AuditLogCR in the pool for region ${region}` },
        };
  return available
    ? { kind: 'direct-claim', auditLog: available }
    : { kind: 'fail', failure: { step: 'reserve', message: `no available AuditLogCR for region ${region}` } };
}

/** KIM's migration point: the last SKR step (the administrators' bindings) is done. */
function provisioned(runtime: Runtime): boolean {
  const configured = readRuntimeStatus(runtime.status).conditions?.find((c) => c.type === CONDITION_CONFIGURED);
  return configured?.status === 'True' && configured.reason === REASON_ADMINISTRATORS_CONFIGURED;
}

/** KIM releases only a claimed AuditLog in KALM's Assigned state; orphaned once is enough. */
function releasable(auditLog: AuditLog): boolean {
  return auditLog.status?.state === AUDIT_LOG_STATE_ASSIGNED && auditLog.spec?.orphaned !== true;
}

/** The tenant to render with; undefined: the landscape's. */
export function tenantToRender(decision: AuditLogDecision): AuditLogTenant | undefined {
  return decision.kind === 'claim' || decision.kind === 'direct-claim' || decision.kind === 'dedicated'
    ? tenantOfAuditLog(decision.auditLog)
    : undefined;
}

/**
 * The write a decision needs before the render: a JSON merge patch of the AuditLog carrying the resourceVersion it
 * was decided on, so a concurrent reservation or claim by another Runtime makes it fail with 409 (KIM's optimistic
 * Update) and the next pass decides again. `now` stamps a reservation (Unix seconds, as KIM).
 */
export function auditLogWrite(
  decision: AuditLogDecision,
  runtimeID: string,
  now: Date,
): { name: string; patch: Record<string, unknown> } | undefined {
  if (!('auditLog' in decision) || decision.kind === 'dedicated') return undefined;
  const { name, resourceVersion } = decision.auditLog.metadata;
  const labels = {
    [LABEL_RESERVED_FOR_RUNTIME_ID]: runtimeID,
    [LABEL_RESERVED_AT]: String(Math.floor(now.getTime() / 1000)),
  };
  const patches = {
    reserve: { metadata: { resourceVersion, labels } },
    claim: { metadata: { resourceVersion }, spec: { assignedToRuntimeID: runtimeID } },
    'direct-claim': { metadata: { resourceVersion, labels }, spec: { assignedToRuntimeID: runtimeID } },
    release: { metadata: { resourceVersion }, spec: { orphaned: true } },
    // null removes a label (RFC 7386).
    unreserve: {
      metadata: { resourceVersion, labels: { [LABEL_RESERVED_FOR_RUNTIME_ID]: null, [LABEL_RESERVED_AT]: null } },
    },
  };
  return { name, patch: patches[decision.kind] };
}

/**
 * KIM's error text for a write the API refused (`conflict`: 409, another Runtime was first), as the Runtime's
 * status reports it; undefined for a release or an unreserve, whose failure is only logged (it never holds a
 * deletion).
 */
export function auditLogWriteFailure(
  decision: AuditLogDecision,
  error: { conflict: boolean; message: string },
): AuditLogFailure | undefined {
  if (!('auditLog' in decision)) return undefined;
  const name = decision.auditLog.metadata.name;
  switch (decision.kind) {
    case 'reserve':
      return {
        step: 'reserve',
        message: error.conflict
          ? `conflict reserving AuditLogCR ${name}: another runtime reserved it concurrently`
          : `failed to reserve AuditLogCR ${name}: ${error.message}`,
      };
    case 'direct-claim':
      return {
        step: 'reserve',
        message: error.conflict
          ? `conflict claiming AuditLogCR ${name}: another runtime claimed it concurrently`
          : `failed to claim AuditLogCR: ${error.message}`,
      };
    case 'claim':
      return { step: 'claim', message: `failed to claim AuditLogCR: ${error.message}` };
    default:
      return undefined;
  }
}
