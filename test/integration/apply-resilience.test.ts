// Issue 6's resilience acceptance, on the real gardener-apiserver with the gardenlet simulator, the applier
// talking to the Garden through a proxy (test/helpers/garden-proxy.ts) that can cut it off and count its writes:
// - the Garden going away and coming back: `kimops apply --watch` reports it unreachable and catches up by itself;
// - the applier SIGKILLed mid-wave (a create wave, a deletion wave) and run again: every Shoot exists exactly once,
//   created once, the restart writes only what the first run did not, and no deletion is missed.
// The simulator makes the plane's kube-apiserver every Shoot's cluster, so the applier configures the reconciled
// Shoots' clusters (docs/skr.md) as it would in production: through the proxy it asks Gardener for their admin
// kubeconfigs and records each configured cluster on its Shoot with a merge patch.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { LandscapeRepo } from '../../adapters/git/landscape-repo.js';
import {
  APPLIED_TREE_ANNOTATION,
  APPLY_REPORT_NAME,
  OWNERSHIP_LABEL,
  OWNERSHIP_VALUE,
  COMPANION_OF_LABEL,
  DELETION_CONFIRMATION_ANNOTATION,
  SKR_APPLIED_TREE_ANNOTATION,
} from '../../model/contract.js';
import type { KubeObject } from '../../model/kube-object.js';
import type { Shoot } from '../../model/shoot.js';
import { kimops, startKimops, type CliRun } from '../helpers/cli.js';
import { startGardenProxy, type GardenProxy, type ProxiedRequest } from '../helpers/garden-proxy.js';
import { GardenletSimulator } from '../helpers/gardenlet-simulator.js';
import { landscapeForProject, useTestProject } from '../helpers/projects.js';
import { deleteShoot, getShoot } from '../helpers/shoots.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { connect, eventually, planeAsShootCluster } from '../helpers/testenv.js';

const env = connect(inject('testenvStateDir'));
const project = useTestProject(env, 'stage');
const dir = useTempDir('apply-resilience');
const simulator = new GardenletSimulator({
  garden: env.garden,
  intervalMs: 20,
  progressSteps: [50],
  runtimeCluster: planeAsShootCluster(env),
});
const gardenKubeconfig = () => join(env.stateDir, 'garden.kubeconfig');
const KIMOPS_BIN = new URL('../../cli/kimops-bin.js', import.meta.url).pathname;
const ROOT = new URL('../../', import.meta.url).pathname;
const SHOOTS = '/apis/core.gardener.cloud/v1beta1/namespaces/';

let proxy: GardenProxy;
beforeAll(() => simulator.start());
afterAll(() => simulator.stop());
beforeEach(async () => {
  proxy = await startGardenProxy({ kubeconfig: gardenKubeconfig(), dir: dir.path });
});
afterEach(() => proxy.close());

type LiveShoot = KubeObject & Shoot & { metadata: Shoot['metadata'] & { uid: string; deletionTimestamp?: string } };

/** The Shoot name a proxied request writes to, when it is a request on a Shoot of the test project. */
function shootOf(request: ProxiedRequest): string | undefined {
  const path = request.path.split('?')[0] ?? '';
  const prefix = `${SHOOTS}${project.namespace}/shoots/`;
  return path.startsWith(prefix) ? path.slice(prefix.length) : undefined;
}
/** A request for a companion ConfigMap (not the applier's report, which each writing sync reads). */
const isCompanionRequest = (request: ProxiedRequest) => {
  const path = request.path.split('?')[0] ?? '';
  return (
    path.startsWith(`/api/v1/namespaces/${project.namespace}/configmaps/`) && !path.endsWith(`/${APPLY_REPORT_NAME}`)
  );
};
/** A server-side apply, the applier's write of a Shoot's spec or a companion (a merge patch names no field manager). */
const isApply = (request: ProxiedRequest) => /[?&]fieldManager=/.test(request.path);
/** Gardener issuing an admin kubeconfig for a Shoot's cluster: a request that stores nothing. */
const isAdminKubeconfig = (request: ProxiedRequest) =>
  request.method === 'POST' && (request.path.split('?')[0] ?? '').endsWith('/adminkubeconfig');
