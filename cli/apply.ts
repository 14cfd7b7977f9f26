// `kimops apply`, run: main's newest commit of the landscape repo, the Garden (listed, or watching: the caches
// of applier/garden-caches.ts) and the plan cache (applier/sync-with-plan-cache.ts) wired to one sync
// (applier/sync-commit.ts), once or in the loop with the webhook, the watch of a local repo's main
// (main-ref-watch.ts) and the metrics; the outcome rendered, and with --forge reported back to the forge beside
// the sync (report-back-option.ts). Its options: commands/apply.ts.
import { resolve } from 'node:path';
import { Registry } from 'prom-client';
import { defaultPlanCachePath, readPlanCache, writePlanCache } from '../adapters/files/plan-cache.js';
import type { LandscapeRepo } from '../adapters/git/landscape-repo.js';
import { clusterConnection } from '../adapters/kube/informer-factory.js';
import { KubeClient } from '../adapters/kube/kube-client.js';
import { skrClient } from '../adapters/kube/skr-client.js';
import { startWebhookReceiver, type WebhookReceiver } from '../adapters/webhook/receiver.js';
import { configAtCommit } from '../applier/commit-config.js';
import { GardenCaches } from '../applier/garden-caches.js';
import { applierMetrics } from '../applier/metrics.js';
import type { ReportBack } from '../applier/report-back-writer.js';
import type { PlanAction, SyncPlan } from '../applier/plan.js';
import { syncMemo, type SyncMemo, type SyncReport } from '../applier/sync-commit.js';
import { syncWithPlanCache, type PlanCacheState } from '../applier/sync-with-plan-cache.js';
import type { SyncResult } from '../applier/sync.js';
import { branchSync } from '../generator/branch-sync.js';
import type { WatchLoop } from '../generator/watch.js';
import { COMPANION_OF_LABEL, gardenNamespaceOf, MAIN_BRANCH, APPLY_REPORT_NAME } from '../model/contract.js';
import { ConfigError, TransportError } from '../model/errors.js';
import type { KubeObject } from '../model/kube-object.js';
import type { Landscape } from '../model/landscape.js';
import { EXIT, type CliIo } from './cli-io.js';
import { collectGarbage } from './collect-garbage.js';
import { WEBHOOK_SECRET_ENV } from './environment.js';
import { landscapeOnMain, openLandscapeRepo, refuseExampleLandscape } from './landscape-target.js';
import { leaderElectionOf } from './leader-option.js';
import { loggingIo, logLine, reportingFailures } from './logging.js';
import { LoopHealth } from './loop-health.js';
import { metricsServerOf } from './metrics-option.js';
import { mainRefWatchOf } from './main-ref-watch.js';
import { reportBackOf, type ReportForgeOptions } from './report-back-option.js';
import { gardenCluster, type LeaderOptions, type LogOptions } from './service-options.js';
import { allowMassDeletionOf, intervalMsOf } from './options.js';
import { runUntilStopped } from './until-stopped.js';

export interface ApplyOptions extends LogOptions, LeaderOptions, ReportForgeOptions {
  /** Absent: the landscape.yaml on the repo's main. */
  landscape?: string;
  allowExampleLandscape?: boolean;
  repo: string;
  gardenKubeconfig: string;
  gardenContext?: string;
  /** The KCP, for the Lease only. */
  kcpKubeconfig?: string;
  context?: string;
  cacheDir?: string;
  once?: boolean;
  watch?: boolean;
  interval: string;
  dryRun?: boolean;
  shadow?: boolean;
  allowMassDeletion?: string;
  webhookPort?: string;
  webhookHost: string;
  metricsPort?: string;
  metricsHost: string;
  /** A file, true for the default place (~/.cache/kimops/plans/), false with --no-plan-cache. */
  planCache: string | boolean;
}

