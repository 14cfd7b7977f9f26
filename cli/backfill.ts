// `kimops backfill`: Runtime status, KIM's finalizer and the kubeconfig Secret from the Shoots (issue 7).
// Wiring only: the per-Runtime work is backfiller/backfill.ts, the status and kubeconfig rules
// backfiller/status.ts and backfiller/kubeconfig.ts.
import { Option, type Command } from 'commander';
import { Registry } from 'prom-client';
import { readLandscape } from '../adapters/files/landscape.js';
import { Informer } from '../adapters/kube/informer.js';
import { KubeClient, type KubeObject } from '../adapters/kube/kube-client.js';
import { APPLY_REPORT_SELECTOR } from '../applier/apply-report.js';
import {
  backfillPass,
  backfillWatcher,
  type BackfillContext,
  compactSecret,
  compactShootForStatus,
  type GardenerClusterObject,
  KUBECONFIG_SECRET_SELECTOR,
  outcomeLine,
  passSummary,
  type PassReport,
  type RuntimeObject,
  type RuntimeOutcome,
  type SecretObject,
  type ShootObject,
  verifyGardenNamespace,
  withoutManagedFields,
} from '../backfiller/backfill.js';
import {
  DEFAULT_KCP_NAMESPACE,
  GARDENER_CLUSTER_API_VERSION,
  GARDENER_CLUSTER_KIND,
  rotationPeriodMs,
} from '../backfiller/kubeconfig.js';
import { backfillerMetrics, type BackfillerMetrics } from '../backfiller/metrics.js';
import { DEFAULT_HOST } from '../adapters/webhook/receiver.js';
import { ConfigError, TransportError } from '../model/errors.js';
import { parseGoDuration } from '../model/go-duration.js';
import { conversionSettingsOf } from '../model/landscape.js';
import { RUNTIME_API_VERSION } from '../model/runtime.js';
import { SHOOT_API_VERSION } from '../model/shoot.js';
import { EXIT, type CliIo } from './cli-io.js';
import { metricsServerOf } from './metrics-option.js';
import { intervalMsOf, runUntilStopped } from './until-stopped.js';

interface BackfillOptions {
  landscape: string;
  kcpKubeconfig: string;
  gardenKubeconfig: string;
  kcpNamespace: string;
  once?: boolean;
  watch?: boolean;
  interval: string;
  metricsPort?: string;
  metricsHost: string;
  kubeconfigExpiration: string;
  minimalRotationTime: string;
}

/** A full pass at least this often in --watch: kubeconfig rotation, and anything an event did not bring. */
const DEFAULT_INTERVAL_SECONDS = 60;

const HELP = `
Writes each Runtime's status in --kcp-namespace from its Shoot in garden-<project> (KIM's states,
conditions and reasons, the contract KEB waits on) through the status subresource, only when it changes,
with one Event per changed KIM condition. Holds KIM's finalizer on every Runtime until its Shoot is gone.
Once a Shoot's Create has succeeded, keeps KIM's GardenerCluster and the Secret kubeconfig-<runtimeID>
(key config) from Gardener's adminkubeconfig, rotated before expiry; a Runtime is Ready only once the
Secret is there. A deleted Runtime is Terminating until its Shoot is gone; then its GardenerCluster and
Secret are removed and the finalizer released.

What the pipeline knows lands in the status too: the generator's annotation kimops.kyma-project.io/pipeline
on each Runtime (conversion errors, the PR) and the applier's report, the ConfigMap kimops-apply-report in
garden-<project> (SeedNotFound, writes Gardener refused).

--once makes one pass (one LIST each of Runtimes, Shoots, GardenerClusters and kubeconfig Secrets, one GET of
the applier's report). --watch watches Runtimes, Shoots and the report: a change recomputes the Runtimes it
concerns at once, and a full pass runs every --interval seconds, until SIGINT or SIGTERM; --metrics-port
serves KIM's infrastructure_manager_im_runtime_state, _im_gardener_clusters_state and
_im_kubeconfig_expiration (same labels) and kimops_backfiller_* metrics.

Exit codes (--once): 0 done; 1 some Runtimes could not be written (each named with the server's answer);
2 usage or configuration error (also: the Garden has no namespace garden-<project>); 69 the KCP cluster or the Garden could not be reached, run again.

Example:
  kimops backfill --landscape dev --kcp-kubeconfig kcp.yaml --garden-kubeconfig garden.yaml --once`;

