// The dedicated audit log in the Runtime's status (docs/skr.md "Dedicated audit log"): KIM's MigrateToDedicatedAuditLog
// and CopyAuditLogReadCredentials after Configured, the generator's pool failures, and the switch.
import { describe, expect, it } from 'vitest';
import type { AuditLog } from '../model/audit-log.js';
import type { LiveRuntime } from '../model/runtime.js';
import type { RuntimeStatus } from '../model/runtime-status.js';
import { CUSTOMER_TENANT } from '../test/helpers/dedicated-audit-log.js';
import { type StatusInput, type StatusShoot, readCredentialsCopyFrom, runtimeStatus } from './status.js';

// Literal strings on purpose (not the module's constants): a changed constant must fail here.
const NOW = new Date('2026-12-02T04:00:00.000Z');

function runtime(options: { enabled?: boolean; generation?: number; status?: RuntimeStatus } = {}): LiveRuntime {
  return {
    metadata: {
      name: 'rt-1',
      namespace: 'kcp-stage',
      generation: options.generation ?? 2,
      labels: { 'kyma-project.io/runtime-id': 'rt-1' },
    },
    spec: {
      shoot: { name: 'c-12345' },
      ...(options.enabled !== false && { auditLogAccessEnabled: true }),
    } as LiveRuntime['spec'],
    ...(options.status && { status: options.status }),
  };
}

/** A Shoot reconciled at Runtime generation 2 with its SKR configured, sending to `tenant` (default: the shared one). */
function shoot(tenant = { tenantID: 'shared', serviceURL: 'https://auditlog.shared', secretName: 'shared-write' }) {
  const live: StatusShoot = {
    metadata: {
      name: 'c-12345',
      namespace: 'garden-kyma',
      generation: 5,
      annotations: {
        'infrastructuremanager.kyma-project.io/runtime-generation': '2',
        'kimops.kyma-project.io/applied-tree': 'tree-1',
        'kimops.kyma-project.io/skr-applied-tree': 'tree-1',
      },
    },
    spec: {
      extensions: [
        { type: 'shoot-oidc-service', disabled: false },
        {
          type: 'shoot-auditlog-service',
          providerConfig: {
            type: 'standard',
            tenantID: tenant.tenantID,
            serviceURL: tenant.serviceURL,
            secretReferenceName: 'auditlog-credentials',
          },
        },
      ],
      resources: [
        { name: 'auditlog-credentials', resourceRef: { apiVersion: 'v1', kind: 'Secret', name: tenant.secretName } },
      ],
    },
    status: {
      observedGeneration: 5,
      lastOperation: { type: 'Reconcile', state: 'Succeeded', progress: 100, description: 'done' },
    },
  };
  return live;
}

