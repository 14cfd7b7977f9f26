// Per-test isolation on the shared plane: a fresh Gardener Project (with the bindings, Secrets and
// ConfigMaps a landscape's Shoots reference) or a fresh KCP namespace, removed again afterwards.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll } from 'vitest';
import type { KubeClient } from '../../adapters/kube/kube-client.js';
import { describeFailure } from '../../model/kube-result.js';
import type { KubeObject } from '../../model/kube-object.js';
import type { ConversionSettings } from '../../model/landscape.js';
import { gardenSeedObjects, loadGardenSeedInput } from '../../scripts/testenv/garden-seed.js';
import { DELETION_CONFIRMATION, landscapeSettings } from './shoots.js';
import type { TempDir } from './temp-dir.js';
import type { Testenv } from './testenv.js';

/** Kinds a project namespace holds for a landscape's Shoots to be admitted. */
const PROJECT_CONTENT = new Set(['Secret', 'ConfigMap', 'SecretBinding', 'CredentialsBinding']);

export interface TestProject {
  /** The landscape's settings, pointed at this project. */
  settings: ConversionSettings;
  namespace: string;
  /** Confirms and deletes the Project (its namespace stays: no namespace controller runs here). */
  remove(): Promise<void>;
}

/** Gardener allows 10 characters for a project name. */
function uniqueName(prefix: string, length = 10): string {
  return `${prefix}${randomBytes(8).toString('hex')}`.slice(0, length);
}

async function applyEach(client: KubeClient, objects: KubeObject[]): Promise<void> {
  for (const object of objects) {
    const result = await client.apply(object, 'kimops-test', { force: true });
    if (!result.ok) throw new Error(`${object.kind} ${object.metadata.name}: ${describeFailure(result)}`);
  }
}

/** A new Project for the landscape, holding copies of what the seeded landscape project holds. */
export async function createTestProject(env: Testenv, landscape: string): Promise<TestProject> {
  const base = landscapeSettings(landscape);
  // Short: Gardener allows 21 characters for project and Shoot name together.
  const project = uniqueName('t', 6);
  const namespace = `garden-${project}`;
  const seeded = `garden-${base.config.gardener?.projectName ?? ''}`;
  const content = gardenSeedObjects(loadGardenSeedInput())
    .filter((o) => o.metadata.namespace === seeded && PROJECT_CONTENT.has(o.kind))
    .map((o) => retarget(o, namespace));
  await applyEach(env.garden, [
    {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: {
        name: namespace,
        labels: { 'gardener.cloud/role': 'project', 'project.gardener.cloud/name': project },
      },
    },
    {
      apiVersion: 'core.gardener.cloud/v1beta1',
      kind: 'Project',
      metadata: { name: project },
      spec: { namespace, tolerations: { whitelist: [{ key: 'ksa-assured-workload' }] } },
    },
    ...content.filter((o) => o.kind === 'Secret' || o.kind === 'ConfigMap'),
    ...content.filter((o) => o.kind !== 'Secret' && o.kind !== 'ConfigMap'),
  ]);
  return {
    settings: { ...base, config: { ...base.config, gardener: { ...base.config.gardener, projectName: project } } },
    namespace,
    async remove() {
      // Its Shoots first, while the Project exists: gardener-apiserver refuses every write to a Shoot whose
      // Project is gone, so a Shoot left behind would stay for good and fail the gardenlet simulator of every
      // later test run on this plane (it reconciles every Shoot it can see).
      const shoots = await env.garden.listAll({ apiVersion: 'core.gardener.cloud/v1beta1', kind: 'Shoot', namespace });
      for (const shoot of shoots.ok ? shoots.items : []) {
        const shootRef = {
          apiVersion: 'core.gardener.cloud/v1beta1',
          kind: 'Shoot',
          namespace,
          name: shoot.metadata.name,
        };
        await env.garden.patch(shootRef, {
          metadata: { finalizers: null, annotations: { [DELETION_CONFIRMATION]: 'true' } },
        });
        await env.garden.delete(shootRef);
      }
      const ref = { apiVersion: 'core.gardener.cloud/v1beta1', kind: 'Project', name: project };
      await env.garden.patch(ref, { metadata: { annotations: { [DELETION_CONFIRMATION]: 'true' } } });
      await env.garden.delete(ref);
    },
  };
}

/**
 * A Project for the calling test file, created before its tests and removed after them. Read
 * `settings` and `namespace` inside tests or hooks (they are set once beforeAll has run).
 */
export function useTestProject(
  env: Testenv,
  landscape: string,
): { readonly settings: ConversionSettings; readonly namespace: string } {
  let project: TestProject | undefined;
  beforeAll(async () => {
    project = await createTestProject(env, landscape);
  });
  afterAll(() => project?.remove());
  const current = () => {
    if (!project) throw new Error('useTestProject: read settings and namespace inside tests or hooks');
    return project;
  };
  return {
    get settings() {
      return current().settings;
    },
    get namespace() {
      return current().namespace;
    },
  };
}

/** A copy of a namespaced seed object in another namespace (references to Secrets follow it). */
function retarget(object: KubeObject, namespace: string): KubeObject {
  const copy = structuredClone(object) as KubeObject & {
    secretRef?: { namespace: string };
    credentialsRef?: { namespace: string };
  };
  copy.metadata = { ...copy.metadata, namespace };
  if (copy.secretRef) copy.secretRef.namespace = namespace;
  if (copy.credentialsRef) copy.credentialsRef.namespace = namespace;
  return copy;
}

/** A new namespace on the KCP side, e.g. for a test's Runtimes. */
export async function createTestNamespace(kcp: KubeClient, prefix = 'kcp-test-'): Promise<string> {
  const name = uniqueName(prefix, prefix.length + 8);
  await applyEach(kcp, [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }]);
  return name;
}

/**
 * A landscape folder for a test project: the shipped landscape's file with its Gardener project replaced,
 * so `kimops … --landscape <folder>` writes into the project the test owns. Returns the file's path.
 */
export async function landscapeForProject(
  dir: TempDir,
  folder: string,
  landscape: string,
  project: { readonly namespace: string },
): Promise<string> {
  const shipped = readFileSync(`landscapes/${landscape}/landscape.yaml`, 'utf8');
  const replaced = shipped.replace(/^(\s+project:) \S+$/m, `$1 ${project.namespace.slice('garden-'.length)}`);
  if (replaced === shipped)
    throw new Error(`landscapes/${landscape}/landscape.yaml names no gardener project to replace`);
  return dir.write(`${folder}/landscape.yaml`, replaced);
}
