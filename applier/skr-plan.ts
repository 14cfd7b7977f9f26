// What the applier puts inside a Shoot's own cluster (the SKR), as KIM configures every Runtime's cluster
// (docs/skr.md): the objects a Shoot folder may hold under skr/, when a Shoot's SKR is due, the steps in KIM's
// order, and which live objects are pruned. Pure: objects in, decisions out; skr-sync.ts does the requests.
import {
  APPLIED_TREE_ANNOTATION,
  KYMA_SYSTEM_NAMESPACE,
  LABEL_OIDC_MANAGED_BY,
  LABEL_RECONCILER_MANAGED_BY,
  MANAGED_BY_KIM,
  PROVISIONING_INFO_CONFIG_MAP,
  SKR_APPLIED_TREE_ANNOTATION,
} from '../model/contract.js';
import { isJsonObject } from '../model/json.js';
import type { KubeObject } from '../model/kube-object.js';
import type { SkrStep } from '../model/pipeline-facts.js';
import type { ConfigMap, Shoot } from '../model/shoot.js';
import { shootHealth } from '../rules/shoot-health.js';
import { PROVISIONING_DETAILS_KEY, withLiveDetails, type LiveDetails } from '../rules/provisioning-info.js';

/** An object of a Shoot folder's skr/: `shoots/<shoot>/skr/<kind>-<name>.yaml`. */
export interface SkrObject {
  path: string;
  object: KubeObject;
}

const RBAC_GROUP = 'rbac.authorization.k8s.io';
const CLUSTER_ADMIN = 'cluster-admin';

/** The kinds skr/ may hold, in the order KIM configures them, each with its step. */
const SKR_KINDS: readonly { apiVersion: string; kind: string; step: SkrStep }[] = [
  { apiVersion: 'v1', kind: 'Namespace', step: 'namespace' },
  { apiVersion: 'v1', kind: 'ConfigMap', step: 'provisioning-info' },
  { apiVersion: 'authentication.gardener.cloud/v1alpha1', kind: 'OpenIDConnect', step: 'oidc' },
  { apiVersion: `${RBAC_GROUP}/v1`, kind: 'ClusterRoleBinding', step: 'administrators' },
];

const OIDC_TYPE = SKR_KINDS[2] as { apiVersion: string; kind: string };
const BINDING_TYPE = SKR_KINDS[3] as { apiVersion: string; kind: string };

/** The labels that mark KIM's own objects on an SKR: what the applier may prune (docs/contracts/runtime-status.md §1). */
const OIDC_SELECTOR = `${LABEL_OIDC_MANAGED_BY}=${MANAGED_BY_KIM}`;
const BINDING_SELECTOR = `${LABEL_RECONCILER_MANAGED_BY}=${MANAGED_BY_KIM}`;

/**
 * Why `value` cannot be applied to the SKR, or undefined. Only what KIM puts there, and only in a form the applier
 * can take back: the kyma-system Namespace, the kyma-provisioning-info ConfigMap (both never pruned, as KIM never
 * deletes them), and OpenIDConnects and administrators' cluster-admin bindings carrying KIM's label (pruned by it
 * once they leave Git).
 */
export function skrObjectProblem(value: unknown): { field: string; detail: string } | undefined {
  const kinds = SKR_KINDS.map((k) => `${k.apiVersion} ${k.kind}`).join(', ');
  const type = isJsonObject(value)
    ? SKR_KINDS.find((k) => k.apiVersion === value.apiVersion && k.kind === value.kind)
    : undefined;
  if (!type || !isJsonObject(value))
    return { field: 'kind', detail: `must be one of ${kinds}: kimops applies nothing else inside the cluster` };
  const metadata = isJsonObject(value.metadata) ? value.metadata : {};
  const name = metadata.name;
  if (typeof name !== 'string' || name === '') return { field: 'metadata.name', detail: 'is missing' };
  const labels = isJsonObject(metadata.labels) ? metadata.labels : {};
  switch (type.step) {
    case 'namespace':
      return name === KYMA_SYSTEM_NAMESPACE
        ? clusterScoped(metadata)
        : { field: 'metadata.name', detail: `must be ${KYMA_SYSTEM_NAMESPACE}: the one Namespace KIM creates` };
    case 'provisioning-info':
      if (name !== PROVISIONING_INFO_CONFIG_MAP || metadata.namespace !== KYMA_SYSTEM_NAMESPACE)
        return {
          field: 'metadata',
          detail: `must name ${KYMA_SYSTEM_NAMESPACE}/${PROVISIONING_INFO_CONFIG_MAP}: the one ConfigMap KIM writes`,
        };
      return isJsonObject(value.data) && typeof value.data[PROVISIONING_DETAILS_KEY] === 'string'
        ? undefined
        : { field: `data.${PROVISIONING_DETAILS_KEY}`, detail: 'is missing: it holds the provisioning details' };
    case 'oidc':
      return labels[LABEL_OIDC_MANAGED_BY] === MANAGED_BY_KIM
        ? clusterScoped(metadata)
        : unlabelled(LABEL_OIDC_MANAGED_BY);
    case 'administrators':
      if (labels[LABEL_RECONCILER_MANAGED_BY] !== MANAGED_BY_KIM) return unlabelled(LABEL_RECONCILER_MANAGED_BY);
      return isAdministratorBinding(value as KubeObject)
        ? clusterScoped(metadata)
        : {
            field: 'roleRef',
            detail: `must bind User subjects to the ClusterRole ${CLUSTER_ADMIN}: kimops applies only the administrators' bindings`,
          };
  }
}

