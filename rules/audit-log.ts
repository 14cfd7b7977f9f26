// The audit-log tenant a Shoot reports to, read back from the Shoot itself, and whether it is a customer's
// dedicated tenant. A dedicated tenant is one a customer reads their own audit logs from; KIM documents it as one
// that cannot be turned off (docs/adr/0003-dedicated-audit-log-is-kept.md). Three users read it the same way: the
// converter's update mode keeps the live tenant, the applier holds main's manifest against it before every apply
// (live-rules.ts `keepLive`, so neither a revert nor `drift: correct` moves a customer back to the shared
// tenant), and the backfiller compares it with the customer's AuditLog resource. Pure.
import type { AuditLogTenant } from '../model/converter-config.js';
import { asJsonObject } from '../model/json.js';
import type { Extension, NamedResource, Shoot } from '../model/shoot.js';

/** Gardener's audit-log extension (KIM's AuditlogExtensionType). */
export const AUDITLOG_EXTENSION_TYPE = 'shoot-auditlog-service';
/** The `spec.resources` entry KIM's converter points the extension at. */
export const AUDITLOG_CREDENTIALS_RESOURCE = 'auditlog-credentials';
/**
 * The `spec.resources` entry KIM's dedicated-audit-log migration adds for the customer's write credentials, and
 * points the extension at (KIM's runtime_fsm_migrate_dedicated_auditlog_helpers.go). Its presence is the mark
 * a migrated Shoot carries; KIM's later patches keep it.
 */
export const DEDICATED_AUDITLOG_CREDENTIALS_RESOURCE = 'dedicated-auditlog-credentials';

/** What of a Shoot tells its audit-log tenant: a Shoot fits, as does the backfiller's compacted one. */
interface AuditLogSpec {
  spec?: { extensions?: readonly Extension[]; resources?: readonly NamedResource[] };
}

function auditLogExtension(shoot: AuditLogSpec): Extension | undefined {
  return (shoot.spec?.extensions ?? []).find((e) => e.type === AUDITLOG_EXTENSION_TYPE);
}

function resourceNamed(shoot: AuditLogSpec, name: unknown): NamedResource | undefined {
  return typeof name === 'string' ? (shoot.spec?.resources ?? []).find((r) => r.name === name) : undefined;
}

/**
 * The tenant of the Shoot's audit-log extension (KIM's getShootAuditLogConfig): tenant ID and service URL from
 * its provider config, the Secret from the resource the extension names (`secretReferenceName`). Always through
 * that reference, as KIM: a Shoot KIM moved back to the shared tenant keeps the migration's
 * `dedicated-auditlog-credentials` resource, and its Secret is not the one the shared tenant is written with.
 * Undefined without a complete one.
 */
export function auditLogTenantOf(shoot: AuditLogSpec): AuditLogTenant | undefined {
  const extension = auditLogExtension(shoot);
  if (!extension) return undefined;
  const config = asJsonObject(extension.providerConfig);
  const credentials = resourceNamed(shoot, config.secretReferenceName);
  if (typeof config.tenantID !== 'string' || typeof config.serviceURL !== 'string' || !credentials) return undefined;
  return { tenantID: config.tenantID, serviceURL: config.serviceURL, secretName: credentials.resourceRef.name };
}

/**
 * Whether the Shoot carries the dedicated-audit-log migration's mark: the extension refers to, or `spec.resources`
 * holds, `dedicated-auditlog-credentials`. What the Shoot alone tells; the converter also knows the Runtime
 * (`auditLogAccessEnabled`), which covers a Shoot KIM moved without the mark (its direct claim on update).
 */
export function hasDedicatedAuditLogMark(shoot: Shoot): boolean {
  const config = asJsonObject(auditLogExtension(shoot)?.providerConfig);
  return (
    config.secretReferenceName === DEDICATED_AUDITLOG_CREDENTIALS_RESOURCE ||
    resourceNamed(shoot, DEDICATED_AUDITLOG_CREDENTIALS_RESOURCE) !== undefined
  );
}

/** KIM's auditLogConfigsEqual: the same tenant, service URL and Secret. */
export function sameAuditLogTenant(a: AuditLogTenant | undefined, b: AuditLogTenant | undefined): boolean {
  return (
    a !== undefined &&
    b !== undefined &&
    a.tenantID === b.tenantID &&
    a.serviceURL === b.serviceURL &&
    a.secretName === b.secretName
  );
}

/**
 * The live dedicated tenant put into `draft` (main's manifest, a copy the caller owns) where main states another
 * tenant or none: the live audit-log extension replaces main's (in main's position, else appended; Gardener
 * replaces the extension list whole, so leaving it out would remove it), and the live resources it reads its
 * Secret through replace or join main's. Returns the live tenant it kept, or undefined when there was nothing to
 * keep: the live Shoot has no mark, no readable tenant, or main already says the same tenant (then main's shape
 * wins, as KIM's next patch does).
 */
export function keepLiveDedicatedAuditLog(draft: Shoot, live: Shoot): AuditLogTenant | undefined {
  const tenant = auditLogTenantOf(live);
  const extension = auditLogExtension(live);
  if (!hasDedicatedAuditLogMark(live) || !tenant || !extension) return undefined;
  if (sameAuditLogTenant(auditLogTenantOf(draft), tenant)) return undefined;

  const extensions = draft.spec.extensions ?? [];
  const at = extensions.findIndex((e) => e.type === AUDITLOG_EXTENSION_TYPE);
  const kept = structuredClone(extension);
  draft.spec.extensions = at < 0 ? [...extensions, kept] : extensions.map((e, i) => (i === at ? kept : e));

  const names = new Set([
    DEDICATED_AUDITLOG_CREDENTIALS_RESOURCE,
    asJsonObject(extension.providerConfig).secretReferenceName,
  ]);
  let resources = draft.spec.resources ?? [];
  for (const resource of (live.spec.resources ?? []).filter((r) => names.has(r.name))) {
    const copy = structuredClone(resource);
    resources = resources.some((r) => r.name === resource.name)
      ? resources.map((r) => (r.name === resource.name ? copy : r))
      : [...resources, copy];
  }
  draft.spec.resources = resources;
  return tenant;
}
