// `kimops apply`: sync the landscape repo's main to the Garden, once or watching (issue 6).
// Wiring only: the desired state is applier/desired.ts, the plan applier/plan.ts, the writes applier/sync.ts;
// this file reads the inputs (one commit; the live objects by one LIST of Shoots and one of companions, or,
// watching, from caches kept by WATCH: apply-caches.ts) and renders the outcome.
import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { Registry } from 'prom-client';
import { readLandscape } from '../adapters/files/landscape.js';
import type { LandscapeRepo } from '../adapters/git/landscape-repo.js';
import { KubeClient } from '../adapters/kube/kube-client.js';
import { DEFAULT_HOST, startWebhookReceiver, type WebhookReceiver } from '../adapters/webhook/receiver.js';
import { applierMetrics } from '../applier/metrics.js';
import {
  COMPANION_OF_LABEL,
  OWNERSHIP_LABEL,
  OWNERSHIP_VALUE,
  type PlanAction,
  type SyncPlan,
} from '../applier/plan.js';
import { APPLY_REPORT_NAME } from '../applier/apply-report.js';
import { syncCommit, syncMemo, type SyncMemo, type SyncReport } from '../applier/sync-commit.js';
import { GardenCaches } from './apply-caches.js';
import { collectGarbage } from './collect-garbage.js';
import { defaultPlanCachePath, readPlanCache, writePlanCache } from '../adapters/files/plan-cache.js';
import { metricsServerOf } from './metrics-option.js';
import type { SyncResult } from '../applier/sync.js';
import { branchSync, MAIN } from '../generator/branch-sync.js';
import type { KubeObject } from '../generator/render/landscape-layout.js';
import { ConfigError, TransportError } from '../model/errors.js';
import { KIMOPS_YAML, parseKimopsConfig } from '../model/kimops-config.js';
import { conversionSettingsOf } from '../model/landscape.js';
import { EXIT, type CliIo } from './cli-io.js';
import { GIT_TOKEN_ENV, openLandscapeRepo } from './landscape-target.js';
import { intervalMsOf, runUntilStopped } from './until-stopped.js';
import type { WatchLoop } from '../generator/watch.js';

