// `kimops generate`, run: the landscape, the landscape repo and its forge, the Runtime source (a folder:
// adapters/files/runtime-folder.ts; a KCP: adapters/kube/kcp-runtimes.ts) and the live Shoots, wired to the pass
// (generator/generate.ts) and the loop (until-stopped.ts); what a pass learned goes back onto the Runtimes
// (generator/runtime-source.ts). Its options: commands/generate.ts.
import { isDeepStrictEqual } from 'node:util';
import { readKebZones } from '../adapters/files/keb-zones.js';
import { readPolicySet } from '../adapters/files/policies.js';
import { folderRuntimeSource } from '../adapters/files/runtime-folder.js';
import { kcpAuditLogPool } from '../adapters/kube/kcp-audit-logs.js';
import { kcpRuntimeSource } from '../adapters/kube/kcp-runtimes.js';
import { KubeClient } from '../adapters/kube/kube-client.js';
import { objectSource, type ObjectSource } from '../adapters/kube/object-source.js';
import { generate as generatePass, type GenerateResult } from '../generator/generate.js';
import { RenderMemo } from '../generator/render-memo.js';
import { runtimeFactWrites } from '../generator/runtime-facts.js';
import { reportRuntimeFacts, type RuntimeSource } from '../generator/runtime-source.js';
import { policySource } from '../generator/validate/policy-source.js';
import { gardenNamespaceOf } from '../model/contract.js';
import { ConfigError } from '../model/errors.js';
import type { KubeObject } from '../model/kube-object.js';
import { conversionSettingsOf, type ConversionSettings, type Landscape } from '../model/landscape.js';
import { printableLines } from '../model/printable.js';
import { SHOOT_API_VERSION, type Shoot } from '../model/shoot.js';
import { Registry } from 'prom-client';
import { DEFAULT_HOST } from '../adapters/loopback.js';
import { generatorMetrics } from '../generator/metrics.js';
import { EXIT, reportFailure, type CliIo } from './cli-io.js';
import { leaderElectionOf } from './leader-option.js';
import type { LogLine } from '../model/log.js';
import { loggingIo, logLine, reportingFailures } from './logging.js';
import { gardenCluster, type LeaderOptions, type LogOptions } from './service-options.js';
import { LoopHealth } from './loop-health.js';
import { metricsServerOf, type MetricsOptions } from './metrics-option.js';
import {
  landscapeOnMain,
  openLandscapeTarget,
  refuseExampleLandscape,
  type ForgeKind,
  type LandscapeTarget,
} from './landscape-target.js';
import { allowMassDeletionOf, intervalMsOf } from './options.js';
import { runUntilStopped } from './until-stopped.js';

export interface GenerateOptions extends LogOptions, LeaderOptions, Partial<MetricsOptions> {
  /** Absent: the landscape.yaml on the repo's main. */
  landscape?: string;
  allowExampleLandscape?: boolean;
  runtimes?: string;
  kcpKubeconfig?: string;
  context?: string;
  kcpNamespace: string;
  gardenKubeconfig?: string;
  gardenContext?: string;
  repo: string;
  forge?: ForgeKind;
  cacheDir?: string;
  githubApiUrl?: string;
  githubRepo?: string;
  once?: boolean;
  watch?: boolean;
  interval: string;
  allowMassDeletion?: string;
}

export async function generate(options: GenerateOptions, commandIo: CliIo): Promise<number> {
  const watch = options.watch === true;
  // The forge's retries are logged like the passes' lines once the landscape, a label of every line, is known.
  let log: LogLine = logLine(commandIo);
  const target = await openLandscapeTarget(options, (line) => log(line));
  const landscape = refuseExampleLandscape(
    await landscapeOnMain(options.landscape, target, options.repo, (line) => commandIo.stderr(`${line}\n`)),
    options.allowExampleLandscape,
  );
  const io = loggingIo(commandIo, options, { component: 'generator', landscape: landscape.name }, watch);
  log = logLine(io);
  return reportingFailures(io, () => generateWith(options, io, landscape, target));
}

