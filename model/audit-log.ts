// KALM's AuditLog resource on the KCP: one customer audit-log tenant of the pool a dedicated audit log is taken
// from (KIM vendors its Go types in pkg/auditlog/v1beta1; the facts are in docs/adr/0003-dedicated-audit-log-is-kept.md),
// and the names KIM uses around it. Types only, read as served: every field may be missing on an object the API
// hands over, so readers treat a missing one as empty.
import { DEFAULT_KCP_NAMESPACE } from './contract.js';
import type { KubeObject, ObjectMeta } from './kube-object.js';

export const AUDIT_LOG_API_VERSION = 'auditlogmanager.kyma-project.io/v1beta1';
export const AUDIT_LOG_KIND = 'AuditLog';
/** Where KIM looks for the pool: its own namespace on the KCP (cmd/main.go's defaultControlPlaneSystemNamespace). */
export const AUDIT_LOG_NAMESPACE = DEFAULT_KCP_NAMESPACE;

/** KALM's states in which a resource is in the pool, free to be reserved or claimed. */
export const AUDIT_LOG_POOL_STATES: readonly string[] = ['RegistrationReady', 'SiemApproved'];
/** KALM's state of a claimed resource; only such a one is released (marked orphaned) when its Runtime goes. */
export const AUDIT_LOG_STATE_ASSIGNED = 'Assigned';

/** KIM's light lock, set when a Runtime is created (phase 1): the Runtime ID, and when (Unix seconds, UTC). */
export const LABEL_RESERVED_FOR_RUNTIME_ID = 'reserved-for-runtime-id';
export const LABEL_RESERVED_AT = 'reserved-for-runtime-at';

export interface AuditLog extends KubeObject {
  metadata: ObjectMeta;
  spec?: {
    /** The BTP region of the subaccount. */
    platformRegion?: string;
    /** The hyperscaler regions (a Runtime's `spec.shoot.region`) it serves. */
    regions?: string[];
    /** The tenant ID a Shoot's audit-log extension sends to. */
    subaccountID?: string;
    /** KIM's heavy lock (phase 2): the Runtime ID it belongs to; immutable once set. */
    assignedToRuntimeID?: string;
    /** Set by KIM when the Runtime is deleted; KALM keeps the logs for `retentionDays`. */
    orphaned?: boolean;
    config?: {
      serviceURL?: string;
      /** The Garden project's Secret with the write credentials (the Shoot's resource points at it). */
      gardenerSecretName?: string;
      /** The KCP Secret (in the Runtime's namespace) with the customer's read credentials, copied to the SKR. */
      readCredsSecretName?: string;
    };
    retentionDays?: number;
  };
  /** KALM's: Pending, RegistrationReady, SiemApproved, Assigned, Orphaned, PendingDelete, UnrecoverableError. */
  status?: { state?: string };
}

/** KIM's copy of the read credentials on the SKR, in kyma-system (runtime_fsm_copy_auditlog_credentials.go). */
export const AUDIT_LOG_READ_CREDENTIALS_SECRET = 'auditlog-read-credentials';

/**
 * What the generator could not do with the pool, for the Runtime's status (it travels like a conversion error):
 * `reserve` — the reservation before a create, or the direct claim of a Runtime that turned dedicated audit logging
 * on (KIM fails `Provisioned`); `claim` — the claim once the Runtime is provisioned (KIM fails
 * `CustomAuditLogConfigured`). `message` is KIM's error text.
 */
export interface AuditLogFailure {
  step: 'reserve' | 'claim';
  message: string;
}

/** The pool as the generator reads and writes it (adapters/kube/kcp-audit-logs.ts; generator/audit-log-pass.ts). */
export interface AuditLogPool {
  /** Every AuditLog now; throws (a TransportError naming the kubeconfig and the fix) when they cannot be read. */
  list(): Promise<AuditLog[]>;
  /**
   * A JSON merge patch of one AuditLog; the patch carries the resourceVersion it was decided on, so `conflict`
   * (409) says another writer changed it first. On success, the AuditLog as written.
   */
  patch(name: string, patch: Record<string, unknown>): Promise<AuditLogPatchResult>;
  /** One AuditLog as it is now: after a conflict, the pass decides again on it. */
  get(name: string): Promise<AuditLogGetResult>;
}

/**
 * A refused call: `message` is the API server's error, what KIM's message wraps (the Runtime's condition carries
 * it); `fix`, kimops's hint for the operator, goes to the generator's log only.
 */
interface AuditLogCallFailure {
  ok: false;
  message: string;
  fix?: string;
}

export type AuditLogPatchResult = { ok: true; auditLog: AuditLog } | (AuditLogCallFailure & { conflict: boolean });
/** `notFound`: the AuditLog was deleted meanwhile. */
export type AuditLogGetResult = { ok: true; auditLog: AuditLog } | (AuditLogCallFailure & { notFound: boolean });
