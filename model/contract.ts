// The pipeline's contract: every name kimops, KEB, KIM and Gardener agree on — labels, annotations,
// finalizers, field managers, object, branch and folder names — in one place, so no component defines a name
// another one reads. Values only; the rules that use them live in rules/ and the components.

// ---------------------------------------------------------------------------------------------------------
// Runtimes (KEB writes them; KIM's controllers read them)
// ---------------------------------------------------------------------------------------------------------

export const LABEL_RUNTIME_ID = 'kyma-project.io/runtime-id';
export const LABEL_GLOBAL_ACCOUNT_ID = 'kyma-project.io/global-account-id';
export const LABEL_SUBACCOUNT_ID = 'kyma-project.io/subaccount-id';
export const LABEL_INSTANCE_ID = 'kyma-project.io/instance-id';
export const LABEL_BROKER_PLAN_ID = 'kyma-project.io/broker-plan-id';
export const LABEL_BROKER_PLAN_NAME = 'kyma-project.io/broker-plan-name';
export const LABEL_KYMA_NAME = 'operator.kyma-project.io/kyma-name';
export const LABEL_PLATFORM_REGION = 'kyma-project.io/platform-region';
export const LABEL_REGION = 'kyma-project.io/region';
/** docs/design.md §1.1: re-render even if the generation did not change (KIM's ConfigReloadWatcher sets it). */
export const ANNOTATION_FORCE_PATCH = 'operator.kyma-project.io/force-patch-reconciliation';
/** docs/design.md §1.1: never touch this Runtime's Shoot; wins over force. */
export const ANNOTATION_SUSPEND_PATCH = 'operator.kyma-project.io/suspend-patch-reconciliation';
/**
 * kimops's note on a forced Runtime whose PR was not merged in the pass that proposed it: the FORCE_PATCH_ANNOTATION
 * value that PR sets. Once main's Shoot has it, the request is answered and both annotations go (generator/force-patch.ts).
 */
export const FORCE_PATCH_PROPOSED_ANNOTATION = 'kimops.kyma-project.io/force-patch-proposed';
/**
 * docs/contracts/runtime-status.md §1 Initialize, §4; docs/contracts/keb-and-gardener-shoot.md §A.4 (Delete, 1.):
 * held until the Shoot is gone.
 */
export const RUNTIME_FINALIZER = 'runtime-controller.infrastructure-manager.kyma-project.io/deletion-hook';
/** The generator's annotation on a Runtime; absent means the generator has nothing to report (all in main). */
export const PIPELINE_ANNOTATION = 'kimops.kyma-project.io/pipeline';
/** Where KEB creates Runtimes; KIM puts the GardenerCluster and the Secret into the Runtime's namespace. */
export const DEFAULT_KCP_NAMESPACE = 'kcp-system';

// ---------------------------------------------------------------------------------------------------------
// Shoots and their companions in the Garden
// ---------------------------------------------------------------------------------------------------------

/** The Garden namespace of a Gardener project, where its Shoots live (Gardener's naming rule). */
export function gardenNamespaceOf(project: string): string {
  return `garden-${project}`;
}

export const ANNOTATION_RUNTIME_ID = 'infrastructuremanager.kyma-project.io/runtime-id';
export const ANNOTATION_RUNTIME_GENERATION = 'infrastructuremanager.kyma-project.io/runtime-generation';
export const ANNOTATION_LICENCE_TYPE = 'infrastructuremanager.kyma-project.io/licence-type';
export const ANNOTATION_EXPERIMENTAL_AUDIT_POLICY = 'operator.kyma-project.io/experimental-audit-policy';
/**
 * In Git, on a Shoot: how many force-patch-reconciliation requests of its Runtime main has taken. Each one raises it,
 * so the Shoot's folder changes and the applier re-applies the whole Shoot, as KIM's forced patch does.
 */
