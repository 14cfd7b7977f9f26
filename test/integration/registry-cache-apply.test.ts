// The registry caches' credentials end to end on the real plane: the generator's render names the garden Secret
// and writes its data-less stub; the applier copies the SKR Secret into it before it writes the Shoot (the plane's
// gardener-apiserver refuses a Shoot naming a Secret that is not there), replaces it when the SKR's data changes,
// and deletes the replaced one once the Shoot no longer names it. The plane's kube-apiserver is every Shoot's SKR:
// the caches' Secrets live in a namespace of this test's own.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { LandscapeRepo } from '../../adapters/git/landscape-repo.js';
import type { KubeClient } from '../../adapters/kube/kube-client.js';
import { convertRuntime } from '../../generator/convert/index.js';
import {
  APPLIED_TREE_ANNOTATION,
  APPLY_REPORT_NAME,
  LABEL_APP_MANAGED_BY,
  LABEL_REGISTRY_CACHE_DIRTY,
  LABEL_REGISTRY_CACHE_ID,
  LABEL_RUNTIME_ID,
  MANAGED_BY_KIM,
  REGISTRY_CACHE_ROTATED_ANNOTATION_PREFIX,
  REGISTRY_CACHE_SYNCED_TREE_ANNOTATION,
  SKR_APPLIED_TREE_ANNOTATION,
} from '../../model/contract.js';
import type { KubeObject } from '../../model/kube-object.js';
import type { Runtime } from '../../model/runtime.js';
import type { Shoot } from '../../model/shoot.js';
import { readApplyReport } from '../../rules/apply-report.js';
import { fileMapOf, shootManifests } from '../../rules/landscape-layout.js';
import { provisioningDetails } from '../../rules/provisioning-info.js';
import { rotatedSecretName } from '../../applier/registry-cache-plan.js';
import { kimops } from '../helpers/cli.js';
import { GardenletSimulator } from '../helpers/gardenlet-simulator.js';
import { landscapeForProject, useTestProject } from '../helpers/projects.js';
import { exampleRuntime } from '../helpers/shoots.js';
import { liveShoots } from '../helpers/live-shoots.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { connect, eventually, planeAsShootCluster } from '../helpers/testenv.js';

const env = connect(inject('testenvStateDir'));
const project = useTestProject(env, 'dev');
const dir = useTempDir('registry-cache-apply');
const simulator = new GardenletSimulator({
  garden: env.garden,
  intervalMs: 20,
  progressSteps: [50],
  runtimeCluster: planeAsShootCluster(env),
});
/** The plane's kube-apiserver: every Shoot's SKR. */
const skr: KubeClient = env.kcp;
const author = { name: 'kimops', email: 'kimops@localhost' };
const UID = randomUUID();
/** The cache's namespace on the SKR: this test's own. */
const cacheNamespace = () => `rc-${project.namespace.slice(-8)}`;
const SOURCE = 'ghcr-credentials';
const CACHE = 'ghcr-cache';
const SECRET = { apiVersion: 'v1', kind: 'Secret' } as const;
const b64 = (text: string) => Buffer.from(text).toString('base64');

beforeAll(async () => {
  simulator.start();
  const created = await skr.apply(
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: cacheNamespace() } },
    'test',
    { force: true },
  );
  if (!created.ok) throw new Error(`Namespace ${cacheNamespace()}: ${created.error.message ?? created.status}`);
});
afterAll(async () => {
  await simulator.stop();
  await skr.delete({ apiVersion: 'v1', kind: 'Namespace', name: cacheNamespace() });
});

function runtimeFor(shoot: string, withCache: boolean): Runtime {
  const runtime = exampleRuntime('aws.yaml', shoot);
  if (withCache)
    runtime.spec.imageRegistryCache = [
      {
        name: CACHE,
        namespace: cacheNamespace(),
        uid: UID,
        config: { upstream: 'ghcr.io', secretReferenceName: SOURCE },
      },
    ];
  return runtime;
}

