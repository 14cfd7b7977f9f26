// Applier benchmark (issue 6): 10,000 Shoots in one project's inventory on the real test control plane
// (scripts/testenv: etcd + kube-apiserver + gardener-apiserver, admission on), synced by `kimops apply --once`
// run as a child process of its own (so its peak RSS is the applier's), its Garden requests counted by a
// proxy in front of kube-apiserver (test/helpers/garden-proxy.ts).
//
// Setup: the synthetic Runtimes of the other benchmarks (made admissible: apply-seed.ts) rendered by the
// generator's render path (renderRuntimes + the landscape layout) for a Gardener project of the bench's own,
// committed to a landscape repo made by `kimops init`. The live Shoots and their structured-auth ConfigMaps
// are then written by the applier itself — syncCommit, what `kimops apply --once` runs, in this process —
// with QPS, burst and concurrency raised (apply-seed.ts). The seeding rate is printed.
//
// The --once processes keep a plan cache in the bench's folder (ADR 0007): (1) runs without one, (2) and (3) with
// the one the run before wrote; the watching applier runs with --no-plan-cache (its first sync is a fresh process's).
//
// Measured: (1) a no-op sync, the first after seeding (nothing written by anyone in between): wall time,
// write requests, LIST requests (and pages), peak RSS. Baselines in the same run: the LISTs the sync cannot
// avoid (every Shoot, and the labelled ConfigMaps, of the namespace) through the same proxy in a process of
// their own, and the start of the kimops process (`kimops --help`). Then rounds (KIMOPS_BENCH_APPLY_ROUNDS,
// default 2) of (2) a sync of 100 changed Shoots (worker maximum + 1 of 100 Runtimes, one commit; another
// 100 each round): wall time, writes, RSS, beside the pacing-bound minimum of kimops.yaml's QPS/burst
// (KIM's 5/5); and (3) a no-op again, over Shoots the measured applier wrote itself.
//
// Warm (apply-warm.ts): `kimops apply --watch --metrics-port` as one child process, the production mode —
// its memo kept from sync to sync — through the same proxy: the first sync (memo empty), no-ops
// (KIMOPS_BENCH_APPLY_WARM_NOOPS, default 3), a commit of 100 changed Shoots while it idles, that sync, a
// no-op; durations from its kimops_applier_sync_duration_seconds histogram, peak RSS from /proc.
// KIMOPS_BENCH_APPLY_MODE=cold|warm|both (default both) picks what is measured.
//
// Targets (issue 6): a no-op makes zero writes and at most one LIST and finishes in under 10 s; peak RSS
// under 500 MiB. The run exits non-zero when a sync fails, a no-op writes, or (2) writes other than 100.
//
// The plane: its own (build.sh when the binaries are not cached, up.sh with a fresh KIMOPS_TESTENV_STATE,
// down.sh at the end, also on failure or Ctrl-C), or a running one named by KIMOPS_TESTENV (then only the
// bench's own project is used, and its Shoots and the project are removed afterwards; KIMOPS_BENCH_APPLY_KEEP=1
// keeps them, and KIMOPS_BENCH_APPLY_PROJECT=<project> starts from a kept one, skipping most of the seeding).
// KIMOPS_BENCH_RUNTIMES changes the count; KIMOPS_BENCH_SEED_LANES the seeding's concurrency.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LandscapeRepo } from '../../adapters/git/landscape-repo.js';
import { main as kimops } from '../../cli/kimops.js';
import { fileMapOf } from '../../rules/landscape-layout.js';
import { renderRuntimes } from '../../generator/render-runtimes.js';
import { KIMOPS_YAML, parseKimopsConfig, type ApplySettings } from '../../model/kimops-config.js';
import type { ConversionSettings } from '../../model/landscape.js';
import type { Runtime } from '../../model/runtime.js';
import { startGardenProxy, type GardenProxy } from '../../test/helpers/garden-proxy.js';
import { createTestProject, landscapeForProject, type TestProject } from '../../test/helpers/projects.js';
import { DELETION_CONFIRMATION, landscapeSettings } from '../../test/helpers/shoots.js';
import { connect, runTestenvScript, type Testenv } from '../../test/helpers/testenv.js';
import { admissible, gardenRegions, removeSeeded, seedAsApplier, type SeedFigures } from './apply-seed.js';
import { measureWarm, type WarmRun, type WarmSync } from './apply-warm.js';
import { BENCH_AUTHOR, BENCH_LANDSCAPE, benchRuntimes, msSince, timed } from './generate-common.js';

