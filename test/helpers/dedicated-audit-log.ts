// A Shoot as KIM's dedicated-audit-log migration leaves it (runtime_fsm_migrate_dedicated_auditlog_helpers.go, read
// for the facts): the audit-log extension's provider config points at the customer's tenant and at the resource
// `dedicated-auditlog-credentials`, which names the customer's garden Secret; `auditlog-credentials` stays as it was.
import type { AuditLogTenant } from '../../model/converter-config.js';
import type { Shoot } from '../../model/shoot.js';
import { AUDITLOG_EXTENSION_TYPE, DEDICATED_AUDITLOG_CREDENTIALS_RESOURCE } from '../../rules/audit-log.js';

export const CUSTOMER_TENANT: AuditLogTenant = {
  tenantID: 'customer-subaccount',
  serviceURL: 'https://auditlog.customer.example',
  secretName: 'customer-auditlog-write',
};

/** A copy of `shoot` moved to `tenant` as KIM's migration patch moves it. */
export function migratedToDedicatedAuditLog(shoot: Shoot, tenant: AuditLogTenant = CUSTOMER_TENANT): Shoot {
  const migrated = structuredClone(shoot);
  const extension = migrated.spec.extensions?.find((e) => e.type === AUDITLOG_EXTENSION_TYPE);
  if (!extension) throw new Error(`the Shoot ${shoot.metadata.name} has no audit-log extension to migrate`);
  extension.providerConfig = {
    ...extension.providerConfig,
    type: 'standard',
    tenantID: tenant.tenantID,
    serviceURL: tenant.serviceURL,
    secretReferenceName: DEDICATED_AUDITLOG_CREDENTIALS_RESOURCE,
  };
  migrated.spec.resources = [
    ...(migrated.spec.resources ?? []).filter((r) => r.name !== DEDICATED_AUDITLOG_CREDENTIALS_RESOURCE),
    {
      name: DEDICATED_AUDITLOG_CREDENTIALS_RESOURCE,
      resourceRef: { apiVersion: 'v1', kind: 'Secret', name: tenant.secretName },
    },
  ];
  return migrated;
}