interface ApplyOptions {
  landscape: string;
  repo: string;
  gardenKubeconfig: string;
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

/** The webhook's shared secret: from the environment only, never an option (it would show in `ps`). */
export const WEBHOOK_SECRET_ENV = 'KIMOPS_WEBHOOK_SECRET';

/** Flux polls its sources every minute by default; a merge reaches Gardener within that. */
const DEFAULT_INTERVAL_SECONDS = 60;

const HELP = `
Syncs one commit of the landscape repo's main to the Garden: every Shoot under shoots/ (its companions,
the structured-auth ConfigMaps, first) is server-side applied to garden-<project> as field manager
kimops, labelled ${OWNERSHIP_LABEL}=${OWNERSHIP_VALUE} and annotated with the commit. A Shoot
whose apply would change nothing gets no request. A labelled Shoot whose folder is gone from main is
deleted: confirmation.gardener.cloud/deletion first, then DELETE, its companions once Gardener has
removed it (a later sync cleans them up if it has not yet). kimops.yaml's massDeletion guard refuses a
commit that deletes too many Shoots at once: then nothing is written.

--repo is a local bare repository (made by kimops init) or the https URL of a remote one (main is
fetched into --cache-dir; a token for git comes from ${GIT_TOKEN_ENV.join(' or ')}).

--dry-run prints the plan (per Shoot: the action and the field paths that change) and writes nothing.
--watch syncs every --interval seconds (each sync works on main's newest commit and writes nothing when
it is in sync) until SIGINT or SIGTERM; a failed sync is reported and retried with backoff. It keeps the
Shoots and companions in caches kept by WATCH (one LIST each at start) and reads only the Shoot folders
that changed: a sync that finds nothing to do makes no request at all.
For production, run the compiled form: npm run build, then node dist/cli/kimops.js apply …
--webhook-port (with --watch) also listens for GitHub webhook deliveries (content type application/json,
the push event) on --webhook-host (default ${DEFAULT_HOST}): a push to main whose X-Hub-Signature-256
matches the secret in ${WEBHOOK_SECRET_ENV} starts a sync at once; polling goes on. The receiver speaks plain
HTTP: put a reverse proxy or ingress that terminates TLS in front of it.

Exit codes (--once): 0 in sync; 1 some Shoots failed (each named with the server's message and the fix), were
held back by problems in the repo, or the mass-deletion guard refused the commit; 2 usage or
configuration error; 69 the Garden or the git server could not be reached, run again.

Examples:
  kimops apply --landscape dev --repo ./landscape-dev.git --garden-kubeconfig garden.yaml --once --dry-run
  kimops apply --landscape dev --repo ./landscape-dev.git --garden-kubeconfig garden.yaml --once`;

export function registerApply(program: Command, io: CliIo, setExitCode: (code: number) => void): void {
  program
    .command('apply')
    .description("sync the landscape repo's main to the Shoots in the Garden")
    .addOption(
      new Option(
        '--landscape <name|dir>',
        'a landscape shipped with kimops (dev), or a folder/file with landscape.yaml',
      ).makeOptionMandatory(),
    )
    .addOption(
      new Option(
        '--repo <dir|url>',
        'the landscape repo: a bare repository made by kimops init, or its https URL',
      ).makeOptionMandatory(),
    )
    .addOption(new Option('--garden-kubeconfig <file>', 'the Garden to write the Shoots to').makeOptionMandatory())
    .option('--cache-dir <dir>', 'where a remote repo is fetched to (default: ~/.cache/kimops/repos/<hash>.git)')
    .addOption(new Option('--once', 'one sync, then exit').conflicts('watch'))
    .option('--watch', 'sync every --interval until stopped')
    .option('--interval <seconds>', 'with --watch: how often main is synced', String(DEFAULT_INTERVAL_SECONDS))
    .option('--dry-run', 'print the plan, write nothing')
    .option(
      '--shadow',
      'compute and report every sync like --dry-run, write nothing; with --watch, for running beside KIM before the take-over',
    )
    .option('--allow-mass-deletion <n>', 'confirm up to n deletions beyond kimops.yaml massDeletion')
    .option(
      '--webhook-port <port>',
      `with --watch: receive GitHub push webhooks here (secret from ${WEBHOOK_SECRET_ENV})`,
    )
    .option(
      '--webhook-host <address>',
      'with --webhook-port: the address to listen on (TLS is terminated in front of it)',
      DEFAULT_HOST,
    )
    .option('--metrics-port <port>', 'with --watch: serve Prometheus metrics at /metrics on this port')
    .option('--metrics-host <address>', 'with --metrics-port: the address to listen on', DEFAULT_HOST)
    .option(
      '--plan-cache <file>',
      'where the plan of unchanged Shoots is kept between runs (default: ~/.cache/kimops/plans/<hash>.json; safe to delete)',
    )
    .option('--no-plan-cache', 'plan every Shoot in full at start, keep nothing on disk')
    .addHelpText('after', HELP)
    .action(async (options: ApplyOptions, command: Command) => {
      if (!options.once && !options.watch) command.error('error: pass --once or --watch', { exitCode: EXIT.usage });
      if (!options.watch) {
        if (options.webhookPort !== undefined)
          command.error('error: --webhook-port needs --watch', { exitCode: EXIT.usage });
        if (options.metricsPort !== undefined)
          command.error('error: --metrics-port needs --watch', { exitCode: EXIT.usage });
        setExitCode(await run(options, io));
        return;
      }
      // An approval of extra deletions is for the commit a human looked at, not for every later one.
      if (options.allowMassDeletion !== undefined)
        command.error('error: --allow-mass-deletion approves one commit: use it with --once', { exitCode: EXIT.usage });
      // What no later sync can fix is refused now, not retried forever.
      const intervalMs = intervalMsOf(options.interval);
      const landscape = await readLandscape(options.landscape);
      KubeClient.fromKubeconfigOption(options.gardenKubeconfig, '--garden-kubeconfig');
      // A verified push only makes the next sync come sooner; the initial sync covers pushes before the loop runs.
      let loop: WatchLoop | undefined;
      // Each sync parses only the Shoot folders main changed, and plans only the Shoots that moved, since the last one.
      const memo = syncMemo();
      const registry = new Registry();
      const metrics = applierMetrics(registry, landscape.name);
      const metricsServer = await metricsServerOf(options, io, registry);
      const webhook = await webhookOf(options, io, () => loop?.trigger()).catch(async (error: unknown) => {
        await metricsServer?.close();
        throw error;
      });
      // The Shoots and companions, kept by WATCH: a sync lists nothing.
      const caches = new GardenCaches(options.gardenKubeconfig, '--garden-kubeconfig', (line) =>
        io.stderr(`${line}\n`),
      );
      try {
        // A sync cut short by an unreachable Garden is a failed pass: the loop backs off before the next.
        const pass = async () => {
          const started = performance.now();
          const seconds = () => (performance.now() - started) / 1000;
          let code: number;
          try {
            code = await run(options, io, (report) => metrics.synced(report, seconds()), { memo, caches });
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
        await runUntilStopped({ pass, intervalMs, io, started: (l) => (loop = l), stopping: () => void caches.stop() });
      } finally {
        await caches.stop();
        await webhook?.close();
        await metricsServer?.close();
      }
      setExitCode(EXIT.ok);
    });
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
      log: (o) =>
        io.stderr(
          `webhook ${o.status}${o.event ? ` ${o.event}` : ''}${o.delivery ? ` ${o.delivery}` : ''}: ${o.message}\n`,
        ),
    });
    io.stderr(`webhook receiver listening on ${receiver.url}\n`);
    return receiver;
  } catch (error) {
    throw new ConfigError(
      '--webhook-port',
      '',
      `cannot listen on ${options.webhookHost}:${options.webhookPort}: ${error instanceof Error ? error.message : String(error)}; pass a free port and an address of this host`,
    );
  }
}