const RUNTIMES = Number(process.env.KIMOPS_BENCH_RUNTIMES ?? 10_000);
const CHANGED = Math.min(100, RUNTIMES);
/** Requests in flight while seeding; the plane's two cores are the limit, not this. */
const SEED_LANES = Number(process.env.KIMOPS_BENCH_SEED_LANES ?? 8);
/** Rounds of (2) a change of 100 Shoots and (3) a no-op after it, after (1): a range from one seeding. */
const ROUNDS = Number(process.env.KIMOPS_BENCH_APPLY_ROUNDS ?? 2);
/** KIMOPS_BENCH_APPLY_MODE: `cold` (`--once` processes), `warm` (one `--watch` process, apply-warm.ts) or `both`. */
const MODE = process.env.KIMOPS_BENCH_APPLY_MODE ?? 'both';
const COLD = MODE === 'cold' || MODE === 'both';
const WARM = MODE === 'warm' || MODE === 'both';
/** No-op syncs of the watching applier measured after its first (cold) one, before the change. */
const WARM_NOOPS = Number(process.env.KIMOPS_BENCH_APPLY_WARM_NOOPS ?? 3);
/** The watch's --interval (seconds from the end of one sync to the start of the next). */
const WARM_INTERVAL_S = Number(process.env.KIMOPS_BENCH_APPLY_WARM_INTERVAL ?? 5);
const TARGET_NOOP_MS = 10_000;
const TARGET_LISTS = 1;
const TARGET_RSS_MIB = 500;

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/**
 * kimops as production runs it: compiled (`npm run build`, which the bench runs first; under tsx the process
 * starts with ~100 MiB more: Node 20 runs tsx's loader in a thread of its own). KIMOPS_BENCH_APPLY_TSX=1
 * measures `cli/kimops-bin.js` (the TypeScript sources through tsx) instead.
 */
const UNDER_TSX = process.env.KIMOPS_BENCH_APPLY_TSX === '1';
const KIMOPS_BIN = join(ROOT, UNDER_TSX ? 'cli/kimops-bin.js' : 'dist/cli/kimops.js');
const GNU_TIME = '/usr/bin/time';
/** KIMOPS_BENCH_APPLY_PROFILE=<dir>: each measured kimops process writes a V8 CPU profile there (node --cpu-prof). */
const PROFILE_DIR = process.env.KIMOPS_BENCH_APPLY_PROFILE;
/** KIMOPS_BENCH_APPLY_NODE_ARGS: node options for each measured kimops process (e.g. --max-old-space-size=512), space-separated. */
const NODE_ARGS = (process.env.KIMOPS_BENCH_APPLY_NODE_ARGS ?? '').split(' ').filter(Boolean);

const ms = (value: number) => `${value.toFixed(0).padStart(7)} ms`;
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0).padStart(7)} MiB`;
const verdict = (met: boolean) => (met ? 'met' : 'MISSED');
const log = (text: string) => process.stderr.write(`bench apply: ${text}\n`);

/**
 * With KIMOPS_TESTENV: KIMOPS_BENCH_APPLY_KEEP=1 leaves the project and its Shoots in place at the end, and
 * KIMOPS_BENCH_APPLY_PROJECT=<project> starts from such a project. Seeding then writes only what differs from
 * the new repo (the earlier run's changed Shoots: updates, which Gardener admits without the throttled lookup
 * of a create), so a run on a kept 10,000-Shoot project takes minutes instead of the seeding's half hour.
 */
const KEEP_PROJECT = process.env.KIMOPS_BENCH_APPLY_KEEP === '1';
const REUSE_PROJECT = process.env.KIMOPS_BENCH_APPLY_PROJECT;

/** A project an earlier run kept, as createTestProject describes one (settings pointed at it, remove()). */
export async function existingProject(env: Testenv, project: string): Promise<TestProject> {
  const ref = { apiVersion: 'core.gardener.cloud/v1beta1', kind: 'Project', name: project };
  const found = await env.garden.get(ref);
  if (!found.ok)
    throw new Error(
      `KIMOPS_BENCH_APPLY_PROJECT=${project}: no such Project on the plane (${found.status}); leave it unset to make a new one`,
    );
  const base = landscapeSettings(BENCH_LANDSCAPE);
  return {
    settings: { ...base, config: { ...base.config, gardener: { ...base.config.gardener, projectName: project } } },
    namespace: `garden-${project}`,
    async remove() {
      await env.garden.patch(ref, { metadata: { annotations: { [DELETION_CONFIRMATION]: 'true' } } });
      await env.garden.delete(ref);
    },
  };
}

/** What SIGINT/SIGTERM must still do (in order) before the bench dies: stop its plane, remove its files. */
const onStopSteps: (() => void)[] = [];
export function onStop(step: () => void): void {
  if (onStopSteps.length === 0) {
    const stop = (signal: NodeJS.Signals) => {
      for (const s of onStopSteps.splice(0)) s();
      process.kill(process.pid, signal);
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  }
  onStopSteps.unshift(step);
}

/** The plane the bench works on, and how to let go of it. */
export interface Plane {
  env: Testenv;
  own: boolean;
  release(): void;
}

export function startPlane(): Plane {
  const given = process.env.KIMOPS_TESTENV;
  if (!given && (KEEP_PROJECT || REUSE_PROJECT))
    throw new Error(
      'KIMOPS_BENCH_APPLY_KEEP and KIMOPS_BENCH_APPLY_PROJECT need a running plane in KIMOPS_TESTENV (a plane of its own is stopped at the end)',
    );
  if (given) {
    log(`using the running plane ${given} (KIMOPS_TESTENV); only the bench's own project is touched`);
    if (REUSE_PROJECT === undefined && KEEP_PROJECT) log('KIMOPS_BENCH_APPLY_KEEP=1: the project is kept at the end');
    return { env: connect(given), own: false, release: () => undefined };
  }
  const stateDir = mkdtempSync(join(tmpdir(), 'kimops-bench-apply-plane-'));
  rmSync(stateDir, { recursive: true }); // up.sh creates it and marks it as its own
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    log(`stopping the plane ${stateDir}`);
    runTestenvScript('down.sh', stateDir);
  };
  // A bench stopped by Ctrl-C still stops its plane.
  onStop(release);
  log(`starting a plane of its own in ${stateDir}`);
  try {
    // As .ci/run does: build the plane's binaries when the cache lacks them (a no-op when it has them).
    runTestenvScript('build.sh', stateDir);
    runTestenvScript('up.sh', stateDir);
  } catch (error) {
    release();
    throw error;
  }
  return { env: connect(stateDir), own: true, release };
}

