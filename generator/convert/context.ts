// What one conversion sees: the Runtime, KIM's converter inputs resolved for it, and (in update
// mode) the live Shoot. Extenders read only this.
import type {
  AclAllowList,
  AuditLogTenant,
  ConversionFlags,
  ConverterConfig,
  MaintenanceWindow,
} from '../../model/converter-config.js';
import type { Runtime } from '../../model/runtime.js';
import type { Shoot } from '../../model/shoot.js';

/** KIM's converter inputs after the per-Runtime lookups (tenant map, window map, ACL ConfigMap). */
export interface ConverterContext {
  config: ConverterConfig;
  flags: Pick<ConversionFlags, 'networkRestrictionEnabled' | 'apiServerAclEnabled'>;
  /** Audit-log tenant for the Runtime's provider and region; absent → no audit-log extension. */
  auditLog?: AuditLogTenant;
  /**
   * `auditLog` is the tenant of the AuditLog the Runtime claimed (ADR 0003): the Shoot also carries the
   * `dedicated-auditlog-credentials` resource, the mark by which the applier keeps it against another tenant.
   */
  dedicatedAuditLog?: boolean;
  /** Only for production Runtimes whose region is in the window map. */
  maintenanceWindow?: MaintenanceWindow;
  /** Needed only when an ACL extension is emitted. */
  acl?: AclAllowList;
  /** Registry-cache uid → garden Secret name (update mode). */
  registryCacheSecrets?: Record<string, string>;
}

export interface ExtenderInput {
  runtime: Runtime;
  ctx: ConverterContext;
  /** The live Shoot in update mode; undefined in create mode. */
  live?: Shoot;
}

/**
 * One concern of the Shoot. It writes only the part of the draft it owns; the draft is a fresh
 * object of this conversion, so writing into it is local to the call (KIM's extenders work the
 * same way, which keeps each one a line-for-line comparison with its Go counterpart).
 */
export type Extender = (draft: Shoot, input: ExtenderInput) => void;
