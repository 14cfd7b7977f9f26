// `kimops backfill`, run: the KCP and Garden clients, checked against the landscape's project, wired to one
// pass (--once) or to the caches (backfiller/compacted-caches.ts), the watcher and the metrics (--watch); the
// outcomes printed. The per-Runtime work is backfiller/; the options commands/backfill.ts.
import { Registry } from 'prom-client';
import { readLandscape } from '../adapters/files/landscape.js';
import { refuseExampleLandscape } from './landscape-target.js';
import { informersOn } from '../adapters/kube/informer-factory.js';
import { KubeClient } from '../adapters/kube/kube-client.js';
import { skrClient } from '../adapters/kube/skr-client.js';
import { verifyGardenNamespace } from '../backfiller/garden-namespace-check.js';
import { outcomeLine, passSummary, type PassReport, type RuntimeOutcome } from '../backfiller/outcome.js';
import { backfillPass } from '../backfiller/pass.js';
import type { BackfillContext } from '../backfiller/ports.js';
import { backfillWatcher } from '../backfiller/watcher.js';
import { backfillCaches } from '../backfiller/compacted-caches.js';
import { rotationPeriodMs } from '../backfiller/kubeconfig.js';
import { backfillerMetrics, type BackfillerMetrics } from '../backfiller/metrics.js';
import { recordOutcome, releaseDeletedRuntimes } from '../backfiller/outcome-metrics.js';
import { gardenNamespaceOf } from '../model/contract.js';
import { ConfigError, TransportError } from '../model/errors.js';
import type { Landscape } from '../model/landscape.js';
import { EXIT, type CliIo } from './cli-io.js';
import { leaderElectionOf, type LeaderElection } from './leader-option.js';
import { loggingIo, logLine, reportingFailures } from './logging.js';
import { LoopHealth } from './loop-health.js';
import { metricsServerOf } from './metrics-option.js';
import { gardenCluster, type LeaderOptions, type LogOptions } from './service-options.js';
import { intervalMsOf, kubeconfigExpirationSecondsOf } from './options.js';
import { runUntilStopped } from './until-stopped.js';

export interface BackfillOptions extends LogOptions, LeaderOptions {
  landscape: string;
  allowExampleLandscape?: boolean;
  kcpKubeconfig?: string;
  context?: string;
  gardenKubeconfig: string;
  gardenContext?: string;
  kcpNamespace: string;
  once?: boolean;
  watch?: boolean;
  interval: string;
  metricsPort?: string;
  metricsHost: string;
  kubeconfigExpiration: string;
  minimalRotationTime: string;
}

type Context = BackfillContext<KubeClient, KubeClient>;

export async function backfill(options: BackfillOptions, commandIo: CliIo): Promise<number> {
  const landscape = refuseExampleLandscape(await readLandscape(options.landscape), options.allowExampleLandscape);
  const labels = { component: 'backfiller', landscape: landscape.name };
  const io = loggingIo(commandIo, options, labels, options.watch === true);
  return reportingFailures(io, () => (options.watch ? watch(options, io, landscape) : once(options, io, landscape)));
}

/** The clients and the Garden namespace; refuses (ConfigError) when that namespace does not exist in the Garden. */
async function contextOf(options: BackfillOptions, landscape: Landscape): Promise<Context> {
  const rotation = rotationOf(options);
  const project = landscape.gardener.project;
  const context: Context = {
    kcp: KubeClient.forCluster({
      kubeconfig: options.kcpKubeconfig,
      context: options.context,
      option: '--kcp-kubeconfig',
    }),
    garden: KubeClient.forCluster(gardenCluster(options)),
    gardenNamespace: gardenNamespaceOf(project),
    ...rotation,
    // Who leads a Runtime without the leader label: the Runtimes KIM leads are left to it (ADR 0011).
    ...(landscape.defaultLeader && { defaultLeader: landscape.defaultLeader }),
  };
  // KIM's -dedicated-audit-logging-enabled: the AuditLogs are read, the read credentials copied to each SKR
  // through a short-lived admin kubeconfig of its Shoot (as the applier reaches the SKR).
  if (landscape.features.dedicatedAuditLogging === true)
    context.dedicatedAuditLogging = {
      skr: (shoot) => skrClient(context.garden, context.gardenNamespace, shoot),
    };
  // A wrong project would read every Shoot as gone (404) and release finalizers in bulk: checked before anything runs.
  await verifyGardenNamespace(context, { name: landscape.name, project });
  return context;
}

/** KIM's two rotation settings, checked before anything runs. */
function rotationOf(options: BackfillOptions): { expirationSeconds: number; minimalRotationTime: number } {
  const ratio = Number(options.minimalRotationTime);
  const settings = {
    expirationSeconds: kubeconfigExpirationSecondsOf(options.kubeconfigExpiration),
    minimalRotationTime: ratio,
  };
  try {
    rotationPeriodMs(settings);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    const option = /expiration/.test(error.message) ? '--kubeconfig-expiration' : '--minimal-rotation-time';
    throw new ConfigError(
      option,
      '',
      `${error.message}: pass whole seconds of at least 10m for --kubeconfig-expiration and a ratio in (0, 1] for --minimal-rotation-time`,
    );
  }
  return settings;
}

