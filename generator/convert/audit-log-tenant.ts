// Which audit-log tenant a Shoot reports to. Normally the landscape's tenant for the Runtime's
// provider and region; but a Shoot that was moved to a dedicated audit log (the customer's own
// tenant, `auditLogAccessEnabled`) keeps it: switching it back would send a customer's audit logs
// to another tenant, and KIM documents the dedicated log as one that cannot be turned off (ADR 0003).
import type { AuditLogTenant } from '../../model/converter-config.js';
import { FieldError } from '../../model/errors.js';
import { lookupAuditLogTenant } from '../../model/kim-config.js';
import type { ConversionSettings } from '../../model/landscape.js';
import type { Runtime } from '../../model/runtime.js';
import type { Shoot } from '../../model/shoot.js';
import { auditLogTenantOf, hasDedicatedAuditLogMark } from '../../rules/audit-log.js';

export function auditLogTenantFor(
  runtime: Runtime,
  settings: ConversionSettings,
  live: Shoot | undefined,
): AuditLogTenant | undefined {
  const dedicated = live && dedicatedTenantOf(runtime, live);
  if (dedicated) return dedicated;
  const { region, provider } = runtime.spec.shoot;
  try {
    return lookupAuditLogTenant(settings.auditLogTenants, provider.type, region);
  } catch (error) {
    if (!settings.flags.auditLogMandatory) return undefined;
    throw new FieldError(
      'spec.shoot.region',
      `${(error as Error).message} — audit logging is mandatory; add a tenant for ${provider.type}/${region} to the audit-log tenant map (the landscape's auditLog.tenants, or KIM's tenantConfigPath file)`,
    );
  }
}

/**
 * The live Shoot's tenant when it is on a dedicated audit log: it carries the migration's mark
 * (`dedicated-auditlog-credentials`), or the Runtime asked for audit-log access (KIM's direct claim on update
 * leaves no mark). The tenant is read back from the live Shoot as the applier reads it (rules/audit-log.ts).
 */
function dedicatedTenantOf(runtime: Runtime, live: Shoot): AuditLogTenant | undefined {
  if (!hasDedicatedAuditLogMark(live) && !runtime.spec.auditLogAccessEnabled) return undefined;
  return auditLogTenantOf(live);
}
