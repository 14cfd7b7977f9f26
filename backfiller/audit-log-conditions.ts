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
  CONDITION_PROVISIONED,
  type ConditionStatus,
  type RuntimeCondition,
  type RuntimeState,
} from '../model/runtime-status.js';
import type { Shoot } from '../model/shoot.js';
import { auditLogTenantOf, sameAuditLogTenant } from '../rules/audit-log.js';
import { tenantOfAuditLog } from '../rules/audit-log-pool.js';

// KIM's api/v1 runtime_types.go; they move to model/runtime-status.ts when status.ts writes them.
const CONDITION_CUSTOM_AUDIT_LOG_CONFIGURED = 'CustomAuditLogConfigured';
const CONDITION_AUDIT_LOG_CREDENTIALS_COPIED = 'AuditLogCredentialsCopied';
const REASON_CUSTOM_AUDIT_LOG_ERR = 'CustomAuditLogErr';
const REASON_CUSTOM_AUDIT_LOG_CONFIGURED = 'CustomAuditLogConfigured';
const REASON_CREDENTIALS_COPY_ERR = 'CredentialsCopyErr';
const REASON_CREDENTIALS_COPIED = 'CredentialsCopied';

/** A condition as KIM sets it, and the state its helper (UpdateStateReady, -Pending, -Failed) sets with it. */
export interface AuditLogCondition extends Pick<RuntimeCondition, 'type' | 'reason' | 'message'> {
  status: ConditionStatus;
  state: RuntimeState;
}

function condition(
  type: string,
  reason: string,
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

export interface ShootAuditLogFacts {
  /** The AuditLog assigned to the Runtime (rules/audit-log-pool.ts assignedTo); none while only reserved. */
  assigned: AuditLog | undefined;
  live: Shoot | undefined;
  /** Gardener reconciled the live spec: last operation Succeeded, observedGeneration = generation. */
  reconciled: boolean;
  /** The applier reported a refused write of the Shoot's current folder (rules/apply-report.ts). */
  applyRefused: boolean;
}

/**
 * `CustomAuditLogConfigured` for the Runtime's claimed AuditLog; undefined before the claim (KIM sets none
 * before its migration step). The Shoot counts as configured when its tenant, service URL and Secret are the
 * AuditLog's (KIM's comparison) and Gardener reconciled that spec; before that, KIM's message after a claim
 * (not yet in the Shoot) or after its patch (in the Shoot, Gardener at work), or after a patch that failed.
 */
export function customAuditLogCondition(facts: ShootAuditLogFacts): AuditLogCondition | undefined {
  if (!facts.assigned) return undefined;
  const configured = CONDITION_CUSTOM_AUDIT_LOG_CONFIGURED;
  const reason = REASON_CUSTOM_AUDIT_LOG_CONFIGURED;
  const inShoot =
    facts.live !== undefined && sameAuditLogTenant(auditLogTenantOf(facts.live), tenantOfAuditLog(facts.assigned));
  if (inShoot && facts.reconciled)
    return condition(configured, reason, 'True', 'Custom AuditLog shoot configuration completed', 'Ready');
  if (inShoot)
    return condition(configured, reason, 'Unknown', 'Custom AuditLog shoot configuration completed', 'Pending');
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

/**
 * Where the read credentials are copied from — the AuditLog's `readCredsSecretName` in the Runtime's namespace on
 * the KCP, as KIM reads it — or KIM's condition saying why not yet (KALM fills the name in later).
 */
export function readCredentialsSource(
  auditLog: AuditLog | undefined,
  runtimeID: string,
  runtimeNamespace: string,
): { namespace: string; name: string } | AuditLogCondition {
  const copied = CONDITION_AUDIT_LOG_CREDENTIALS_COPIED;
  if (!auditLog)
    return condition(
      copied,
      REASON_CREDENTIALS_COPY_ERR,
      'False',
      `Failed to get audit log data: no AuditLogCR found for runtime ${runtimeID}`,
      'Pending',
    );
  const name = auditLog.spec?.config?.readCredsSecretName ?? '';
  if (name === '')
    return condition(
      copied,
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
