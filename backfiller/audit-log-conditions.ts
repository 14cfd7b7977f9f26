// KIM's two conditions of a dedicated audit log, from what kimops sees and did (docs/adr/0003-dedicated-audit-log-is-kept.md):
// `CustomAuditLogConfigured` — the Shoot sends to the customer's tenant (KIM's MigrateToDedicatedAuditLog); and
// `AuditLogCredentialsCopied` — the customer's read credentials are on the SKR (KIM's CopyAuditLogReadCredentials),
// a copy the backfiller makes itself: the source is a KCP Secret, which the applier cannot read and Git must not
// hold. Each function answers a condition with the state KIM's helper sets with it; KEB and its operators match on
// the strings, so they are KIM's exactly. Pure; status.ts puts them in the chain after `Configured`.
import { AUDIT_LOG_READ_CREDENTIALS_SECRET, type AuditLog, type AuditLogFailure } from '../model/audit-log.js';
import { KYMA_SYSTEM_NAMESPACE, LABEL_MANAGED_BY, MANAGED_BY_KIM } from '../model/contract.js';
import type { KubeObject } from '../model/kube-object.js';
import {
  CONDITION_AUDIT_LOG_CREDENTIALS_COPIED,
  CONDITION_CUSTOM_AUDIT_LOG_CONFIGURED,
  CONDITION_PROVISIONED,
  REASON_CREDENTIALS_COPIED,
  REASON_CREDENTIALS_COPY_ERR,
  REASON_CUSTOM_AUDIT_LOG_CONFIGURED,
  REASON_CUSTOM_AUDIT_LOG_ERR,
  type ConditionStatus,
  type RuntimeCondition,
  type RuntimeConditionReason,
  type RuntimeConditionType,
  type RuntimeState,
} from '../model/runtime-status.js';
import { auditLogTenantOf, sameAuditLogTenant } from '../rules/audit-log.js';
import { assignedTo, reservedFor, tenantOfAuditLog } from '../rules/audit-log-pool.js';

/** A condition as KIM sets it, and the state its helper (UpdateStateReady, -Pending, -Failed) sets with it. */
export interface AuditLogCondition extends Pick<RuntimeCondition, 'message'> {
  type: RuntimeConditionType;
  reason: RuntimeConditionReason;
  status: ConditionStatus;
  state: RuntimeState;
}

function condition(
  type: RuntimeConditionType,
  reason: RuntimeConditionReason,
  status: ConditionStatus,
  message: string,
  state: RuntimeState,
): AuditLogCondition {
  return { type, reason, status, message, state };
}

/** The generator could not reserve, claim directly, or claim (model/audit-log.ts AuditLogFailure): the Runtime fails. */
export function auditLogFailureCondition(failure: AuditLogFailure): AuditLogCondition {
  return failure.step === 'reserve'
    ? condition(
        CONDITION_PROVISIONED,
        REASON_CUSTOM_AUDIT_LOG_ERR,
        'False',
        `Dedicated audit logging requested but no available configuration found: ${failure.message}`,
        'Failed',
      )
    : condition(
        CONDITION_CUSTOM_AUDIT_LOG_CONFIGURED,
        REASON_CUSTOM_AUDIT_LOG_ERR,
        'False',
        `Failed to get and claim dedicated audit log configuration: ${failure.message}`,
        'Failed',
      );
}

/** What of the live Shoot tells its audit-log tenant (a Shoot fits, as does the backfiller's compacted one). */
export type AuditLogShoot = Parameters<typeof auditLogTenantOf>[0];

export interface ShootAuditLogFacts {
  /** The AuditLog assigned to the Runtime (rules/audit-log-pool.ts assignedTo). */
  assigned: AuditLog;
  /** The live Shoot, reconciled by Gardener (the chain reaches this step only then). */
  live: AuditLogShoot | undefined;
  /** The applier reported a refused write of the Shoot (rules/apply-report.ts). */
  applyRefused: boolean;
}