export const FORCE_PATCH_ANNOTATION = 'kimops.kyma-project.io/force-patch';
/** The label the applier puts on every object it manages: what it may delete, and what its mass-deletion guard counts. */
export const OWNERSHIP_LABEL = 'kimops.kyma-project.io/managed-by';
export const OWNERSHIP_VALUE = 'kimops';
/** On a companion: the Shoot it belongs to, so the companions of a deleted Shoot can be found and deleted after it. */
export const COMPANION_OF_LABEL = 'kimops.kyma-project.io/shoot';
/**
 * The commit a Shoot was last applied from, and the git tree of its folder there. Never compared as fields:
 * otherwise every commit would rewrite every Shoot, and a no-op sync must write nothing. The tree tells drift
 * from Git changes (drift.ts); when main changes a Shoot's folder in a way that needs no write to it (only a
 * companion, or only values the live Shoot keeps), the markers alone are moved, once.
 */
export const APPLIED_COMMIT_ANNOTATION = 'kimops.kyma-project.io/applied-commit';
export const APPLIED_TREE_ANNOTATION = 'kimops.kyma-project.io/applied-tree';
/** Gardener's registry-cache extension type (KIM adds it in update mode only). */
export const REGISTRY_CACHE_EXTENSION = 'registry-cache';
/** Gardener's extension types KIM sets from a Runtime (the converter writes them, `kimops import` reads them). */
export const NETWORK_FILTER_EXTENSION = 'shoot-networking-filter';
export const ACL_EXTENSION = 'acl';
export const NVIDIA_OPENSHELL_EXTENSION = 'shoot-nvidia-openshell';
/** The key of the structured-authentication ConfigMap the Shoot's API server reads. */
export const STRUCTURED_AUTH_CONFIG_KEY = 'config.yaml';
/** The Provisioner's annotations on the Shoots it made, before KIM (KIM's runtime-migrator read them). */
export const PROVISIONER_RUNTIME_ID_ANNOTATION = 'kcp.provisioner.kyma-project.io/runtime-id';
export const PROVISIONER_LICENCE_TYPE_ANNOTATION = 'kcp.provisioner.kyma-project.io/licence-type';
/** KEB's Runtime label naming the hyperscaler (examples/runtimes/keb/). */
export const LABEL_PROVIDER = 'kyma-project.io/provider';
/** KIM's Shoot labels carrying the Runtime's global account and subaccount IDs. */
export const SHOOT_LABEL_ACCOUNT = 'account';
export const SHOOT_LABEL_SUBACCOUNT = 'subaccount';
/**
 * The garden Secrets holding a registry cache's credentials, copied from the SKR, are named with this prefix (KIM:
 * `reg-cache-<uuid>`). A Shoot's spec.resources entry whose name holds it is one of them.
 */
export const REGISTRY_CACHE_SECRET_PREFIX = 'reg-cache-';
/**
 * The Shoot folder's subfolder of registry-cache Secret stubs: `shoots/<shoot>/registry-cache/secret-<name>.yaml`,
 * data-less; the applier copies the SKR Secret each names into the garden Secret of its name (docs/skr.md).
 */
export const REGISTRY_CACHE_FOLDER = 'registry-cache';
// KIM's labels and annotations on a registry cache's garden Secret (internal/registrycache/garden_secret_syncer.go).
export const LABEL_REGISTRY_CACHE_ID = 'kyma-project.io/registry-cache-id';
/** KIM marks a replaced (rotated) garden Secret with it, `"true"`; its cleanup deletes such Secrets. */
export const LABEL_REGISTRY_CACHE_DIRTY = 'kyma-project.io/dirty';
export const ANNOTATION_REGISTRY_CACHE_NAME = 'kyma-project.io/registry-cache-name';
export const ANNOTATION_REGISTRY_CACHE_NAMESPACE = 'kyma-project.io/registry-cache-namespace';
/** kimops's, on a stub: the SKR Secret (in the cache's namespace) whose data the garden Secret holds. */
export const ANNOTATION_REGISTRY_CACHE_SOURCE = 'kimops.kyma-project.io/registry-cache-secret';
/**
 * kimops's, on a live Shoot: `<prefix><cache uid>` = the garden Secret the applier created when the SKR's
 * credentials changed (rotation); the generator names it in the Shoot it renders next.
 */
