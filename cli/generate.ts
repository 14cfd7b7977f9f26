// `kimops generate`, run: the landscape, the landscape repo and its forge, the Runtime source (a folder:
// adapters/files/runtime-folder.ts; a KCP: adapters/kube/kcp-runtimes.ts) and the live Shoots, wired to the pass
// (generator/generate.ts) and the loop (until-stopped.ts); what a pass learned goes back onto the Runtimes
// (generator/runtime-source.ts). Its options: commands/generate.ts.
import { readKebZones } from '../adapters/files/keb-zones.js';
import { readLandscape } from '../adapters/files/landscape.js';
import { readPolicySet } from '../adapters/files/policies.js';
import { folderRuntimeSource } from '../adapters/files/runtime-folder.js';
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
import { conversionSettingsOf, type ConversionSettings } from '../model/landscape.js';
import { printableLines } from '../model/printable.js';
import { SHOOT_API_VERSION, type Shoot } from '../model/shoot.js';
import { EXIT, reportFailure, type CliIo } from './cli-io.js';
import { openLandscapeTarget, type ForgeKind } from './landscape-target.js';
import { allowMassDeletionOf, intervalMsOf } from './options.js';
import { runUntilStopped } from './until-stopped.js';

export interface GenerateOptions {
  landscape: string;
  runtimes?: string;
  kcpKubeconfig?: string;
  kcpNamespace: string;
  gardenKubeconfig?: string;
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

export async function generate(options: GenerateOptions, io: CliIo): Promise<number> {
  const allowMassDeletion = allowMassDeletionOf(options.allowMassDeletion);
  const intervalMs = intervalMsOf(options.interval);
  const landscape = await readLandscape(options.landscape);
  const settings = conversionSettingsOf(landscape);
  // Log lines quote Runtime and file names from the input: printed with their control characters escaped.
  const log = (line: string) => io.stdout(`${printableLines(line)}\n`);
  const warn = (line: string) => io.stderr(`${line}\n`);
  const target = await openLandscapeTarget(options, log);
  const watch = options.watch === true;
  const runtimes: RuntimeSource =
    options.runtimes !== undefined
      ? folderRuntimeSource(options.runtimes, () => io.readStdin())
      : kcpRuntimeSource(KubeClient.fromKubeconfigOption(options.kcpKubeconfig as string, '--kcp-kubeconfig'), {
          namespace: options.kcpNamespace,
          watch,
          log: warn,
        });
  const gardenClient =
    options.gardenKubeconfig === undefined
      ? undefined
      : KubeClient.fromKubeconfigOption(options.gardenKubeconfig, '--garden-kubeconfig');
  const garden = gardenClient && gardenSource(gardenClient, settings, watch, warn);
  const validation = await policySource(landscape, { readPolicySet, readKebZones }, gardenClient);
  const memo = new RenderMemo();

  const pass = async (): Promise<number> => {
    const { inputs, errors } = await runtimes.read();
    for (const error of errors) io.stderr(`${printableLines(String(error))}\n`);
    const gardenShoots = garden && new Map((await garden.items()).map((shoot) => [shoot.metadata.name, shoot]));
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
      ...(allowMassDeletion !== undefined && { allowMassDeletion }),
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
    for (const refused of result.refused) io.stderr(`${refused.branch}: the forge refused it: ${refused.message}\n`);
    log(summary(result));
    if (result.bugs.length > 0) return EXIT.internal;
    return errors.length + result.failures.length + result.refused.length > 0 || result.deletionRefused
      ? EXIT.conversionFailed
      : EXIT.ok;
  };

  try {
    if (!watch) return await pass();
    await runUntilStopped({
      pass,
      intervalMs,
      io,
      started: (loop) => runtimes.onChange(() => loop.trigger()),
      // Stopping the sources at once ends a pass still waiting for a first list (an API that never answered).
      stopping: () => void Promise.all([runtimes.stop(), garden?.stop()]),
    });
    return EXIT.ok;
  } finally {
    await Promise.all([runtimes.stop(), garden?.stop()]);
  }
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
    `${result.proposed.length} proposed (${count('auto-merge')} merged, ${count('await-review') + count('left-to-human')} awaiting review, ${count('blocked') + count('merge-refused')} blocked)`,
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
    ...(result.refused.length > 0 ? [`${result.refused.length} refused by the forge`] : []),
    `${result.failures.length + result.bugs.length} failed`,
  ].join(', ');
}
