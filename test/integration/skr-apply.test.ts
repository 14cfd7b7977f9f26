// The applier configures each Shoot's own cluster (the SKR) from its folder's skr/ objects once Gardener has
// reconciled the Shoot, on the real plane: gardener-apiserver issues the adminkubeconfig (the gardenlet simulator
// makes the plane's kube-apiserver every Shoot's cluster), the kube-apiserver validates the objects (Gardener's
// OpenIDConnect CRD is installed at the plane's start). The plane's one kube-apiserver is the SKR of every Shoot of
// every test: the administrators here are named after the test's project, and what the test leaves is removed.
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { LandscapeRepo } from '../../adapters/git/landscape-repo.js';
import type { KubeClient } from '../../adapters/kube/kube-client.js';
import {
  APPLIED_TREE_ANNOTATION,
  APPLY_REPORT_NAME,
  LABEL_OIDC_MANAGED_BY,
  LABEL_RECONCILER_MANAGED_BY,
  MANAGED_BY_KIM,
  SKR_APPLIED_TREE_ANNOTATION,
} from '../../model/contract.js';
import type { KubeObject } from '../../model/kube-object.js';
import { SHOOT_API_VERSION } from '../../model/shoot.js';
import { readApplyReport } from '../../rules/apply-report.js';
import { fileMapOf, shootManifests } from '../../rules/landscape-layout.js';
import { provisioningDetails } from '../../rules/provisioning-info.js';
import { kimops } from '../helpers/cli.js';
import { GardenletSimulator } from '../helpers/gardenlet-simulator.js';
import { landscapeForProject, useTestProject } from '../helpers/projects.js';
import { exampleRuntime, render } from '../helpers/shoots.js';
import { liveShoots } from '../helpers/live-shoots.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { connect, planeAsShootCluster } from '../helpers/testenv.js';

const env = connect(inject('testenvStateDir'));
const project = useTestProject(env, 'dev');
const dir = useTempDir('skr-apply');
const simulator = new GardenletSimulator({
  garden: env.garden,
  intervalMs: 20,
  progressSteps: [50],
  runtimeCluster: planeAsShootCluster(env),
});
/** The plane's kube-apiserver, which every Shoot's adminkubeconfig points at: the SKR. */
const skr: KubeClient = env.kcp;
const author = { name: 'kimops', email: 'kimops@localhost' };
const KIM = { [LABEL_RECONCILER_MANAGED_BY]: MANAGED_BY_KIM };
const CRB = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding' } as const;
const OIDC = { apiVersion: 'authentication.gardener.cloud/v1alpha1', kind: 'OpenIDConnect' } as const;

beforeAll(() => simulator.start());
afterAll(async () => {
  await simulator.stop();
  // The plane is every test's SKR: what this one made goes (kyma-system and its ConfigMap are everyone's).
  for (const name of ['alice', 'bob', 'carol']) await skr.delete({ ...CRB, name: bindingName(user(name)) });
  await skr.delete({ ...CRB, name: kimStyleName() });
  await skr.delete({ ...CRB, name: unlabelledName() });
  await skr.delete({ ...OIDC, name: 'kyma-oidc-0' });
});

/** An administrator of this test only. */
const user = (name: string) => `${name}@${project.namespace}.example.com`;
const bindingName = (admin: string) => `admin-${createHash('sha256').update(admin).digest('hex').slice(0, 10)}`;
/** KIM names its bindings `admin-<random>`. */
const kimStyleName = () => `admin-${project.namespace.slice(-6)}x`;
const unlabelledName = () => `by-hand-${project.namespace}`;

function adminBinding(admin: string, name = bindingName(admin), labels: Record<string, string> = KIM): KubeObject {
  return {
    ...CRB,
    metadata: { name, labels },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: admin }],
  };
}

function oidc(spec: Record<string, unknown>): KubeObject {
  return { ...OIDC, metadata: { name: 'kyma-oidc-0', labels: { [LABEL_OIDC_MANAGED_BY]: MANAGED_BY_KIM } }, spec };
}

const VALID_OIDC = { issuerURL: 'https://kyma.accounts.ondemand.com', clientID: 'kyma', usernameClaim: 'sub' };

/** The skr/ objects as the generator writes them (kyma-provisioning-info without its live fields). */
function skrObjects(shoot: string, admins: string[], oidcSpec: Record<string, unknown> = VALID_OIDC): KubeObject[] {
  return [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kyma-system' } },
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'kyma-provisioning-info', namespace: 'kyma-system', labels: KIM },
      data: { details: provisioningDetails({ instanceName: shoot, region: 'eu-central-1' }) },
    },
    oidc(oidcSpec),
    ...admins.map((admin) => adminBinding(admin)),
  ];
}