const reconciled = (shoot: Shoot | undefined) =>
  shoot?.status?.lastOperation?.state === 'Succeeded' && shoot.status.observedGeneration === shoot.metadata.generation;
/** The Shoot's cluster configured from the folder tree it was applied from, as its annotations say. */
const skrConfigured = (shoot: Shoot | undefined) => {
  const annotations = shoot?.metadata.annotations ?? {};
  const tree = annotations[APPLIED_TREE_ANNOTATION];
  return tree !== undefined && annotations[SKR_APPLIED_TREE_ANNOTATION] === tree;
};
const namesOf = (requests: readonly ProxiedRequest[], method: string, ok = true) =>
  requests
    .filter((r) => r.method === method && (!ok || (r.status >= 200 && r.status < 300)))
    .map(shootOf)
    .filter((n): n is string => n !== undefined);

/** The LISTs (not watches) of a namespace's collections, as `<resource>?<query>`, in order. */
function listsIn(namespace: string, requests: readonly ProxiedRequest[]): string[] {
  return requests
    .filter((r) => r.method === 'GET' && !/[?&]watch=1/.test(r.path))
    .map((r) => /\/namespaces\/([^/]+)\/([^/?]+)(\?.*)?$/.exec(r.path))
    .filter((m): m is RegExpExecArray => m !== null && m[1] === namespace)
    .map((m) => `${m[2]}${m[3] ?? ''}`);
}

/** The counts of a sync's summary line (`main at <sha>: 2 applied, 1 unchanged, …, 0 failed`). */
function summaryOf(stdout: string): { applied: number; unchanged: number; failed: number } | undefined {
  const line = stdout.split('\n').find((l) => /^main at [0-9a-f]{12}: /.test(l));
  const count = (what: string) => Number(new RegExp(`(\\d+) ${what}`).exec(line ?? '')?.[1] ?? NaN);
  return line === undefined
    ? undefined
    : { applied: count('applied'), unchanged: count('unchanged'), failed: count('failed') };
}

/** The kimops-labelled Shoots of the test project, by name. */
async function liveShoots(): Promise<Map<string, LiveShoot>> {
  const listed = await env.garden.list<LiveShoot>(
    { apiVersion: 'core.gardener.cloud/v1beta1', kind: 'Shoot', namespace: project.namespace },
    `${OWNERSHIP_LABEL}=${OWNERSHIP_VALUE}`,
  );
  if (!listed.ok) throw new Error(`list Shoots: ${listed.error.message}`);
  return new Map(listed.body.items.map((s) => [s.metadata.name, s]));
}

/** Companion ConfigMap names per Shoot. */
async function companions(): Promise<Map<string, string[]>> {
  const listed = await env.garden.list(
    { apiVersion: 'v1', kind: 'ConfigMap', namespace: project.namespace },
    COMPANION_OF_LABEL,
  );
  if (!listed.ok) throw new Error(`list ConfigMaps: ${listed.error.message}`);
  const byShoot = new Map<string, string[]>();
  for (const item of listed.body.items) {
    const shoot = (item.metadata.labels as Record<string, string>)[COMPANION_OF_LABEL] ?? '';
    byShoot.set(shoot, [...(byShoot.get(shoot) ?? []), item.metadata.name]);
  }
  return byShoot;
}

