// `kimops compare` against the real gardener-apiserver: Shoots created from KEB's Runtimes as KIM leaves them (no
// kimops label), a landscape repo whose main differs from them in known fields, one Shoot only main has, one only the
// Garden has. The JSON report names exactly those fields, Shoots and clusters, on a stdout of its own whatever
// --log-format says; the Garden, reached through a counting proxy, sees reads only (and no ConfigMap request:
// a read-only Shoot identity suffices); --watch serves the comparison as metrics and follows a live change, a new
// commit on main and a landscape.yaml merged to main.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { parse } from 'yaml';
import { LandscapeRepo } from '../../adapters/git/landscape-repo.js';
import type { ComparisonReport } from '../../applier/compare.js';
import type { RuntimeInput } from '../../generator/render-runtimes.js';
import type { KubeObject } from '../../model/kube-object.js';
import type { Runtime } from '../../model/runtime.js';
import type { Shoot } from '../../model/shoot.js';
import { toCanonicalYaml } from '../../rules/canonical-yaml.js';
import { withLeader } from '../../rules/leader.js';
import { kimops, startKimops } from '../helpers/cli.js';
import { startGardenProxy, writesSeen, type GardenProxy } from '../helpers/garden-proxy.js';
import { landscapeForProject, useTestProject } from '../helpers/projects.js';
import { seededLandscape } from '../helpers/seeded-landscape.js';
import { createRendered, exampleRuntime, getShoot, render } from '../helpers/shoots.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { connect, eventually } from '../helpers/testenv.js';

const env = connect(inject('testenvStateDir'));
const project = useTestProject(env, 'stage');
const dir = useTempDir('compare');
const author = { name: 'kimops', email: 'kimops@localhost' };

/** KEB's example Shoots: aws and gcp live and in main, azure only in main, a fourth only live. */
const AWS = 'c-78fcc25';
const GCP = 'c-56a4813';
const AZURE = 'cf27a69';
const ONLY_LIVE = 'c-onlylive';
const MAXIMUM = 'spec.provider.workers[cpu-worker-0].maximum';
const MACHINE_TYPE = 'spec.provider.workers[cpu-worker-0].machine.type';

function runtime(file: string, shootName?: string, edit: (r: Runtime) => void = () => {}): RuntimeInput {
  const value = exampleRuntime(file, shootName);
  edit(value);
  return { source: `examples/runtimes/keb/${file}`, runtime: value };
}

function firstWorker(r: Runtime) {
  const worker = r.spec.shoot.provider.workers[0];
  if (!worker) throw new Error(`Runtime ${r.metadata.name} has no worker`);
  return worker;
}

beforeAll(async () => {
  // Live, as KIM created them: rendered from the Runtimes as they are, without kimops's label.
  for (const r of [runtime('aws.yaml'), runtime('gcp.yaml'), runtime('aws.yaml', ONLY_LIVE)])
    await createRendered(env.garden, render(r.runtime, project.settings));
});

/**
 * The landscape repo for the test project: main holds aws with a larger maximum, gcp with a larger maximum and
 * another machine type (and marked as led by KIM), and azure, which is not live.
 */
async function landscapeRepo(): Promise<string> {
  const landscape = await landscapeForProject(dir, 'landscape', 'stage', project);
  const gitdir = join(dir.path, 'landscape.git');
  const runtimes = [
    runtime('aws.yaml', undefined, (r) => void (firstWorker(r).maximum = 25)),
    runtime('gcp.yaml', undefined, (r) => {
      firstWorker(r).maximum = 30;
      firstWorker(r).machine.type = 'n2-standard-4';
    }),
    runtime('azure.yaml'),
  ];
  const repo = await seededLandscape(gitdir, runtimes, project.settings, undefined, landscape);
  const path = `shoots/${GCP}/shoot.yaml`;
  const shoot = parse((await repo.readFile('main', path)) ?? '') as Shoot;
  const files = new Map([[path, toCanonicalYaml(withLeader(shoot, 'kim'))]]);
  await repo.commitFiles({ branch: 'main', files, message: `${GCP}: led by KIM`, author });
  return gitdir;
}

/** The Garden's requests other than reads (LIST and WATCH are GETs too). */