/** The generator's render path: each Runtime through renderRuntimes, laid out as the landscape repo's files. */
function render(runtimes: readonly Runtime[], settings: ConversionSettings): Map<string, string> {
  const result = renderRuntimes(
    runtimes.map((runtime) => ({ source: 'bench', runtime })),
    settings,
  );
  const failed = [
    ...result.failures.map((f) => f.message),
    ...result.bugs.map((b) => `${b.runtime}: ${String(b.error)}`),
  ];
  if (failed.length > 0) throw new Error(`${failed.length} benchmark Runtimes failed to render, e.g. ${failed[0]}`);
  const files = new Map<string, string>();
  for (const rendered of result.rendered)
    for (const [path, content] of fileMapOf(rendered.manifests)) files.set(path, content);
  return files;
}

/**
 * 100 Runtimes spread over the corpus (another 100 each round) with their first worker's maximum `round`
 * higher than main's first commit has it and a new generation (so a round differs from the one before also
 * when the corpus is too small for another 100).
 */
function changedRuntimes(runtimes: readonly Runtime[], round: number): Runtime[] {
  const step = Math.max(1, Math.floor(runtimes.length / CHANGED));
  const changed: Runtime[] = [];
  for (let i = (round - 1) % step; i < runtimes.length && changed.length < CHANGED; i += step) {
    const runtime = structuredClone(runtimes[i] as Runtime);
    const worker = runtime.spec.shoot.provider.workers[0];
    if (!worker) throw new Error(`benchmark Runtime ${runtime.metadata.name} has no worker`);
    worker.maximum += round;
    runtime.metadata.generation = (runtime.metadata.generation ?? 1) + 1;
    changed.push(runtime);
  }
  return changed;
}

// --- the measured process -------------------------------------------------------------------------------

interface ChildRun {
  /** Of GNU time when it measures, else of node: CPU profiles are named by node's pid. */
  pid: number;
  code: number;
  ms: number;
  peakRssBytes: number;
  stdout: string;
  stderr: string;
}

/**
 * `kimops <args>` as a process of its own, timed from spawn to exit. Peak RSS by GNU time (the kernel's
 * maxrss of the child) where it is installed, else VmHWM read from /proc while it runs.
 */
