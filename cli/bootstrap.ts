// `kimops bootstrap`, run: the landscape, its repo and forge, the Runtimes (a folder, or read once from the KCP) and
// the Garden's live Shoots (one LIST, read only), wired to generator/bootstrap.ts; the report printed, and written
// as JSON with --report. Nothing is written to the KCP or the Garden. Its options: commands/bootstrap.ts.
import { readKebZones } from '../adapters/files/keb-zones.js';
import { readPolicySet } from '../adapters/files/policies.js';
import { folderRuntimeSource } from '../adapters/files/runtime-folder.js';
import { writeFileWhole } from '../adapters/files/write-files.js';
import { kcpRuntimeSource } from '../adapters/kube/kcp-runtimes.js';
import { KubeClient } from '../adapters/kube/kube-client.js';
import { objectSource } from '../adapters/kube/object-source.js';
import { bootstrap as bootstrapRun, type BootstrapResult } from '../generator/bootstrap.js';
import { reportJson } from '../generator/bootstrap-report.js';
import type { RuntimeSource } from '../generator/runtime-source.js';
import { policySource } from '../generator/validate/policy-source.js';
import { gardenNamespaceOf } from '../model/contract.js';
import { ConfigError } from '../model/errors.js';
import type { KubeObject } from '../model/kube-object.js';
import { conversionSettingsOf } from '../model/landscape.js';
import { printableLines } from '../model/printable.js';
import { SHOOT_API_VERSION, type Shoot } from '../model/shoot.js';
import { EXIT, reportFailure, type CliIo } from './cli-io.js';
import { landscapeOnMain, openLandscapeTarget, refuseExampleLandscape, type ForgeKind } from './landscape-target.js';
import { loggingIo, logLine, reportingFailures } from './logging.js';
import { gardenCluster, type LogOptions } from './service-options.js';

const SHOOT = { apiVersion: SHOOT_API_VERSION, kind: 'Shoot' } as const;

export interface BootstrapOptions extends LogOptions {
  landscape?: string;
  allowExampleLandscape?: boolean;
  runtimes?: string;
  kcpKubeconfig?: string;
  context?: string;
  kcpNamespace: string;
  gardenKubeconfig: string;
  gardenContext?: string;
  repo: string;
  forge?: ForgeKind;
  cacheDir?: string;
  githubApiUrl?: string;
  githubRepo?: string;
  report?: string;
}

export async function bootstrap(options: BootstrapOptions, commandIo: CliIo): Promise<number> {
  return reportingFailures(commandIo, async () => {
    const target = await openLandscapeTarget(options, logLine(commandIo));
    const landscape = refuseExampleLandscape(
      await landscapeOnMain(options.landscape, target, options.repo, (line) => commandIo.stderr(`${line}\n`)),
      options.allowExampleLandscape,
    );
    const io = loggingIo(commandIo, options, { component: 'bootstrap', landscape: landscape.name }, false);
    const log = logLine(io);
    const settings = conversionSettingsOf(landscape);
    const project = settings.config.gardener?.projectName;
    if (!project) throw new ConfigError('--landscape', 'gardener.project', 'is needed to read the live Shoots');
    const garden = KubeClient.forCluster(gardenCluster(options));
    const runtimes = runtimeSource(options, io);
    try {
      const { inputs, errors } = await runtimes.read();
      for (const error of errors) io.stderr(`${printableLines(error)}\n`);
      const live = await objectSource<KubeObject & Shoot>(garden, SHOOT, {
        namespace: gardenNamespaceOf(project),
        watch: false,
        log: () => undefined,
      }).items();
      const result = await bootstrapRun({
        landscape,
        settings,
        runtimes: inputs,
        runtimesComplete: errors.length === 0,
        gardenShoots: new Map(live.map((shoot) => [shoot.metadata.name, shoot])),
        ...target,
        validation: await policySource(landscape, { readPolicySet, readKebZones }, garden),
        log,
      });
      if (options.report !== undefined)
        await writeFileWhole(options.report, reportJson(result.report), true, '--report');
      return outcome(result, errors.length, io, log);
    } finally {
      await runtimes.stop();
    }
  });
}

/** The Runtimes, read once: from --runtimes, else the KCP as kubectl finds it. Never written to. */
function runtimeSource(options: BootstrapOptions, io: CliIo): RuntimeSource {
  if (options.runtimes !== undefined) return folderRuntimeSource(options.runtimes, () => io.readStdin());
  const kcp = KubeClient.forCluster({
    kubeconfig: options.kcpKubeconfig,
    context: options.context,
    option: '--kcp-kubeconfig',
  });
  return kcpRuntimeSource(kcp, {
    namespace: options.kcpNamespace,
    watch: false,
    log: (line) => io.stderr(`${line}\n`),
  });
}

/** The summary line, each failure, and the exit code: 1 when a Runtime could not be read or rendered. */
function outcome(result: BootstrapResult, unreadable: number, io: CliIo, log: (line: string) => void): number {
  for (const failure of result.failures) io.stderr(`${printableLines(failure.message)}\n`);
  for (const bug of result.bugs)
    reportFailure(new Error(`rendering runtime ${bug.runtime} (${bug.source}) failed`, { cause: bug.error }), io);
  const { report, pr } = result;
  const differing = report.written.filter((w) => w.differences.length > 0).length;
  log(
    [
      `${report.written.length} shoots written${pr ? ` (#${pr.number} ${pr.outcome}: ${pr.url})` : ''}`,
      `${differing} differ from the Garden in ${report.clusters.length} ${report.clusters.length === 1 ? 'field' : 'fields'}`,
      ...report.clusters.slice(0, 5).map((c) => `${c.path}: ${c.count}`),
      `${report.withoutRuntime.length} live without a Runtime (not written)`,
      `${report.withoutShoot.length} Runtimes without a live Shoot (left to generate)`,
      `${report.leftOut.length} left out`,
      `${result.failures.length + result.bugs.length} failed`,
    ].join(', '),
  );
  if (result.bugs.length > 0) return EXIT.internal;
  return unreadable + result.failures.length > 0 ? EXIT.conversionFailed : EXIT.ok;
}
