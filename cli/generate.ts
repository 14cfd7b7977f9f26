// `kimops generate`: Runtimes (a folder, or a KCP cluster) to pull requests on a landscape repo (a local
// bare repo with the local forge, or a remote one reviewed on GitHub), once or as a long-running
// watcher. Wiring only: the pass is generator/generate.ts, the loop generator/watch.ts.
import { Option, type Command } from 'commander';
import { readLandscape } from '../adapters/files/landscape.js';
import { readRuntimes } from '../adapters/files/manifests.js';
import { describeFailure, fixFor, KubeClient, type KubeObject } from '../adapters/kube/kube-client.js';
import { objectSource, type ObjectSource } from '../adapters/kube/object-source.js';
import { generate, type GenerateResult } from '../generator/generate.js';
import { RenderMemo } from '../generator/render-memo.js';
import { runtimeFactWrites, type FactsWrite } from '../generator/runtime-facts.js';
import type { RuntimeInput } from '../generator/render/render-runtimes.js';
import { ConfigError } from '../model/errors.js';
import { conversionSettingsOf, type ConversionSettings } from '../model/landscape.js';
import { mapInParallel } from '../model/in-parallel.js';
import { PIPELINE_ANNOTATION } from '../model/pipeline-facts.js';
import { RUNTIME_API_VERSION, runtimeRef, type Runtime } from '../model/runtime.js';
import { SHOOT_API_VERSION, type Shoot } from '../model/shoot.js';
import { EXIT, reportFailure, type CliIo } from './cli-io.js';
import { policySource } from './policy-context.js';
import { intervalMsOf, runUntilStopped } from './until-stopped.js';
import {
  GIT_TOKEN_ENV,
  GITHUB_APP_ENV,
  GITHUB_TOKEN_ENV,
  openLandscapeTarget,
  type ForgeKind,
} from './landscape-target.js';
import { GITHUB_API } from '../adapters/forge/github.js';
import { printableLines } from '../model/printable.js';

/** KEB and KIM keep Runtimes here. */
const DEFAULT_KCP_NAMESPACE = 'kcp-system';
/** A pass at least this often in --watch: merges and approvals on the forge arrive without a Runtime event. */
const DEFAULT_INTERVAL_SECONDS = 60;

