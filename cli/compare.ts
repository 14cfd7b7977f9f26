// `kimops compare`, run: main's newest commit of the landscape repo read as the generator reads it
// (generator/main-snapshot.ts), the Shoots of garden-<project> as the applier reads them (one paged LIST, each Shoot
// compacted; watching: the Shoot cache of applier/garden-caches.ts, without the companions, so only Shoots need be
// readable), compared (applier/compare.ts) and printed, or in a loop with the metrics. Reads only: no request but
// GET, LIST and WATCH reaches the Garden, nothing is committed or pushed. Its options: commands/compare.ts.
import { isDeepStrictEqual } from 'node:util';
import { Registry } from 'prom-client';
import { LANDSCAPE_FILE } from '../adapters/files/landscape.js';
import type { LandscapeRepo } from '../adapters/git/landscape-repo.js';
import { redacted } from '../adapters/git/remote.js';
import { clusterConnection } from '../adapters/kube/informer-factory.js';
import { KubeClient } from '../adapters/kube/kube-client.js';
import {
  compareLandscape,
  foldersToRead,
  hasDifferences,
  type MainFolder,
  type RememberedShoot,
} from '../applier/compare.js';
import { compareMetrics } from '../applier/compare-metrics.js';
import { comparisonSummary, comparisonText } from '../applier/compare-text.js';
import { GardenCaches } from '../applier/garden-caches.js';
import { listShoots } from '../applier/sync-commit.js';
import { branchSync, type LandscapeRemote } from '../generator/branch-sync.js';
import { readMainSnapshot } from '../generator/main-snapshot.js';
import { gardenNamespaceOf, MAIN_BRANCH, SHOOT_FILE, SHOOTS_FOLDER } from '../model/contract.js';
import { ConfigError, TransportError } from '../model/errors.js';
import { mapInParallel } from '../model/in-parallel.js';
import type { Landscape } from '../model/landscape.js';
import type { LogLine } from '../model/log.js';
import type { Shoot } from '../model/shoot.js';
import { EXIT, type CliIo } from './cli-io.js';
import { chooseLandscape, landscapeOnMain, openLandscapeRepo } from './landscape-target.js';
import { loggingIo, logLine, reportingFailures } from './logging.js';
import { LoopHealth } from './loop-health.js';
import { mainRefWatchOf } from './main-ref-watch.js';
import { metricsServerOf } from './metrics-option.js';
import { intervalMsOf } from './options.js';
import { gardenCluster, type LogOptions } from './service-options.js';
import { runUntilStopped } from './until-stopped.js';
import type { WatchLoop } from '../generator/watch.js';

export interface CompareOptions extends LogOptions {
  /** Absent: the landscape.yaml on the repo's main. */
  landscape?: string;
  repo: string;
  cacheDir?: string;
  gardenKubeconfig: string;
  gardenContext?: string;
  output: 'text' | 'json';
  /** Only these Shoots. */
  shoot?: string[];
  watch?: boolean;
  interval: string;
  metricsPort?: string;
  metricsHost: string;
}

/** The landscape repo as --repo names it. */
interface Target {
  repo: LandscapeRepo;
  remote?: LandscapeRemote;
}

/** The live Shoots of a namespace, given the field manager compactShoot keeps the applies of. */
type LiveShoots = (namespace: string, fieldManager: string) => Promise<Shoot[]>;

/** The landscape a comparison of main at `commit` is for. */
type LandscapeAt = (commit: string) => Promise<Landscape>;

/** Folders read at once: reading is waiting on the disk (the applier reads as many). */
const READ_LANES = 8;

/** One comparison, printed; exit 1 when main and the Garden differ (as diff and flux diff). */
export async function compareOnce(options: CompareOptions, commandIo: CliIo): Promise<number> {
  const target = await openLandscapeRepo(options);
  await branchSync(target.repo, target.remote).refresh();
  const landscape = await landscapeOf(options, target, commandIo);
  // The report is the command's output: stdout holds it alone, as it is (a JSON document stays one, whatever
  // --log-format says); every log line goes to stderr.
  const io = loggingIo(
    { ...commandIo, stdout: commandIo.stderr },
    options,
    { component: 'compare', landscape: landscape.name },
    false,
  );
  return reportingFailures(io, async () => {
    const garden = KubeClient.forCluster(gardenCluster(options));
    try {
      const landscapeAt = followingMain(options, target, landscape, logLine(io));
      const report = await comparison(options, target, landscapeAt, (namespace, fieldManager) =>
        listShoots(garden, namespace, fieldManager),
      );
      commandIo.stdout(options.output === 'json' ? `${JSON.stringify(report, null, 2)}\n` : comparisonText(report));
      // 1 as diff says "different": a report to read, not a failure of the command.
      return hasDifferences(report) ? EXIT.conversionFailed : EXIT.ok;
    } finally {
      garden.close();
    }
  });
}