async function generateWith(
  options: GenerateOptions,
  io: CliIo,
  landscape: Landscape,
  target: LandscapeTarget,
): Promise<number> {
  const allowMassDeletion = allowMassDeletionOf(options.allowMassDeletion);
  const intervalMs = intervalMsOf(options.interval);
  let settings = conversionSettingsOf(landscape);
  const watch = options.watch === true;
  const log = logLine(io);
  const warn = (line: string) => io.stderr(`${line}\n`);
  // The KCP: where the Runtimes come from unless --runtimes names a folder, and where the Lease lives.
  const kcp = options.runtimes === undefined || options.leaderElect ? kcpOf(options) : undefined;
  const runtimes: RuntimeSource =
    options.runtimes !== undefined
      ? folderRuntimeSource(options.runtimes, () => io.readStdin())
      : kcpRuntimeSource(kcp as KubeClient, { namespace: options.kcpNamespace, watch, log: warn });
  // KALM's AuditLog pool lives on the KCP; a pass reads it only while the landscape turns dedicated audit logs on.
  const auditLogPool = kcp && kcpAuditLogPool(kcp, options.kcpNamespace);
  let saidNoPool = false;
  const gardenClient =
    options.gardenKubeconfig === undefined
      ? undefined
      : KubeClient.forCluster(gardenCluster({ ...options, gardenKubeconfig: options.gardenKubeconfig }));
  const garden = gardenClient && gardenSource(gardenClient, settings, watch, warn);
  let validation = await policySource(landscape, { readPolicySet, readKebZones }, gardenClient);
  const memo = new RenderMemo();
  // Without --landscape the landscape is the repo's: one merged to main since the last pass is this pass's (the
  // first pass has the one read at the start).
  let current: Landscape | undefined;
  const followMain = async () => {
    if (current === undefined) {
      current = landscape;
      return;
    }
    // main as the last pass fetched it, not fetched again (each pass fetches once): a landscape.yaml merged since
    // then is read by the next pass.
    const onMain = refuseExampleLandscape(
      await landscapeOnMain(undefined, target, options.repo, warn, { fetch: false }),
      options.allowExampleLandscape,
    );
    if (isDeepStrictEqual(onMain, current)) return;
    if (onMain.name !== landscape.name)
      throw new ConfigError(
        'landscape.yaml',
        'name',
        `on main is now ${onMain.name}, not ${landscape.name}: a landscape repo keeps its landscape; change it back`,
      );
    current = onMain;
    settings = conversionSettingsOf(current);
    validation = await policySource(current, { readPolicySet, readKebZones }, gardenClient);
    log(`landscape.yaml on main changed: this pass renders with it`);
  };

  const pass = async (): Promise<{ code: number; result: GenerateResult }> => {
    if (options.landscape === undefined) await followMain();
    const { inputs, errors } = await runtimes.read();
    for (const error of errors) io.stderr(`${printableLines(String(error))}\n`);
    const gardenShoots = garden && new Map((await garden.items()).map((shoot) => [shoot.metadata.name, shoot]));
    if (settings.flags.dedicatedAuditLogging === true && !auditLogPool && !saidNoPool) {
      saidNoPool = true;
      warn(
        "features.dedicatedAuditLogging is on, but with --runtimes there is no KCP to reserve KALM's AuditLogs on: Runtimes render with the landscape's tenants (a live dedicated one is kept); pass --kcp-kubeconfig instead",
      );
    }
    const result = await generatePass({
      landscape: landscape.name,
      settings,
      runtimes: inputs,
      runtimesComplete: errors.length === 0,
      ...target,
      ...(gardenShoots && { gardenShoots }),
      validation,
      memo,
      log,
      forcePatchStaysOn: runtimes.removeAnnotations === undefined,
      ...(allowMassDeletion !== undefined && { allowMassDeletion }),
      ...(auditLogPool && { auditLogPool }),
      // Who leads a Runtime without the leader label: the landscape of this pass says (ADR 0011).
      ...((current ?? landscape).defaultLeader && { defaultLeader: (current ?? landscape).defaultLeader }),
    });
    await reportRuntimeFacts(
      runtimeFactWrites(
        inputs.map((input) => input.runtime),
        result,
      ),
      runtimes,
      warn,
    );
    for (const failure of result.failures) io.stderr(`${printableLines(failure.message)}\n`);
    for (const bug of result.bugs)
      reportFailure(new Error(`rendering runtime ${bug.runtime} (${bug.source}) failed`, { cause: bug.error }), io);
    if (result.deletionRefused) io.stderr(`${result.deletionRefused}\n`);
    for (const refused of result.refused)
      log(`${refused.branch}: the forge refused it: ${refused.message}`, { branch: refused.branch }, 'warn');
    // A pass that changed nothing says so at debug: a service logs what happened, not that nothing did.
    log(summary(result), {}, changedNothing(result) && errors.length === 0 ? 'debug' : 'info');
    const code =
      result.bugs.length > 0
        ? EXIT.internal
        : errors.length + result.failures.length + result.refused.length + (result.auditLogHeld?.length ?? 0) > 0 ||
            result.deletionRefused
          ? EXIT.conversionFailed
          : EXIT.ok;
    return { code, result };
  };

  try {
    if (!watch) return (await pass()).code;
    const registry = new Registry();
    const metrics = generatorMetrics(registry, landscape.name);
    const health = new LoopHealth(intervalMs);
    const leaderElection =
      kcp && leaderElectionOf(options, { loop: 'generate', landscape: landscape.name, kcp: () => kcp, registry }, log);
    const metricsServer = await metricsServerOf(
      { metricsPort: options.metricsPort, metricsHost: options.metricsHost ?? DEFAULT_HOST },
      io,
      registry,
      health,
    );
    try {
      await runUntilStopped({
        pass: async () => {
          const started = performance.now();
          const seconds = () => (performance.now() - started) / 1000;
          try {
            metrics.passed((await pass()).result, seconds(), Date.now());
          } catch (error) {
            metrics.failed(seconds());
            throw error;
          }
        },
        intervalMs,
        io,
        started: (loop) => runtimes.onChange(() => loop.trigger()),
        // Stopping the sources at once ends a pass still waiting for a first list (an API that never answered).
        stopping: () => void Promise.all([runtimes.stop(), garden?.stop()]),
        ...(leaderElection && { leaderElection }),
        health,
      });
    } finally {
      await metricsServer?.close();
    }
    return EXIT.ok;
  } finally {
    await Promise.all([runtimes.stop(), garden?.stop()]);
  }
}