/** A landscape repo whose main holds `names` as Shoots, generated from KEB's AWS example Runtime as KEB would create them. */
async function landscapeWith(
  names: string[],
): Promise<{ landscape: string; gitdir: string; runtimes: string; generate: string[] }> {
  const landscape = await landscapeForProject(dir, 'landscape', 'stage', project);
  const gitdir = join(dir.path, 'repo.git');
  const runtimes = join(dir.path, 'runtimes');
  const example = readFileSync(join(ROOT, 'examples/runtimes/keb/aws.yaml'), 'utf8');
  for (const [i, name] of names.entries()) {
    const runtime = parse(example) as {
      metadata: { name: string; labels: Record<string, string> };
      spec: { shoot: { name: string } };
    };
    const id = `61dd7761-08dc-59ce-840d-${String(i).padStart(12, '0')}`;
    runtime.metadata.name = id;
    runtime.metadata.labels['kyma-project.io/runtime-id'] = id;
    runtime.metadata.labels['operator.kyma-project.io/kyma-name'] = id;
    runtime.metadata.labels['kyma-project.io/shoot-name'] = name;
    runtime.spec.shoot.name = name;
    await dir.write(`runtimes/${name}.yaml`, stringify(runtime));
  }
  expect((await kimops(['init', '--landscape', landscape, gitdir])).code).toBe(0);
  const generate = ['generate', '--landscape', landscape, '--runtimes', runtimes, '--repo', gitdir, '--once'];
  const generated = await kimops(generate);
  expect(generated.stderr).toBe('');
  expect(generated.code).toBe(0);
  const repo = await LandscapeRepo.open(gitdir);
  const main = (await repo.resolve('main')) ?? '';
  const folders = [...(await repo.listFolder(main, 'shoots')).entries()]
    .filter(([, e]) => e.type === 'tree')
    .map(([name]) => name)
    .sort();
  expect(folders).toEqual([...names].sort());
  return { landscape, gitdir, runtimes, generate };
}

interface ChildRun extends CliRun {
  signal: NodeJS.Signals | null;
}

/** `kimops <argv>` as its own process (the installed bin: node + tsx), so it can be SIGKILLed. */
function spawnKimops(argv: string[]): { child: ReturnType<typeof spawn>; done: Promise<ChildRun> } {
  const child = spawn(process.execPath, [KIMOPS_BIN, ...argv], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const done = new Promise<ChildRun>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code: code ?? -1, signal, stdout, stderr }));
  });
  return { child, done };
}

/** Runs `kimops <argv>` as a child and SIGKILLs it once `killWhen` holds for the proxy's requests; fails if it ended first. */
async function killMidway(
  argv: string[],
  what: string,
  killWhen: (requests: readonly ProxiedRequest[]) => boolean,
): Promise<ChildRun> {
  const { child, done } = spawnKimops(argv);
  let ended: ChildRun | undefined;
  void done.then((run) => (ended = run));
  await eventually(what, async () => (killWhen(proxy.requests) || ended ? true : undefined), 45_000, 5);
  if (!ended) child.kill('SIGKILL');
  const run = await done;
  expect(run.signal, `the applier ended before ${what}:\n${run.stdout}${run.stderr}`).toBe('SIGKILL');
  // What the killed process had sent completes at the Garden; stop() waits for it, so `requests` and the
  // Garden agree from here on.
  await proxy.stop();
  await proxy.start();
  return run;
}

async function cleanUp(names: string[]): Promise<void> {
  for (const name of names) await deleteShoot(env.garden, project.namespace, name);
  await eventually('the Shoots to be gone', async () => ((await liveShoots()).size === 0 ? true : undefined), 30_000);
  // Their companions too, so that the next test's applier finds no orphans of this one.
  for (const names of (await companions()).values())
    for (const name of names)
      await env.garden.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: project.namespace, name });
}