export function registerBackfill(program: Command, io: CliIo, setExitCode: (code: number) => void): void {
  program
    .command('backfill')
    .description("write the Runtimes' status, finalizer and kubeconfig Secret from their Shoots")
    .addOption(
      new Option(
        '--landscape <name|dir>',
        'a landscape shipped with kimops (dev), or a folder/file with landscape.yaml',
      ).makeOptionMandatory(),
    )
    .addOption(new Option('--kcp-kubeconfig <file>', 'the KCP cluster with the Runtimes').makeOptionMandatory())
    .addOption(new Option('--garden-kubeconfig <file>', 'the Garden with the Shoots').makeOptionMandatory())
    .option('--kcp-namespace <name>', 'the namespace of the Runtimes', DEFAULT_KCP_NAMESPACE)
    .addOption(new Option('--once', 'one pass, then exit').conflicts('watch'))
    .option('--watch', 'keep running: on every Runtime and Shoot change, and a full pass every --interval')
    .option('--interval <seconds>', 'with --watch: a full pass at least this often', String(DEFAULT_INTERVAL_SECONDS))
    .option(
      '--metrics-port <port>',
      "with --watch: serve Prometheus metrics at /metrics on this port (KIM's infrastructure_manager_im_runtime_state among them)",
    )
    .option('--metrics-host <address>', 'with --metrics-port: the address to listen on', DEFAULT_HOST)
    .option(
      '--kubeconfig-expiration <duration>',
      "how long the kubeconfigs Gardener issues are valid (KIM's --kubeconfig-expiration-time; Gardener caps it, 24h by default)",
      '24h',
    )
    .option(
      '--minimal-rotation-time <ratio>',
      "rotate after this share of the expiration (KIM's --minimal-rotation-time)",
      '0.6',
    )
    .addHelpText('after', HELP)
    .action(async (options: BackfillOptions, command: Command) => {
      if (!options.once && !options.watch) command.error('error: pass --once or --watch', { exitCode: EXIT.usage });
      if (options.once && options.metricsPort !== undefined)
        command.error('error: --metrics-port needs --watch', { exitCode: EXIT.usage });
      setExitCode(options.watch ? await watch(options, io) : await once(options, io));
    });
}

/** The clients and the Garden namespace; refuses (ConfigError) when that namespace does not exist in the Garden. */
async function contextOf(options: BackfillOptions): Promise<BackfillContext> {
  const rotation = rotationOf(options);
  const landscape = await readLandscape(options.landscape);
  const project = conversionSettingsOf(landscape).config.gardener?.projectName ?? landscape.gardener.project;
  const context = {
    kcp: KubeClient.fromKubeconfigOption(options.kcpKubeconfig, '--kcp-kubeconfig'),
    garden: KubeClient.fromKubeconfigOption(options.gardenKubeconfig, '--garden-kubeconfig'),
    gardenNamespace: `garden-${project}`,
    ...rotation,
  };
  // A wrong project would read every Shoot as gone (404) and release finalizers in bulk: checked before anything runs.
  await verifyGardenNamespace(context, { name: landscape.name, project });
  return context;
}

/** KIM's two rotation settings, checked before anything runs. */
function rotationOf(options: BackfillOptions): { expirationSeconds: number; minimalRotationTime: number } {
  const nanos = parseGoDuration(options.kubeconfigExpiration);
  if (nanos === undefined || nanos <= 0)
    throw new ConfigError(
      '--kubeconfig-expiration',
      '',
      `${options.kubeconfigExpiration} is not a duration such as 24h or 90m`,
    );
  const ratio = Number(options.minimalRotationTime);
  const settings = { expirationSeconds: nanos / 1e9, minimalRotationTime: ratio };
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
  const line = outcomeLine(outcome);
  if (line) io.stdout(`${line}\n`);
  for (const error of outcome.errors) io.stderr(`${outcome.runtime}: ${error}\n`);
}

async function once(options: BackfillOptions, io: CliIo): Promise<number> {
  const context = await contextOf(options);
  const report = await backfillPass(context, options.kcpNamespace);
  for (const warning of report.warnings ?? []) io.stderr(`${warning}\n`);
  for (const outcome of report.outcomes) reportOutcome(outcome, io);
  io.stdout(`${passSummary(report)}\n`);
  return exitCodeOf(report);
}

function exitCodeOf(report: PassReport): number {
  if (report.outcomes.some((o) => o.unreachable)) return EXIT.unavailable;
  return report.outcomes.some((o) => o.errors.length > 0) ? EXIT.conversionFailed : EXIT.ok;
}

