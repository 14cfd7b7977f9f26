// deploy/ on the test control plane: its kustomizations rendered by the plane's kimops-kustomize
// (scripts/testenv/kustomize), moved into a test's own namespaces, server-side applied, and kubeconfigs for the
// ServiceAccounts they create, with tokens from the TokenRequest API.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { CONTENT_TYPE, type KubeClient } from '../../adapters/kube/kube-client.js';
import type { KubeObject } from '../../model/kube-object.js';
import { describeFailure } from '../../model/kube-result.js';
import { packagePath } from '../../model/package-root.js';

const FIELD_MANAGER = 'kimops-deploy-test';

/** The REST paths of every kind deploy/ holds (adapters/kube/resources.ts knows only what kimops itself calls). */
const KINDS: Record<string, { plural: string; namespaced: boolean }> = {
  Namespace: { plural: 'namespaces', namespaced: false },
  ServiceAccount: { plural: 'serviceaccounts', namespaced: true },
  ConfigMap: { plural: 'configmaps', namespaced: true },
  Service: { plural: 'services', namespaced: true },
  Deployment: { plural: 'deployments', namespaced: true },
  Role: { plural: 'roles', namespaced: true },
  RoleBinding: { plural: 'rolebindings', namespaced: true },
  ClusterRole: { plural: 'clusterroles', namespaced: false },
  ClusterRoleBinding: { plural: 'clusterrolebindings', namespaced: false },
  NetworkPolicy: { plural: 'networkpolicies', namespaced: true },
  ServiceMonitor: { plural: 'servicemonitors', namespaced: true },
  PrometheusRule: { plural: 'prometheusrules', namespaced: true },
  CustomResourceDefinition: { plural: 'customresourcedefinitions', namespaced: false },
  Lease: { plural: 'leases', namespaced: true },
};

export function objectPath(object: Pick<KubeObject, 'apiVersion' | 'kind' | 'metadata'>): string {
  const type = KINDS[object.kind];
  if (!type) throw new Error(`test/helpers/deploy.ts does not know the kind ${object.kind}; add it to KINDS`);
  const root = object.apiVersion.includes('/') ? `/apis/${object.apiVersion}` : `/api/${object.apiVersion}`;
  const namespace = type.namespaced ? `/namespaces/${object.metadata.namespace ?? ''}` : '';
  return `${root}${namespace}/${type.plural}/${object.metadata.name ?? ''}`;
}

/** The bin dir of the current pins, as build.sh computes it; kimops-kustomize is built there with the plane. */
function kustomizeBinary(): string {
  const script = packagePath('scripts', 'testenv', 'build.sh');
  const bin = join(execFileSync('bash', [script, '--bin-dir'], { encoding: 'utf8' }).trim(), 'kimops-kustomize');
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run npm run testenv:build`);
  return bin;
}

/** `kustomize build <dir>`, parsed. */
export function kustomizeBuild(dir: string): KubeObject[] {
  const output = execFileSync(kustomizeBinary(), [dir], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return parseAllDocuments(output).map((document) => document.toJSON() as KubeObject);
}

/**
 * The same objects in other namespaces (`moves`: old name → new name), so that tests running side by side do not
 * share them: each object's namespace, a Namespace's own name, and the namespace of RBAC subjects and of a
 * ServiceMonitor's namespaceSelector. Nothing else changes: rules, roleRefs and names stay the manifests' own.
 */
export function retarget(objects: KubeObject[], moves: Record<string, string>): KubeObject[] {
  const moved = (name: string | undefined) => (name !== undefined && moves[name]) || name;
  return objects.map((original) => {
    const object = structuredClone(original) as KubeObject & {
      subjects?: { namespace?: string }[];
      spec?: { namespaceSelector?: { matchNames?: string[] } };
    };
    if (object.kind === 'Namespace') object.metadata.name = moved(object.metadata.name) as string;
    if (object.metadata.namespace !== undefined) object.metadata.namespace = moved(object.metadata.namespace);
    for (const subject of object.subjects ?? []) subject.namespace = moved(subject.namespace);
    const selector = object.kind === 'ServiceMonitor' ? object.spec?.namespaceSelector : undefined;
    if (selector?.matchNames) selector.matchNames = selector.matchNames.map((name) => moved(name) as string);
    return object;
  });
}

/** Server-side apply of each object in order (Namespaces first), as FIELD_MANAGER; throws naming the one refused. */
export async function applyAll(client: KubeClient, objects: KubeObject[]): Promise<void> {
  const ordered = [...objects].sort((a, b) => Number(b.kind === 'Namespace') - Number(a.kind === 'Namespace'));
  for (const object of ordered) {
    const result = await client.request<KubeObject>('PATCH', objectPath(object), {
      body: object,
      contentType: CONTENT_TYPE.apply,
      query: { fieldManager: FIELD_MANAGER, force: 'true' },
    });
    if (!result.ok)
      throw new Error(
        `${object.kind} ${object.metadata.namespace ?? ''}/${object.metadata.name}: ${describeFailure(result)}`,
      );
  }
}

/** A token for a ServiceAccount from the TokenRequest API (what a kubelet mounts into a Pod). */
export async function serviceAccountToken(client: KubeClient, namespace: string, name: string): Promise<string> {
  const result = await client.request<{ status?: { token?: string } }>(
    'POST',
    `/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`,
    { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } } },
  );
  if (!result.ok) throw new Error(`token for ServiceAccount ${namespace}/${name}: ${describeFailure(result)}`);
  const token = result.body.status?.token;
  if (!token) throw new Error(`token for ServiceAccount ${namespace}/${name}: the answer holds none`);
  return token;
}

/** Writes a kubeconfig with `token` for the cluster of the admin kubeconfig `like` (its server and CA). */
export function tokenKubeconfig(path: string, like: string, token: string): string {
  const admin = parseAllDocuments(readFileSync(like, 'utf8'))[0]?.toJSON() as {
    clusters: { cluster: { server: string; 'certificate-authority-data': string } }[];
  };
  const cluster = admin.clusters[0]?.cluster;
  if (!cluster) throw new Error(`${like} names no cluster`);
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: 'plane',
        cluster: { server: cluster.server, 'certificate-authority-data': cluster['certificate-authority-data'] },
      },
    ],
    users: [{ name: 'token', user: { token } }],
    contexts: [{ name: 'token', context: { cluster: 'plane', user: 'token' } }],
    'current-context': 'token',
  };
  writeFileSync(path, JSON.stringify(config, null, 2), { mode: 0o600 });
  return path;
}

/** Whether the identity of `client` may do `verb` on the resource (a SelfSubjectAccessReview). */
export async function mayI(
  client: KubeClient,
  attributes: {
    verb: string;
    group: string;
    resource: string;
    namespace?: string;
    name?: string;
    subresource?: string;
  },
): Promise<boolean> {
  const result = await client.request<{ status?: { allowed?: boolean } }>(
    'POST',
    '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
    {
      body: {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SelfSubjectAccessReview',
        spec: { resourceAttributes: attributes },
      },
    },
  );
  if (!result.ok) throw new Error(`SelfSubjectAccessReview: ${describeFailure(result)}`);
  return result.body.status?.allowed === true;
}