async function runKimops(args: readonly string[], profile = false): Promise<ChildRun> {
  const gnuTime = existsSync(GNU_TIME);
  const command = gnuTime ? GNU_TIME : process.execPath;
  const node = [
    ...NODE_ARGS,
    ...(profile && PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : []),
    KIMOPS_BIN,
    ...args,
  ];
  const argv = gnuTime ? ['-f', 'kimops-bench-maxrss-kib %M', process.execPath, ...node] : node;
  const start = process.hrtime.bigint();
  const child = spawn(command, argv, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  let polledKib = 0;
  const poll = gnuTime
    ? undefined
    : setInterval(() => {
        try {
          const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
          if (match) polledKib = Math.max(polledKib, Number(match[1]));
        } catch {
          // gone already
        }
      }, 10);
  const code = await new Promise<number>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (exit) => resolve(exit ?? -1));
  });
  const elapsed = msSince(start);
  if (poll) clearInterval(poll);
  let kib = polledKib;
  if (gnuTime) {
    const match = /kimops-bench-maxrss-kib (\d+)\s*$/.exec(stderr);
    kib = match ? Number(match[1]) : 0;
    stderr = stderr.replace(/kimops-bench-maxrss-kib \d+\s*$/, '');
  }
  return { code, ms: elapsed, peakRssBytes: kib * 1024, stdout, stderr, pid: child.pid ?? 0 };
}

// --- what the proxy saw ---------------------------------------------------------------------------------

interface RequestFigures {
  total: number;
  writes: number;
  writesByMethod: string;
  /** LIST requests, each page counted. */
  listPages: number;
  /** LISTs: pages that are not the continuation of a previous one (when the path shows the query). */
  lists: number;
  listed: string[];
  /** The most LISTs of any one collection. */
  listsPerCollection: number;
  gets: number;
}

/** A GET of a collection (`…/namespaces/<ns>/shoots`, `/api/v1/configmaps`), not of one object. */
function collectionOf(path: string): string | undefined {
  const parts = path.split('?')[0]?.split('/').filter(Boolean) ?? [];
  let rest = parts[0] === 'api' ? parts.slice(2) : parts[0] === 'apis' ? parts.slice(3) : undefined;
  if (!rest) return undefined;
  if (rest[0] === 'namespaces' && rest.length >= 3) rest = rest.slice(2);
  return rest.length === 1 ? rest[0] : undefined;
}

function countBy(keys: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const key of keys) counts.set(key, (counts.get(key) ?? 0) + 1);
  return counts;
}

function requestFigures(requests: readonly { method: string; path: string; status: number }[]): RequestFigures {
  const writes = requests.filter((r) => r.method !== 'GET');
  const byMethod = new Map<string, number>();
  for (const w of writes) byMethod.set(w.method, (byMethod.get(w.method) ?? 0) + 1);
  const pages = requests.filter((r) => r.method === 'GET' && collectionOf(r.path) !== undefined);
  const firstPages = pages.filter((r) => !/[?&]continue=/.test(r.path));
  return {
    total: requests.length,
    writes: writes.length,
    writesByMethod: [...byMethod].map(([m, n]) => `${n} ${m}`).join(', ') || 'none',
    listPages: pages.length,
    lists: firstPages.length,
    listed: [...new Set(pages.map((r) => collectionOf(r.path) ?? ''))].sort(),
    listsPerCollection: Math.max(0, ...countBy(firstPages.map((r) => collectionOf(r.path) ?? '')).values()),
    gets: requests.filter((r) => r.method === 'GET').length - pages.length,
  };
}

// --- the benchmark --------------------------------------------------------------------------------------

interface SyncFigures {
  label: string;
  noop: boolean;
  run: ChildRun;
  requests: RequestFigures;
  summary: string;
}