function reportOutcome(outcome: RuntimeOutcome, io: CliIo): void {
  const log = logLine(io);
  const shoot = outcome.observation?.series.shoot;
  const fields = { runtime: outcome.runtime, ...(shoot && { shoot }) };
  const line = outcomeLine(outcome);
  if (line) log(line, fields);
  for (const error of outcome.errors) log(`${outcome.runtime}: ${error}`, fields, 'warn');
}

async function once(options: BackfillOptions, io: CliIo, landscape: Landscape): Promise<number> {
  const context = await contextOf(options, landscape);
  const report = await backfillPass(context, options.kcpNamespace);
  for (const warning of report.warnings ?? []) io.stderr(`${warning}\n`);
  for (const outcome of report.outcomes) reportOutcome(outcome, io);
  logLine(io)(passSummary(report));
  return exitCodeOf(report);
}

function exitCodeOf(report: PassReport): number {
  if (report.outcomes.some((o) => o.unreachable)) return EXIT.unavailable;
  return report.outcomes.some((o) => o.errors.length > 0) ? EXIT.conversionFailed : EXIT.ok;
}

async function watch(options: BackfillOptions, io: CliIo, landscape: Landscape): Promise<number> {
  const intervalMs = intervalMsOf(options.interval);
  const context = await contextOf(options, landscape);
  const registry = new Registry();
  const metrics = backfillerMetrics(registry, landscape.name);
  const health = new LoopHealth(intervalMs);
  const leaderElection = leaderElectionOf(
    options,
    { loop: 'backfill', landscape: landscape.name, kcp: () => context.kcp, registry },
    logLine(io),
  );
  const metricsServer = await metricsServerOf(options, io, registry, health);
  try {
    return await watchWith(options, io, context, intervalMs, metrics, { health, leaderElection });
  } finally {
    await metricsServer?.close();
  }
}

async function watchWith(
  options: BackfillOptions,
  io: CliIo,
  context: Context,
  intervalMs: number,
  metrics: BackfillerMetrics,
  service: { health: LoopHealth; leaderElection: LeaderElection | undefined },
): Promise<number> {
  const caches = backfillCaches(
    { kcp: informersOn(context.kcp), garden: informersOn(context.garden) },
    { kcp: options.kcpNamespace, garden: context.gardenNamespace },
    (line) => io.stderr(`${line}\n`),
    { auditLogs: context.dedicatedAuditLogging !== undefined },
  );
  const { runtimes, shoots, applyReports, gardenerClusters, secrets, auditLogs } = caches;
  releaseDeletedRuntimes(runtimes, metrics);
  // Made on the first pass, so only once this replica leads: its events reconcile (and write) at once. A standby
  // keeps the caches warm and writes nothing.
  let watcher: ReturnType<typeof backfillWatcher> | undefined;
  const leading = () =>
    (watcher ??= backfillWatcher(
      context,
      {
        runtimes,
        shoots,
        applyReports,
        gardenerClusters,
        secrets,
        ...(auditLogs && { auditLogs }),
        kcpNamespace: options.kcpNamespace,
      },
      (outcome) => {
        recordOutcome(metrics, outcome);
        reportOutcome(outcome, io);
      },
    ));
  caches.start();
  try {
    await runUntilStopped({
      // The first pass waits for both caches, then reconciles every Runtime; events reconcile theirs from then on.
      pass: async () => {
        await Promise.all([runtimes.synced(), shoots.synced(), auditLogs?.synced()]);
        const started = performance.now();
        const report = await leading().fullPass();
        metrics.pass((performance.now() - started) / 1000, exitCodeOf(report) !== EXIT.ok);
        // A pass that wrote nothing says so at debug: a service logs what happened, not that nothing did.
        const quiet = report.outcomes.every((o) => !o.statusWritten && o.errors.length === 0);
        logLine(io)(passSummary(report), {}, quiet ? 'debug' : 'info');
        if (report.outcomes.some((o) => o.unreachable))
          throw new TransportError('KCP or Garden', 'stopped answering during the pass; the next pass carries on');
      },
      intervalMs,
      io,
      health: service.health,
      // Reconciles the watcher started on events finish before the Lease is handed over.
      drain: async () => watcher?.idle(),
      ...(service.leaderElection && { leaderElection: service.leaderElection }),
      // Stopping the informers ends a pass still waiting for a first list (an API that never answered).
      stopping: () => {
        watcher?.close();
        void caches.stop();
      },
    });
  } finally {
    watcher?.close();
    await caches.stop();
  }
  return EXIT.ok;
}
