// The SKR part of the status (docs/skr.md): KIM's conditions for what its runtime controller does inside the
// cluster after the kubeconfig — the kyma-system Namespace, kyma-provisioning-info and the OpenIDConnect resources,
// the administrators' ClusterRoleBindings — said from what kimops's applier really applied: the Shoot's
// SKR_APPLIED_TREE annotation, and its report's `skrError`. Pure: the live Shoot and the applier's error in,
// KIM's conditions out (status.ts sets them after KubeconfigReady).
import { APPLIED_TREE_ANNOTATION, SKR_APPLIED_TREE_ANNOTATION } from '../model/contract.js';
import {
  type RuntimeCondition,
  type RuntimeConditionType,
  CONDITION_CONFIGURED,
  CONDITION_KYMA_SYSTEM_NS_CREATED,
  CONDITION_OIDC_AND_CONFIG_MAP_CONFIGURED,
  REASON_ADMINISTRATORS_CONFIGURED,
  REASON_CONFIGURATION_ERR,
  REASON_CONFIG_MAP_ERR,
  REASON_KYMA_SYSTEM_NS_ERROR,
  REASON_KYMA_SYSTEM_NS_READY,
  REASON_OIDC_AND_CONFIG_MAPS_CONFIGURED,
  REASON_OIDC_CONFIGURATION_ERR,
} from '../model/runtime-status.js';
import type { ObjectMeta } from '../model/kube-object.js';
import type { SkrError } from '../model/pipeline-facts.js';
import { oidcExtensionEnabled } from '../model/shoot.js';

/** What the SKR step reads of the live Shoot: its markers and whether the OIDC extension is on. */
export interface SkrShoot {
  metadata: ObjectMeta;
  spec?: { extensions?: readonly { type: string; disabled?: boolean }[] };
}

interface SkrCondition extends Pick<RuntimeCondition, 'status' | 'reason' | 'message'> {
  type: RuntimeConditionType;
}

interface SkrVerdict {
  /** The SKR holds what main says for the tree applied to the Shoot: the Runtime may be Ready. */
  configured: boolean;
  /** KIM's conditions, in KIM's order, after KubeconfigReady. */
  set: SkrCondition[];
  /** While not configured: what is happening or what to do (kimops's Reconciling message). */
  fix?: string;
}

// KIM's messages (runtime_fsm_create_kyma_namespace.go, runtime_fsm_configure_skr.go,
// runtime_fsm_apply_clusterrolebindings.go at f271b80a). Exact: KEB's operators and their alerts read them.
const MSG_KYMA_SYSTEM_NS_CREATED = 'Creation of kyma-system Namespace';
const MSG_OIDC_DISABLED = 'OIDC extension disabled';
const MSG_OIDC_AND_CONFIG_MAP_CONFIGURED = 'OIDC and kyma-provisioning-info configuration completed';
const MSG_ADMINISTRATORS_CONFIGURED = 'Cluster admin configuration completed';
const MSG_NO_RUNTIME_CLIENT = 'failed to get runtime client';
/** Followed by the error (KIM: `... scheduling for retry - %s`). */
const MSG_PROVISIONING_INFO_FAILED = 'Failed to apply kyma-provisioning-info config map, scheduling for retry -';
const MSG_OIDC_FAILED = 'Failed to create OpenIDConnect resource. Scheduling for retry';
const MSG_ADMIN_ACCESS_FAILED = 'failed to update kubeconfig admin access';

// kimops's: what to do, per step (docs/skr.md "When the SKR fails").
const RETRY = 'the applier retries on every sync';
const FIX_SKR: Record<SkrError['step'], string> = {
  client: `no admin kubeconfig from Gardener (shoots/adminkubeconfig) or the SKR's API server did not answer: check the Shoot's API server and the applier's Garden access; ${RETRY}`,
  namespace: `the SKR refused the kyma-system Namespace: check the SKR's API server and its admission webhooks; ${RETRY}`,
  'provisioning-info': `the SKR refused the ConfigMap kyma-system/kyma-provisioning-info: check the SKR's API server and its admission webhooks; ${RETRY}`,
  oidc: `the SKR refused the OpenIDConnect resources: check the Shoot's shoot-oidc-service extension and the Runtime's spec.shoot.kubernetes.kubeAPIServer.additionalOidcConfig (or the landscape's skrDefaultOidc); ${RETRY}`,
  administrators: `the SKR refused the administrators' ClusterRoleBindings: check the SKR's API server and the Runtime's spec.security.administrators; ${RETRY}`,
  'registry-cache': `the Garden refused to list or delete the registry caches' unused garden Secrets: check the applier's RBAC on secrets in the project namespace (deploy/garden/roles.yaml); ${RETRY}`,
};

/**
 * KIM's steps after KubeconfigReady, for a Shoot whose operation succeeded. Configured only when the applier
 * applied the SKR objects of the very tree the Shoot was applied from (SKR_APPLIED_TREE == APPLIED_TREE), so a
 * new tree — KEB's update, an administrator change — is never reported configured by an older apply. An
 * `skrError` of another tree is stale (the applier has moved on) and ignored; one of the current tree shows
 * KIM's condition for its step, Pending as KIM's UpdateStatePending (also with status False).
 */