export async function benchApply(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'kimops-bench-apply-'));
  const removeWork = () => rmSync(work, { recursive: true, force: true });
  onStop(removeWork);
  let plane: Plane | undefined;
  let project: TestProject | undefined;
  let proxy: GardenProxy | undefined;
  let problems: string[] = [];
  try {
    if (!UNDER_TSX) {
      console.log('bench apply: npm run build (kimops compiled, as production runs it)');
      const built = spawnSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'inherit' });
      if (built.status !== 0) throw new Error(`npm run build failed (exit ${built.status ?? built.signal})`);
    }
    plane = startPlane();
    const env = plane.env;
    const [created, projectMs] = await timed(() =>
      REUSE_PROJECT ? existingProject(env, REUSE_PROJECT) : createTestProject(env, BENCH_LANDSCAPE),
    );
    project = created;
    const settings = project.settings;
    log(`project namespace ${project.namespace}${REUSE_PROJECT ? ', reused' : ''} (${projectMs.toFixed(0)} ms)`);

    const { landscape, gitdir, repo, runtimes, config, setup } = await seededLandscape(
      env,
      project,
      work,
      RUNTIMES,
      log,
    );

    proxy = await startGardenProxy({ kubeconfig: join(env.stateDir, 'garden.kubeconfig'), dir: work });
    // The --once processes keep their plan cache in the bench's folder (new, so the first sync has none); the
    // watching applier keeps none, so its first sync is a fresh process's.
    const planCache = join(work, 'plan-cache.json');
    const apply = [
      'apply',
      '--landscape',
      landscape,
      '--repo',
      gitdir,
      '--garden-kubeconfig',
      proxy.kubeconfigPath,
      '--once',
      '--plan-cache',
      planCache,
    ];
    const sync = async (label: string, noop = false): Promise<SyncFigures> => {
      proxy?.reset();
      const run = await runKimops(apply, true);
      const requests = requestFigures(proxy?.requests ?? []);
      // The result line (`main at <sha>: N applied, M unchanged, …`), wherever the CLI prints it.
      const summary =
        run.stdout.split('\n').find((l) => / applied, \d+ unchanged/.test(l)) ??
        run.stdout.trim().split('\n').at(-1) ??
        '';
      if (run.code !== 0)
        problems.push(`${label}: kimops apply exited ${run.code}: ${summary}\n${run.stderr.slice(0, 2_000)}`);
      log(
        `${label}: ${run.ms.toFixed(0)} ms, ${requests.writes} writes, ${(run.peakRssBytes / 2 ** 20).toFixed(0)} MiB${PROFILE_DIR ? ` (CPU profile in ${PROFILE_DIR}, written by a child of pid ${run.pid})` : ''}`,
      );
      return { label, noop, run, requests, summary };
    };
    const noop = async (label: string) => {
      const figures = await sync(label, true);
      if (figures.requests.writes > 0)
        problems.push(
          `${label}: the no-op sync wrote ${figures.requests.writes} requests (${figures.requests.writesByMethod})`,
        );
      return figures;
    };

    // Baselines: the process start (after a first run warmed the disk cache, and tsx's when under tsx), and the LISTs of a cold sync.
    await runKimops(['--help']);
    const start = await runKimops(['--help']);
    const lists = await baselineLists(proxy.kubeconfigPath, project.namespace);

    // (1) the first sync after seeding: nothing written by anyone since. Then rounds of (2) 100 Runtimes
    // changed (another 100 each round), their folders re-rendered and committed on main, and (3) a no-op again.
    const syncs: SyncFigures[] = [];
    let round = 0;
    const commitChange = async () => {
      round++;
      const changedFiles = render(changedRuntimes(runtimes, round), settings);
      const commit = await repo.commitFiles({
        branch: 'main',
        files: changedFiles,
        message: `round ${round}: ${CHANGED} worker maxima + ${round}`,
        author: BENCH_AUTHOR,
      });
      if (!commit.oid || !commit.changed) throw new Error(`round ${round}: the change made no commit`);
      return { oid: commit.oid, shoots: new Set(commit.changedPaths.map((p) => p.split('/')[1])).size };
    };
    if (COLD) {
      syncs.push(await noop('(1) no-op, first after seeding (no plan cache yet)'));
      for (let i = 1; i <= ROUNDS; i++) {
        const { shoots } = await commitChange();
        const changed = await sync(`(2) ${shoots} Shoots changed, round ${round}`);
        if (changed.requests.writes !== shoots)
          problems.push(
            `${changed.label}: ${shoots} Shoots changed, but the sync wrote ${changed.requests.writes} requests (${changed.requests.writesByMethod})`,
          );
        syncs.push(changed, await noop(`(3) no-op after round ${round}`));
      }
    }

    // The watching applier: one process, its memo kept from sync to sync (apply-warm.ts).
    let warm: WarmRun | undefined;
    if (WARM) {
      log(
        `warm: kimops apply --watch --interval ${WARM_INTERVAL_S}: the first sync, ${WARM_NOOPS} no-ops, a commit of ${CHANGED} changed Shoots, its sync, a no-op`,
      );
      const measured = await measureWarm({
        nodeArgs: [...NODE_ARGS, ...(PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : [])],
        applyArgs: [
          ...apply.filter((a) => a !== '--once' && a !== '--plan-cache' && a !== planCache),
          '--no-plan-cache',
        ],
        kimopsBin: KIMOPS_BIN,
        cwd: ROOT,
        proxy,
        intervalSeconds: WARM_INTERVAL_S,
        noops: WARM_NOOPS,
        change: commitChange,
        log,
      });
      warm = measured;
      if (measured.exitCode !== 0)
        problems.push(`kimops apply --watch exited ${measured.exitCode} on SIGTERM:\n${measured.stderr.slice(-2_000)}`);
      for (const s of measured.syncs) {
        const writes = requestFigures(s.requests);
        if (s.outcome !== 'ok') problems.push(`warm ${s.label}: outcome ${s.outcome}: ${s.summary}`);
        if (s.kind === 'changed' && writes.writes !== measured.changedShoots)
          problems.push(
            `warm ${s.label}: ${measured.changedShoots} Shoots changed, but the sync wrote ${writes.writes} requests (${writes.writesByMethod})`,
          );
        if ((s.kind === 'noop' || s.kind === 'noop-after') && writes.writes > 0)
          problems.push(`warm ${s.label}: the no-op sync wrote ${writes.writes} requests (${writes.writesByMethod})`);
      }
      if (!measured.syncs.some((s) => s.kind === 'changed'))
        problems.push('warm: no sync of the changed commit was seen');
    }

    report({
      ...setup,
      start,
      lists,
      syncs,
      warm,
      pacing: config.apply,
      namespace: project.namespace,
      ownPlane: plane.own,
    });
  } catch (error) {
    problems = [...problems, error instanceof Error ? (error.stack ?? error.message) : String(error)];
  } finally {
    await proxy?.close();
    if (plane && !plane.own && project && KEEP_PROJECT) {
      log(
        `kept project ${project.namespace} and its Shoots; run again on it with KIMOPS_TESTENV=${plane.env.stateDir} KIMOPS_BENCH_APPLY_PROJECT=${project.namespace.slice('garden-'.length)}`,
      );
    } else if (plane && !plane.own && project) {
      log(`removing the bench's Shoots and project ${project.namespace}`);
      await removeSeeded({ garden: plane.env.garden, namespace: project.namespace, lanes: SEED_LANES, log }).catch(
        (e: unknown) => problems.push(`cleanup: ${String(e)}`),
      );
      await project.remove().catch((e: unknown) => problems.push(`cleanup: ${String(e)}`));
    }
    plane?.release();
    removeWork();
  }
  if (problems.length > 0) {
    for (const problem of problems) console.error(`  ${problem}`);
    process.exitCode = 1;
  }
}