/** The SKR objects the generator writes (kyma-provisioning-info without its live fields). */
function skrObjects(shoot: string, admin: string): KubeObject[] {
  const kim = { 'reconciler.kyma-project.io/managed-by': MANAGED_BY_KIM };
  return [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kyma-system' } },
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'kyma-provisioning-info', namespace: 'kyma-system', labels: kim },
      data: { details: provisioningDetails({ instanceName: shoot, region: 'eu-central-1' }) },
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: `admin-${project.namespace.slice(-8)}`, labels: kim },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: admin }],
    },
  ];
}

/** shoots/<shoot>/ as the generator renders it (against the live Shoot when there is one). */
function folder(
  shoot: string,
  live: Shoot | undefined,
  admin: string,
  withCache = live !== undefined,
): { files: Map<string, string>; rendered: Shoot } {
  const result = convertRuntime({
    runtime: runtimeFor(shoot, withCache),
    settings: project.settings,
    ...(live && { live }),
  });
  if (!result.ok) throw result.error;
  // The test schedules the Shoot on a test Seed, which offers neither access restrictions nor zones.
  delete result.shoot.spec.accessRestrictions;
  delete result.shoot.spec.controlPlane;
  return {
    files: fileMapOf(shootManifests(result.shoot, result.companions, skrObjects(shoot, admin), result.registryCache)),
    rendered: result.shoot,
  };
}

const { liveShoot, reconciled, schedule } = liveShoots(env.garden, project);

async function applyReport() {
  const report = await env.garden.get<KubeObject>({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    namespace: project.namespace,
    name: APPLY_REPORT_NAME,
  });
  return readApplyReport(report.ok ? report.body : undefined);
}

async function gardenSecret(name: string): Promise<KubeObject | undefined> {
  const read = await env.garden.get<KubeObject>({ ...SECRET, namespace: project.namespace, name });
  return read.ok ? read.body : undefined;
}

async function skrSource(data: Record<string, string>): Promise<void> {
  const written = await skr.apply(
    { ...SECRET, metadata: { name: SOURCE, namespace: cacheNamespace() }, data },
    'test',
    {
      force: true,
    },
  );
  if (!written.ok) throw new Error(`SKR Secret: ${written.error.message ?? written.status}`);
}

