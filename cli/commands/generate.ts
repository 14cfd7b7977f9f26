// `kimops generate`: Runtimes (a folder, or a KCP cluster) to pull requests on a landscape repo (a local
// bare repo with the local forge, or a remote one reviewed on GitHub), once or as a long-running
// watcher. The command's options and help; it runs cli/generate.ts.
import { Option, type Command } from 'commander';
import { GITHUB_API } from '../../adapters/forge/github-api.js';
import { EXIT, type CliIo } from '../cli-io.js';
import { GIT_TOKEN_SOURCES, GITHUB_APP_ENV, GITHUB_TOKEN_SOURCES, sourcesText } from '../environment.js';
import { DEFAULT_HOST } from '../../adapters/loopback.js';
import {
  DEFAULT_INTERVAL_SECONDS,
  allowExampleLandscapeOption,
  landscapeOption,
  repoOption,
  forgeOption,
  cacheDirOption,
  githubRepoOption,
} from '../options.js';
import { contextOption, gardenContextOption, requireWatchFor, withServiceOptions } from '../service-options.js';
import { DEFAULT_KCP_NAMESPACE } from '../../model/contract.js';
import type { GenerateOptions } from '../generate.js';

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

--landscape defaults to the landscape.yaml on the repo's main (kimops init commits it); when both are
there they must name the same landscape, and the --landscape given is used.

--repo is a local bare repository (the local forge: review with kimops pr) or the https URL of a
remote one (the GitHub forge; main is fetched into --cache-dir, branches are pushed). Credentials come
from the environment, first set wins: for git ${sourcesText(GIT_TOKEN_SOURCES)}; for the GitHub API
${sourcesText(GITHUB_TOKEN_SOURCES)}; or a
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
  const declared = program
    .command('generate')
    .description('propose the rendered Shoots as pull requests on the landscape repo')
    .addOption(landscapeOption())
    .addOption(allowExampleLandscapeOption())
    .addOption(
      new Option('--runtimes <dir>', 'Runtime manifests: a file or a folder (read recursively)').conflicts(
        'kcpKubeconfig',
      ),
    )
    .option(
      '--kcp-kubeconfig <file>',
      "the KCP cluster to read the Runtimes from (default: KUBECONFIG, else the pod's ServiceAccount)",
    )
    .addOption(contextOption())
    .option('--kcp-namespace <name>', 'the namespace of the Runtimes', DEFAULT_KCP_NAMESPACE)
    .option('--garden-kubeconfig <file>', 'read live Shoots from this Garden (read only) for update-mode renders')
    .addOption(gardenContextOption())
    .addOption(repoOption())
    .addOption(forgeOption())
    .addOption(cacheDirOption())
    .option('--github-api-url <url>', `the GitHub API (GitHub Enterprise: https://<host>/api/v3)`, GITHUB_API)
    .addOption(githubRepoOption())
    .addOption(new Option('--once', 'one pass, then exit').conflicts('watch'))
    .option('--watch', 'keep running: a pass on every Runtime change and every --interval')
    .option('--interval <seconds>', 'with --watch: a pass at least this often', String(DEFAULT_INTERVAL_SECONDS))
    .option('--allow-mass-deletion <n>', 'confirm up to n deletions beyond kimops.yaml massDeletion')
    .option('--metrics-port <port>', 'with --watch: serve Prometheus metrics at /metrics, and /healthz and /readyz')
    .option('--metrics-host <address>', 'with --metrics-port: the address to listen on', DEFAULT_HOST);
  withServiceOptions(declared)
    .addHelpText('after', HELP)
    .action(async (options: GenerateOptions, command: Command) => {
      if (!options.once && !options.watch) command.error('error: pass --once or --watch', { exitCode: EXIT.usage });
      requireWatchFor(options, command);
      const { generate } = await import('../generate.js');
      setExitCode(await generate(options, io));
    });
}
