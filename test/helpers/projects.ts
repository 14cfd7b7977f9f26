// Per-test isolation on the shared plane: a fresh Gardener Project (with the bindings, Secrets and
// ConfigMaps a landscape's Shoots reference) or a fresh KCP namespace, removed again afterwards.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll } from 'vitest';
import { CONTENT_TYPE, type KubeClient } from '../../adapters/kube/kube-client.js';
import { describeFailure } from '../../model/kube-result.js';
import type { KubeObject } from '../../model/kube-object.js';
import type { ConversionSettings } from '../../model/landscape.js';
import { gardenSeedObjects, loadGardenSeedInput } from '../../scripts/testenv/garden-seed.js';
import { GARDENER_FINALIZER, operation } from './gardenlet-simulator.js';
import { DELETION_CONFIRMATION, deleteShoot, landscapeSettings } from './shoots.js';
import type { TempDir } from './temp-dir.js';
import type { Testenv } from './testenv.js';

/** Kinds a project namespace holds for a landscape's Shoots to be admitted. */
const PROJECT_CONTENT = new Set(['Secret', 'ConfigMap', 'SecretBinding', 'CredentialsBinding']);

export interface TestProject {
  /** The landscape's settings, pointed at this project. */
  settings: ConversionSettings;
  namespace: string;
  /**
   * Deletes its Shoots, then confirms and deletes the Project (its namespace stays: no namespace controller
   * runs here). Throws naming every Shoot it could not delete, and keeps the Project then.
   */
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

const SHOOT = { apiVersion: 'core.gardener.cloud/v1beta1', kind: 'Shoot' } as const;
/** Another test file's gardenlet simulator (it sees every Shoot on the plane) may write the Shoot in between. */
const CONFLICT_RETRIES = 5;

/**
 * Deletes a Shoot in Gardener's order, playing gardenlet's part: confirm and DELETE it, report the Delete
 * Succeeded, then drop the `gardener` finalizer. gardener-apiserver refuses that finalizer's removal before
 * the report, and refuses a patch that carries it together with the confirmation as a whole. Every failure
 * throws naming the Shoot: a test must not leave it behind unnoticed.
 */
async function removeShoot(garden: KubeClient, namespace: string, name: string): Promise<void> {
  const ref = { ...SHOOT, namespace, name };
  const fail = (step: string, failure: string) => new Error(`remove Shoot ${namespace}/${name}: ${step}: ${failure}`);
  await deleteShoot(garden, namespace, name);
  const reported = await garden.patch(
    ref,
    { status: { lastOperation: operation('Delete', 'Succeeded', 100), lastErrors: null } },
    CONTENT_TYPE.mergePatch,
    'status',
  );
  if (!reported.ok && reported.status !== 404) throw fail('report Delete Succeeded', describeFailure(reported));
  for (let attempt = 1; ; attempt++) {
    const live = await garden.get<KubeObject & { metadata: { finalizers?: string[] } }>(ref);
    if (!live.ok && live.status === 404) return;
    if (!live.ok) throw fail('read it', describeFailure(live));
    const finalizers = live.body.metadata.finalizers ?? [];
    if (!finalizers.includes(GARDENER_FINALIZER))
      throw fail('still there', `finalizers ${JSON.stringify(finalizers)} hold it, none of them Gardener's`);
    const dropped = await garden.patch(ref, {
      metadata: {
        finalizers: finalizers.filter((f) => f !== GARDENER_FINALIZER),
        resourceVersion: live.body.metadata.resourceVersion,
      },
    });
    if (dropped.ok || dropped.status === 404) break;
    if (dropped.status !== 409 || attempt >= CONFLICT_RETRIES)
      throw fail(`drop the ${GARDENER_FINALIZER} finalizer`, describeFailure(dropped));
  }
  const after = await garden.get(ref);
  if (after.ok) throw fail('still there', `finalizers ${JSON.stringify(after.body.metadata.finalizers ?? [])}`);
  if (after.status !== 404) throw fail('check it is gone', describeFailure(after));
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
      const shoots = await env.garden.listAll({ ...SHOOT, namespace });
      if (!shoots.ok) throw new Error(`remove Project ${project}: list its Shoots: ${shoots.message}`);
      const failures: string[] = [];
      for (const shoot of shoots.items) {
        try {
          await removeShoot(env.garden, namespace, shoot.metadata.name);
        } catch (error) {
          failures.push(error instanceof Error ? error.message : String(error));
        }
      }
      // Kept with a Shoot in it: a later run (or a person) can still delete the Shoot while the Project exists.
      if (failures.length > 0)
        throw new Error(`Project ${project} kept, ${failures.length} Shoot(s) left in it:\n${failures.join('\n')}`);
      const ref = { apiVersion: 'core.gardener.cloud/v1beta1', kind: 'Project', name: project };
      const confirmed = await env.garden.patch(ref, { metadata: { annotations: { [DELETION_CONFIRMATION]: 'true' } } });
      if (!confirmed.ok && confirmed.status !== 404)
        throw new Error(`remove Project ${project}: confirm deletion: ${describeFailure(confirmed)}`);
      const deleted = await env.garden.delete(ref);
      if (!deleted.ok && deleted.status !== 404)
        throw new Error(`remove Project ${project}: delete: ${describeFailure(deleted)}`);
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
 * so `kimops … --landscape <folder>` writes into the project the test owns. Returns the file's path. The copy is no
 * longer the shipped example (its values go to a test's plane only), so its `example: true` is dropped: the writing
 * commands would refuse it otherwise.
 */
export async function landscapeForProject(
  dir: TempDir,
  folder: string,
  landscape: string,
  project: { readonly namespace: string },
): Promise<string> {
  const shipped = readFileSync(`landscapes/${landscape}/landscape.yaml`, 'utf8');
  const replaced = shipped
    .replace(/^(\s+project:) \S+$/m, `$1 ${project.namespace.slice('garden-'.length)}`)
    .replace(/^example: true\n/m, '');
  if (replaced === shipped)
    throw new Error(`landscapes/${landscape}/landscape.yaml names no gardener project to replace`);
  return dir.write(`${folder}/landscape.yaml`, replaced);
}