/**
 * The bench's landscape: a repo made by `kimops init` for the project, every synthetic Runtime (made admissible)
 * rendered and committed on main in one commit, and the live Shoots and companions written by the applier many
 * at a time (on a reused project, only what differs). Shared by the apply and backfill benchmarks.
 */
export async function seededLandscape(
  env: Testenv,
  project: TestProject,
  work: string,
  count: number,
  say: (text: string) => void,
) {
  const landscape = await landscapeForProject(tempDirAt(work), 'landscape', BENCH_LANDSCAPE, project);
  const gitdir = join(work, 'landscape.git');
  await runInProcess(['init', '--landscape', landscape, gitdir]);
  const runtimes = benchRuntimes(count);
  admissible(runtimes, await gardenRegions(env.garden));
  const [files, renderMs] = await timed(async () => render(runtimes, project.settings));
  const repo = await LandscapeRepo.open(gitdir);
  const [initial, commitMs] = await timed(() =>
    repo.commitFiles({
      branch: 'main',
      files,
      deletions: 'replace-shoots-folder',
      message: 'render',
      author: BENCH_AUTHOR,
    }),
  );
  if (!initial.oid) throw new Error('the first commit of the benchmark Shoots made no commit');
  const fileCount = files.size;
  files.clear();
  say(
    `rendered ${count} Runtimes into ${fileCount} files in ${renderMs.toFixed(0)} ms, committed in ${commitMs.toFixed(0)} ms; seeding`,
  );
  const config = parseKimopsConfig((await repo.readFile(initial.oid, KIMOPS_YAML)) ?? '');
  const seed = await seedAsApplier({
    repo,
    commit: initial.oid,
    garden: env.garden,
    namespace: project.namespace,
    lanes: SEED_LANES,
    log: say,
  });
  if (seed.failed.length > 0)
    throw new Error(`seeding failed for ${seed.failed.length} Shoots, e.g. ${seed.failed.slice(0, 3).join('\n')}`);
  say(`seeded: ${seed.shoots} Shoots written (${seed.created} created) in ${(seed.ms / 1000).toFixed(0)} s; measuring`);
  return {
    landscape,
    gitdir,
    repo,
    runtimes,
    config,
    commit: initial.oid,
    setup: { seed, renderMs, commitMs, files: fileCount },
  };
}

/** The `kimops` command in this process (for setup only: init). */
async function runInProcess(argv: string[]): Promise<void> {
  const output: string[] = [];
  const code = await kimops(argv, {
    stdout: (t) => output.push(t),
    stderr: (t) => output.push(t),
    readStdin: async () => '',
  });
  if (code !== 0) throw new Error(`kimops ${argv[0]} failed (exit ${code}):\n${output.join('')}`);
}

/** test/helpers' TempDir shape over a folder the bench removes itself. */
function tempDirAt(path: string) {
  return {
    path,
    async write(relativePath: string, content: string) {
      const target = join(path, relativePath);
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, content);
      return target;
    },
  };
}

