import { describe, expect, it } from 'vitest';
import { AUDIT_LOG_API_VERSION, AUDIT_LOG_KIND, AUDIT_LOG_NAMESPACE, type AuditLog } from '../model/audit-log.js';
import type { RuntimeCondition } from '../model/runtime-status.js';
import type { Shoot } from '../model/shoot.js';
import { CUSTOMER_TENANT, migratedToDedicatedAuditLog } from '../test/helpers/dedicated-audit-log.js';
import { exampleRuntime, landscapeSettings, render } from '../test/helpers/shoots.js';
import {
  auditLogStep,
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
const facts = (live: Shoot | undefined, more: { applyRefused?: boolean } = {}) => ({
  assigned: customer,
  live,
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

  it('follows the claimed tenant into the Shoot', () => {
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
    expect(at(migrated)).toEqual(['True', 'Custom AuditLog shoot configuration completed', 'Ready']);
    expect(customAuditLogCondition(facts(migrated))?.reason).toBe('CustomAuditLogConfigured');
  });

  it('copies from the AuditLog’s read Secret in the Runtime’s namespace, or says why not yet', () => {
    expect(readCredentialsSource(customer, 'kcp-stage')).toEqual({ namespace: 'kcp-stage', name: 'pool-7-read' });
    const unfilled = { ...customer, spec: { ...customer.spec, config: { serviceURL: 'u' } } };
    expect(readCredentialsSource(unfilled, 'kcp-system')).toMatchObject({
      type: 'AuditLogCredentialsCopied',
      reason: 'CredentialsCopyErr',
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
    expect(readCredentialsCopyDue(customAuditLogCondition(facts(shared)), copiedAt(2), 3)).toBe(false);
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

  describe('auditLogStep: the chain after Configured', () => {
    const migrated = migratedToDedicatedAuditLog(shared);
    const step = (more: Partial<Parameters<typeof auditLogStep>[0]> = {}) =>
      auditLogStep({
        runtimeID: 'rt-1',
        runtimeNamespace: 'kcp-stage',
        generation: 3,
        previous: [],
        pool: [customer],
        live: migrated,
        ...more,
      });
    const short = (result: ReturnType<typeof auditLogStep>) =>
      result.set.map((c) => `${c.type}/${c.reason}/${c.status}/${c.message}`);

    it('before the claim: no condition, not done, saying what the generator does next', () => {
      const reserved: AuditLog = {
        ...customer,
        metadata: { ...customer.metadata, labels: { 'reserved-for-runtime-id': 'rt-1' } },
        spec: { ...customer.spec, assignedToRuntimeID: '' },
      };
      expect(step({ pool: [reserved] })).toEqual({
        set: [],
        done: false,
        fix: "the generator claims the reserved AuditLog pool-7 on its next pass and proposes the Shoot's change to its tenant",
      });
      expect(step({ pool: [] }).fix).toBe(
        'no AuditLog in kcp-stage is reserved for or assigned to runtime rt-1: the generator reserves or claims one on its next pass',
      );
      // Another Runtime's AuditLog is not this one's.
      expect(step({ runtimeID: 'rt-2' }).set).toEqual([]);
    });

    it('claimed, the tenant not in the Shoot yet: Unknown, nothing copied', () => {
      const result = step({ live: shared });
      expect(short(result)).toEqual([
        'CustomAuditLogConfigured/CustomAuditLogConfigured/Unknown/Dedicated audit logging claimed, configuring shoot',
      ]);
      expect(result.done).toBe(false);
      expect(result.copyFrom).toBeUndefined();
    });

    it('configured, KALM has not named the read Secret yet: waits', () => {
      const unfilled = {
        ...customer,
        spec: { ...customer.spec, config: { ...customer.spec?.config, readCredsSecretName: '' } },
      };
      const result = step({ pool: [unfilled] });
      expect(short(result)).toEqual([
        'CustomAuditLogConfigured/CustomAuditLogConfigured/True/Custom AuditLog shoot configuration completed',
        'AuditLogCredentialsCopied/CredentialsCopyErr/False/Waiting for read credentials secret to be configured',
      ]);
      expect(result.copyFrom).toBeUndefined();
    });

    it('configured: the copy is due from the read Secret in the Runtime’s namespace; its outcome decides', () => {
      const due = step();
      expect(due).toMatchObject({ done: false, copyFrom: { namespace: 'kcp-stage', name: 'pool-7-read' } });
      expect(short(due)).toEqual([
        'CustomAuditLogConfigured/CustomAuditLogConfigured/True/Custom AuditLog shoot configuration completed',
      ]);
      const copied = step({ copied: {} });
      expect(copied.done).toBe(true);
      expect(copied.copyFrom).toBeUndefined();
      expect(short(copied)[1]).toBe(
        'AuditLogCredentialsCopied/CredentialsCopied/True/Audit log read credentials copied to runtime',
      );
      const failed = step({ copied: { failure: { step: 'apply', message: '403 Forbidden: no' } } });
      expect(failed.done).toBe(false);
      expect(failed.fix).toBe('the backfiller copies again on its next pass');
      expect(short(failed)[1]).toBe(
        'AuditLogCredentialsCopied/CredentialsCopyErr/False/Failed to copy read credentials: failed to update secret in SKR: 403 Forbidden: no',
      );
    });

    it('copied for this generation: done without another copy; a new generation copies again', () => {
      const previous: RuntimeCondition[] = [
        {
          type: 'AuditLogCredentialsCopied',
          status: 'True',
          reason: 'CredentialsCopied',
          message: 'Audit log read credentials copied to runtime',
          lastTransitionTime: '2026-12-01T10:00:00Z',
          observedGeneration: 3,
        },
      ];
      expect(step({ previous })).toMatchObject({ done: true });
      expect(step({ previous }).copyFrom).toBeUndefined();
      expect(step({ previous, generation: 4 }).copyFrom).toEqual({ namespace: 'kcp-stage', name: 'pool-7-read' });
    });
  });
});