/** shoots/<shoot>/ for KEB's AWS example Runtime named `shoot`, with `skr` objects. */
function folder(shoot: string, skrOf: KubeObject[]): Map<string, string> {
  const rendered = render(exampleRuntime('aws.yaml', shoot), project.settings);
  // The test schedules the Shoot on a test Seed, which offers neither access restrictions nor zones.
  delete rendered.shoot.spec.accessRestrictions;
  delete rendered.shoot.spec.controlPlane;
  return fileMapOf(shootManifests(rendered.shoot, rendered.companions, skrOf));
}

async function commit(repo: LandscapeRepo, files: Map<string, string>, deletions: string[] = []): Promise<void> {
  await repo.commitFiles({ branch: 'main', files, deletions, message: 'change skr/', author });
}

const { liveShoot, reconciled, schedule } = liveShoots(env.garden, project);

async function bindings(): Promise<Map<string, KubeObject>> {
  const listed = await skr.list<KubeObject>(CRB);
  if (!listed.ok) throw new Error(listed.error.message ?? 'list bindings');
  return new Map(listed.body.items.map((item) => [item.metadata.name, item]));
}

async function applyReport() {
  const report = await env.garden.get<KubeObject>({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    namespace: project.namespace,
    name: APPLY_REPORT_NAME,
  });
  return readApplyReport(report.ok ? report.body : undefined);
}

const managers = (object: KubeObject | undefined) =>
  ((object?.metadata.managedFields ?? []) as { manager: string; operation: string }[]).map(
    (entry) => `${entry.manager}/${entry.operation}`,
  );

