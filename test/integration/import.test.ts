// `kimops import` on the plane: three Shoots KIM made in a fresh project (rendered by kimops's converter, as KIM
// makes them, and created without kimops's label), one still with its Runtime on the KCP, two without — one of
// those with its GardenerCluster, one without. The import writes two files and nothing to the KCP or the Garden;
// the API server refuses a file until the SRE fills in what it lists; applied, `kimops generate --once` and
// `kimops apply --dry-run` change nothing on those Shoots but kimops's ownership label.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  ANNOTATION_RUNTIME_ID,
  LABEL_BROKER_PLAN_NAME,
  LABEL_INSTANCE_ID,
  LABEL_KYMA_NAME,
  LABEL_PLATFORM_REGION,
  LABEL_RECONCILER_MANAGED_BY,
  LABEL_REGION,
  LABEL_SHOOT_NAME,
  MANAGED_BY_KIM,
  SEED_REGION_LABEL,
} from '../../model/contract.js';
import type { KubeObject } from '../../model/kube-object.js';
import { describeFailure } from '../../model/kube-result.js';
import { RUNTIME_API_VERSION, type Runtime } from '../../model/runtime.js';
import type { ConfigMap, Shoot } from '../../model/shoot.js';
import { additionalOidcOf, OIDC_SELECTOR } from '../../rules/runtime-from-skr.js';
import { parseYaml11, parseYamlDocuments } from '../../model/yaml-input.js';
import { kimops } from '../helpers/cli.js';
import { startGardenProxy, writesSeen, type GardenProxy } from '../helpers/garden-proxy.js';
import { createTestNamespace, landscapeForProject, useTestProject } from '../helpers/projects.js';
import { GardenletSimulator } from '../helpers/gardenlet-simulator.js';
import { liveShoots } from '../helpers/live-shoots.js';
import { createRendered, exampleRuntime, getShoot, render } from '../helpers/shoots.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { connect, planeAsShootCluster } from '../helpers/testenv.js';

const env = connect(inject('testenvStateDir'));
const project = useTestProject(env, 'stage');
const dir = useTempDir('import');
const kcpKubeconfig = () => join(env.stateDir, 'kcp.kubeconfig');
const gardenKubeconfig = () => join(env.stateDir, 'garden.kubeconfig');
const RUNTIME = { apiVersion: RUNTIME_API_VERSION, kind: 'Runtime' } as const;
const OIDC = { apiVersion: 'authentication.gardener.cloud/v1alpha1', kind: 'OpenIDConnect' } as const;
/** A plan line about kimops's ownership label, which every take-over adds. */
const OWN_LABEL_LINE = /kimops\.kyma-project\.io\/managed-by/;

/** A KEB example Runtime under a name unique to this run, its Shoot made as KIM makes it (generation 1). */
async function shootOf(
  file: string,
  namespace: string,
  edit: (shoot: Shoot) => void = () => undefined,
): Promise<Runtime> {
  const shoot = `i${randomBytes(4).toString('hex')}`;
  const runtime = exampleRuntime(file, shoot);
  const id = `${randomBytes(4).toString('hex')}-0000-4000-8000-${randomBytes(6).toString('hex')}`;
  runtime.metadata = {
    ...runtime.metadata,
    name: id,
    namespace,
    generation: 1,
    labels: { ...runtime.metadata.labels, 'kyma-project.io/runtime-id': id, [LABEL_SHOOT_NAME]: shoot },
  };
  const rendered = render(runtime, project.settings);
  edit(rendered.shoot);
  await createRendered(env.garden, rendered);
  return runtime;
}

/**
 * What a writer other than Gardener changes on a Shoot: its spec, labels and annotations (the status and the
 * resourceVersion move under the other test files' gardenlet simulators).
 */
async function written(name: string): Promise<unknown> {
  const shoot = await getShoot(env.garden, project.namespace, name);
  return shoot && { spec: shoot.spec, labels: shoot.metadata.labels, annotations: shoot.metadata.annotations };
}

async function create(object: KubeObject): Promise<void> {
  const created = await env.kcp.create(object);
  if (!created.ok) throw new Error(`${object.kind} ${object.metadata.name}: ${describeFailure(created)}`);
}