async function watch(options: BackfillOptions, io: CliIo): Promise<number> {
  const intervalMs = intervalMsOf(options.interval);
  const context = await contextOf(options);
  const registry = new Registry();
  const metrics = backfillerMetrics(registry, (await readLandscape(options.landscape)).name);
  const metricsServer = await metricsServerOf(options, io, registry);
  try {
    return await watchWith(options, io, context, intervalMs, metrics);
  } finally {
    await metricsServer?.close();
  }
}

/** What a reconcile tells the metrics: the Runtime's series, or its removal once released. */
function record(metrics: BackfillerMetrics, outcome: RuntimeOutcome): void {
  if (outcome.finalizer === 'released' && outcome.runtimeId !== undefined) {
    metrics.released(outcome.runtimeId, outcome.runtime);
    return;
  }
  if (outcome.observation) metrics.observed(outcome.observation);
  if (outcome.kubeconfigMetrics) metrics.observedKubeconfig(outcome.kubeconfigMetrics);
}

async function watchWith(
  options: BackfillOptions,
  io: CliIo,
  context: BackfillContext,
  intervalMs: number,
  metrics: BackfillerMetrics,
): Promise<number> {
  const log = (line: string) => io.stderr(`${line}\n`);
  // Each cache keeps what a reconcile reads (without managedFields; of a Shoot, its status and DNS domain).
  const runtimes = new Informer<RuntimeObject>(
    context.kcp,
    { apiVersion: RUNTIME_API_VERSION, kind: 'Runtime' },
    { namespace: options.kcpNamespace, log, transform: withoutManagedFields },
  );
  const shoots = new Informer<ShootObject>(
    context.garden,
    { apiVersion: SHOOT_API_VERSION, kind: 'Shoot' },
    { namespace: context.gardenNamespace, log, transform: compactShootForStatus },
  );
  // The applier's report of what it could not do (one ConfigMap): SeedNotFound and refused writes.
  const applyReports = new Informer<KubeObject>(
    context.garden,
    { apiVersion: 'v1', kind: 'ConfigMap' },
    { namespace: context.gardenNamespace, labelSelector: APPLY_REPORT_SELECTOR, log },
  );
  // The GardenerClusters and kubeconfig Secrets, cached (the Secrets without their kubeconfigs): no GETs per reconcile.
  const kcpNamespace = { namespace: options.kcpNamespace, log };
  const gardenerClusters = new Informer<GardenerClusterObject>(
    context.kcp,
    { apiVersion: GARDENER_CLUSTER_API_VERSION, kind: GARDENER_CLUSTER_KIND },
    { ...kcpNamespace, transform: withoutManagedFields },
  );
  const secrets = new Informer<SecretObject>(
    context.kcp,
    { apiVersion: 'v1', kind: 'Secret' },
    { ...kcpNamespace, labelSelector: KUBECONFIG_SECRET_SELECTOR, transform: compactSecret },
  );
  const caches = [runtimes, shoots, applyReports, gardenerClusters, secrets];
  // A Runtime gone by any way (also a finalizer someone else released) takes its series with it.
  runtimes.onChange((change) => {
    if (change.type === 'deleted')
      metrics.released(
        change.object.metadata.labels?.['kyma-project.io/runtime-id'] ?? change.object.metadata.name,
        `${change.object.metadata.namespace ?? ''}/${change.object.metadata.name}`,
      );
  });
  const watcher = backfillWatcher(
    context,
    { runtimes, shoots, applyReports, gardenerClusters, secrets, kcpNamespace: options.kcpNamespace },
    (outcome) => {
      record(metrics, outcome);
      reportOutcome(outcome, io);
    },
  );
  const stopAll = () => Promise.all(caches.map((cache) => cache.stop()));
  for (const cache of caches) cache.start();
  try {
    await runUntilStopped({
      // The first pass waits for both caches; the events of their first lists already queued every Runtime.
      pass: async () => {
        await Promise.all([runtimes.synced(), shoots.synced()]);
        const started = performance.now();
        const report = await watcher.fullPass();
        metrics.pass((performance.now() - started) / 1000, exitCodeOf(report) !== EXIT.ok);
        io.stdout(`${passSummary(report)}\n`);
        if (report.outcomes.some((o) => o.unreachable))
          throw new TransportError('KCP or Garden', 'stopped answering during the pass; the next pass carries on');
      },
      intervalMs,
      io,
      // Stopping the informers ends a pass still waiting for a first list (an API that never answered).
      stopping: () => {
        watcher.close();
        void stopAll();
      },
    });
  } finally {
    watcher.close();
    await stopAll();
  }
  return EXIT.ok;
}