/**
 * `CustomAuditLogConfigured` for the Runtime's claimed AuditLog (before the claim KIM sets none). The Shoot counts as configured when its tenant, service URL and Secret are the
 * AuditLog's (KIM's comparison); before that, KIM's message after a claim (not yet in the Shoot) or after a patch
 * that failed. (KIM's "completed"/Unknown while Gardener reconciles is kimops's `Provisioned` "Shoot update is in
 * progress", as KIM's next pass says too.)
 */
export function customAuditLogCondition(facts: ShootAuditLogFacts): AuditLogCondition {
  const configured = CONDITION_CUSTOM_AUDIT_LOG_CONFIGURED;
  const reason = REASON_CUSTOM_AUDIT_LOG_CONFIGURED;
  if (inShoot(facts.assigned, facts.live))
    return condition(configured, reason, 'True', 'Custom AuditLog shoot configuration completed', 'Ready');
  if (facts.applyRefused)
    return condition(
      configured,
      reason,
      'False',
      'Custom AuditLog shoot configuration could not be patched, will retry',
      'Pending',
    );
  return condition(configured, reason, 'Unknown', 'Dedicated audit logging claimed, configuring shoot', 'Pending');
}

/** The live Shoot sends to the AuditLog's tenant, URL and Secret (KIM's auditLogConfigsEqual). */
export function inShoot(auditLog: AuditLog, live: AuditLogShoot | undefined): boolean {
  return live !== undefined && sameAuditLogTenant(auditLogTenantOf(live), tenantOfAuditLog(auditLog));
}

/**
 * Where the read credentials are copied from — the AuditLog's `readCredsSecretName` in the Runtime's namespace on
 * the KCP, as KIM reads it — or KIM's condition saying why not yet (KALM fills the name in later). (KIM's "Failed
 * to get audit log data" for a Runtime without an AuditLog cannot happen here: the copy follows the claim.)
 */
export function readCredentialsSource(
  auditLog: AuditLog,
  runtimeNamespace: string,
): { namespace: string; name: string } | AuditLogCondition {
  const name = auditLog.spec?.config?.readCredsSecretName ?? '';
  if (name === '')
    return condition(
      CONDITION_AUDIT_LOG_CREDENTIALS_COPIED,
      REASON_CREDENTIALS_COPY_ERR,
      'False',
      'Waiting for read credentials secret to be configured',
      'Pending',
    );
  return { namespace: runtimeNamespace, name };
}

/** Why a copy failed, in KIM's words: no SKR client, no source Secret, or the SKR refused the Secret. */
export type CopyFailure =
  | { step: 'client'; message: string }
  | { step: 'source'; message: string; source: { namespace: string; name: string } }
  | { step: 'apply'; message: string };

/** `AuditLogCredentialsCopied` after the copy; True ends the provisioning (KIM sets provisioningCompleted). */
export function credentialsCopiedCondition(failure?: CopyFailure): AuditLogCondition {
  if (!failure)
    return condition(
      CONDITION_AUDIT_LOG_CREDENTIALS_COPIED,
      REASON_CREDENTIALS_COPIED,
      'True',
      'Audit log read credentials copied to runtime',
      'Ready',
    );
  const error =
    failure.step === 'client'
      ? `failed to get runtime client: ${failure.message}`
      : failure.step === 'source'
        ? `failed to get source secret ${failure.source.namespace}/${failure.source.name}: ${failure.message}`
        : // kimops applies server-side, one request for KIM's create-or-update: the update's words.
          `failed to update secret in SKR: ${failure.message}`;
  return condition(
    CONDITION_AUDIT_LOG_CREDENTIALS_COPIED,
    REASON_CREDENTIALS_COPY_ERR,
    'False',
    `Failed to copy read credentials: ${error}`,
    'Pending',
  );
}

/**
 * Whether to copy now: the Shoot is configured (the condition above is True) and the copy has not succeeded for the
 * Runtime's current generation — KIM copies once per pass through its chain, i.e. after the create and after each
 * change of the Runtime, never in between.
 */
