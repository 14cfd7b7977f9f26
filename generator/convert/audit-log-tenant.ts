// Which audit-log tenant a Shoot reports to. Normally the landscape's tenant for the Runtime's
// provider and region; but a Shoot that was moved to a dedicated audit log (the customer's own
// tenant, `auditLogAccessEnabled`) keeps it: switching it back would send a customer's audit logs
// to another tenant, and KIM documents the dedicated log as one that cannot be turned off (ADR 0003).
import type { AuditLogTenant } from '../../model/converter-config.js';
import { FieldError } from '../../model/errors.js';
import { asJsonObject } from '../../model/json.js';
import { lookupAuditLogTenant } from '../../model/kim-config.js';
import type { ConversionSettings } from '../../model/landscape.js';
import type { Runtime } from '../../model/runtime.js';
import type { Shoot } from '../../model/shoot.js';
import { AUDITLOG_CREDENTIALS_RESOURCE } from './extenders/auditlog.js';
import { EXT_AUDITLOG } from './extenders/extensions.js';

/** The resource name KIM's dedicated-audit-log migration gives the customer's credentials. */
const DEDICATED_AUDITLOG_CREDENTIALS_RESOURCE = 'dedicated-auditlog-credentials';

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
 * The live Shoot's tenant when it is on a dedicated audit log: it carries the migration's
 * credentials resource, or the Runtime asked for audit-log access and the Shoot has an audit-log
 * extension. The tenant is read back from that extension and the credentials resource.
 */
function dedicatedTenantOf(runtime: Runtime, live: Shoot): AuditLogTenant | undefined {
  const resources = live.spec.resources ?? [];
  const migrated = resources.find((r) => r.name === DEDICATED_AUDITLOG_CREDENTIALS_RESOURCE);
  const extension = (live.spec.extensions ?? []).find((e) => e.type === EXT_AUDITLOG);
  if (!extension || (!migrated && !runtime.spec.auditLogAccessEnabled)) return undefined;
  const config = asJsonObject(extension.providerConfig);
  const credentials = migrated ?? resources.find((r) => r.name === AUDITLOG_CREDENTIALS_RESOURCE);
  if (typeof config.tenantID !== 'string' || typeof config.serviceURL !== 'string' || !credentials) return undefined;
  return { tenantID: config.tenantID, serviceURL: config.serviceURL, secretName: credentials.resourceRef.name };
}