/** One sync of main's newest commit. */
export async function applyOnce(options: ApplyOptions, commandIo: CliIo): Promise<number> {
  const landscape = await landscapeOf(options, commandIo);
  const io = loggingIo(commandIo, options, { component: 'applier', landscape: landscape.name }, false);
  return reportingFailures(io, async () => {
    const reportBack = await reportBackOf(options, io);
    try {
      return await run(options, io, landscape, undefined, undefined, reportBack);
    } finally {
      // This sync's report goes out before the command exits; a forge that fails is only logged.
      await reportBack?.idle();
    }
  });
}

/** Syncs every --interval (and on a verified push) until stopped. */
export async function applyWatching(options: ApplyOptions, commandIo: CliIo): Promise<number> {
  const landscape = await landscapeOf(options, commandIo);
  const io = loggingIo(commandIo, options, { component: 'applier', landscape: landscape.name }, true);
  return reportingFailures(io, () => watchWith(options, io, landscape));
}

async function watchWith(options: ApplyOptions, io: CliIo, landscape: Landscape): Promise<number> {
  // What no later sync can fix is refused now, not retried forever.
  const intervalMs = intervalMsOf(options.interval);
  const gardenConnection = clusterConnection(gardenCluster(options));
  // A verified push only makes the next sync come sooner; the initial sync covers pushes before the loop runs.
  let loop: WatchLoop | undefined;
  // Each sync parses only the Shoot folders main changed, and plans only the Shoots that moved, since the last one.
  const memo = syncMemo();
  const registry = new Registry();
  const metrics = applierMetrics(registry, landscape.name);
  const health = new LoopHealth(intervalMs);
  const leaderElection = leaderElectionOf(
    options,
    {
      loop: 'apply',
      landscape: landscape.name,
      registry,
      kcp: () =>
        KubeClient.forCluster({
          kubeconfig: options.kcpKubeconfig,
          context: options.context,
          option: '--kcp-kubeconfig',
        }),
    },
    logLine(io),
  );
  // Built first: a forge that refuses the credentials is a configuration error before anything listens.
  const reportBack = await reportBackOf(options, io);
  const metricsServer = await metricsServerOf(options, io, registry, health);
  const webhook = await webhookOf(options, io, () => loop?.trigger()).catch(async (error: unknown) => {
    await metricsServer?.close();
    throw error;
  });
  // The Shoots and companions, kept by WATCH: a sync lists nothing. A Shoot reconciled with its cluster not yet
  // configured from its tree starts a sync at once, as a merge does.
  const caches = new GardenCaches(
    gardenConnection,
    (line) => io.stderr(`${line}\n`),
    () => loop?.trigger(),
  );
  const watching: Watching = { memo, caches, planCache: {} };
  // A local repo's main moving (a merge) starts a sync at once, as a verified push does for a remote one.
  const mainWatch = await mainRefWatchOf(options.repo, io, () => loop?.trigger());
  try {
    // A sync cut short by an unreachable Garden is a failed pass: the loop backs off before the next.
    const pass = async () => {
      const started = performance.now();
      const seconds = () => (performance.now() - started) / 1000;
      let code: number;
      try {
        code = await run(options, io, landscape, (report) => metrics.synced(report, seconds()), watching, reportBack);
      } catch (error) {
        metrics.failed(seconds());
        throw error;
      }
      // The sync's garbage goes now, not whenever V8 would get to it (collect-garbage.ts).
      collectGarbage();
      // Recorded with its report already (outcome `unreachable`).
      if (code === EXIT.unavailable)
        throw new TransportError('Garden', 'it stopped answering during the sync; the sync stopped there');
    };
    // Stopping the caches ends a sync still waiting for their first lists (a Garden that never answered).
    await runUntilStopped({
      pass,
      intervalMs,
      io,
      started: (l) => (loop = l),
      stopping: () => void caches.stop(),
      // The last sync's report goes out before the Lease is handed over (bounded: a forge that hangs is left).
      drain: () => reportDrained(reportBack),
      // A merge burst (a generator pass merging PR after PR) shares one sync, which starts a moment after the last.
      debounceMs: MERGE_DEBOUNCE_MS,
      health,
      ...(leaderElection && { leaderElection }),
    });
  } finally {
    await caches.stop();
    mainWatch?.close();
    await webhook?.close();
    await metricsServer?.close();
  }
  return EXIT.ok;
}