interface GenerateOptions {
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

const HELP = `
Renders every Runtime, and for each Shoot whose files differ from main proposes the change as a pull
request: a Runtime's own change on the branch kimops/<landscape>/<shoot>; a change no Runtime asked for
(the landscape config or kimops changed) as the landscape's rollout, kimops.yaml rollout.waveSize
Shoots per PR. PRs are merged as kimops.yaml's mergePolicy says. Running it again with the same
inputs writes nothing.

A Shoot is proposed for deletion only when its Runtime is known to be gone. KEB's deletions (the
Runtime carries a deletionTimestamp) go kimops.yaml deprovisioning.batchSize per pass, merged as
deletes are; the others follow in later passes. A Shoot whose Runtime is simply absent waits for a
human's approval, under kimops.yaml's mass-deletion guard (--allow-mass-deletion), and only when
every Runtime was understood (one that fails to convert holds it back). A pass whose Runtimes are
incomplete (an unreadable, malformed or skipped file; a Runtime without spec.shoot.name) or empty
deletes nothing; the reason is said once.

Runtimes come from --runtimes (a folder of YAML) or --kcp-kubeconfig (the Runtimes in
--kcp-namespace, listed or, with --watch, watched). With --garden-kubeconfig, update-mode renders start
from the live Shoots in garden-<project> (read only), and what only Gardener changed is adopted.

--repo is a local bare repository (the local forge: review with kimops pr) or the https URL of a
remote one (the GitHub forge; main is fetched into --cache-dir, branches are pushed). Credentials come
from the environment: ${GIT_TOKEN_ENV.join(' or ')} for git, ${GITHUB_TOKEN_ENV.join(' or ')} for the GitHub API, or a
GitHub App (${Object.values(GITHUB_APP_ENV).join(', ')}) whose installation token serves both.

--once runs one pass and exits. --watch runs a pass on every Runtime change and at least every
--interval seconds until SIGINT or SIGTERM; a failed pass is logged and retried with backoff.

Exit codes (--once): 0 done; 1 some Runtimes could not be read or failed to convert (they get no
PR), the forge refused a PR (a 404/409/422, named), or deletions were held back; 2 usage or
configuration error (refused forge credentials included); 69 a remote (git server, GitHub,
Kubernetes API) could not be reached or rate limited the pass, run again; 70 a bug in kimops.

Examples:
  kimops init --landscape dev ./landscape-dev.git
  kimops generate --landscape dev --runtimes examples/runtimes/keb --repo ./landscape-dev.git --once
  GITHUB_TOKEN=… kimops generate --landscape prod --kcp-kubeconfig kcp.yaml --garden-kubeconfig garden.yaml \\
    --repo https://github.com/acme/landscape-prod.git --watch`;

export function registerGenerate(program: Command, io: CliIo, setExitCode: (code: number) => void): void {
  program
    .command('generate')
    .description('propose the rendered Shoots as pull requests on the landscape repo')
    .addOption(
      new Option(
        '--landscape <name|dir>',
        'a landscape shipped with kimops (dev), or a folder/file with landscape.yaml',
      ).makeOptionMandatory(),
    )
    .addOption(
      new Option('--runtimes <dir>', 'Runtime manifests: a file or a folder (read recursively)').conflicts(
        'kcpKubeconfig',
      ),
    )
    .option('--kcp-kubeconfig <file>', 'read the Runtimes from this KCP cluster')
    .option('--kcp-namespace <name>', 'the namespace of the Runtimes', DEFAULT_KCP_NAMESPACE)
    .option('--garden-kubeconfig <file>', 'read live Shoots from this Garden (read only) for update-mode renders')
    .addOption(
      new Option(
        '--repo <dir|url>',
        'the landscape repo: a bare repository made by kimops init, or its https URL',
      ).makeOptionMandatory(),
    )
    .addOption(
      new Option('--forge <kind>', 'where pull requests live (default: local for a path, github for a URL)').choices([
        'local',
        'github',
      ]),
    )
    .option('--cache-dir <dir>', 'where a remote repo is fetched to (default: ~/.cache/kimops/repos/<hash>.git)')
    .option('--github-api-url <url>', `the GitHub API (GitHub Enterprise: https://<host>/api/v3)`, GITHUB_API)
    .option('--github-repo <owner/name>', "the repository on GitHub (default: the URL's last two path segments)")
    .addOption(new Option('--once', 'one pass, then exit').conflicts('watch'))
    .option('--watch', 'keep running: a pass on every Runtime change and every --interval')
    .option('--interval <seconds>', 'with --watch: a pass at least this often', String(DEFAULT_INTERVAL_SECONDS))
    .option('--allow-mass-deletion <n>', 'confirm up to n deletions beyond kimops.yaml massDeletion')
    .addHelpText('after', HELP)
    .action(async (options: GenerateOptions, command: Command) => {
      if (!options.once && !options.watch) command.error('error: pass --once or --watch', { exitCode: EXIT.usage });
      if (!options.runtimes && !options.kcpKubeconfig)
        command.error('error: pass --runtimes <dir> or --kcp-kubeconfig <file>', { exitCode: EXIT.usage });
      setExitCode(await run(options, io));
    });
}

async function run(options: GenerateOptions, io: CliIo): Promise<number> {
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
  const intervalMs = intervalMsOf(options.interval);
  const landscape = await readLandscape(options.landscape);
  const settings = conversionSettingsOf(landscape);
  // Log lines quote Runtime and file names from the input: printed with their control characters escaped.
  const log = (line: string) => io.stdout(`${printableLines(line)}\n`);
  const target = await openLandscapeTarget(options, log);
  const watch = options.watch === true;
  const runtimes = runtimeSource(options, watch, io);
  const gardenClient =
    options.gardenKubeconfig === undefined
      ? undefined
      : KubeClient.fromKubeconfigOption(options.gardenKubeconfig, '--garden-kubeconfig');
  const garden = gardenClient && gardenSource(gardenClient, settings, watch, io);
  const validation = await policySource(landscape, gardenClient);
  const memo = new RenderMemo();

  const pass = async (): Promise<number> => {
    const { inputs, errors } = await runtimes.read();
    for (const error of errors) io.stderr(`${printableLines(String(error))}\n`);
    const gardenShoots = garden && new Map((await garden.items()).map((shoot) => [shoot.metadata.name, shoot]));
    const result = await generate({
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
    await runtimes.report(
      runtimeFactWrites(
        inputs.map((input) => input.runtime),
        result,
      ),
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

interface RuntimeSource {
  /** The Runtimes now, and the ones that could not be read (one line each). */
  read(): Promise<{ inputs: RuntimeInput[]; errors: string[] }>;
  /** Writes what the pass learned onto the Runtimes (for the backfiller); Runtimes from files have nowhere to keep it. */
  report(writes: readonly FactsWrite[]): Promise<void>;
  onChange(listener: () => void): void;
  stop(): Promise<void>;
}

/** Runtime annotations written at once: a first pass over a landscape may report on many. */
const REPORT_LANES = 4;

function runtimeSource(options: GenerateOptions, watch: boolean, io: CliIo): RuntimeSource {
  if (options.runtimes !== undefined) {
    const dir = options.runtimes;
    return {
      // A folder has no events: --watch reads it again on every pass.
      read: async () => {
        const { runtimes, errors } = await readRuntimes(dir, () => io.readStdin());
        return { inputs: runtimes, errors: errors.map((e) => e.message) };
      },
      report: async () => undefined,
      onChange: () => undefined,
      stop: async () => undefined,
    };
  }
  const namespace = options.kcpNamespace;
  const kcp = KubeClient.fromKubeconfigOption(options.kcpKubeconfig as string, '--kcp-kubeconfig');
  const source = objectSource<KubeObject & Runtime>(
    kcp,
    { apiVersion: RUNTIME_API_VERSION, kind: 'Runtime' },
    { namespace, watch, log: (line) => io.stderr(`${line}\n`) },
  );
  return {
    read: async () => ({
      inputs: (await source.items()).map((runtime) => ({
        source: `kcp ${namespace}/${runtime.metadata.name}`,
        runtime,
      })),
      errors: [],
    }),
    report: async (writes) => {
      let unreachable: string | undefined;
      await mapInParallel(writes, REPORT_LANES, async ({ runtime, value }) => {
        // A KCP that stopped answering gets no more of them: the next pass writes what is left.
        if (unreachable !== undefined) return;
        // A merge patch of the one annotation: no resourceVersion, so it never conflicts with KEB's or the backfiller's writes.
        const ref = {
          apiVersion: RUNTIME_API_VERSION,
          kind: 'Runtime',
          namespace: runtime.metadata.namespace,
          name: runtime.metadata.name,
        };
        const written = await kcp.patch(ref, { metadata: { annotations: { [PIPELINE_ANNOTATION]: value } } });
        if (!written.ok && written.status === 0) {
          unreachable = describeFailure(written);
          return;
        }
        // A Runtime deleted meanwhile has nothing to report to; any other failure is the next pass's to retry.
        if (!written.ok && written.status !== 404) {
          io.stderr(
            `runtime ${runtimeRef(runtime)}: could not write ${PIPELINE_ANNOTATION} (its status misses this pass's facts): ${describeFailure(written)} — ${written.status === 403 ? 'grant the --kcp-kubeconfig identity patch on runtimes.infrastructuremanager.kyma-project.io' : fixFor(written.status, 'runtimes')}\n`,
          );
        }
      });
      if (unreachable !== undefined)
        io.stderr(
          `the Runtimes' ${PIPELINE_ANNOTATION} annotations were not all written: ${unreachable}; the next pass writes them\n`,
        );
    },
    onChange: (listener) => source.onChange(listener),
    stop: () => source.stop(),
  };
}

/** The Garden's Shoots of the landscape's project; never triggers a pass (their status changes constantly). */
function gardenSource(
  client: KubeClient,
  settings: ConversionSettings,
  watch: boolean,
  io: CliIo,
): ObjectSource<KubeObject & Shoot> {
  const project = settings.config.gardener?.projectName;
  if (!project)
    throw new ConfigError('--landscape', 'gardener.project', 'is needed to read live Shoots from the Garden');
  return objectSource<KubeObject & Shoot>(
    client,
    { apiVersion: SHOOT_API_VERSION, kind: 'Shoot' },
    { namespace: `garden-${project}`, watch, log: (line) => io.stderr(`${line}\n`) },
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
