// Which AuditLog of KALM's pool belongs to a Runtime, and which one it may take: KIM's lookups
// (pkg/auditlog/dedicated_client.go), so the generator, which reserves and claims, and the backfiller, which copies
// the read credentials and reports, find the same one. The pool is a LIST of kcp-system's AuditLogs; like the API's
// answer it is read in name order, the first match wins. Pure.
import type { AuditLogTenant } from '../model/converter-config.js';
import { AUDIT_LOG_POOL_STATES, LABEL_RESERVED_FOR_RUNTIME_ID, type AuditLog } from '../model/audit-log.js';

function inNameOrder(pool: readonly AuditLog[]): AuditLog[] {
  return [...pool].sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0));
}

/** KIM's claim: the AuditLog whose `spec.assignedToRuntimeID` is the Runtime's. */
export function assignedTo(pool: readonly AuditLog[], runtimeID: string): AuditLog | undefined {
  return inNameOrder(pool).find((a) => runtimeID !== '' && a.spec?.assignedToRuntimeID === runtimeID);
}

/** KIM's reservation: the AuditLog labelled `reserved-for-runtime-id=<runtimeID>`. */
export function reservedFor(pool: readonly AuditLog[], runtimeID: string): AuditLog | undefined {
  return inNameOrder(pool).find(
    (a) => runtimeID !== '' && a.metadata.labels?.[LABEL_RESERVED_FOR_RUNTIME_ID] === runtimeID,
  );
}

/** The Runtime's AuditLog as KIM reads it without claiming: by claim, else by reservation. */
export function auditLogOf(pool: readonly AuditLog[], runtimeID: string): AuditLog | undefined {
  return assignedTo(pool, runtimeID) ?? reservedFor(pool, runtimeID);
}

/**
 * The first free AuditLog serving `region` (a Runtime's `spec.shoot.region`): in a pool state (RegistrationReady or
 * SiemApproved), not assigned, carrying no reservation label at all, `spec.regions` naming the region exactly.
 */
export function firstAvailable(pool: readonly AuditLog[], region: string): AuditLog | undefined {
  return inNameOrder(pool).find(
    (a) =>
      AUDIT_LOG_POOL_STATES.includes(a.status?.state ?? '') &&
      !a.spec?.assignedToRuntimeID &&
      a.metadata.labels?.[LABEL_RESERVED_FOR_RUNTIME_ID] === undefined &&
      (a.spec?.regions ?? []).includes(region),
  );
}

/** The tenant a Shoot sends to on this AuditLog (KIM's AuditLogData): subaccount, service URL, the Garden Secret. */
export function tenantOfAuditLog(auditLog: AuditLog): AuditLogTenant {
  return {
    tenantID: auditLog.spec?.subaccountID ?? '',
    serviceURL: auditLog.spec?.config?.serviceURL ?? '',
    secretName: auditLog.spec?.config?.gardenerSecretName ?? '',
  };
}