export function skrVerdict(
  shoot: SkrShoot,
  skrError: SkrError | undefined,
  /** The Runtime's status as read: KIM's, for a Runtime just taken over from it (ADR 0011). */
  previous?: { state?: string; conditions?: readonly Pick<RuntimeCondition, 'type' | 'status'>[] },
): SkrVerdict {
  const tree = shoot.metadata.annotations?.[APPLIED_TREE_ANNOTATION];
  const skrTree = shoot.metadata.annotations?.[SKR_APPLIED_TREE_ANNOTATION];
  const oidc: SkrCondition = {
    type: CONDITION_OIDC_AND_CONFIG_MAP_CONFIGURED,
    status: 'True',
    reason: REASON_OIDC_AND_CONFIG_MAPS_CONFIGURED,
    message: oidcExtensionEnabled(shoot) ? MSG_OIDC_AND_CONFIG_MAP_CONFIGURED : MSG_OIDC_DISABLED,
  };
  const namespace: SkrCondition = {
    type: CONDITION_KYMA_SYSTEM_NS_CREATED,
    status: 'True',
    reason: REASON_KYMA_SYSTEM_NS_READY,
    message: MSG_KYMA_SYSTEM_NS_CREATED,
  };
  if (tree !== undefined && skrTree === tree) {
    const administrators: SkrCondition = {
      type: CONDITION_CONFIGURED,
      status: 'True',
      reason: REASON_ADMINISTRATORS_CONFIGURED,
      message: MSG_ADMINISTRATORS_CONFIGURED,
    };
    return { configured: true, set: [namespace, oidc, administrators] };
  }
  // The applier's attempt at this tree failed: the SKR may no longer hold what KIM applied (a step may have got
  // halfway), and the failure is KEB's to see, whoever configured the SKR before.
  const failedForTree = tree !== undefined && skrError?.tree === tree;
  // An SKR kimops never configured (no skr-applied-tree) of a Runtime KIM left Ready with `Configured` True: KIM's,
  // just taken over (ADR 0011). Its SKR holds what KIM applied for the Runtime's generation (the Shoot is at it, or
  // the Runtime would be Pending already): KIM's conditions stand until the applier's first attempt at the tree, so
  // KEB sees no Pending blip. That attempt ends it either way: skr-applied-tree recorded (configured above) or an
  // skrError of the tree (reported below, as for any Runtime). A generation KEB asks for later makes it Pending as
  // ever, and Ready once kimops configured it.
  const kimConfigured =
    skrTree === undefined &&
    !failedForTree &&
    previous?.state === 'Ready' &&
    previous.conditions?.some((c) => c.type === CONDITION_CONFIGURED && c.status === 'True') === true;
  if (kimConfigured) return { configured: true, set: [] };
  if (tree === undefined) {
    // A Shoot the applier has not applied from main yet: nothing configured by kimops.
    return {
      configured: false,
      set: [],
      fix: 'the applier configures the SKR once it has applied the Shoot from main',
    };
  }
  if (skrError === undefined || skrError.tree !== tree) {
    return {
      configured: false,
      set: [],
      fix: `the applier configures the SKR for the Shoot's applied tree ${tree} (configured: ${skrTree ?? 'none'}) on its next sync`,
    };
  }
  const fix = FIX_SKR[skrError.step];
  const error = skrError.message;
  switch (skrError.step) {
    case 'client':
      return {
        configured: false,
        set: [failure(CONDITION_CONFIGURED, REASON_CONFIGURATION_ERR, 'False', MSG_NO_RUNTIME_CLIENT)],
        fix: `${error}: ${fix}`,
      };
    case 'namespace':
      return {
        configured: false,
        set: [failure(CONDITION_KYMA_SYSTEM_NS_CREATED, REASON_KYMA_SYSTEM_NS_ERROR, 'False', error)],
        fix,
      };
    case 'registry-cache':
      // RegistryCacheConfigured itself is registry-cache-condition.ts's: only a Runtime with caches has it.
      return { configured: false, set: [namespace], fix: `${error}: ${fix}` };
    case 'provisioning-info':
      return {
        configured: false,
        set: [
          namespace,
          failure(
            CONDITION_OIDC_AND_CONFIG_MAP_CONFIGURED,
            REASON_CONFIG_MAP_ERR,
            'Unknown',
            `${MSG_PROVISIONING_INFO_FAILED} ${error}`,
          ),
        ],
        fix,
      };
    case 'oidc':
      return {
        configured: false,
        set: [
          namespace,
          failure(CONDITION_OIDC_AND_CONFIG_MAP_CONFIGURED, REASON_OIDC_CONFIGURATION_ERR, 'Unknown', MSG_OIDC_FAILED),
        ],
        fix: `${error}: ${fix}`,
      };
    case 'administrators':
      return {
        configured: false,
        set: [
          namespace,
          oidc,
          failure(CONDITION_CONFIGURED, REASON_CONFIGURATION_ERR, 'False', MSG_ADMIN_ACCESS_FAILED),
        ],
        fix: `${error}: ${fix}`,
      };
  }
}

function failure(
  type: RuntimeConditionType,
  reason: SkrCondition['reason'],
  status: SkrCondition['status'],
  message: string,
): SkrCondition {
  return { type, status, reason, message };
}