/** What a watching applier keeps from one sync to the next. */
interface Watching {
  memo: SyncMemo;
  caches: GardenCaches;
  /** The plan cache's file as last read or written (its keys' digest), so an unchanged memo is not written again; null once it could not be written. */
  planCache?: { path: string; digest: string } | null;
}

async function run(
  options: ApplyOptions,
  io: CliIo,
  reported: (report: SyncReport) => void = () => {},
  watching?: Watching,
): Promise<number> {
  const allowMassDeletion = options.allowMassDeletion === undefined ? undefined : Number(options.allowMassDeletion);
  if (
    allowMassDeletion !== undefined &&
    (!/^\d+$/.test(options.allowMassDeletion ?? '') || !Number.isSafeInteger(allowMassDeletion))
  ) {
    throw new ConfigError(
      '--allow-mass-deletion',
      '',
      `${options.allowMassDeletion} is not a number of Shoots (0 or more)`,
    );
  }
  const landscape = await readLandscape(options.landscape);
  const project = conversionSettingsOf(landscape).config.gardener?.projectName ?? landscape.gardener.project;
  const namespace = `garden-${project}`;
  // Read each sync, so a rotated kubeconfig file is picked up; its connections are closed when the sync ends.
  const garden = KubeClient.fromKubeconfigOption(options.gardenKubeconfig, '--garden-kubeconfig');
  try {
    return await sync(
      options,
      io,
      { garden, namespace, project, landscape: landscape.name, allowMassDeletion },
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
}

/** One sync of main's newest commit to `target`. */
async function sync(
  options: ApplyOptions,
  io: CliIo,
  target: SyncTarget,
  reported: (report: SyncReport) => void,
  watching: Watching | undefined,
): Promise<number> {
  const { garden, namespace, project, landscape, allowMassDeletion } = target;
  const { repo, ref } = await openMain(options);
  const commit = await repo.resolve(ref);
  if (commit === undefined)
    throw new ConfigError(
      '--repo',
      '',
      `${options.repo} has no ${MAIN} branch; create the landscape repo with kimops init`,
    );

  const configText = await repo.readFile(commit, KIMOPS_YAML);
  if (configText === undefined)
    throw new ConfigError(
      '--repo',
      '',
      `${options.repo} has no ${KIMOPS_YAML} on ${MAIN}; create the landscape repo with kimops init`,
    );
  const config = parseKimopsConfig(configText, `${KIMOPS_YAML} at ${commit.slice(0, 12)}`);
  if (config.landscape !== landscape) {
    throw new ConfigError(
      '--landscape',
      '',
      `${options.repo} holds landscape ${config.landscape}, not ${landscape}; pass the matching landscape or repo`,
    );
  }
  if (config.gardener.project !== project) {
    throw new ConfigError(
      KIMOPS_YAML,
      'gardener.project',
      `is ${config.gardener.project}, but landscape ${landscape} writes to project ${project}: make them the same`,
    );
  }

  // The plan memo: a watching applier's own, read from the plan cache at its first sync; a --once run's from the cache alone.
  const memo = watching?.memo ?? syncMemo();
  const cachePath =
    options.planCache === false || watching?.planCache === null
      ? undefined
      : typeof options.planCache === 'string'
        ? resolve(options.planCache)
        : defaultPlanCachePath(repoId(options.repo), garden.server, namespace, config.apply.fieldManager);
  const cache =
    watching?.planCache && watching.planCache.path === cachePath
      ? watching.planCache
      : cachePath && (await loadPlanCache(cachePath, memo));
  const report = await syncCommit({
    repo,
    commit,
    garden,
    namespace,
    config,
    write: !options.dryRun && !options.shadow,
    ...(allowMassDeletion !== undefined && { allowMassDeletion }),
    memo,
    ...(watching && { live: await watching.caches.live(namespace, config.apply.fieldManager) }),
    betweenBatches: collectGarbage,
  });
  if (cachePath) {
    const saved = await savePlanCache(cachePath, memo, cache || undefined, io);
    // A cache that cannot be written is said once: a watching applier then keeps its memo in memory only.
    if (watching) watching.planCache = saved;
  }
  reported(report);
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
  io.stdout(resultText(result) + reportTail(report, true));
  const applyReport = report.applyReport;
  if (applyReport?.outcome === 'written')
    io.stdout(
      `apply report ${namespace}/${APPLY_REPORT_NAME} written for the backfiller: ${applyReport.shoots} Shoot(s) with failures\n`,
    );
  if (applyReport?.outcome === 'failed')
    io.stderr(`${applyReport.message} (the Runtimes' status misses this sync's failures until a sync writes it)\n`);
  if (result.refused) io.stderr(`${result.refused}\n`);
  for (const failed of result.failed) for (const line of failed.lines) io.stderr(`${failed.shoot}: ${line}\n`);
  if (result.unreachable) return EXIT.unavailable;
  return result.refused || result.failed.length > 0 || heldBack ? EXIT.conversionFailed : EXIT.ok;
}

/** What the plan does not show: values the live Shoot kept, annotations, and the inventory's health. */
function reportTail(report: SyncReport, written: boolean): string {
  const lines: string[] = [];
  const quiet = report.plan.entries.filter((e) => e.kept && e.action === 'unchanged');
  if (quiet.length > 0) {
    lines.push(
      `${quiet.length} Shoot(s) keep live values over ${MAIN}'s (e.g. ${quiet[0]?.shoot}: ${quiet[0]?.kept?.map((k) => k.path).join(', ')}; Gardener forbids going back, or the field is set at creation only); nothing to write — versions Gardener raised come back as the generator's adopt pull request`,
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

const digestOfKeys = (memo: SyncMemo) =>
  createHash('sha256')
    .update([...memo.plan.keys()].join('\n'))
    .digest('hex');

/** The plan cache's entries into `memo` (none when it is missing, unreadable or of other code). */
async function loadPlanCache(path: string, memo: SyncMemo): Promise<{ path: string; digest: string }> {
  for (const [key, entry] of await readPlanCache(path)) memo.plan.set(key, entry);
  return { path, digest: digestOfKeys(memo) };
}

/** The memo written to the plan cache when it changed; a cache that cannot be written only costs the next run time. */
async function savePlanCache(
  path: string,
  memo: SyncMemo,
  last: { path: string; digest: string } | undefined,
  io: CliIo,
): Promise<{ path: string; digest: string } | null> {
  const digest = digestOfKeys(memo);
  if (last?.path === path && last.digest === digest) return last;
  try {
    await writePlanCache(path, memo.plan);
  } catch (error) {
    io.stderr(
      `plan cache ${path} not written (${error instanceof Error ? error.message : String(error)}): the next process plans every Shoot in full; pass --plan-cache <file> somewhere writable, or --no-plan-cache\n`,
    );
    return null;
  }
  return { path, digest };
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
};

/** The plan as `flux diff` shows one: an object per line with what would happen, the field paths under it. */
export function planText(
  plan: SyncPlan,
  namespace: string,
  orphans: readonly KubeObject[] = [],
  mode: 'dry run' | 'shadow' = 'dry run',
): string {
  const lines: string[] = [];
  for (const entry of plan.entries) {
    if (entry.action === 'unchanged') continue;
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
    `${mode} of ${MAIN} at ${plan.commit.slice(0, 12)}: ${c.create} create, ${c.update} update, ${c['take-over']} take-over, ${c.delete} delete, ${c.unchanged} unchanged, ${c.drifted > 0 ? `${c.drifted} drifted, ` : ''}${c.blocked} blocked${plan.refused ? '; refused by the mass-deletion guard' : ''}; nothing written`,
  );
  return `${lines.join('\n')}\n`;
}

export function resultText(result: SyncResult): string {
  const lines: string[] = [];
  for (const outcome of result.applied) for (const line of outcome.lines) lines.push(`${outcome.shoot}: ${line}`);
  for (const outcome of result.skipped) {
    if (outcome.action === 'blocked' || outcome.action === 'drifted')
      for (const line of outcome.lines) lines.push(`${outcome.shoot}: ${outcome.action}: ${line}`);
  }
  for (const cleaned of result.cleaned) lines.push(`deleted ${cleaned}`);
  for (const annotated of result.annotated) lines.push(annotated);
  if (result.notAttempted > 0)
    lines.push(
      `${result.notAttempted} not attempted: the Garden stopped answering; the next sync carries on from there`,
    );
  const count = (action: PlanAction) => result.skipped.filter((o) => o.action === action).length;
  const at = `${MAIN} at ${result.commit.slice(0, 12)}`;
  lines.push(
    result.refused
      ? `${at}: refused by the mass-deletion guard, nothing written`
      : `${at}: ${result.applied.length} applied, ${count('unchanged')} unchanged, ${count('drifted') > 0 ? `${count('drifted')} drifted, ` : ''}${count('blocked')} blocked, ${result.failed.length} failed${result.events > 0 ? `; ${result.events} drift Event(s) recorded` : ''}`,
  );
  return `${lines.join('\n')}\n`;
}