/** The webhook receiver `--webhook-port` asks for, or none. */
async function webhookOf(options: ApplyOptions, io: CliIo, onPush: () => void): Promise<WebhookReceiver | undefined> {
  if (options.webhookPort === undefined) return undefined;
  const port = Number(options.webhookPort);
  if (!/^\d+$/.test(options.webhookPort) || port > 65_535)
    throw new ConfigError('--webhook-port', '', `${options.webhookPort} is not a port (0-65535)`);
  const secret = process.env[WEBHOOK_SECRET_ENV] ?? '';
  if (secret === '') {
    throw new ConfigError(
      WEBHOOK_SECRET_ENV,
      '',
      "is not set: export the webhook's secret (the one configured on GitHub) in it to use --webhook-port",
    );
  }
  try {
    const receiver = await startWebhookReceiver({
      port,
      host: options.webhookHost,
      secret,
      onPush,
      // A delivery taken is news; one refused (a bad signature, an unknown event) is a warning.
      log: (o) =>
        logLine(io)(
          `webhook ${o.status}${o.event ? ` ${o.event}` : ''}${o.delivery ? ` ${o.delivery}` : ''}: ${o.message}`,
          {},
          o.status < 400 ? 'info' : 'warn',
        ),
    });
    logLine(io)(`webhook receiver listening on ${receiver.url}`);
    return receiver;
  } catch (error) {
    throw new ConfigError(
      '--webhook-port',
      '',
      `cannot listen on ${options.webhookHost}:${options.webhookPort}: ${error instanceof Error ? error.message : String(error)}; pass a free port and an address of this host`,
    );
  }
}

/** Until the report back is written, at most REPORT_DRAIN_MS: a forge that hangs never holds up a stop. */
async function reportDrained(reportBack: ReportBack | undefined): Promise<void> {
  if (!reportBack) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([reportBack.idle(), new Promise<void>((done) => (timer = setTimeout(done, REPORT_DRAIN_MS)))]);
  clearTimeout(timer);
}

const REPORT_DRAIN_MS = 10_000;
/** The wait after a push or a move of main before the sync starts: the generator's next merge is ms away. */
const MERGE_DEBOUNCE_MS = 100;

/** What a watching applier keeps from one sync to the next. */
interface Watching {
  memo: SyncMemo;
  caches: GardenCaches;
  planCache: PlanCacheState;
}

/**
 * --landscape, else the landscape.yaml on the repo's main (fetched); both: the same landscape. An example landscape
 * only with --allow-example-landscape, unless the run writes nothing (--dry-run, --shadow).
 */
async function landscapeOf(options: ApplyOptions, io: CliIo): Promise<Landscape> {
  const landscape = await landscapeOnMain(options.landscape, await openLandscapeRepo(options), options.repo, (line) =>
    io.stderr(`${line}\n`),
  );
  const writes = options.dryRun !== true && options.shadow !== true;
  return writes ? refuseExampleLandscape(landscape, options.allowExampleLandscape) : landscape;
}

async function run(
  options: ApplyOptions,
  io: CliIo,
  landscape: Landscape,
  reported: (report: SyncReport) => void = () => {},
  watching?: Watching,
  reportBack?: ReportBack,
): Promise<number> {
  const allowMassDeletion = allowMassDeletionOf(options.allowMassDeletion);
  const project = landscape.gardener.project;
  const namespace = gardenNamespaceOf(project);
  // Read each sync, so a rotated kubeconfig file is picked up; its connections are closed when the sync ends.
  const garden = KubeClient.forCluster(gardenCluster(options));
  try {
    return await sync(
      options,
      io,
      {
        garden,
        namespace,
        project,
        landscape: landscape.name,
        allowMassDeletion,
        reportBack,
        defaultLeader: landscape.defaultLeader,
      },
      reported,
      watching,
    );
  } finally {
    garden.close();
  }
}

