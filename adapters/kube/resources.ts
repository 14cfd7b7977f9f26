// REST paths of the kinds kimops reads and writes. A fixed table rather than discovery: kimops
// talks to a known set of APIs, and a typo in a kind should fail loudly, not trigger a lookup.

export interface ResourceType {
  apiVersion: string;
  kind: string;
  plural: string;
  namespaced: boolean;
}

const TYPES: ResourceType[] = [
  { apiVersion: 'v1', kind: 'Namespace', plural: 'namespaces', namespaced: false },
  { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true },
  { apiVersion: 'v1', kind: 'Secret', plural: 'secrets', namespaced: true },
  { apiVersion: 'v1', kind: 'Event', plural: 'events', namespaced: true },
  {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    plural: 'customresourcedefinitions',
    namespaced: false,
  },
  { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', plural: 'apiservices', namespaced: false },
  {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    plural: 'clusterrolebindings',
    namespaced: false,
  },
  // Gardener's OIDC webhook authenticator, inside a Shoot (the SKR objects the applier applies).
  {
    apiVersion: 'authentication.gardener.cloud/v1alpha1',
    kind: 'OpenIDConnect',
    plural: 'openidconnects',
    namespaced: false,
  },
  { apiVersion: 'infrastructuremanager.kyma-project.io/v1', kind: 'Runtime', plural: 'runtimes', namespaced: true },
  {
    apiVersion: 'infrastructuremanager.kyma-project.io/v1',
    kind: 'GardenerCluster',
    plural: 'gardenerclusters',
    namespaced: true,
  },
  // KALM's dedicated audit-log pool on the KCP (model/audit-log.ts).
  { apiVersion: 'auditlogmanager.kyma-project.io/v1beta1', kind: 'AuditLog', plural: 'auditlogs', namespaced: true },
  { apiVersion: 'core.gardener.cloud/v1beta1', kind: 'Shoot', plural: 'shoots', namespaced: true },
  { apiVersion: 'core.gardener.cloud/v1beta1', kind: 'Project', plural: 'projects', namespaced: false },
  { apiVersion: 'core.gardener.cloud/v1beta1', kind: 'CloudProfile', plural: 'cloudprofiles', namespaced: false },
  { apiVersion: 'core.gardener.cloud/v1beta1', kind: 'Seed', plural: 'seeds', namespaced: false },
  { apiVersion: 'core.gardener.cloud/v1beta1', kind: 'SecretBinding', plural: 'secretbindings', namespaced: true },
  { apiVersion: 'core.gardener.cloud/v1beta1', kind: 'ExposureClass', plural: 'exposureclasses', namespaced: false },
  {
    apiVersion: 'core.gardener.cloud/v1beta1',
    kind: 'ControllerRegistration',
    plural: 'controllerregistrations',
    namespaced: false,
  },
  {
    apiVersion: 'core.gardener.cloud/v1beta1',
    kind: 'ControllerDeployment',
    plural: 'controllerdeployments',
    namespaced: false,
  },
  {
    apiVersion: 'core.gardener.cloud/v1',
    kind: 'ControllerDeployment',
    plural: 'controllerdeployments',
    namespaced: false,
  },
  { apiVersion: 'core.gardener.cloud/v1beta1', kind: 'Quota', plural: 'quotas', namespaced: true },
  { apiVersion: 'core.gardener.cloud/v1beta1', kind: 'InternalSecret', plural: 'internalsecrets', namespaced: true },
  {
    apiVersion: 'security.gardener.cloud/v1alpha1',
    kind: 'CredentialsBinding',
    plural: 'credentialsbindings',
    namespaced: true,
  },
];

export function resourceType(apiVersion: string, kind: string): ResourceType {
  const type = TYPES.find((t) => t.apiVersion === apiVersion && t.kind === kind);
  if (!type)
    throw new Error(`kimops does not know the resource ${kind} (${apiVersion}); add it to adapters/kube/resources.ts`);
  return type;
}

export interface ObjectRef {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name?: string;
}

/** `/api/v1/namespaces/ns/configmaps/name[/subresource]`, `/apis/group/version/...` */
export function resourcePath(ref: ObjectRef, subresource?: string): string {
  const type = resourceType(ref.apiVersion, ref.kind);
  const root = ref.apiVersion.includes('/') ? `/apis/${ref.apiVersion}` : `/api/${ref.apiVersion}`;
  if (type.namespaced && !ref.namespace && ref.name) throw new Error(`${ref.kind} ${ref.name} needs a namespace`);
  const namespace = type.namespaced && ref.namespace ? `/namespaces/${encodeURIComponent(ref.namespace)}` : '';
  const name = ref.name ? `/${encodeURIComponent(ref.name)}` : '';
  return `${root}${namespace}/${type.plural}${name}${subresource ? `/${subresource}` : ''}`;
}