describe('kimops apply --watch when the Garden goes away', () => {
  it('reports the Garden unreachable and applies what main got meanwhile once it is back, without a restart', async () => {
    const aws = 'c-away';
    const { landscape, gitdir, runtimes, generate } = await landscapeWith([aws]);
    const controller = new AbortController();
    const applier = startKimops(
      [
        'apply',
        '--landscape',
        landscape,
        '--repo',
        gitdir,
        '--garden-kubeconfig',
        proxy.kubeconfigPath,
        '--watch',
        '--interval',
        '1',
        // Every sync's summary as a plain line: the test counts them.
        '--log-format',
        'plain',
      ],
      controller.signal,
    );
    try {
      await eventually(`${aws} created`, async () =>
        (await getShoot(env.garden, project.namespace, aws)) ? true : undefined,
      );
      await eventually('the create through the proxy recorded', async () =>
        namesOf(proxy.requests.filter(isApply), 'PATCH').length > 0 ? true : undefined,
      );
      expect(namesOf(proxy.requests.filter(isApply), 'PATCH')).toEqual([aws]);
      // Reconciled by Gardener, its cluster is configured by the applier's next sync.
      await eventually(
        `${aws}'s cluster configured`,
        async () => (skrConfigured(await getShoot(env.garden, project.namespace, aws)) ? true : undefined),
        20_000,
      );
      // Syncs plan against caches kept by WATCH: one LIST per kind filled them, the syncs after list nothing.
      const syncs = () => applier.stdout.split('\n').filter((l) => /^main at [0-9a-f]{12}: /.test(l)).length;
      const before = syncs();
      await eventually('three more syncs', async () => (syncs() >= before + 3 ? true : undefined), 20_000);
      // Besides, of the registry caches' garden Secrets: the first sync's one LIST of every copy (for those of Runtimes
      // whose Shoot is gone), and the SKR phase's one LIST of the Runtime's, when it configured the cluster.
      const lists = listsIn(project.namespace, proxy.requests);
      expect(lists.filter((l) => !l.startsWith('secrets?')).sort()).toEqual([
        `configmaps?labelSelector=${encodeURIComponent(`${OWNERSHIP_LABEL}=${OWNERSHIP_VALUE},${COMPANION_OF_LABEL}`)}&limit=500`,
        `shoots?limit=500`,
      ]);
      expect(lists.filter((l) => l.startsWith('secrets?')).sort()).toEqual([
        expect.stringMatching(
          /^secrets\?labelSelector=app\.kubernetes\.io%2Fmanaged-by%3Dinfrastructure-manager%2Ckyma-project\.io%2Fregistry-cache-id%2Ckyma-project\.io%2Fruntime-id$/,
        ),
        expect.stringMatching(
          /^secrets\?labelSelector=kyma-project\.io%2Fruntime-id%3D[^&]+%2Capp\.kubernetes\.io%2Fmanaged-by%3Dinfrastructure-manager$/,
        ),
      ]);

      // The Garden goes away; meanwhile main gets a change (a worker maximum, merged by generate).
      await proxy.stop();
      writeFileSync(
        join(runtimes, `${aws}.yaml`),
        readFileSync(join(runtimes, `${aws}.yaml`), 'utf8').replace('maximum: 20', 'maximum: 27'),
      );
      const merged = await kimops(generate);
      expect(merged.code).toBe(0);
      // (A sync running at the moment of the cut may fail with the connection reset first.)
      await eventually(
        'a sync to fail as unreachable',
        async () => (/ECONNREFUSED.*\n(.*\n)*the next pass starts in/.test(applier.stderr) ? true : undefined),
        20_000,
      );
      expect(applier.stderr).toContain(`cannot reach ${proxy.url}`);
      expect(applier.stderr).toContain("check that the API server runs and the kubeconfig's server address");
      expect((await getShoot(env.garden, project.namespace, aws))?.spec.provider.workers[0]?.maximum).toBe(20);

      // Back: the same applier, without any intervention, writes the change.
      proxy.reset();
      await proxy.start();
      await eventually(
        `${aws} scaled to 27 after the Garden came back`,
        async () =>
          (await getShoot(env.garden, project.namespace, aws))?.spec.provider.workers[0]?.maximum === 27
            ? true
            : undefined,
        20_000,
      );
      // The proxy records a request once its answer has gone back, which may be just after the Garden holds it.
      await eventually('the apply through the proxy recorded', async () =>
        namesOf(proxy.requests.filter(isApply), 'PATCH').length > 0 ? true : undefined,
      );
      expect(namesOf(proxy.requests.filter(isApply), 'PATCH')).toEqual([aws]);
    } finally {
      controller.abort();
      const result = await applier.done;
      expect(result.code).toBe(0);
      await cleanUp([aws]);
    }
  }, 60_000);
});

