import { describe, expect, it } from 'vitest';
import { AUDIT_LOG_API_VERSION, AUDIT_LOG_KIND, AUDIT_LOG_NAMESPACE, type AuditLog } from '../model/audit-log.js';
import type { RuntimeCondition } from '../model/runtime-status.js';
import type { Shoot } from '../model/shoot.js';
import { CUSTOMER_TENANT, migratedToDedicatedAuditLog } from '../test/helpers/dedicated-audit-log.js';
import { exampleRuntime, landscapeSettings, render } from '../test/helpers/shoots.js';
import {
  auditLogFailureCondition,
  credentialsCopiedCondition,
  customAuditLogCondition,
  readCredentialsCopyDue,
  readCredentialsSecret,
  readCredentialsSource,
} from './audit-log-conditions.js';

const shared = render(exampleRuntime('aws.yaml'), landscapeSettings('dev')).shoot;
const customer: AuditLog = {
  apiVersion: AUDIT_LOG_API_VERSION,
  kind: AUDIT_LOG_KIND,
  metadata: { name: 'pool-7', namespace: AUDIT_LOG_NAMESPACE },
  spec: {
    regions: ['eu-central-1'],
    subaccountID: CUSTOMER_TENANT.tenantID,
    assignedToRuntimeID: 'rt-1',
    config: {
      serviceURL: CUSTOMER_TENANT.serviceURL,
      gardenerSecretName: CUSTOMER_TENANT.secretName,
      readCredsSecretName: 'pool-7-read',
    },
  },
  status: { state: 'Assigned' },
};
const facts = (live: Shoot | undefined, more: { reconciled?: boolean; applyRefused?: boolean } = {}) => ({
  assigned: customer,
  live,
  reconciled: more.reconciled ?? true,
  applyRefused: more.applyRefused ?? false,
});

describe("KIM's audit-log conditions", () => {
  it('fails the Runtime when the generator found nothing to reserve or claim', () => {
    expect(auditLogFailureCondition({ step: 'reserve', message: 'no available AuditLogCR for region r' })).toEqual({
      type: 'Provisioned',
      reason: 'CustomAuditLogErr',
      status: 'False',
      message:
        'Dedicated audit logging requested but no available configuration found: no available AuditLogCR for region r',
      state: 'Failed',
    });
    expect(auditLogFailureCondition({ step: 'claim', message: 'failed to claim AuditLogCR: forbidden' })).toEqual({
      type: 'CustomAuditLogConfigured',
      reason: 'CustomAuditLogErr',
      status: 'False',
      message: 'Failed to get and claim dedicated audit log configuration: failed to claim AuditLogCR: forbidden',
      state: 'Failed',
    });
  });

  it('says nothing before the claim, then follows the tenant into the Shoot and through Gardener', () => {
    expect(customAuditLogCondition({ ...facts(shared), assigned: undefined })).toBeUndefined();
    const at = (live: Shoot, more: Parameters<typeof facts>[1] = {}) => {
      const c = customAuditLogCondition(facts(live, more));
      return c && [c.status, c.message, c.state];
    };
    expect(at(shared)).toEqual(['Unknown', 'Dedicated audit logging claimed, configuring shoot', 'Pending']);
    expect(at(shared, { applyRefused: true })).toEqual([
      'False',
      'Custom AuditLog shoot configuration could not be patched, will retry',
      'Pending',
    ]);
    const migrated = migratedToDedicatedAuditLog(shared);
    expect(at(migrated, { reconciled: false })).toEqual([
      'Unknown',
      'Custom AuditLog shoot configuration completed',
      'Pending',
    ]);
    expect(at(migrated)).toEqual(['True', 'Custom AuditLog shoot configuration completed', 'Ready']);
    expect(customAuditLogCondition(facts(migrated))?.reason).toBe('CustomAuditLogConfigured');
  });

  it('copies from the AuditLog’s read Secret in the Runtime’s namespace, or says why not yet', () => {
    expect(readCredentialsSource(customer, 'rt-1', 'kcp-system')).toEqual({
      namespace: AUDIT_LOG_NAMESPACE,
      name: 'pool-7-read',
    });
    expect(readCredentialsSource(undefined, 'rt-1', 'kcp-system')).toMatchObject({
      type: 'AuditLogCredentialsCopied',
      reason: 'CredentialsCopyErr',
      status: 'False',
      message: 'Failed to get audit log data: no AuditLogCR found for runtime rt-1',
      state: 'Pending',
    });
    const unfilled = { ...customer, spec: { ...customer.spec, config: { serviceURL: 'u' } } };
    expect(readCredentialsSource(unfilled, 'rt-1', 'kcp-system')).toMatchObject({
      status: 'False',
      message: 'Waiting for read credentials secret to be configured',
      state: 'Pending',
    });
  });

  it("reports the copy in KIM's words", () => {
    expect(credentialsCopiedCondition()).toEqual({
      type: 'AuditLogCredentialsCopied',
      reason: 'CredentialsCopied',
      status: 'True',
      message: 'Audit log read credentials copied to runtime',
      state: 'Ready',
    });
    const failed = (failure: Parameters<typeof credentialsCopiedCondition>[0]) =>
      credentialsCopiedCondition(failure).message;
    expect(failed({ step: 'client', message: 'x509' })).toBe(
      'Failed to copy read credentials: failed to get runtime client: x509',
    );
    expect(
      failed({ step: 'source', message: 'not found', source: { namespace: AUDIT_LOG_NAMESPACE, name: 'pool-7-read' } }),
    ).toBe('Failed to copy read credentials: failed to get source secret kcp-system/pool-7-read: not found');
    expect(failed({ step: 'apply', message: 'forbidden' })).toBe(
      'Failed to copy read credentials: failed to update secret in SKR: forbidden',
    );
    expect(credentialsCopiedCondition({ step: 'apply', message: 'forbidden' })).toMatchObject({
      reason: 'CredentialsCopyErr',
      status: 'False',
      state: 'Pending',
    });
  });

  it('copies once the Shoot is configured, again for each new generation of the Runtime', () => {
    const configured = customAuditLogCondition(facts(migratedToDedicatedAuditLog(shared)));
    const copiedAt = (generation: number): RuntimeCondition[] => [
      {
        type: 'AuditLogCredentialsCopied',
        status: 'True',
        reason: 'CredentialsCopied',
        message: '',
        lastTransitionTime: '2026-12-01T10:00:00Z',
        observedGeneration: generation,
      },
    ];
    expect(readCredentialsCopyDue(configured, [], 3)).toBe(true);
    expect(readCredentialsCopyDue(configured, copiedAt(3), 3)).toBe(false);
    expect(readCredentialsCopyDue(configured, copiedAt(2), 3)).toBe(true);
    expect(readCredentialsCopyDue(customAuditLogCondition(facts(shared)), [], 3)).toBe(false);
    expect(readCredentialsCopyDue(undefined, [], 3)).toBe(false);
  });

  it('puts the source’s type and data into kyma-system/auditlog-read-credentials with KIM’s label', () => {
    const data = { clientid: 'Y2xpZW50', clientsecret: 'c2VjcmV0', url: 'dXJs' };
    expect(readCredentialsSecret({ type: 'Opaque', data })).toEqual({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: 'auditlog-read-credentials',
        namespace: 'kyma-system',
        labels: { 'operator.kyma-project.io/managed-by': 'infrastructure-manager' },
      },
      type: 'Opaque',
      data,
    });
  });
});