const claimed: AuditLog = {
  apiVersion: 'auditlogmanager.kyma-project.io/v1beta1',
  kind: 'AuditLog',
  metadata: { name: 'pool-7', namespace: 'kcp-stage', labels: { 'reserved-for-runtime-id': 'rt-1' } },
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

function input(overrides: Partial<StatusInput> = {}): StatusInput {
  return {
    runtime: runtime(),
    shoot: shoot(CUSTOMER_TENANT),
    kubeconfigReady: true,
    pipeline: {},
    auditLog: { pool: [claimed] },
    now: NOW,
    ...overrides,
  };
}

/** `<state>/<reason>/<status> "<message>"` of the condition, or undefined when absent. */
function kim(status: RuntimeStatus, type: string): string | undefined {
  const c = status.conditions?.find((condition) => condition.type === type);
  return c && `${status.state}/${c.reason}/${c.status} "${c.message}"`;
}

describe('runtimeStatus: the dedicated audit log', () => {
  it('switch off or the Runtime not asking: Ready at Configured, no audit-log condition (today, and KIM)', () => {
    for (const off of [input({ auditLog: undefined }), input({ runtime: runtime({ enabled: false }) })]) {
      const status = runtimeStatus(off);
      expect(status.state).toBe('Ready');
      expect(kim(status, 'CustomAuditLogConfigured')).toBeUndefined();
      expect(kim(status, 'AuditLogCredentialsCopied')).toBeUndefined();
      expect(readCredentialsCopyFrom(off)).toBeUndefined();
    }
  });

  it('nothing claimed yet: Configured True but Pending (KIM), Reconciling says what comes next', () => {
    const status = runtimeStatus(input({ auditLog: { pool: [] }, shoot: shoot() }));
    expect(kim(status, 'Configured')).toBe(
      'Pending/AdministratorsConfigured/True "Cluster admin configuration completed"',
    );
    expect(kim(status, 'CustomAuditLogConfigured')).toBeUndefined();
    expect(status.provisioningCompleted).toBeUndefined();
    expect(status.conditions?.find((c) => c.type === 'Reconciling')?.message).toBe(
      'Cluster admin configuration completed: no AuditLog in kcp-stage is reserved for or assigned to runtime rt-1: the generator reserves or claims one on its next pass',
    );
  });

  it('claimed, the tenant not in the Shoot: KIM’s "claimed, configuring shoot"; a refused write: "could not be patched"', () => {
    const status = runtimeStatus(input({ shoot: shoot() }));
    expect(kim(status, 'CustomAuditLogConfigured')).toBe(
      'Pending/CustomAuditLogConfigured/Unknown "Dedicated audit logging claimed, configuring shoot"',
    );
    const refused = runtimeStatus(input({ shoot: shoot(), pipeline: { applyError: 'spec.resources: invalid' } }));
    expect(kim(refused, 'CustomAuditLogConfigured')).toBe(
      'Pending/CustomAuditLogConfigured/False "Custom AuditLog shoot configuration could not be patched, will retry"',
    );
    expect(refused.conditions?.find((c) => c.type === 'Reconciling')?.message).toBe(
      'Custom AuditLog shoot configuration could not be patched, will retry: spec.resources: invalid; the applier retries on every sync',
    );
    // A refused write of a Shoot already on the tenant is the applier's ordinary failure.
    const other = runtimeStatus(input({ pipeline: { applyError: 'spec.resources: invalid' } }));
    expect(kim(other, 'Provisioned')).toBe(
      'Failed/ProcessingErr/False "Gardener API shoot patch error: spec.resources: invalid"',
    );
  });

  it("a refusal while main does not hold the claimed tenant yet is the applier's ordinary failure, not KIM's retry", () => {
    const applyError = 'spec.kubernetes.version: downgrade not allowed';
    for (const state of ['open', 'waiting-for-review', 'blocked'] as const) {
      const proposal = { url: 'https://forge/pull/9', state };
      const status = runtimeStatus(input({ shoot: shoot(), pipeline: { applyError, proposal } }));
      expect(kim(status, 'CustomAuditLogConfigured')).toBeUndefined();
      expect(status.state).toBe('Failed');
    }
    const open = runtimeStatus(
      input({ shoot: shoot(), pipeline: { applyError, proposal: { url: 'https://forge/pull/9', state: 'open' } } }),
    );
    expect(kim(open, 'Provisioned')).toBe(
      'Failed/ProcessingErr/False "Gardener API shoot patch error: spec.kubernetes.version: downgrade not allowed"',
    );
    // The tenant change merged: the refused write carried it.
    const merged = runtimeStatus(
      input({
        shoot: shoot(),
        pipeline: { applyError, proposal: { url: 'https://forge/pull/9', state: 'merged', commit: 'c1' } },
      }),
    );
    expect(kim(merged, 'CustomAuditLogConfigured')).toBe(
      'Pending/CustomAuditLogConfigured/False "Custom AuditLog shoot configuration could not be patched, will retry"',
    );
  });

  it('the tenant in the reconciled Shoot: configured; the copy is due, then the copy’s outcome decides Ready', () => {
    const due = input();
    expect(readCredentialsCopyFrom(due)).toEqual({ namespace: 'kcp-stage', name: 'pool-7-read' });
    const waiting = runtimeStatus(due);
    expect(kim(waiting, 'CustomAuditLogConfigured')).toBe(
      'Pending/CustomAuditLogConfigured/True "Custom AuditLog shoot configuration completed"',
    );

    const copied = input({ auditLog: { pool: [claimed], copied: {} } });
    expect(readCredentialsCopyFrom(copied)).toBeUndefined();
    const ready = runtimeStatus(copied);
    expect(kim(ready, 'AuditLogCredentialsCopied')).toBe(
      'Ready/CredentialsCopied/True "Audit log read credentials copied to runtime"',
    );
    expect(ready.provisioningCompleted).toBe(true);
    expect(ready.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');

    const failed = runtimeStatus(
      input({
        auditLog: {
          pool: [claimed],
          copied: {
            failure: {
              step: 'source',
              message: '404 NotFound: secrets "pool-7-read" not found',
              source: { namespace: 'kcp-stage', name: 'pool-7-read' },
            },
          },
        },
      }),
    );
    expect(kim(failed, 'AuditLogCredentialsCopied')).toBe(
      'Pending/CredentialsCopyErr/False "Failed to copy read credentials: failed to get source secret kcp-stage/pool-7-read: 404 NotFound: secrets "pool-7-read" not found"',
    );
  });

  it('Ready stays Ready on later passes without copying again; a new Runtime generation copies again', () => {
    const ready = runtimeStatus(input({ auditLog: { pool: [claimed], copied: {} } }));
    const again = input({ runtime: runtime({ status: ready }) });
    expect(readCredentialsCopyFrom(again)).toBeUndefined();
    expect(runtimeStatus(again).state).toBe('Ready');

    const bumped = runtime({ status: ready, generation: 3 });
    const applied = shoot(CUSTOMER_TENANT);
    applied.metadata.annotations = {
      ...applied.metadata.annotations,
      'infrastructuremanager.kyma-project.io/runtime-generation': '3',
    };
    expect(readCredentialsCopyFrom(input({ runtime: bumped, shoot: applied }))).toEqual({
      namespace: 'kcp-stage',
      name: 'pool-7-read',
    });
  });

  it('the SKR not configured yet: no copy, whatever the pool says', () => {
    const early = shoot(CUSTOMER_TENANT);
    early.metadata.annotations = { ...early.metadata.annotations, 'kimops.kyma-project.io/skr-applied-tree': 'tree-0' };
    expect(readCredentialsCopyFrom(input({ shoot: early }))).toBeUndefined();
    expect(readCredentialsCopyFrom(input({ kubeconfigReady: false }))).toBeUndefined();
  });

  it("the generator's pool failures fail the Runtime with KIM's conditions", () => {
    const reserve = runtimeStatus(
      input({
        shoot: undefined,
        pipeline: { auditLogError: { step: 'reserve', message: 'no available AuditLogCR in the pool for region r' } },
      }),
    );
    expect(kim(reserve, 'Provisioned')).toBe(
      'Failed/CustomAuditLogErr/False "Dedicated audit logging requested but no available configuration found: no available AuditLogCR in the pool for region r"',
    );
    expect(reserve.conditions?.find((c) => c.type === 'Stalled')?.message).toContain(
      "no free AuditLog for the Runtime's region",
    );
    const claim = runtimeStatus(
      input({ pipeline: { auditLogError: { step: 'claim', message: 'failed to claim AuditLogCR: conflict' } } }),
    );
    expect(kim(claim, 'CustomAuditLogConfigured')).toBe(
      'Failed/CustomAuditLogErr/False "Failed to get and claim dedicated audit log configuration: failed to claim AuditLogCR: conflict"',
    );
    // Written while the switch was on, read after it went off: it no longer fails the Runtime.
    const off = runtimeStatus(
      input({ auditLog: undefined, pipeline: { auditLogError: { step: 'claim', message: 'x' } } }),
    );
    expect(off.state).toBe('Ready');
    expect(kim(off, 'CustomAuditLogConfigured')).toBeUndefined();
    // A failure about an older Runtime generation is stale.
    expect(
      runtimeStatus(
        input({
          runtime: runtime({ generation: 3 }),
          pipeline: { generation: 2, auditLogError: { step: 'claim', message: 'x' } },
        }),
      ).state,
    ).toBe('Pending');
  });
});