/** Where `run` syncs to: the Garden client it made, the landscape's project and namespace. */
interface SyncTarget {
  garden: KubeClient;
  namespace: string;
  project: string;
  landscape: string;
  allowMassDeletion: number | undefined;
  /** --forge: where the sync's outcome is reported (the kimops/apply status, the PR's comment). */
  reportBack: ReportBack | undefined;
  /** landscape.yaml's defaultLeader (ADR 0011). */
  defaultLeader: Landscape['defaultLeader'];
}

/** One sync of main's newest commit to `target`. */
async function sync(
  options: ApplyOptions,
  io: CliIo,
  target: SyncTarget,
  reported: (report: SyncReport) => void,
  watching: Watching | undefined,
): Promise<number> {
  const { garden, namespace, project, landscape, allowMassDeletion, reportBack, defaultLeader } = target;
  const { repo, ref } = await openMain(options);
  const { commit, config } = await configAtCommit(repo, await repo.resolve(ref), {
    repo: options.repo,
    landscape,
    project,
  });
  const reportedTo = { namespace, landscape };
  // Never awaited: the forge hears of the sync beside it, never in its way.
  reportBack?.syncStarting(commit, reportedTo);
  const fieldManager = config.apply.fieldManager;
  const planCachePath =
    options.planCache === false
      ? undefined
      : typeof options.planCache === 'string'
        ? resolve(options.planCache)
        : defaultPlanCachePath(repoId(options.repo), garden.server, namespace, fieldManager);
  // The plan memo: a watching applier's own, read from the plan cache at its first sync; a --once run's from the cache alone.
  const report = await syncWithPlanCache(
    {
      repo,
      commit,
      garden,
      namespace,
      config,
      write: !options.dryRun && !options.shadow,
      ...(defaultLeader && { defaultLeader }),
      ...(allowMassDeletion !== undefined && { allowMassDeletion }),
      memo: watching?.memo ?? syncMemo(),
      ...(watching && { live: await watching.caches.live(namespace, fieldManager) }),
      betweenBatches: collectGarbage,
      // Each SKR's client is asked of Gardener when its turn comes, and closed after: nothing is kept.
      skr: (shootNamespace, shoot) => skrClient(garden, shootNamespace, shoot),
    },
    {
      path: planCachePath,
      files: { read: readPlanCache, write: writePlanCache },
      warn: (line) => io.stderr(`${line}\n`),
      ...(watching && { state: watching.planCache }),
    },
  );
  reported(report);
  if (report.result) reportBack?.synced(commit, { entries: report.plan.entries, result: report.result }, reportedTo);
  const { plan, result } = report;
  for (const problem of plan.problems) io.stderr(`${problem.error.message}\n`);
  for (const stuck of report.stuckDeletions) io.stderr(`${stuck}\n`);
  // A Shoot held back by its files or a missing Seed is a failure to report; one waiting for Gardener to finish deleting it is not.
  const heldBack =
    plan.problems.length > 0 || plan.entries.some((e) => e.action === 'blocked' && !e.live?.metadata.deletionTimestamp);
  if (!result) {
    io.stdout(
      planText(plan, namespace, report.orphans, options.shadow ? 'shadow' : 'dry run') + reportTail(report, false),
    );
    if (plan.refused) io.stderr(`${plan.refused.message}\n`);
    return plan.refused || heldBack ? EXIT.conversionFailed : EXIT.ok;
  }
  // A sync that wrote nothing says so at debug: a service logs what happened, not that nothing did.
  const { skr, registryCache, goneSecrets } = report;
  const quiet =
    result.applied.length + result.failed.length + result.cleaned.length + result.annotated.length === 0 &&
    !result.refused &&
    result.notAttempted === 0 &&
    (skr === undefined || skr.configured.length + skr.failed.length + skr.unrecorded.length === 0) &&
    (registryCache === undefined || registryCache.synced.length + registryCache.failed.length === 0) &&
    (goneSecrets === undefined || goneSecrets.lines.length + goneSecrets.failures.length === 0);
  const log = logLine(io, quiet ? 'debug' : 'info');
  for (const [line, shoot] of resultLines(result)) log(line, shoot === undefined ? {} : { shoot });
  for (const outcome of registryCache?.synced ?? [])
    for (const line of outcome.lines) log(`${outcome.shoot}: registry cache: ${line}`, { shoot: outcome.shoot });
  for (const line of goneSecrets?.lines ?? []) log(`registry cache: ${line}`);
  for (const outcome of skr?.configured ?? [])
    for (const line of outcome.lines) log(`${outcome.shoot}: SKR: ${line}`, { shoot: outcome.shoot });
  for (const line of reportTail(report, true).trimEnd().split('\n')) log(line);
  const applyReport = report.applyReport;
  if (applyReport?.outcome === 'written')
    io.stdout(
      `apply report ${namespace}/${APPLY_REPORT_NAME} written for the backfiller: ${applyReport.shoots} Shoot(s) with failures\n`,
    );
  if (applyReport?.outcome === 'failed')
    io.stderr(`${applyReport.message} (the Runtimes' status misses this sync's failures until a sync writes it)\n`);
  if (result.refused) io.stderr(`${result.refused}\n`);
  for (const failed of result.failed) for (const line of failed.lines) io.stderr(`${failed.shoot}: ${line}\n`);
  // An SKR that could not be configured is the Runtime's to show (the apply report), not a failed Garden sync.
  for (const failed of skr?.failed ?? [])
    io.stderr(
      `${failed.shoot}: SKR not configured (step ${failed.error.step}): ${failed.error.message}; the next sync tries again\n`,
    );
  for (const unrecorded of skr?.unrecorded ?? []) io.stderr(`${unrecorded.shoot}: SKR: ${unrecorded.message}\n`);
  // A copy that failed holds the Shoot only while a Secret it names is missing (then it is a blocked entry too).
  for (const failed of registryCache?.failed ?? [])
    io.stderr(
      `${failed.shoot}: registry-cache credentials not copied: ${failed.error.message}; ${failed.hold ? 'the Shoot is held until they are' : 'the Shoot was written'}, the next sync tries again\n`,
    );
  for (const failure of goneSecrets?.failures ?? []) io.stderr(`registry cache: ${failure}\n`);
  if (result.unreachable) return EXIT.unavailable;
  return result.refused || result.failed.length > 0 || heldBack ? EXIT.conversionFailed : EXIT.ok;
}