export function readCredentialsCopyDue(
  configured: AuditLogCondition | undefined,
  previous: readonly RuntimeCondition[],
  generation: number | undefined,
): boolean {
  if (configured?.status !== 'True') return false;
  const copied = previous.find((c) => c.type === CONDITION_AUDIT_LOG_CREDENTIALS_COPIED);
  return copied?.status !== 'True' || copied.observedGeneration !== generation;
}

/** The SKR's copy of the read-credentials Secret: KIM's name, namespace and label, the source's type and data. */
export function readCredentialsSecret(source: { type?: unknown; data?: unknown }): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: AUDIT_LOG_READ_CREDENTIALS_SECRET,
      namespace: KYMA_SYSTEM_NAMESPACE,
      labels: { [LABEL_MANAGED_BY]: MANAGED_BY_KIM },
    },
    ...(typeof source.type === 'string' && { type: source.type }),
    data: structuredClone(source.data ?? {}),
  };
}

/** What the chain's audit-log step reads: the Runtime, the pool, the live Shoot, and a copy made in this pass. */
export interface AuditLogStepInput {
  runtimeID: string;
  /** Where the read Secret is (KIM: the Runtime's namespace). */
  runtimeNamespace: string;
  generation: number | undefined;
  /** The Runtime's conditions as read. */
  previous: readonly RuntimeCondition[];
  /** The AuditLogs of the KCP namespace. */
  pool: readonly AuditLog[];
  /** The live Shoot, reconciled by Gardener at the Runtime's generation. */
  live: AuditLogShoot;
  /** The copy made in this pass (no failure: copied); undefined when none was made. */
  copied?: { failure?: CopyFailure };
}

export interface AuditLogStep {
  /** KIM's conditions after `Configured`, in order. */
  set: AuditLogCondition[];
  /** Both conditions True: the Runtime may be Ready. */
  done: boolean;
  /** The copy is due and no copy was made in this pass: copy from this KCP Secret, then decide again. */
  copyFrom?: { namespace: string; name: string };
  /** While not done: what is awaited (kimops's Reconciling message). */
  fix?: string;
}

/**
 * KIM's MigrateToDedicatedAuditLog and CopyAuditLogReadCredentials, for a Runtime with dedicated audit logging
 * (switch on, `auditLogAccessEnabled`) whose SKR is configured: nothing before the generator's claim; then
 * `CustomAuditLogConfigured` until the live Shoot sends to the tenant; then the copy — due once per Runtime
 * generation (readCredentialsCopyDue), otherwise the last copy's True stands.
 */
export function auditLogStep(input: AuditLogStepInput): AuditLogStep {
  const assigned = assignedTo(input.pool, input.runtimeID);
  if (!assigned) {
    const reserved = reservedFor(input.pool, input.runtimeID);
    return {
      set: [],
      done: false,
      fix: reserved
        ? `the generator claims the reserved AuditLog ${reserved.metadata.name} on its next pass and proposes the Shoot's change to its tenant`
        : `no AuditLog in ${input.runtimeNamespace} is reserved for or assigned to runtime ${input.runtimeID}: the generator reserves or claims one on its next pass`,
    };
  }
  const configured = customAuditLogCondition({ assigned, live: input.live, applyRefused: false });
  if (configured.status !== 'True')
    return {
      set: [configured],
      done: false,
      fix: "the applier writes the tenant once the generator's change is merged",
    };
  const source = readCredentialsSource(assigned, input.runtimeNamespace);
  if ('type' in source) return { set: [configured, source], done: false };
  if (input.copied) {
    const copied = credentialsCopiedCondition(input.copied.failure);
    return {
      set: [configured, copied],
      done: copied.status === 'True',
      ...(input.copied.failure && { fix: 'the backfiller copies again on its next pass' }),
    };
  }
  if (readCredentialsCopyDue(configured, input.previous, input.generation))
    return { set: [configured], done: false, copyFrom: source };
  return { set: [configured, credentialsCopiedCondition()], done: true };
}
