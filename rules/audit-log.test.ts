import { describe, expect, it } from 'vitest';
import type { Shoot } from '../model/shoot.js';
import { CUSTOMER_TENANT, migratedToDedicatedAuditLog } from '../test/helpers/dedicated-audit-log.js';
import { exampleRuntime, landscapeSettings, render } from '../test/helpers/shoots.js';
import {
  AUDITLOG_CREDENTIALS_RESOURCE,
  AUDITLOG_EXTENSION_TYPE,
  DEDICATED_AUDITLOG_CREDENTIALS_RESOURCE,
  auditLogTenantOf,
  hasDedicatedAuditLogMark,
  keepLiveDedicatedAuditLog,
  sameAuditLogTenant,
} from './audit-log.js';

const settings = landscapeSettings('dev');
const runtime = exampleRuntime('aws.yaml');
/** main's manifest: the landscape's shared tenant. */
const shared = render(runtime, settings).shoot;
const sharedTenant = auditLogTenantOf(shared);

const extensionOf = (shoot: Shoot) => shoot.spec.extensions?.find((e) => e.type === AUDITLOG_EXTENSION_TYPE);
const resource = (shoot: Shoot, name: string) => shoot.spec.resources?.find((r) => r.name === name);

/** As KIM's next patch leaves a migrated Shoot: the converter's shape, the customer's tenant through auditlog-credentials. */
function patchedByKim(): Shoot {
  const shoot = migratedToDedicatedAuditLog(shared);
  const extension = extensionOf(shoot);
  if (extension?.providerConfig) extension.providerConfig.secretReferenceName = AUDITLOG_CREDENTIALS_RESOURCE;
  const credentials = resource(shoot, AUDITLOG_CREDENTIALS_RESOURCE);
  if (credentials) credentials.resourceRef.name = CUSTOMER_TENANT.secretName;
  return shoot;
}

describe('reading the tenant back from a Shoot', () => {
  it("reads the converter's shared tenant through auditlog-credentials", () => {
    expect(sharedTenant).toEqual(settings.auditLogTenants.aws?.[runtime.spec.shoot.region]);
    expect(hasDedicatedAuditLogMark(shared)).toBe(false);
  });

  it("reads a migrated Shoot's customer tenant, and knows it by the migration's mark", () => {
    expect(auditLogTenantOf(migratedToDedicatedAuditLog(shared))).toEqual(CUSTOMER_TENANT);
    expect(hasDedicatedAuditLogMark(migratedToDedicatedAuditLog(shared))).toBe(true);
    expect(auditLogTenantOf(patchedByKim())).toEqual(CUSTOMER_TENANT);
    expect(hasDedicatedAuditLogMark(patchedByKim())).toBe(true);
  });

  it('reads the Secret the extension names: a Shoot KIM moved back to the shared tenant keeps the mark, not its Secret', () => {
    // KIM's patch without its flag: the shared tenant again, the migration's resource still listed.
    const movedBack = migratedToDedicatedAuditLog(shared);
    const extension = extensionOf(movedBack);
    if (extension) extension.providerConfig = structuredClone(extensionOf(shared)?.providerConfig);
    expect(auditLogTenantOf(movedBack)).toEqual(sharedTenant);
    expect(resource(movedBack, DEDICATED_AUDITLOG_CREDENTIALS_RESOURCE)?.resourceRef.name).toBe(
      CUSTOMER_TENANT.secretName,
    );
  });

  it('reads nothing without an extension or without the credentials it names', () => {
    expect(auditLogTenantOf({ ...shared, spec: { ...shared.spec, extensions: [] } })).toBeUndefined();
    expect(auditLogTenantOf({ ...shared, spec: { ...shared.spec, resources: [] } })).toBeUndefined();
  });

  it('compares tenant, service URL and Secret, as KIM does', () => {
    expect(sameAuditLogTenant(CUSTOMER_TENANT, { ...CUSTOMER_TENANT })).toBe(true);
    expect(sameAuditLogTenant(CUSTOMER_TENANT, { ...CUSTOMER_TENANT, secretName: 'other' })).toBe(false);
    expect(sameAuditLogTenant(CUSTOMER_TENANT, undefined)).toBe(false);
  });
});

describe('keeping the live dedicated tenant against main', () => {
  it("puts the live extension and its credentials into main's shared manifest", () => {
    const live = migratedToDedicatedAuditLog(shared);
    const draft = structuredClone(shared);
    expect(keepLiveDedicatedAuditLog(draft, live)).toEqual(CUSTOMER_TENANT);
    expect(extensionOf(draft)).toEqual(extensionOf(live));
    expect(resource(draft, DEDICATED_AUDITLOG_CREDENTIALS_RESOURCE)).toEqual(
      resource(live, DEDICATED_AUDITLOG_CREDENTIALS_RESOURCE),
    );
    expect(auditLogTenantOf(draft)).toEqual(CUSTOMER_TENANT);
    // Only the tenant: main's other extensions keep their places.
    expect(draft.spec.extensions?.map((e) => e.type)).toEqual(shared.spec.extensions?.map((e) => e.type));
  });

  it("keeps the tenant of a Shoot KIM patched after the migration (auditlog-credentials names the customer's Secret)", () => {
    const live = patchedByKim();
    const draft = structuredClone(shared);
    expect(keepLiveDedicatedAuditLog(draft, live)).toEqual(CUSTOMER_TENANT);
    expect(resource(draft, AUDITLOG_CREDENTIALS_RESOURCE)?.resourceRef.name).toBe(CUSTOMER_TENANT.secretName);
  });

  it('appends the live extension when main has none', () => {
    const live = migratedToDedicatedAuditLog(shared);
    const draft = structuredClone(shared);
    draft.spec.extensions = draft.spec.extensions?.filter((e) => e.type !== AUDITLOG_EXTENSION_TYPE);
    keepLiveDedicatedAuditLog(draft, live);
    expect(draft.spec.extensions?.at(-1)).toEqual(extensionOf(live));
  });

  it("lets main's shape win when main already states the customer's tenant", () => {
    const live = migratedToDedicatedAuditLog(shared);
    const draft = patchedByKim();
    const before = structuredClone(draft);
    expect(keepLiveDedicatedAuditLog(draft, live)).toBeUndefined();
    expect(draft).toEqual(before);
  });

  it('leaves a Shoot on the shared tenant to main: a tenant change of the landscape is applied', () => {
    const live = structuredClone(shared);
    const extension = extensionOf(live);
    if (extension?.providerConfig) extension.providerConfig.tenantID = 'old-shared-tenant';
    const draft = structuredClone(shared);
    expect(keepLiveDedicatedAuditLog(draft, live)).toBeUndefined();
    expect(draft).toEqual(shared);
  });
});