export const REGISTRY_CACHE_ROTATED_ANNOTATION_PREFIX = 'registry-cache.kimops.kyma-project.io/';
/**
 * kimops's, on a live Shoot: the folder tree whose registry-cache/ stubs the applier copied, all of them. Not equal
 * to the folder's tree: the copy is still due (tried again each sync), and RegistryCacheConfigured is not True.
 */
export const REGISTRY_CACHE_SYNCED_TREE_ANNOTATION = 'kimops.kyma-project.io/registry-cache-synced-tree';
/** The field manager of kimops's server-side applies (configurable for a takeover from KIM). */
export const FIELD_MANAGER = 'kimops';
/** KIM's field manager on the Shoots it writes: a hand-back gives it the fields kimops applied (ADR 0011). */
export const KIM_FIELD_MANAGER = 'kim';
/** Gardener refuses a DELETE of a Shoot without it (docs/design.md §1.3). */
export const DELETION_CONFIRMATION_ANNOTATION = 'confirmation.gardener.cloud/deletion';
export const FORCE_DELETION_ANNOTATION = 'confirmation.gardener.cloud/force-deletion';
/** Present while the Shoot's current operation has run past its timeout: what, since when, for how long. */
export const OPERATION_TIMED_OUT_ANNOTATION = 'kimops.kyma-project.io/operation-timed-out';
export const SEED_REGION_LABEL = 'seed.gardener.cloud/region';
export const APPLY_REPORT_NAME = 'kimops-apply-report';
/** Its label, so a watch can select it (the companions' selector does not match it). */
export const APPLY_REPORT_LABEL = 'kimops.kyma-project.io/report';
export const APPLY_REPORT_LABEL_VALUE = 'apply';
export const APPLY_REPORT_SELECTOR = `${APPLY_REPORT_LABEL}=${APPLY_REPORT_LABEL_VALUE}`;

// ---------------------------------------------------------------------------------------------------------
// The kubeconfig KEB reads: GardenerCluster and Secret in the KCP
// ---------------------------------------------------------------------------------------------------------

/** docs/contracts/keb-and-gardener-shoot.md §A.4 (After Ready): `kcp-system/kubeconfig-<runtimeID>`, key `config`. */
export const KUBECONFIG_SECRET_PREFIX = 'kubeconfig-';
export const KUBECONFIG_SECRET_KEY = 'config';
/** The Shoot's `spec.dns.domain`, on the GardenerCluster (Lifecycle Manager's name for it). */
export const ANNOTATION_SKR_DOMAIN = 'skr-domain';
/** On the Secret: when its kubeconfig was fetched, RFC 3339 UTC (KIM's `lastKubeconfigSyncAnnotation`). */
export const ANNOTATION_LAST_SYNC = 'operator.kyma-project.io/last-sync';
/** On the GardenerCluster, any value: rotate now; removed once done (KIM's `forceKubeconfigRotationAnnotation`). */
export const ANNOTATION_FORCE_KUBECONFIG_ROTATION = 'operator.kyma-project.io/force-kubeconfig-rotation';
/** KIM's kubeconfig controller finds the Secret by it; also a column of `kubectl get gardenerclusters`. */
export const LABEL_SHOOT_NAME = 'kyma-project.io/shoot-name';
export const LABEL_MANAGED_BY = 'operator.kyma-project.io/managed-by';
export const LABEL_INTERNAL = 'operator.kyma-project.io/internal';
/** On the Secret: the GardenerCluster's name; KIM deletes the Secret by it once the GardenerCluster is gone. */
export const LABEL_CLUSTER_NAME = 'operator.kyma-project.io/cluster-name';

// ---------------------------------------------------------------------------------------------------------
// Inside the SKR: what KIM puts on every Runtime's cluster (docs/skr.md), applied by kimops's applier
// ---------------------------------------------------------------------------------------------------------