function clusterScoped(metadata: Record<string, unknown>): { field: string; detail: string } | undefined {
  return metadata.namespace === undefined
    ? undefined
    : { field: 'metadata.namespace', detail: 'is set, but the kind is cluster-scoped: remove it' };
}

function unlabelled(label: string): { field: string; detail: string } {
  return {
    field: `metadata.labels`,
    detail: `must carry ${label}: ${MANAGED_BY_KIM}, or kimops could not remove it once it leaves Git`,
  };
}

/** KIM's administrator binding: cluster-admin for at least one User (KIM's getRemoved looks at nothing else). */
function isAdministratorBinding(binding: KubeObject): boolean {
  const roleRef = isJsonObject(binding.roleRef) ? binding.roleRef : {};
  const subjects = Array.isArray(binding.subjects) ? (binding.subjects as unknown[]) : [];
  return (
    roleRef.kind === 'ClusterRole' &&
    roleRef.name === CLUSTER_ADMIN &&
    subjects.some((subject) => isJsonObject(subject) && subject.kind === 'User')
  );
}

/** What a sync knows of one Shoot when it decides whether to configure its SKR. */
export interface SkrCandidate {
  shoot: string;
  /** The Shoot folder's git tree in the synced commit. */
  tree: string | undefined;
  live: Shoot | undefined;
  /** The folder holds SKR objects: a folder without skr/ (rendered before kimops wrote one) is left alone. */
  hasSkr: boolean;
  /**
   * What this sync wrote to the Shoot: its spec (Gardener reconciles it next, so its SKR waits for that), only its
   * markers (then the applied tree is `tree` now), or nothing (a failed write included).
   */
  written: 'shoot' | 'markers' | 'nothing';
}

/**
 * The SKR is configured once Gardener has reconciled the folder's tree: the Shoot exists, is not being deleted, is
 * healthy (its last operation Succeeded at its newest generation) and awake, was applied from this tree, and its
 * SKR was not. A hibernated cluster's API server is down: its SKR waits until it wakes up (a reconcile), rather
 * than cost the sync a request that nobody answers.
 */
export function skrDue(candidate: SkrCandidate): boolean {
  const { live, tree } = candidate;
  if (!live || !tree || !candidate.hasSkr || candidate.written === 'shoot' || live.metadata.deletionTimestamp)
    return false;
  const annotations = live.metadata.annotations ?? {};
  const appliedTree = candidate.written === 'markers' ? tree : annotations[APPLIED_TREE_ANNOTATION];
  return appliedTree === tree && annotations[SKR_APPLIED_TREE_ANNOTATION] !== tree && skrReady(live);
}

/**
 * A watching applier's cue that a Shoot's SKR may have become due (its reconcile just ended): then it syncs at
 * once rather than at its next interval. Without the folder's tree it cannot tell more: the sync decides.
 */
export function skrMayBeDue(live: Shoot): boolean {
  const annotations = live.metadata.annotations ?? {};
  const appliedTree = annotations[APPLIED_TREE_ANNOTATION];
  return (
    !live.metadata.deletionTimestamp &&
    appliedTree !== undefined &&
    annotations[SKR_APPLIED_TREE_ANNOTATION] !== appliedTree &&
    skrReady(live)
  );
}