describe('kimops apply killed mid-wave and run again', () => {
  const NAMES = Array.from({ length: 12 }, (_, i) => `c-wave${String(i).padStart(2, '0')}`);

  it('creates every Shoot exactly once: the restart writes only the Shoots the killed run did not', async () => {
    const { landscape, gitdir } = await landscapeWith(NAMES);
    const apply = [
      'apply',
      '--landscape',
      landscape,
      '--repo',
      gitdir,
      '--garden-kubeconfig',
      proxy.kubeconfigPath,
      '--once',
    ];
    try {
      // Killed after the Garden has answered 3 Shoot creates.
      await killMidway(apply, '3 Shoots created', (requests) => namesOf(requests, 'PATCH').length >= 3);
      const first = [...proxy.requests];
      const createdFirst = namesOf(first, 'PATCH');
      const afterKill = await liveShoots();
      expect([...afterKill.keys()].sort()).toEqual([...createdFirst].sort());
      expect(afterKill.size).toBeGreaterThanOrEqual(3);
      expect(afterKill.size).toBeLessThan(NAMES.length); // killed mid-wave, not after it
      // Gardener reconciles the killed run's Shoots meanwhile: their clusters are due, which that run never got to.
      await eventually("the killed run's Shoots reconciled", async () => {
        const live = await liveShoots();
        return [...afterKill.keys()].every((name) => reconciled(live.get(name))) ? true : undefined;
      });

      proxy.reset();
      const second = spawnKimops(apply);
      const rerun = await second.done;
      expect(rerun.stderr).toBe('');
      expect(rerun.code).toBe(0);
      const missing = NAMES.filter((n) => !afterKill.has(n));
      expect(summaryOf(rerun.stdout)).toEqual({ applied: missing.length, unchanged: afterKill.size, failed: 0 });
      // The restart applied each missing Shoot once; of the Shoots the killed run had created, it only configured
      // their clusters (an admin kubeconfig each) and recorded that (a merge patch each).
      expect(namesOf(proxy.requests.filter(isApply), 'PATCH', false).sort()).toEqual(missing);
      expect(proxy.requests.filter(isAdminKubeconfig).map(shootOf).sort()).toEqual(
        [...afterKill.keys()].sort().map((name) => `${name}/adminkubeconfig`),
      );
      const objectWrites = proxy.requests.filter(
        (r) => r.method !== 'GET' && !isAdminKubeconfig(r) && (shootOf(r) !== undefined || isCompanionRequest(r)),
      );
      expect(objectWrites.filter((r) => r.method !== 'PATCH')).toEqual([]);
      for (const name of afterKill.keys()) {
        expect(
          objectWrites.filter((r) => r.path.includes(name)).map((r) => (isApply(r) ? 'apply' : 'merge patch')),
          name,
        ).toEqual(['merge patch']);
        expect(rerun.stdout).toContain(`${name}: SKR: recorded ${SKR_APPLIED_TREE_ANNOTATION}`);
      }
      expect(
        proxy.requests
          .filter(isCompanionRequest)
          .every((r) => missing.some((n) => r.path.includes(`structured-auth-config-${n}?`))),
      ).toBe(true);

      // Every Shoot exists once, each created once: those of the killed run kept their uid, and every create
      // (a 201 from the server-side apply) happened once over both runs.
      const live = await liveShoots();
      expect([...live.keys()].sort()).toEqual(NAMES);
      for (const [name, shoot] of afterKill) {
        expect(live.get(name)?.metadata.uid, name).toBe(shoot.metadata.uid);
        expect(skrConfigured(live.get(name)), name).toBe(true);
      }
      const creates = [...first, ...proxy.requests]
        .filter((r) => r.method === 'PATCH' && r.status === 201)
        .map(shootOf)
        .filter((n) => n !== undefined);
      expect(creates.sort()).toEqual(NAMES);
      const byShoot = await companions();
      for (const name of NAMES) expect(byShoot.get(name), name).toEqual([`structured-auth-config-${name}`]);
    } finally {
      await cleanUp(NAMES);
    }
  }, 60_000);

  it('deletes every removed Shoot, and later its companions, when killed mid-way through a deletion wave', async () => {
    const { landscape, gitdir } = await landscapeWith(NAMES);
    const direct = [
      'apply',
      '--landscape',
      landscape,
      '--repo',
      gitdir,
      '--garden-kubeconfig',
      gardenKubeconfig(),
      '--once',
    ];
    try {
      const created = await kimops(direct);
      expect(created.code).toBe(0);
      // Reconciled, their clusters are configured by the next sync: from then on a kept Shoot needs no write.
      await eventually('the Shoots reconciled', async () => {
        const live = await liveShoots();
        return live.size === NAMES.length && [...live.values()].every(reconciled) ? true : undefined;
      });
      const configured = await kimops(direct);
      expect(configured.stderr).toBe('');
      expect(configured.code).toBe(0);
      const before = await liveShoots();
      expect(before.size).toBe(NAMES.length);
      for (const [name, shoot] of before) expect(skrConfigured(shoot), name).toBe(true);

      // A commit removes 6 Shoot folders (beyond kimops.yaml's massDeletion, hence the override).
      const removed = NAMES.filter((_, i) => i % 2 === 0);
      const kept = NAMES.filter((n) => !removed.includes(n));
      const repo = await LandscapeRepo.open(gitdir);
      const commit = await repo.commitFiles({
        branch: 'main',
        files: new Map(),
        deletions: removed.map((n) => `shoots/${n}`),
        message: 'Remove 6 Shoots',
        author: { name: 'test', email: 'test@localhost' },
      });
      expect(commit.changed).toBe(true);
      const apply = [
        'apply',
        '--landscape',
        landscape,
        '--repo',
        gitdir,
        '--garden-kubeconfig',
        proxy.kubeconfigPath,
        '--once',
        '--allow-mass-deletion',
        String(removed.length),
      ];

      // Killed after the Garden has accepted 2 DELETEs.
      await killMidway(apply, '2 Shoots deleted', (requests) => namesOf(requests, 'DELETE').length >= 2);
      const first = [...proxy.requests];
      const deletedFirst = namesOf(first, 'DELETE');
      expect(deletedFirst.length).toBeGreaterThanOrEqual(2);
      expect(deletedFirst.length).toBeLessThan(removed.length); // killed mid-wave
      const afterKill = await liveShoots();
      const deletingOrGone = removed.filter((n) => !afterKill.has(n) || afterKill.get(n)?.metadata.deletionTimestamp);
      expect(deletingOrGone.sort()).toEqual([...deletedFirst].sort());

      proxy.reset();
      const rerun = await spawnKimops(apply).done;
      expect(rerun.stderr).toBe('');
      expect(rerun.code).toBe(0);
      const pending = removed.filter((n) => !deletingOrGone.includes(n));
      // The restart deletes exactly the removed Shoots the killed run had not, each confirmed first.
      expect(namesOf(proxy.requests, 'DELETE', false).sort()).toEqual(pending);
      for (const name of pending)
        expect(rerun.stdout).toContain(`${name}: deletion of Shoot ${name} confirmed and requested`);
      // The kept Shoots: never written by either run.
      for (const name of kept)
        expect(
          [...first, ...proxy.requests].filter((r) => r.method !== 'GET' && r.path.includes(name)),
          name,
        ).toEqual([]);

      // No missed delete: Gardener (the simulator) removes every removed Shoot; the kept ones are the same objects.
      await eventually('the removed Shoots to be gone', async () => {
        const live = await liveShoots();
        return removed.every((n) => !live.has(n)) ? live : undefined;
      });
      const live = await liveShoots();
      expect([...live.keys()].sort()).toEqual(kept);
      for (const name of kept) expect(live.get(name)?.metadata.uid, name).toBe(before.get(name)?.metadata.uid);
      for (const name of removed) {
        const confirmed = [...first, ...proxy.requests].some(
          (r) => r.method === 'PATCH' && shootOf(r) === name && r.status === 200,
        );
        expect(confirmed, `${DELETION_CONFIRMATION_ANNOTATION} set on ${name} before its DELETE`).toBe(true);
      }

      // A later sync cleans up the companions of the removed Shoots and leaves the kept ones'.
      const later = await kimops(apply.map((a) => (a === proxy.kubeconfigPath ? gardenKubeconfig() : a)));
      expect(later.stderr).toBe('');
      expect(later.code).toBe(0);
      expect(summaryOf(later.stdout)).toEqual({ applied: 0, unchanged: kept.length, failed: 0 });
      const byShoot = await companions();
      expect([...byShoot.keys()].sort()).toEqual(kept);
      for (const name of kept) expect(byShoot.get(name), name).toEqual([`structured-auth-config-${name}`]);
    } finally {
      await cleanUp(NAMES);
    }
  }, 90_000);
});