describe('kimops compare', () => {
  let proxy: GardenProxy;
  let proxyDir: string;
  beforeAll(async () => {
    proxyDir = await mkdtemp(join(tmpdir(), 'kimops-compare-proxy-'));
    proxy = await startGardenProxy({ kubeconfig: join(env.stateDir, 'garden.kubeconfig'), dir: proxyDir });
  });
  afterAll(async () => {
    await proxy.close();
    await rm(proxyDir, { recursive: true, force: true });
  });

  it('names exactly the fields main differs in, the Shoots only one side has, the leaders and the clusters; it only reads', async () => {
    const gitdir = await landscapeRepo();
    proxy.reset();
    const args = ['compare', '--repo', gitdir, '--garden-kubeconfig', proxy.kubeconfigPath];
    // The report is stdout's alone, as it is: no log record wraps its lines.
    const run = await kimops([...args, '--output', 'json', '--log-format', 'json']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout) as ComparisonReport;
    expect(report).toMatchObject({
      apiVersion: 'kimops.kyma-project.io/v1alpha1',
      kind: 'ComparisonReport',
      landscape: 'stage',
      namespace: project.namespace,
      summary: {
        inMain: 3,
        live: 3,
        compared: 2,
        differing: 2,
        onlyInMain: 1,
        onlyLive: 1,
        unreadable: 0,
        fields: [
          { path: MAXIMUM, count: 2, examples: [GCP, AWS].sort() },
          { path: MACHINE_TYPE, count: 1, examples: [GCP] },
        ],
        kept: [],
      },
      onlyInMain: [{ name: AZURE, leader: 'kimops' }],
      onlyLive: [{ name: ONLY_LIVE, managedByKimops: false }],
      unreadable: [],
    });
    expect(report.shoots).toEqual(
      [
        {
          name: AWS,
          leader: 'kimops',
          managedByKimops: false,
          differences: [{ path: MAXIMUM, main: 25, live: 20 }],
          kept: [],
        },
        {
          name: GCP,
          leader: 'kim',
          managedByKimops: false,
          differences: [
            { path: MACHINE_TYPE, main: 'n2-standard-4', live: 'n2-standard-2' },
            { path: MAXIMUM, main: 30, live: 20 },
          ],
          kept: [],
        },
      ].sort((a, b) => (a.name < b.name ? -1 : 1)),
    );
    expect(report.notFound).toBeUndefined();

    // One Shoot, as text (as it is, whatever --log-format says): its fields and the summary line.
    const one = await kimops([...args, '--shoot', AWS, '--log-format', 'text']);
    expect(one.code).toBe(1);
    expect(one.stdout).toMatch(
      new RegExp(
        `^► Shoot/${project.namespace}/${AWS} \\(led by kimops, not applied by kimops\\): the next apply changes 1 field\\(s\\)\n`,
      ),
    );
    expect(one.stdout).toContain(`\n    ${MAXIMUM}: main 25, live 20\n`);
    expect(one.stdout).toMatch(
      /\ncompare of main at [0-9a-f]{12} with \S+: 1 in main, 1 live; 1 differ, 0 same, 0 only in main, 0 only live, 0 not compared; nothing written\n$/,
    );
    expect(one.stderr).toBe('');

    // --shoot repeated: both Shoots, KIM's with what a cut-over would change.
    const two = await kimops([...args, '--shoot', AWS, '--shoot', GCP]);
    expect(two.code).toBe(1);
    expect(two.stdout).toContain(
      `► Shoot/${project.namespace}/${GCP} (led by kim, not applied by kimops): a cut-over to kimops would change 2 field(s)\n`,
    );
    expect(two.stdout).toContain(': 2 in main, 2 live; 2 differ,');

    // Only reads reached the Garden.
    expect(proxy.requests.length).toBeGreaterThan(0);
    expect(writesSeen(proxy)).toEqual([]);
  }, 60_000);

  it('--watch serves the comparison as metrics and follows a change of a live Shoot and of main', async () => {
    const gitdir = await landscapeRepo();
    proxy.reset();
    const controller = new AbortController();
    const watching = startKimops(
      [
        'compare',
        '--repo',
        gitdir,
        '--garden-kubeconfig',
        proxy.kubeconfigPath,
        '--watch',
        '--interval',
        '1',
        '--metrics-port',
        '0',
      ],
      controller.signal,
    );
    try {
      const url = await eventually(
        'the metrics server',
        async () => /metrics at (http:\/\/\S+\/metrics)/.exec(watching.stdout)?.[1],
      );
      const metrics = async () => (await fetch(url)).text();
      await eventually('the first comparison served', async () => {
        const text = await metrics();
        return text.includes('kimops_compare_shoots_differing{landscape="stage"} 2') &&
          text.includes(`kimops_compare_field_differences{landscape="stage",field="${MAXIMUM}"} 2`) &&
          text.includes(`kimops_compare_field_differences{landscape="stage",field="${MACHINE_TYPE}"} 1`) &&
          text.includes('kimops_compare_shoots{landscape="stage",state="only-live"} 1')
          ? true
          : undefined;
      });
      expect(await metrics()).toMatch(/^kimops_compare_last_timestamp_seconds\{landscape="stage"\} \d/m);
      const probe = await fetch(url.replace(/\/metrics$/, '/readyz'));
      expect(probe.status).toBe(200);

      // The live aws Shoot gets main's maximum: the next comparison finds it the same.
      await eventually(`${AWS} scaled to main's maximum`, async () => {
        const live = await getShoot(env.garden, project.namespace, AWS);
        const worker = live?.spec.provider.workers[0];
        if (!live || !worker) throw new Error(`${AWS} is not live`);
        worker.maximum = 25;
        const replaced = await env.garden.replace(live as unknown as KubeObject);
        if (!replaced.ok && replaced.status !== 409) throw new Error(`replace ${AWS}: ${replaced.error.message ?? ''}`);
        return replaced.ok ? true : undefined;
      });
      await eventually('the change in the metrics', async () => {
        const text = await metrics();
        return text.includes('kimops_compare_shoots_differing{landscape="stage"} 1') &&
          text.includes(`kimops_compare_field_differences{landscape="stage",field="${MAXIMUM}"} 1`)
          ? true
          : undefined;
      });

      // A new commit on main gives gcp the live maximum: its field leaves the metrics, its machine type stays.
      const repo = await LandscapeRepo.open(gitdir);
      const path = `shoots/${GCP}/shoot.yaml`;
      const shoot = parse((await repo.readFile('main', path)) ?? '') as Shoot;
      const worker = shoot.spec.provider.workers[0];
      if (!worker) throw new Error(`${path} has no worker`);
      worker.maximum = 20;
      await repo.commitFiles({
        branch: 'main',
        files: new Map([[path, toCanonicalYaml(shoot)]]),
        message: 'gcp',
        author,
      });
      await eventually("main's commit in the metrics", async () => {
        const text = await metrics();
        return !text.includes(`field="${MAXIMUM}"`) &&
          text.includes(`kimops_compare_field_differences{landscape="stage",field="${MACHINE_TYPE}"} 1`)
          ? true
          : undefined;
      });

      // A landscape.yaml merged to main that names another (empty) project: followed without a restart, every
      // Shoot of main is then only in main.
      const landscapeYaml = (await repo.readFile('main', 'landscape.yaml')) ?? '';
      const moved = landscapeYaml.replace(/^(\s+project:) \S+$/m, '$1 cmpnone');
      expect(moved).not.toBe(landscapeYaml);
      await repo.commitFiles({
        branch: 'main',
        files: new Map([['landscape.yaml', moved]]),
        message: 'another project',
        author,
      });
      await eventually('the other project in the metrics', async () => {
        const text = await metrics();
        return text.includes('kimops_compare_shoots{landscape="stage",state="only-in-main"} 3') &&
          text.includes('kimops_compare_shoots{landscape="stage",state="only-live"} 0')
          ? true
          : undefined;
      });
    } finally {
      controller.abort();
    }
    const result = await watching.done;
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(
      / INFO {2}compare landscape=stage compare of main at [0-9a-f]{12} with \S+: 3 in main, 3 live; 2 differ, 0 same, 1 only in main, 1 only live, 0 not compared; nothing written$/m,
    );
    expect(result.stdout).toContain('landscape.yaml on main changed: this comparison uses it');
    expect(result.stdout).toContain('with garden-cmpnone: 3 in main, 0 live;');
    expect(writesSeen(proxy)).toEqual([]);
    // The Shoots alone are read: an identity that may only read Shoots suffices.
    expect(proxy.requests.filter((r) => r.path.includes('/configmaps'))).toEqual([]);
    expect(proxy.requests.some((r) => r.path.includes('/shoots'))).toBe(true);
  }, 60_000);
});