function skrReady(live: Shoot): boolean {
  const hibernation = live.spec.hibernation;
  return shootHealth(live).state === 'healthy' && !(isJsonObject(hibernation) && hibernation.enabled === true);
}

/** The Shoot's last reconcile, as KIM writes it into kyma-provisioning-info. */
export function lastReconcileTime(live: Shoot): string | undefined {
  return live.status?.lastOperation?.lastUpdateTime;
}

/** Objects of one step that the applier prunes: KIM's, by its label, that Git no longer holds. */
interface Prune {
  type: { apiVersion: string; kind: string };
  labelSelector: string;
  /** Of the listed objects, those to delete. */
  removed(listed: readonly KubeObject[]): KubeObject[];
}

export interface SkrStepPlan {
  step: SkrStep;
  /** Server-side applied in this order. */
  apply: KubeObject[];
  /** After the applies succeeded. */
  prune?: Prune;
}

/**
 * The steps in KIM's order — Namespace, kyma-provisioning-info, OpenIDConnects, administrators' bindings — each
 * applying its objects (sorted by path) and then pruning; a step with nothing to apply or prune is left out.
 * kyma-provisioning-info is applied with its live fields filled in (withLiveFields), read when its step comes.
 */
export function skrSteps(objects: readonly SkrObject[]): SkrStepPlan[] {
  const sorted = [...objects].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const of = (step: SkrStep) => sorted.map((o) => o.object).filter((object) => stepOf(object) === step);
  const namesOf = (step: SkrStep) => new Set(of(step).map((object) => object.metadata.name));
  const steps: SkrStepPlan[] = [
    { step: 'namespace', apply: of('namespace') },
    { step: 'provisioning-info', apply: of('provisioning-info') },
    { step: 'oidc', apply: of('oidc'), prune: prune(OIDC_TYPE, OIDC_SELECTOR, removedOpenIdConnects, namesOf('oidc')) },
    {
      step: 'administrators',
      apply: of('administrators'),
      prune: prune(BINDING_TYPE, BINDING_SELECTOR, removedBindings, namesOf('administrators')),
    },
  ];
  return steps.filter((step) => step.apply.length > 0 || step.prune);
}

/**
 * kyma-provisioning-info as applied: Git's, with the fields only the live Shoot and its Seed know. Throws
 * ConfigError when Git's details are not a YAML map.
 */
export function withLiveFields(configMaps: readonly KubeObject[], details: LiveDetails): KubeObject[] {
  return configMaps.map((configMap) => withLiveDetails(configMap as ConfigMap, details));
}

function stepOf(object: KubeObject): SkrStep | undefined {
  return SKR_KINDS.find((k) => k.apiVersion === object.apiVersion && k.kind === object.kind)?.step;
}

function prune(
  type: { apiVersion: string; kind: string },
  labelSelector: string,
  rule: (listed: readonly KubeObject[], desired: ReadonlySet<string>) => KubeObject[],
  desired: ReadonlySet<string>,
): Prune {
  return { type, labelSelector, removed: (listed) => rule(listed, desired) };
}

/** KIM's OpenIDConnects (by its label) that Git no longer holds: KIM deletes all of them and creates Git's again. */
export function removedOpenIdConnects(listed: readonly KubeObject[], desired: ReadonlySet<string>): KubeObject[] {
  return listed.filter(
    (object) =>
      object.metadata.labels?.[LABEL_OIDC_MANAGED_BY] === MANAGED_BY_KIM && !desired.has(object.metadata.name),
  );
}

/**
 * KIM's getRemoved, with kimops's stable names: a binding carrying KIM's label that gives cluster-admin to Users and
 * is not one of Git's. That removes a removed administrator's binding, and also KIM's own `admin-<random>` binding
 * of an administrator still there, whose binding under kimops's name has just been applied. Bindings without the
 * label, of another role, or of groups and service accounts only are never touched. (KIM's check of the role would
 * also take a labelled binding of any other ClusterRole; kimops stays with cluster-admin.)
 */
export function removedBindings(listed: readonly KubeObject[], desired: ReadonlySet<string>): KubeObject[] {
  return listed.filter(
    (binding) =>
      binding.metadata.labels?.[LABEL_RECONCILER_MANAGED_BY] === MANAGED_BY_KIM &&
      isAdministratorBinding(binding) &&
      !desired.has(binding.metadata.name),
  );
}