describe('kimops apply copies the registry caches’ credentials into the Garden', () => {
  it('holds a Shoot whose Secret cannot be copied, creates it from the SKR, replaces it on rotation, and deletes the replaced one', async () => {
    const A = `rc-${project.namespace.slice(-6)}`;
    const landscape = await landscapeForProject(dir, 'landscape', 'dev', project);
    const gitdir = join(dir.path, 'repo.git');
    expect((await kimops(['init', '--landscape', landscape, gitdir])).code).toBe(0);
    const repo = await LandscapeRepo.open(gitdir);
    const commit = (files: Map<string, string>, deletions: string[] = []) =>
      repo.commitFiles({ branch: 'main', files, deletions, message: 'registry cache', author });
    const apply = ['apply', '--landscape', landscape, '--repo', gitdir, '--once'];
    apply.push('--garden-kubeconfig', join(env.stateDir, 'garden.kubeconfig'));

    // Created without caches (KIM adds the extension in update mode only), then reconciled.
    await commit(folder(A, undefined, 'alice@example.com').files);
    expect((await kimops(apply)).code).toBe(0);
    await schedule(A);
    await reconciled(A);
    expect((await kimops(apply)).code).toBe(0);

    // The Runtime gets a cache with credentials: the render names reg-cache-<uid> and writes its stub, no data.
    const first = folder(A, await liveShoot(A), 'alice@example.com');
    const stubPath = `shoots/${A}/registry-cache/secret-reg-cache-${UID}.yaml`;
    expect(first.files.get(stubPath)).toContain(`kimops.kyma-project.io/registry-cache-secret: ${SOURCE}`);
    expect(first.files.get(stubPath)).not.toMatch(/^(data|stringData):/m);
    expect(first.rendered.spec.resources?.map((r) => r.name)).toContain(`reg-cache-${UID}`);
    await commit(first.files);

    // No SKR Secret yet: the copy fails with KIM's message and the Shoot is not written.
    const held = await kimops(apply);
    // A blocked Shoot fails the run, as any Shoot the applier holds back.
    expect(held.code).toBe(1);
    expect(held.stderr).toContain(
      `${A}: registry-cache credentials not copied: failed to copy secret for registry cache ${CACHE}: secrets "${SOURCE}" not found; the Shoot is held until they are`,
    );
    let facts = await applyReport();
    expect(facts.get(A)?.registryCacheError?.message).toBe(
      `failed to copy secret for registry cache ${CACHE}: secrets "${SOURCE}" not found`,
    );
    expect((await liveShoot(A)).spec.resources?.map((r) => r.name) ?? []).not.toContain(`reg-cache-${UID}`);

    // A copy KIM left for a Runtime whose Shoot is gone: the next sync deletes it.
    const stray = await env.garden.create<KubeObject>({
      ...SECRET,
      metadata: {
        name: 'reg-cache-of-a-gone-runtime',
        namespace: project.namespace,
        labels: {
          [LABEL_RUNTIME_ID]: 'gone-runtime',
          [LABEL_REGISTRY_CACHE_ID]: 'x',
          [LABEL_APP_MANAGED_BY]: MANAGED_BY_KIM,
        },
      },
      immutable: true,
      data: { username: b64('old') },
    });
    expect(stray.ok).toBe(true);

    // The SKR Secret appears: the garden Secret is created as KIM's, and gardener-apiserver admits the Shoot.
    await skrSource({ username: b64('user'), password: b64('one') });
    const copied = await kimops(apply);
    expect(copied.stderr).toBe('');
    // The command says what it copied and what it cleaned up.
    expect(copied.stdout).toMatch(new RegExp(`${A}: registry cache: .*reg-cache-${UID}`));
    expect(copied.stdout).toMatch(/registry cache: .*reg-cache-of-a-gone-runtime/);
    const secret = await gardenSecret(`reg-cache-${UID}`);
    expect(secret?.metadata.labels).toMatchObject({
      [LABEL_RUNTIME_ID]: runtimeFor(A, true).metadata.name,
      [LABEL_REGISTRY_CACHE_ID]: UID,
      [LABEL_APP_MANAGED_BY]: MANAGED_BY_KIM,
    });
    expect(secret?.metadata.annotations).toMatchObject({
      'kyma-project.io/registry-cache-name': CACHE,
      'kyma-project.io/registry-cache-namespace': cacheNamespace(),
    });
    expect(secret?.immutable).toBe(true);
    expect(secret?.data).toEqual({ username: b64('user'), password: b64('one') });
    expect((await liveShoot(A)).spec.resources?.map((r) => r.name)).toContain(`reg-cache-${UID}`);
    expect(await gardenSecret('reg-cache-of-a-gone-runtime')).toBeUndefined();
    facts = await applyReport();
    expect(facts.get(A)?.registryCacheError).toBeUndefined();
    await reconciled(A);
    expect((await kimops(apply)).code).toBe(0);
    const configured = (await liveShoot(A)).metadata.annotations ?? {};
    expect(configured[SKR_APPLIED_TREE_ANNOTATION]).toBe(configured[APPLIED_TREE_ANNOTATION]);
    expect(configured[REGISTRY_CACHE_SYNCED_TREE_ANNOTATION]).toBe(configured[APPLIED_TREE_ANNOTATION]);
    expect(await gardenSecret(`reg-cache-${UID}`)).toBeDefined();

    // The SKR Secret is gone when the folder changes: the copy fails, but the Secret the Shoot names exists, so the
    // Shoot is written — and the copy stays due for its tree, sync after sync, its failure reported.
    expect((await skr.delete({ ...SECRET, namespace: cacheNamespace(), name: SOURCE })).ok).toBe(true);
    await commit(folder(A, await liveShoot(A), 'bob@example.com').files);
    const replaceFailed = `failed to replace secret for registry cache ${CACHE}: secrets "${SOURCE}" not found`;
    expect((await kimops(apply)).code).toBe(0);
    expect((await applyReport()).get(A)?.registryCacheError?.message).toBe(replaceFailed);
    let written = (await liveShoot(A)).metadata.annotations ?? {};
    expect(written[REGISTRY_CACHE_SYNCED_TREE_ANNOTATION]).not.toBe(written[APPLIED_TREE_ANNOTATION]);
    await reconciled(A);
    expect((await kimops(apply)).code).toBe(0);
    facts = await applyReport();
    expect(facts.get(A)?.registryCacheError?.message).toBe(replaceFailed);

    // The customer's new credentials appear: the next sync, without any change of the folder, replaces the Secret.
    await skrSource({ username: b64('user'), password: b64('two') });
    expect((await kimops(apply)).code).toBe(0);
    written = (await liveShoot(A)).metadata.annotations ?? {};
    expect(written[REGISTRY_CACHE_SYNCED_TREE_ANNOTATION]).toBe(written[APPLIED_TREE_ANNOTATION]);
    expect((await applyReport()).get(A)?.registryCacheError).toBeUndefined();
    const rotated = rotatedSecretName(UID, { username: b64('user'), password: b64('two') });
    expect((await gardenSecret(`reg-cache-${UID}`))?.metadata.labels?.[LABEL_REGISTRY_CACHE_DIRTY]).toBe('true');
    expect((await gardenSecret(rotated))?.data).toEqual({ username: b64('user'), password: b64('two') });
    const annotated = await liveShoot(A);
    expect(annotated.metadata.annotations?.[`${REGISTRY_CACHE_ROTATED_ANNOTATION_PREFIX}${UID}`]).toBe(rotated);

    // The generator's next render names the new Secret; once applied and reconciled, the replaced one goes.
    await reconciled(A);
    const next = folder(A, await liveShoot(A), 'bob@example.com');
    expect(next.rendered.spec.resources?.map((r) => r.name)).toContain(rotated);
    expect(next.files.has(`shoots/${A}/registry-cache/secret-${rotated}.yaml`)).toBe(true);
    await commit(next.files, [stubPath]);
    expect((await kimops(apply)).code).toBe(0);
    expect((await liveShoot(A)).spec.resources?.map((r) => r.name)).toContain(rotated);
    await reconciled(A);
    const cleaned = await kimops(apply);
    expect(cleaned.code).toBe(0);
    await eventually('the replaced Secret deleted', async () =>
      (await gardenSecret(`reg-cache-${UID}`)) === undefined ? true : undefined,
    );
    expect(await gardenSecret(rotated)).toBeDefined();
    facts = await applyReport();
    expect(facts.get(A)?.skrError).toBeUndefined();

    // The cache goes: once the Shoot without it reconciled, its Secret and the Shoot's record of its rotation go too
    // (a leftover record would make every later change of the Shoot the Runtime's own).
    const without = folder(A, await liveShoot(A), 'bob@example.com', false);
    expect([...without.files.keys()].some((path) => path.includes('/registry-cache/'))).toBe(false);
    await commit(without.files, [`shoots/${A}/registry-cache/secret-${rotated}.yaml`]);
    expect((await kimops(apply)).code).toBe(0);
    await reconciled(A);
    expect((await kimops(apply)).code).toBe(0);
    expect((await liveShoot(A)).metadata.annotations?.[`${REGISTRY_CACHE_ROTATED_ANNOTATION_PREFIX}${UID}`]).toBe(
      undefined,
    );
    expect(await gardenSecret(rotated)).toBeUndefined();
  });
});