interface ListBaseline {
  shoots: { ms: number; items: number; jsonBytes: number; peakRssBytes: number };
  companions: { ms: number; items: number };
}

/** The two LISTs of the namespace a sync needs, in a process of its own (apply-list.ts), through the proxy. */
async function baselineLists(kubeconfig: string, namespace: string): Promise<ListBaseline> {
  const script = fileURLToPath(new URL('./apply-list.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', script, kubeconfig, namespace], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  const code = await new Promise<number>((resolve) => child.on('close', (exit) => resolve(exit ?? -1)));
  if (code !== 0) throw new Error(`the LIST baseline failed (exit ${code})`);
  return JSON.parse(stdout.trim().split('\n').at(-1) as string) as ListBaseline;
}

interface Report {
  seed: SeedFigures;
  renderMs: number;
  commitMs: number;
  files: number;
  start: ChildRun;
  lists: ListBaseline;
  /** In the order they ran: no-ops and changes. */
  syncs: SyncFigures[];
  /** The watching applier's syncs, when measured. */
  warm: WarmRun | undefined;
  pacing: ApplySettings;
  namespace: string;
  ownPlane: boolean;
}

const range = (values: number[], digits = 0) =>
  values.length === 0 ? '–' : `${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)}`;

function report(r: Report): void {
  const listFloor = r.lists.shoots.ms + r.lists.companions.ms;
  const floor = r.start.ms + listFloor;
  const { qps, burst, concurrency } = r.pacing;
  // A token bucket of `burst` refilled at `qps`: the first `burst` writes at once, then one per 1/qps s.
  const pacingFloorMs = (writes: number) => (Math.max(0, writes - burst) / qps) * 1000;
  const requests = (f: RequestFigures) =>
    `${f.total} requests: ${f.writes} writes (${f.writesByMethod}), ${f.lists} LISTs in ${f.listPages} pages (${f.listed.join(', ')}), ${f.gets} GETs of one object`;
  const line = (f: SyncFigures) => {
    console.log(
      `  ${f.label.padEnd(44)}${ms(f.run.ms)}   peak RSS ${mib(f.run.peakRssBytes).trim()}, exit ${f.run.code}`,
    );
    console.log(`      ${requests(f.requests)}`);
    console.log(`      ${f.summary}`);
  };
  console.log(
    `\napply: ${r.lists.shoots.items} Shoots (+ ${r.lists.companions.items} structured-auth ConfigMaps) in ${r.namespace}, ` +
      `${r.ownPlane ? 'a plane of its own' : 'the plane in KIMOPS_TESTENV'}; kimops apply as a child process, its requests counted by a proxy`,
  );
  console.log(`  render ${RUNTIMES} Runtimes (renderRuntimes)            ${ms(r.renderMs)}   ${r.files} files`);
  console.log(`  commit them on main (kimops init's repo)      ${ms(r.commitMs)}`);
  console.log(
    `  seed: syncCommit unpaced, concurrency ${String(SEED_LANES).padEnd(3)}      ${ms(r.seed.ms)}   ${r.seed.shoots} Shoots written (${r.seed.created} created), ${r.seed.requests} writes, ` +
      `${(r.seed.shoots / (r.seed.ms / 1000)).toFixed(1)} Shoots/s (${(r.seed.requests / (r.seed.ms / 1000)).toFixed(1)} requests/s)`,
  );
  console.log(
    `  baseline: kimops process start (--help)       ${ms(r.start.ms)}   peak RSS ${mib(r.start.peakRssBytes).trim()}`,
  );
  console.log(
    `  baseline: LIST Shoots + LIST ConfigMaps       ${ms(listFloor)}   ${r.lists.shoots.items} Shoots (${(r.lists.shoots.jsonBytes / 2 ** 20).toFixed(1)} MiB as JSON, compacted) ${r.lists.shoots.ms.toFixed(0)} ms, ` +
      `${r.lists.companions.items} ConfigMaps ${r.lists.companions.ms.toFixed(0)} ms, in a process of their own: peak RSS ${mib(r.lists.shoots.peakRssBytes).trim()}`,
  );
  if (r.syncs.length > 0) {
    console.log(`\n  cold: kimops apply --once, a process per sync`);
    console.log(`  floor of a sync: process start + the LISTs    ${ms(floor)}`);
    for (const f of r.syncs) {
      line(f);
      if (f.noop) {
        console.log(`      ratio to the floor ${(f.run.ms / floor).toFixed(2)}`);
        continue;
      }
      const bound = pacingFloorMs(f.requests.writes);
      console.log(
        `      pacing-bound minimum of ${f.requests.writes} writes at ${qps} QPS, burst ${burst} (concurrency ${concurrency}): ${bound.toFixed(0)} ms; + the floor: ${(bound + floor).toFixed(0)} ms`,
      );
    }
    const noops = r.syncs.filter((f) => f.noop);
    const noopMet = (f: SyncFigures) => f.run.code === 0 && f.requests.writes === 0 && f.run.ms < TARGET_NOOP_MS;
    const rss = Math.max(...r.syncs.map((f) => f.run.peakRssBytes));
    const lists = Math.max(...noops.map((f) => f.requests.lists));
    const perCollection = Math.max(...noops.map((f) => f.requests.listsPerCollection));
    console.log(
      `  target (cold)                               no-op < ${TARGET_NOOP_MS / 1000} s with 0 writes: ${verdict(noops.every(noopMet))} (${range(noops.map((f) => f.run.ms))} ms); ` +
        `≤ ${TARGET_LISTS} LIST: ${verdict(lists <= TARGET_LISTS)} (${lists}, at most ${perCollection} of one kind); peak RSS < ${TARGET_RSS_MIB} MiB: ${verdict(rss < TARGET_RSS_MIB * 2 ** 20)} (${(rss / 2 ** 20).toFixed(0)} MiB)`,
    );
  }
  if (r.warm) reportWarm(r.warm, listFloor, pacingFloorMs, requests);
}

/** The watching applier's syncs: durations from its histogram, requests from the proxy, memory from /proc. */
function reportWarm(
  w: WarmRun,
  listFloor: number,
  pacingFloorMs: (writes: number) => number,
  requests: (f: RequestFigures) => string,
): void {
  console.log(
    `\n  warm: ${NODE_ARGS.length > 0 ? `node ${NODE_ARGS.join(' ')} ` : ''}kimops apply --watch --interval ${w.intervalSeconds} (pid ${w.pid}), one process; sync durations from kimops_applier_sync_duration_seconds, ` +
      `peak RSS = VmHWM ${w.hwmReset ? 'since the previous sync ended' : 'of the process so far (clear_refs refused)'}`,
  );
  console.log(`  floor of a sync: the LISTs (no process start)  ${ms(listFloor)}`);
  const figures = new Map<WarmSync, RequestFigures>(w.syncs.map((s) => [s, requestFigures(s.requests)]));
  for (const s of w.syncs) {
    const f = figures.get(s) as RequestFigures;
    console.log(
      `  ${s.label.padEnd(44)}${ms(s.seconds * 1000)}   peak RSS ${mib(s.peakRssBytes).trim()}, resident after ${mib(s.rssAfterBytes).trim()}, ${s.outcome}`,
    );
    console.log(`      ${requests(f)}`);
    console.log(`      ${s.summary}`);
    if (s.kind === 'changed')
      console.log(
        `      pacing-bound minimum of ${f.writes} writes: ${pacingFloorMs(f.writes).toFixed(0)} ms; + the LISTs: ${(pacingFloorMs(f.writes) + listFloor).toFixed(0)} ms`,
      );
    else console.log(`      ratio to the LISTs ${((s.seconds * 1000) / listFloor).toFixed(2)}`);
  }
  const noops = w.syncs.filter((s) => s.kind === 'noop' || s.kind === 'noop-after');
  const noopMs = noops.map((s) => s.seconds * 1000);
  const noopMet =
    noops.length > 0 &&
    noops.every(
      (s) => s.outcome === 'ok' && (figures.get(s) as RequestFigures).writes === 0 && s.seconds * 1000 < TARGET_NOOP_MS,
    );
  const lists = Math.max(0, ...noops.map((s) => (figures.get(s) as RequestFigures).lists));
  const pages = range(noops.map((s) => (figures.get(s) as RequestFigures).listPages));
  const warmPeak = Math.max(0, ...w.syncs.filter((s) => s.kind !== 'first').map((s) => s.peakRssBytes));
  console.log(
    `  target (warm)                               no-op < ${TARGET_NOOP_MS / 1000} s with 0 writes: ${verdict(noopMet)} (${range(noopMs)} ms over ${noops.length}); ` +
      `≤ ${TARGET_LISTS} LIST: ${verdict(lists <= TARGET_LISTS)} (${lists} per no-op, ${pages} pages); ` +
      `peak RSS < ${TARGET_RSS_MIB} MiB: ${verdict(w.lifetimePeakBytes < TARGET_RSS_MIB * 2 ** 20)} (${(w.lifetimePeakBytes / 2 ** 20).toFixed(0)} MiB over the process's life, first sync included; ` +
      `${(warmPeak / 2 ** 20).toFixed(0)} MiB after it)`,
  );
}