/** KIM's GardenerCluster of a Runtime: KEB's labels copied, the platform region from the spec. */
function gardenerClusterOf(runtime: Runtime): KubeObject {
  return {
    apiVersion: RUNTIME_API_VERSION,
    kind: 'GardenerCluster',
    metadata: {
      name: runtime.metadata.name,
      namespace: runtime.metadata.namespace,
      labels: { ...runtime.metadata.labels, [LABEL_PLATFORM_REGION]: runtime.spec.shoot.platformRegion },
    },
    spec: {
      kubeconfig: {
        secret: { key: 'config', name: `kubeconfig-${runtime.metadata.name}`, namespace: runtime.metadata.namespace },
      },
      shoot: { name: runtime.spec.shoot.name },
    },
  };
}

describe('kimops import', () => {
  // Every request import makes to the Garden and the KCP, counted.
  let gardenProxy: GardenProxy;
  let kcpProxy: GardenProxy;
  let proxyDir: string;
  beforeAll(async () => {
    // Their kubeconfigs outlive each test's temporary folder.
    proxyDir = await mkdtemp(join(tmpdir(), 'kimops-import-proxy-'));
    gardenProxy = await startGardenProxy({ kubeconfig: gardenKubeconfig(), dir: proxyDir });
    kcpProxy = await startGardenProxy({ kubeconfig: kcpKubeconfig(), dir: proxyDir });
  });
  afterAll(async () => {
    await gardenProxy.close();
    await kcpProxy.close();
    await rm(proxyDir, { recursive: true, force: true });
  });

  it('writes Runtimes for the Shoots without one, which kimops then renders and applies without a change', async () => {
    const landscape = await landscapeForProject(dir, 'landscape', 'stage', project);
    const kcpNamespace = await createTestNamespace(env.kcp, 'kcp-imp-');
    const kept = await shootOf('aws.yaml', kcpNamespace);
    const withCluster = await shootOf('azure.yaml', kcpNamespace);
    const bare = await shootOf('gcp.yaml', kcpNamespace);
    await create({ ...RUNTIME, ...kept } as unknown as KubeObject);
    await create(gardenerClusterOf(withCluster));
    const liveBefore = new Map<string, unknown>();
    for (const r of [kept, withCluster, bare]) liveBefore.set(r.spec.shoot.name, await written(r.spec.shoot.name));

    const out = join(dir.path, 'imported');
    const importArgs = [
      'import',
      '--landscape',
      landscape,
      '--garden-kubeconfig',
      gardenProxy.kubeconfigPath,
      '--kcp-kubeconfig',
      kcpProxy.kubeconfigPath,
      '--kcp-namespace',
      kcpNamespace,
      '--out',
      out,
    ];
    gardenProxy.reset();
    kcpProxy.reset();
    const imported = await kimops(importArgs);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stderr).toContain(`1 Runtime(s) known from the KCP's namespace ${kcpNamespace}; 3 Shoot(s) in`);
    expect(imported.stderr).toContain(`2 Shoot(s) in ${project.namespace} without a Runtime: 2 imported, 0 not`);
    expect(readdirSync(out).sort()).toEqual([`${withCluster.metadata.name}.yaml`, `${bare.metadata.name}.yaml`].sort());
    // Run again, the files stay as they are (someone may have filled them in), and that is no failure; --force
    // replaces them.
    const edited = `# filled in\n${readFileSync(join(out, `${bare.metadata.name}.yaml`), 'utf8')}`;
    await dir.write(`imported/${bare.metadata.name}.yaml`, edited);
    const again = await kimops(importArgs);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(`${bare.metadata.name}.yaml exists and is kept; --force replaces it)`);
    expect(again.stderr).toContain('2 imported (2 kept as they were), 0 not');
    expect(readFileSync(join(out, `${bare.metadata.name}.yaml`), 'utf8')).toBe(edited);
    expect((await kimops([...importArgs, '--force'])).code).toBe(0);
    expect(readFileSync(join(out, `${bare.metadata.name}.yaml`), 'utf8')).not.toBe(edited);
    // It only read, the LISTs in pages.
    expect(writesSeen(gardenProxy)).toEqual([]);
    expect(writesSeen(kcpProxy)).toEqual([]);
    expect(gardenProxy.requests.filter((r) => r.path.includes('/shoots?')).map((r) => r.path)).toEqual(
      Array.from({ length: 3 }, () => expect.stringContaining('limit=500')),
    );
    expect(kcpProxy.requests.filter((r) => r.path.includes('/runtimes?')).length).toBe(3);

    // Nothing was written: the Shoots are as they were, and the KCP holds no further Runtime.
    for (const [name, before] of liveBefore) expect(await written(name)).toEqual(before);
    const runtimes = await env.kcp.listAll({ ...RUNTIME, namespace: kcpNamespace });
    expect(runtimes.ok && runtimes.items.map((r) => r.metadata.name)).toEqual([kept.metadata.name]);

    const fileOf = (runtime: Runtime) => readFileSync(join(out, `${runtime.metadata.name}.yaml`), 'utf8');
    const read = (runtime: Runtime) => parseYaml11(fileOf(runtime), runtime.metadata.name) as Runtime;
    // KEB's labels, from the Shoot and the GardenerCluster; the spec as KEB wrote it but for the SKR's fields.
    const full = read(withCluster);
    expect(full.metadata).toEqual({
      name: withCluster.metadata.name,
      namespace: kcpNamespace,
      labels: withCluster.metadata.labels,
    });
    expect(full.spec.shoot.platformRegion).toBe(withCluster.spec.shoot.platformRegion);
    expect(full.spec.security.administrators).toBeUndefined();
    expect(fileOf(withCluster)).toMatch(
      /^# Unknown — fill in before kubectl apply:\n# {3}spec\.security\.administrators: /m,
    );
    // Without a GardenerCluster: KEB's own labels and the platform region are listed, not made up.
    const thin = read(bare);
    for (const label of [LABEL_INSTANCE_ID, LABEL_BROKER_PLAN_NAME, LABEL_KYMA_NAME])
      expect(thin.metadata.labels?.[label]).toBeUndefined();
    expect(thin.metadata.labels?.[LABEL_REGION]).toBe(bare.spec.shoot.region);
    expect(thin.spec.shoot.platformRegion).toBeUndefined();
    expect(fileOf(bare)).toContain(`#   metadata.labels["${LABEL_INSTANCE_ID}"]: `);
    expect(imported.stderr).toContain(`  unknown spec.shoot.platformRegion: `);

    // kubectl apply: the API server refuses the file as written; filled in as the SRE would, it is taken.
    const refused = await env.kcp.create(thin as unknown as KubeObject);
    expect(refused.ok ? 'created' : describeFailure(refused)).toMatch(/platformRegion|administrators/);
    for (const [file, original] of [
      [full, withCluster],
      [thin, bare],
    ] as const) {
      const filled = structuredClone(file);
      filled.metadata.labels = { ...original.metadata.labels };
      filled.spec.shoot.platformRegion = original.spec.shoot.platformRegion;
      filled.spec.security.administrators = original.spec.security.administrators;
      await create(filled as unknown as KubeObject);
    }

    // kimops renders the imported Runtimes against their Shoots and would change nothing but its label.
    const gitdir = join(dir.path, 'repo.git');
    expect((await kimops(['init', '--landscape', landscape, gitdir])).code).toBe(0);
    const generate = await kimops([
      'generate',
      '--once',
      '--landscape',
      landscape,
      '--kcp-kubeconfig',
      kcpKubeconfig(),
      '--kcp-namespace',
      kcpNamespace,
      '--garden-kubeconfig',
      gardenKubeconfig(),
      '--repo',
      gitdir,
    ]);
    expect(generate.code, generate.stderr).toBe(0);
    const dry = await kimops([
      'apply',
      '--once',
      '--dry-run',
      '--landscape',
      landscape,
      '--repo',
      gitdir,
      '--garden-kubeconfig',
      gardenKubeconfig(),
    ]);
    expect(dry.code, dry.stderr).toBe(0);
    for (const runtime of [withCluster, bare]) {
      const name = runtime.spec.shoot.name;
      const block = dry.stdout.split('► ').find((b) => b.startsWith(`Shoot/${project.namespace}/${name} `));
      expect(block, dry.stdout).toBeDefined();
      const lines = (block ?? '')
        .trimEnd()
        .split('\n')
        .slice(1)
        // The entry's reasons are indented; the summary after the last entry is not.
        .filter((line) => /^\s+\S/.test(line))
        .map((line) => line.trim());
      // The applier lists only the ConfigMaps it labelled, so KIM's is taken over by name: main's bytes, a label add.
      const companion = `structured-auth-config-${name}`;
      const takeOver = `ConfigMap ${companion}: create, or take over the unlabelled one of that name (KIM's)`;
      expect(lines.filter((line) => !OWN_LABEL_LINE.test(line) && line !== takeOver)).toEqual([]);
      const inMain = parseYaml11(
        execFileSync('git', ['--git-dir', gitdir, 'show', `main:shoots/${name}/configmap-${companion}.yaml`], {
          encoding: 'utf8',
        }),
        companion,
      ) as ConfigMap;
      const live = await env.garden.get<ConfigMap>({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        namespace: project.namespace,
        name: companion,
      });
      expect(live.ok && live.body.data).toEqual(inMain.data);
    }
    // The Shoots are still untouched: a dry run.
    for (const runtime of [withCluster, bare])
      expect(await written(runtime.spec.shoot.name)).toEqual(liveBefore.get(runtime.spec.shoot.name));
  });

  it('writes no file for a Shoot its Runtime would change, naming the fields (exit 1); -o yaml prints the others', async () => {
    const landscape = await landscapeForProject(dir, 'landscape-changed', 'stage', project);
    const kcpNamespace = await createTestNamespace(env.kcp, 'kcp-imp-');
    // A Shoot someone changed by hand where a Runtime cannot follow: the landscape's maintenance settings.
    const changed = await shootOf('aws.yaml', kcpNamespace, (shoot) => {
      shoot.spec.maintenance = {
        ...shoot.spec.maintenance,
        autoUpdate: { kubernetesVersion: true, machineImageVersion: true },
      };
    });
    const fine = await shootOf('gcp.yaml', kcpNamespace);
    // A Shoot edited by hand to a selector KIM never writes (once read as a crash of the whole run), its Kyma
    // worker pool under another name (a note, which -o yaml prints on stderr).
    const odd = await shootOf('azure.yaml', kcpNamespace, (shoot) => {
      const [pool] = shoot.spec.provider.workers;
      if (pool) pool.name = 'main-pool';
      shoot.spec.seedSelector = {
        matchExpressions: [{ key: SEED_REGION_LABEL, operator: 'In', values: [shoot.spec.region] }],
      };
    });
    // A Shoot that is no Kyma runtime: a note, no failure.
    const plain = await shootOf('aws.yaml', kcpNamespace, (shoot) => {
      delete shoot.metadata.annotations?.[ANNOTATION_RUNTIME_ID];
    });
    const runtimes = await dir.write('known/none.yaml', '');
    const args = [
      'import',
      '--landscape',
      landscape,
      '--garden-kubeconfig',
      gardenKubeconfig(),
      '--runtimes',
      runtimes,
      '--kcp-namespace',
      kcpNamespace,
      '-o',
      'yaml',
    ];
    // No Runtime known while the Garden has Shoots: a wrong source, unless the landscape truly has none.
    const unsure = await kimops([...args, '--shoot', fine.spec.shoot.name]);
    expect(unsure.code).toBe(2);
    expect(unsure.stderr).toMatch(
      new RegExp(
        `^0 Runtime\\(s\\) known from --runtimes ${runtimes}; (\\d+) Shoot\\(s\\) in ${project.namespace}\nerror: --runtimes ${runtimes} holds no Runtime, but ${project.namespace} has \\1 Shoot\\(s\\): .* pass --landscape-has-no-runtimes if the landscape truly has none\n$`,
      ),
    );
    expect(unsure.stdout).toBe('');
    const misspelt = await kimops([
      'import',
      '--landscape',
      landscape,
      '--garden-kubeconfig',
      gardenKubeconfig(),
      '--kcp-kubeconfig',
      kcpKubeconfig(),
      '--kcp-namespace',
      `${kcpNamespace}-typo`,
      '-o',
      'yaml',
    ]);
    expect(misspelt.code).toBe(2);
    expect(misspelt.stderr).toContain(
      `error: the KCP's namespace ${kcpNamespace}-typo holds no Runtime, but ${project.namespace} has `,
    );
    const nonKyma = await kimops([
      ...args,
      '--landscape-has-no-runtimes',
      '--shoot',
      plain.spec.shoot.name,
      '--shoot',
      fine.spec.shoot.name,
    ]);
    expect(nonKyma.code, nonKyma.stderr).toBe(0);
    expect(nonKyma.stderr).toContain(
      `note: shoot ${project.namespace}/${plain.spec.shoot.name} names no Runtime ID: no Kyma runtime, not imported\n`,
    );

    const result = await kimops([
      ...args,
      '--landscape-has-no-runtimes',
      '--shoot',
      changed.spec.shoot.name,
      '--shoot',
      fine.spec.shoot.name,
      '--shoot',
      odd.spec.shoot.name,
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `shoot ${project.namespace}/${odd.spec.shoot.name}: imported as Runtime ${kcpNamespace}/${odd.metadata.name} (stdout)\n`,
    );
    expect(result.stderr).toContain(
      '  note: spec.shoot.provider.workers: main-pool is the Kyma worker pool (the Shoot has no cpu-worker-0)\n',
    );
    // The stage landscape turns the Kubernetes auto-update on already: only the machine images' differs.
    expect(result.stderr).toContain(
      `shoot ${project.namespace}/${changed.spec.shoot.name}: not imported: rendering its Runtime in update mode would change spec.maintenance.autoUpdate.machineImageVersion (unknown: `,
    );
    const printed = parseYamlDocuments(result.stdout, 'stdout').map((d) => d.value as Runtime);
    expect(printed.map((r) => r.metadata.name).sort()).toEqual([fine.metadata.name, odd.metadata.name].sort());
    expect(printed.find((r) => r.metadata.name === odd.metadata.name)?.spec.shoot.enforceSeedLocation).toBe(false);
    expect(result.stderr).toContain(`3 Shoot(s) in ${project.namespace} without a Runtime: 2 imported, 1 not;`);
  });

  it("--skr reads the administrators from the Shoot's cluster", async () => {
    const simulator = new GardenletSimulator({
      garden: env.garden,
      intervalMs: 20,
      progressSteps: [50],
      runtimeCluster: planeAsShootCluster(env),
    });
    // The plane's kube-apiserver is every Shoot's cluster: an administrator of this test only, removed after.
    const admin = `admin@${project.namespace}.example.com`;
    const binding = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      name: `imp-${project.namespace}`,
    };
    await simulator.start();
    try {
      const landscape = await landscapeForProject(dir, 'landscape-skr', 'stage', project);
      // Scheduled on a test Seed, which offers neither access restrictions nor zones (as skr-apply.test.ts does).
      const runtime = await shootOf('aws.yaml', await createTestNamespace(env.kcp, 'kcp-imp-'), (shoot) => {
        delete shoot.spec.accessRestrictions;
        delete shoot.spec.controlPlane;
      });
      const { schedule, reconciled } = liveShoots(env.garden, project);
      await schedule(runtime.spec.shoot.name);
      await reconciled(runtime.spec.shoot.name);
      await create({
        apiVersion: binding.apiVersion,
        kind: binding.kind,
        metadata: { name: binding.name, labels: { [LABEL_RECONCILER_MANAGED_BY]: MANAGED_BY_KIM } },
        subjects: [{ kind: 'User', name: admin, apiGroup: 'rbac.authorization.k8s.io' }],
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
      });
      const kimOidc = async () => {
        const listed = await env.kcp.listAll({ ...OIDC }, { labelSelector: OIDC_SELECTOR });
        if (!listed.ok) throw new Error(`list OpenIDConnects: ${listed.message}`);
        return additionalOidcOf(listed.items);
      };
      const oidcBefore = await kimOidc();
      gardenProxy.reset();
      const result = await kimops([
        'import',
        '--landscape',
        landscape,
        '--garden-kubeconfig',
        gardenProxy.kubeconfigPath,
        '--runtimes',
        await dir.write('known-skr/none.yaml', ''),
        '--landscape-has-no-runtimes',
        '--skr',
        '-o',
        'yaml',
        '--shoot',
        runtime.spec.shoot.name,
      ]);
      expect(result.code, result.stderr).toBe(0);
      const [printed] = parseYamlDocuments(result.stdout, 'stdout').map((d) => d.value as Runtime);
      const oidcAfter = await kimOidc();
      expect(printed?.spec.security.administrators).toContain(admin);
      expect(result.stderr).not.toContain('unknown spec.security.administrators');
      // The Shoot's OIDC extension is on: the providers the cluster serves are the Runtime's, KIM's labelled ones
      // (other test files change them on the shared plane: as they were before or after the import).
      expect([oidcBefore, oidcAfter]).toContainEqual(
        printed?.spec.shoot.kubernetes?.kubeAPIServer?.additionalOidcConfig,
      );
      // The one write: Gardener's admin kubeconfig, a subresource it keeps nothing of.
      expect(writesSeen(gardenProxy)).toEqual([
        `POST /apis/core.gardener.cloud/v1beta1/namespaces/${project.namespace}/shoots/${runtime.spec.shoot.name}/adminkubeconfig`,
      ]);
    } finally {
      await simulator.stop();
      await env.kcp.delete(binding);
    }
  });
});