/** What the plan does not show: values the live Shoot kept, annotations, and the inventory's health. */
function reportTail(report: SyncReport, written: boolean): string {
  const lines: string[] = [];
  const quiet = report.plan.entries.filter((e) => e.kept && e.action === 'unchanged');
  if (quiet.length > 0) {
    lines.push(
      `${quiet.length} Shoot(s) keep live values over ${MAIN_BRANCH}'s (e.g. ${quiet[0]?.shoot}: ${quiet[0]?.kept?.map((k) => k.path).join(', ')}; Gardener forbids going back, or the field is set at creation only); nothing to write — versions Gardener raised come back as the generator's adopt pull request`,
    );
  }
  if (!written) for (const a of report.annotations) lines.push(`${a.shoot}: would annotate: ${a.line}`);
  const h = report.health;
  lines.push(
    `inventory health: ${h.healthy} healthy, ${h.progressing} progressing, ${h.failed} failed, ${h.unknown} unknown`,
  );
  return `${lines.join('\n')}\n`;
}

/** A local repo by its absolute path, a remote one by its URL: one plan cache per repo. */
function repoId(repo: string): string {
  return /^[a-z]+:\/\//i.test(repo) ? repo : resolve(repo);
}

/** main at one commit: the local repo's branch, or a remote's fetched into the cache generate uses. */
async function openMain(options: ApplyOptions): Promise<{ repo: LandscapeRepo; ref: string }> {
  const { repo, remote } = await openLandscapeRepo(options);
  const sync = branchSync(repo, remote);
  await sync.refresh();
  return { repo, ref: sync.baseRef };
}