/** Compares every --interval (and when a local repo's main moves) until stopped, serving the metrics. */
export async function compareWatching(options: CompareOptions, commandIo: CliIo): Promise<number> {
  const target = await openLandscapeRepo(options);
  await branchSync(target.repo, target.remote).refresh();
  const landscape = await landscapeOf(options, target, commandIo);
  const io = loggingIo(commandIo, options, { component: 'compare', landscape: landscape.name }, true);
  return reportingFailures(io, async () => {
    const intervalMs = intervalMsOf(options.interval);
    const registry = new Registry();
    const metrics = compareMetrics(registry, landscape.name);
    const health = new LoopHealth(intervalMs);
    const metricsServer = await metricsServerOf(options, io, registry, health);
    // The Shoots kept by WATCH, as the watching applier keeps them (not its companions): a pass lists nothing.
    const caches = new GardenCaches(
      clusterConnection(gardenCluster(options)),
      (line) => io.stderr(`${line}\n`),
      undefined,
      { companions: false },
    );
    const live: LiveShoots = async (namespace, fieldManager) => {
      const objects = await caches.live(namespace, fieldManager);
      const failing = objects.failing();
      // A stale cache must not pass for the Garden: the pass fails as unreachable and the loop backs off.
      if (failing !== undefined) throw new TransportError('Garden', failing);
      return objects.shoots();
    };
    // Each pass reads and compares only the Shoots whose folder or live Shoot moved since the last.
    const memo = new Map<string, RememberedShoot>();
    const landscapeAt = followingMain(options, target, landscape, logLine(io));
    let loop: WatchLoop | undefined;
    const mainWatch = await mainRefWatchOf(options.repo, io, () => loop?.trigger());
    try {
      await runUntilStopped({
        pass: async () => {
          try {
            await branchSync(target.repo, target.remote).refresh();
            const report = await comparison(options, target, landscapeAt, live, memo);
            metrics.compared(report);
            logLine(io)(comparisonSummary(report));
          } catch (error) {
            metrics.failed();
            throw error;
          }
        },
        intervalMs,
        io,
        started: (l) => (loop = l),
        stopping: () => void caches.stop(),
        health,
      });
    } finally {
      mainWatch?.close();
      await caches.stop();
      await metricsServer?.close();
    }
    return EXIT.ok;
  });
}

/** --landscape, else the landscape.yaml on the repo's main (fetched already); both: the same landscape. */
function landscapeOf(options: CompareOptions, target: Target, io: CliIo): Promise<Landscape> {
  return landscapeOnMain(options.landscape, target, options.repo, (line) => io.stderr(`${line}\n`), { fetch: false });
}

/**
 * --landscape, else the landscape.yaml of the commit compared: a watching compare follows a landscape.yaml merged
 * to main (another project, say) as the watching generator does, without a restart. The name stays the first
 * one's: it labels the logs and the metrics, and a landscape repo keeps its landscape.
 */
function followingMain(options: CompareOptions, target: Target, first: Landscape, log: LogLine): LandscapeAt {
  if (options.landscape !== undefined) return () => Promise.resolve(first);
  let current = first;
  return async (commit) => {
    const text = await target.repo.readFile(commit, LANDSCAPE_FILE);
    const where = `${LANDSCAPE_FILE} on ${MAIN_BRANCH}`;
    const onMain = await chooseLandscape(undefined, { text, repo: redacted(options.repo), where }, log);
    if (isDeepStrictEqual(onMain, current)) return current;
    if (onMain.name !== first.name)
      throw new ConfigError(
        where,
        'name',
        `is now ${onMain.name}, not ${first.name}: a landscape repo keeps its landscape; change it back`,
      );
    current = onMain;
    log(`${where} changed: this comparison uses it`);
    return current;
  };
}

/** main's newest commit (fetched by the caller) against the live Shoots. */
async function comparison(
  options: CompareOptions,
  target: Target,
  landscapeAt: LandscapeAt,
  liveShoots: LiveShoots,
  memo?: Map<string, RememberedShoot>,
) {
  const commit = await target.repo.resolve(branchSync(target.repo, target.remote).baseRef);
  if (commit === undefined)
    throw new ConfigError('--repo', '', `has no ${MAIN_BRANCH} branch; create the landscape repo with kimops init`);
  const landscape = await landscapeAt(commit);
  const snapshot = await readMainSnapshot(target.repo, commit, landscape.name);
  const namespace = gardenNamespaceOf(landscape.gardener.project);
  const comparedAt = new Date().toISOString();
  const live = await liveShoots(namespace, snapshot.config.apply.fieldManager);
  const main = new Map<string, MainFolder>([...snapshot.folders].map(([name, tree]) => [name, { tree }]));
  const read = foldersToRead(snapshot.folders, live, memo, options.shoot);
  await mapInParallel(read, READ_LANES, async (name) => {
    const shoot = await snapshot.shoot(name);
    const problem = snapshot.broken.get(name)?.message ?? `${SHOOTS_FOLDER}/${name}/ has no ${SHOOT_FILE}`;
    main.set(name, { tree: snapshot.folders.get(name), ...(shoot ? { shoot } : { problem }) });
  });
  return compareLandscape({
    landscape: landscape.name,
    namespace,
    commit,
    comparedAt,
    main,
    live,
    ...(options.shoot && { only: options.shoot }),
    ...(memo && { memo }),
  });
}