describe('kimops apply configures the SKR of a reconciled Shoot', () => {
  it('applies skr/ after Gardener reconciled the Shoot, prunes KIM’s bindings Git no longer holds, and reports failures per Shoot', async () => {
    // Unique across the plane: Gardener refuses a DNS domain another project's Shoot still holds.
    const [A, B] = ['a', 'b'].map((x) => `skr${x}-${project.namespace.slice(-6)}`) as [string, string];
    const SHOOTS = [A, B];
    const landscape = await landscapeForProject(dir, 'landscape', 'dev', project);
    const gitdir = join(dir.path, 'repo.git');
    expect((await kimops(['init', '--landscape', landscape, gitdir])).code).toBe(0);
    const repo = await LandscapeRepo.open(gitdir);
    const admins = [user('alice'), user('bob')];
    await commit(repo, new Map(SHOOTS.flatMap((shoot) => [...folder(shoot, skrObjects(shoot, admins))])));
    const apply = ['apply', '--landscape', landscape, '--repo', gitdir, '--once'];
    apply.push('--garden-kubeconfig', join(env.stateDir, 'garden.kubeconfig'));

    // What KIM left on the SKR: its random-named binding of an administrator still there, and a binding by hand.
    for (const binding of [
      adminBinding(user('alice'), kimStyleName()),
      adminBinding(user('bob'), unlabelledName(), { team: 'sre' }),
    ])
      expect((await skr.apply(binding, 'kim', { force: true })).ok).toBe(true);

    // The create: nothing inside the cluster yet, Gardener has not reconciled it.
    const created = await kimops(apply);
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    expect(created.stdout).not.toContain('SKR');
    for (const shoot of SHOOTS) await schedule(shoot);
    const reconcile = new Map<string, string | undefined>();
    for (const shoot of SHOOTS) reconcile.set(shoot, (await reconciled(shoot)).status?.lastOperation?.lastUpdateTime);

    const configured = await kimops(apply);
    expect(configured.stderr).toBe('');
    expect(configured.code).toBe(0);
    expect(configured.stdout).toContain(`${A}: SKR: applied ClusterRoleBinding ${bindingName(user('alice'))}`);
    // Both Shoots configure the one SKR at the same time: either prunes KIM's binding.
    expect(configured.stdout).toContain(`: SKR: deleted ClusterRoleBinding ${kimStyleName()}: not in Git`);
    let live = await bindings();
    for (const admin of admins) {
      const binding = live.get(bindingName(admin));
      expect(binding?.subjects).toEqual([{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: admin }]);
      expect(managers(binding)).toContain('kimops/Apply');
    }
    expect(live.has(kimStyleName())).toBe(false);
    expect(live.has(unlabelledName())).toBe(true);
    const namespace = await skr.get<KubeObject>({ apiVersion: 'v1', kind: 'Namespace', name: 'kyma-system' });
    expect(namespace.ok).toBe(true);
    const openIdConnect = await skr.get<KubeObject>({ ...OIDC, name: 'kyma-oidc-0' });
    expect(openIdConnect.ok && openIdConnect.body.spec).toMatchObject(VALID_OIDC);
    expect(managers(openIdConnect.ok ? openIdConnect.body : undefined)).toContain('kimops/Apply');
    const info = await skr.get<KubeObject>({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: 'kyma-system',
      name: 'kyma-provisioning-info',
    });
    // Both Shoots share this SKR: the later one's applies last (both on Seeds of one region).
    const details = (info.ok && (info.body.data as Record<string, string>).details) || '';
    expect(details).toContain('region: eu-central-1');
    expect(details).toContain(`seedRegion: eu-central-1`);
    expect(details).toMatch(/lastReconcileTime: "\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"/);
    expect([reconcile.get(A), reconcile.get(B)].some((t) => details.includes(`"${t}"`))).toBe(true);
    expect(managers(info.ok ? info.body : undefined)).toContain('kimops/Apply');
    for (const shoot of SHOOTS) {
      const annotations = (await liveShoot(shoot)).metadata.annotations ?? {};
      expect(annotations[SKR_APPLIED_TREE_ANNOTATION]).toBe(annotations[APPLIED_TREE_ANNOTATION]);
    }

    // Nothing changed: a sync asks nothing of the SKRs.
    const again = await kimops(apply);
    expect(again.stdout).not.toContain('SKR');

    // Bob is no administrator any more: only the SKR objects change, and his binding goes with the next sync.
    const removed = `shoots/${A}/skr/clusterrolebinding-${bindingName(user('bob'))}.yaml`;
    await commit(repo, new Map(), [removed, removed.replace(A, B)]);
    const pruned = await kimops(apply);
    expect(pruned.stderr).toBe('');
    expect(pruned.stdout).toContain(`SKR: deleted ClusterRoleBinding ${bindingName(user('bob'))}: not in Git`);
    live = await bindings();
    expect(live.has(bindingName(user('bob')))).toBe(false);
    expect(live.has(bindingName(user('alice')))).toBe(true);
    expect(live.has(unlabelledName())).toBe(true);
    for (const shoot of SHOOTS) {
      const annotations = (await liveShoot(shoot)).metadata.annotations ?? {};
      expect(annotations[SKR_APPLIED_TREE_ANNOTATION]).toBe(annotations[APPLIED_TREE_ANNOTATION]);
    }

    // An OpenIDConnect the API refuses (no usernameClaim) for A, and a new administrator for B: A stops
    // at its OIDC step and says so in the apply report; B is configured in the same sync; the Garden sync is fine.
    const oidcFile = (shoot: string) => `shoots/${shoot}/skr/openidconnect-kyma-oidc-0.yaml`;
    const broken = folder(A, skrObjects(A, [user('alice')], { issuerURL: 'https://x', clientID: 'x' }));
    const grown = folder(B, skrObjects(B, [user('alice'), user('carol')]));
    await commit(
      repo,
      new Map([
        [oidcFile(A), broken.get(oidcFile(A)) as string],
        ...[...grown].filter(([path]) => path.includes('/skr/')),
      ]),
    );
    const failing = await kimops(apply);
    expect(failing.code).toBe(0);
    expect(failing.stderr).toMatch(
      new RegExp(`^${A}: SKR not configured \\(step oidc\\): apply OpenIDConnect kyma-oidc-0: 422`, 'm'),
    );
    expect(failing.stdout).toContain(`${B}: SKR: applied ClusterRoleBinding ${bindingName(user('carol'))}`);
    const skrA = await liveShoot(A);
    const facts = await applyReport();
    expect(facts.get(A)?.skrError).toMatchObject({
      step: 'oidc',
      tree: skrA.metadata.annotations?.[APPLIED_TREE_ANNOTATION],
    });
    expect(facts.get(A)?.skrError?.message).toContain('usernameClaim');
    expect(facts.has(B)).toBe(false);
    expect(skrA.metadata.annotations?.[SKR_APPLIED_TREE_ANNOTATION]).not.toBe(
      skrA.metadata.annotations?.[APPLIED_TREE_ANNOTATION],
    );
    const skrB = (await liveShoot(B)).metadata.annotations ?? {};
    expect(skrB[SKR_APPLIED_TREE_ANNOTATION]).toBe(skrB[APPLIED_TREE_ANNOTATION]);

    // Gardener refuses B's adminkubeconfig (its client CA is gone): the step `client`, beside A's failure.
    expect(
      (
        await env.garden.delete({
          apiVersion: SHOOT_API_VERSION,
          kind: 'InternalSecret',
          namespace: project.namespace,
          name: `${B}.ca-client`,
        })
      ).ok,
    ).toBe(true);
    const renamed = folder(B, skrObjects(`${B}-renamed`, [user('alice'), user('carol')]));
    await commit(repo, new Map([...renamed].filter(([path]) => path.includes('/skr/configmap-'))));
    const refused = await kimops(apply);
    expect(refused.code).toBe(0);
    expect(refused.stderr).toMatch(
      new RegExp(`^${B}: SKR not configured \\(step client\\): request adminkubeconfig of Shoot `, 'm'),
    );
    const after = await applyReport();
    expect([...after].map(([shoot, f]) => [shoot, f.skrError?.step])).toEqual([
      [A, 'oidc'],
      [B, 'client'],
    ]);
  });
});