const PAST: Record<PlanAction, string> = {
  create: 'created',
  update: 'configured',
  'take-over': 'taken over',
  delete: 'deleted',
  unchanged: 'unchanged',
  blocked: 'blocked',
  drifted: 'drifted (not corrected)',
  shadow: 'shadowed (KIM leads it: nothing written)',
  'hand-back': 'handed back to KIM',
};

/** The plan as `flux diff` shows one: an object per line with what would happen, the field paths under it. */
function planText(
  plan: SyncPlan,
  namespace: string,
  orphans: readonly KubeObject[] = [],
  mode: 'dry run' | 'shadow' = 'dry run',
): string {
  const lines: string[] = [];
  for (const entry of plan.entries) {
    if (entry.action === 'unchanged') continue;
    // A Shoot KIM leads is listed where main differs from it (what a take-over would change); the rest are counted.
    if (entry.action === 'shadow' && entry.object.changes.length === 0) continue;
    lines.push(`► Shoot/${namespace}/${entry.shoot} ${PAST[entry.action]}`);
    for (const reason of entry.reasons) lines.push(`    ${reason}`);
    for (const kept of entry.kept ?? []) lines.push(`    kept ${kept.path}: ${kept.why}`);
    if (entry.action === 'delete')
      for (const c of entry.companions) lines.push(`    ${c.kind} ${c.name}: delete once the Shoot is gone`);
  }
  for (const orphan of orphans)
    lines.push(
      `► ${orphan.kind}/${namespace}/${orphan.metadata.name} deleted (its Shoot ${orphan.metadata.labels?.[COMPANION_OF_LABEL] ?? ''} is gone)`,
    );
  const c = plan.counts;
  lines.push(
    `${mode} of ${MAIN_BRANCH} at ${plan.commit.slice(0, 12)}: ${c.create} create, ${c.update} update, ${c['take-over']} take-over, ${c.delete} delete, ${c.unchanged} unchanged, ${c.drifted > 0 ? `${c.drifted} drifted, ` : ''}${c.shadow + c['hand-back'] > 0 ? `${c.shadow} shadow, ${c['hand-back']} hand-back, ` : ''}${c.blocked} blocked${plan.refused ? '; refused by the mass-deletion guard' : ''}; nothing written`,
  );
  return `${lines.join('\n')}\n`;
}

/** The sync's lines, each with the Shoot it is about where it is about one. */
function resultLines(result: SyncResult): [string, string?][] {
  const lines: [string, string?][] = [];
  for (const outcome of result.applied)
    for (const line of outcome.lines) lines.push([`${outcome.shoot}: ${line}`, outcome.shoot]);
  for (const outcome of result.skipped) {
    if (outcome.action === 'blocked' || outcome.action === 'drifted')
      for (const line of outcome.lines) lines.push([`${outcome.shoot}: ${outcome.action}: ${line}`, outcome.shoot]);
  }
  for (const cleaned of result.cleaned) lines.push([`deleted ${cleaned}`]);
  for (const annotated of result.annotated) lines.push([annotated]);
  if (result.notAttempted > 0)
    lines.push([
      `${result.notAttempted} not attempted: the Garden stopped answering; the next sync carries on from there`,
    ]);
  const count = (action: PlanAction) => result.skipped.filter((o) => o.action === action).length;
  const at = `${MAIN_BRANCH} at ${result.commit.slice(0, 12)}`;
  lines.push([
    result.refused
      ? `${at}: refused by the mass-deletion guard, nothing written`
      : `${at}: ${result.applied.length} applied, ${count('unchanged')} unchanged, ${count('drifted') > 0 ? `${count('drifted')} drifted, ` : ''}${count('blocked')} blocked, ${result.failed.length} failed${result.events > 0 ? `; ${result.events} drift Event(s) recorded` : ''}`,
  ]);
  return lines;
}