/** The KCP as kubectl finds a cluster (--kcp-kubeconfig, KUBECONFIG, the pod); with neither it nor --runtimes, say both. */
function kcpOf(options: GenerateOptions): KubeClient {
  try {
    return KubeClient.forCluster({
      kubeconfig: options.kcpKubeconfig,
      context: options.context,
      option: '--kcp-kubeconfig',
    });
  } catch (error) {
    if (!(error instanceof ConfigError) || options.kcpKubeconfig !== undefined || options.runtimes !== undefined)
      throw error;
    throw new ConfigError('--runtimes', '', `no Runtime source: pass --runtimes <dir>, or the KCP: ${error.detail}`);
  }
}

/** Nothing proposed, merged, closed or refused, no failure: every PR still waits as it did. */
function changedNothing(result: GenerateResult): boolean {
  return (
    result.proposed.every((p) => p.unchanged) &&
    result.closed.length + result.failures.length + result.bugs.length + result.refused.length === 0 &&
    !result.deletionRefused
  );
}

/** The Garden's Shoots of the landscape's project; never triggers a pass (their status changes constantly). */
function gardenSource(
  client: KubeClient,
  settings: ConversionSettings,
  watch: boolean,
  log: (line: string) => void,
): ObjectSource<KubeObject & Shoot> {
  const project = settings.config.gardener?.projectName;
  if (!project)
    throw new ConfigError('--landscape', 'gardener.project', 'is needed to read live Shoots from the Garden');
  return objectSource<KubeObject & Shoot>(
    client,
    { apiVersion: SHOOT_API_VERSION, kind: 'Shoot' },
    { namespace: gardenNamespaceOf(project), watch, log },
  );
}

function summary(result: GenerateResult): string {
  const count = (action: string) => result.proposed.filter((p) => p.action === action).length;
  return [
    `${result.proposed.length} proposed (${count('auto-merge')} merged, ${count('await-review') + count('left-to-human')} awaiting review, ${count('await-checks') > 0 ? `${count('await-checks')} awaiting checks, ` : ''}${count('blocked') + count('merge-refused')} blocked)`,
    `${result.unchanged} unchanged`,
    `${result.closed.length} closed`,
    ...(result.leftOpen.length > 0 ? [`${result.leftOpen.length} left open`] : []),
    ...(result.rollout
      ? [
          `rollout ${result.rollout.name}: #${result.rollout.pr} with ${result.rollout.shoots} shoots, ${result.rollout.later} in later waves`,
        ]
      : []),
    ...(result.deprovisioning?.later ? [`${result.deprovisioning.later} deprovisionings in later passes`] : []),
    ...(result.suspended.length > 0 ? [`${result.suspended.length} suspended`] : []),
    ...(result.auditLogHeld?.length ? [`${result.auditLogHeld.length} held without a dedicated audit log`] : []),
    ...(result.refused.length > 0 ? [`${result.refused.length} refused by the forge`] : []),
    `${result.failures.length + result.bugs.length} failed`,
  ].join(', ');
}