/** The Shoot folder's subfolder of SKR objects: `shoots/<shoot>/skr/<kind>-<name>.yaml`, applied inside the cluster. */
export const SKR_FOLDER = 'skr';
/** KIM's namespace on every SKR (docs/contracts/runtime-status.md §1 CreateKymaNamespace). */
export const KYMA_SYSTEM_NAMESPACE = 'kyma-system';
/** KIM's ConfigMap of facts about the cluster, in kyma-system (§1 ConfigureSKR). */
export const PROVISIONING_INFO_CONFIG_MAP = 'kyma-provisioning-info';
/** The value KIM's two managed-by labels carry on the SKR objects it owns. */
export const MANAGED_BY_KIM = 'infrastructure-manager';
/** KIM's label on the administrators' ClusterRoleBindings and on kyma-provisioning-info. */
export const LABEL_RECONCILER_MANAGED_BY = 'reconciler.kyma-project.io/managed-by';
/** KIM's label on its OpenIDConnect objects (the same key as LABEL_MANAGED_BY). */
export const LABEL_OIDC_MANAGED_BY = 'operator.kyma-project.io/managed-by';
/**
 * On a Shoot: the folder tree (APPLIED_TREE_ANNOTATION's value) whose SKR objects the applier applied to the
 * cluster, all of them. Equal to the applied tree: the SKR is configured as main says.
 */
export const SKR_APPLIED_TREE_ANNOTATION = 'kimops.kyma-project.io/skr-applied-tree';

// ---------------------------------------------------------------------------------------------------------
// The landscape repo and its forge
// ---------------------------------------------------------------------------------------------------------

/** The landscape repo's branch that holds what is approved: the applier syncs it, PRs merge into it. */
export const MAIN_BRANCH = 'main';
/** Every branch kimops opens a pull request from starts with it; a pass finds its own PRs by it. */
export const BRANCH_PREFIX = 'kimops/';

/** The branch of a Shoot's own pull request. */
export function branchOf(landscape: string, shoot: string): string {
  return `${BRANCH_PREFIX}${landscape}/${shoot}`;
}

/** Apart from the Shoots' branches, so no Shoot name can collide with a rollout's. */
export function rolloutBranchOf(landscape: string, name: string): string {
  return `${BRANCH_PREFIX}${landscape}-rollout/${name}`;
}

/**
 * `kimops bootstrap`'s one branch: apart from the Shoots' branches and the rollouts' (a pass never closes its PR as
 * stale), and looked for by every generator pass while main holds no Shoot (generator/generate.ts).
 */
export function bootstrapBranchOf(landscape: string): string {
  return `${BRANCH_PREFIX}${landscape}-bootstrap`;
}

/** Every label kimops sets on a pull request starts with it (its change class); a label without it is a human's. */
export const PR_LABEL_PREFIX = 'kimops:';
/** The folder of the Shoots in a landscape repo: `shoots/<shoot>/shoot.yaml` and its companions beside it. */
export const SHOOTS_FOLDER = 'shoots';
export const SHOOT_FILE = 'shoot.yaml';
/** The commit status context kimops reports its validation under (the landscape repo's CI uses the same). */
export const VALIDATE_CONTEXT = 'kimops/validate';
/** The commit status the applier sets on each merge commit it syncs (pending → success/failure). */
export const APPLY_STATUS_CONTEXT = 'kimops/apply';
/** The marker of the applier's one comment per PR (adapters/forge/forge.ts stickyTag), found again after a restart. */
export const APPLY_COMMENT_MARKER = 'apply';

// ---------------------------------------------------------------------------------------------------------
// Policies exported as ValidatingAdmissionPolicies
// ---------------------------------------------------------------------------------------------------------

/** kimops's metadata on a policy, as annotations so the object stays a valid VAP. */
export const ANNOTATION_SEVERITY = 'kimops.kyma-project.io/severity';
export const ANNOTATION_LANDSCAPES = 'kimops.kyma-project.io/landscapes';
export const ANNOTATION_DESCRIPTION = 'kimops.kyma-project.io/description';
/** The ConfigMap every binding's paramRef names, in the landscape's project namespace. */
export const PARAMS_CONFIG_MAP = 'kimops-policy-params';
export const LABEL_LANDSCAPE = 'kimops.kyma-project.io/landscape';
/** Kubernetes' recommended label, on the exported policies and bindings. */
export const LABEL_APP_MANAGED_BY = 'app.kubernetes.io/managed-by';
/** Set by kube-apiserver on every namespace; lets a binding select one namespace by name. */
export const NAMESPACE_NAME_LABEL = 'kubernetes.io/metadata.name';
