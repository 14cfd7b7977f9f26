// `kimops status`: the landscape at a glance, in the manner of `flux get` (issue 21). The command's options and
// help; it runs cli/status.ts.
import { Option, type Command } from 'commander';
import { GITHUB_API } from '../../adapters/forge/github-api.js';
import { DEFAULT_HOST } from '../../adapters/loopback.js';
import { DEFAULT_KCP_NAMESPACE } from '../../model/contract.js';
import { STATE_FILTERS, unknownStates } from '../../status/filter.js';
import { EXIT, type CliIo } from '../cli-io.js';
import { cacheDirOption, collect, forgeOption, githubRepoOption, landscapeOption } from '../options.js';
import { contextOption, gardenContextOption, logOptions, requireWatchFor } from '../service-options.js';
import type { StatusServeOptions } from '../status-serve.js';

/** A status read is a few LISTs and a fetch: cheap next to a sync, and the page should move while one watches it. */
const STATUS_INTERVAL_SECONDS = 15;

const HELP = `
Shows where every Runtime of a landscape is on its way from a change to a Ready cluster: one summary line, then a
row per Runtime (and per live Shoot no Runtime names) with its state, the stage of its newest change (change, pr,
merged, applied, ready; or failed, deleting, kim), its pull request (number, class, age, what it waits for), whether
the Shoot was last applied from main's folder (in-sync, out-of-sync, drifted, not-applied, not-in-main), Gardener's
last operation and why it failed. --output wide adds the Runtime ID, the Shoot, main's tree, the drifted fields and
when the kubeconfig expires. docs/status.md says where each column comes from.

It reads what the sources given hold and writes nothing; each is optional:
  --kcp-kubeconfig     the Runtimes in --kcp-namespace and their kubeconfig Secrets' last sync (only that is
                       kept of a Secret; --no-kubeconfigs: not read); without it KUBECONFIG, else the Pod's
                       ServiceAccount, as kubectl; with none of them the rows are the Shoots
  --garden-kubeconfig  the Shoots in garden-<project>
  --repo               main of the landscape repo (a local bare repository, or the https URL fetched into
                       --cache-dir) and the open pull requests on its forge, with the credentials generate takes
                       from the environment (kimops generate --help)
A source that cannot be read is said on the line after the summary (in JSON: sources[]), and the rest is shown.
--landscape defaults to the landscape.yaml on the repo's main; without --repo it is needed.

--state keeps the rows in that Runtime state, stage or sync state, one of
  ${STATE_FILTERS.slice(0, 9).join(', ')},
  ${STATE_FILTERS.slice(9).join(', ')}
--class the rows whose open PR has that class (its kimops: label, e.g. update-disruptive). Both repeatable; the
values of one flag are alternatives. The summary line is always the whole landscape's.

--output json prints the LandscapeStatus document (apiVersion kimops.kyma-project.io/status/v1) to stdout as it is,
whatever --log-format says; log lines go to stderr.

Exit codes: 0 every source given was read; 2 usage or configuration error; 69 a source could not be read (the
status was still printed with what the others gave), run again; 70 a bug in kimops.

Examples:
  kimops status --repo ./landscape-dev.git --kcp-kubeconfig kcp.yaml --garden-kubeconfig garden.yaml
  kimops status --repo ./landscape-dev.git --kcp-kubeconfig kcp.yaml --garden-kubeconfig garden.yaml \\
    --state Failed --state pr --output wide
  kimops status --landscape prod --repo https://github.com/acme/landscape-prod.git --kcp-kubeconfig kcp.yaml \\
    --garden-kubeconfig garden.yaml --output json > status.json`;

export function registerStatus(program: Command, io: CliIo, setExitCode: (code: number) => void): void {
  const declared = program
    .command('status')
    .description("show each Runtime's state, stage, pull request, sync with main and last operation (writes nothing)")
    .addOption(landscapeOption())
    .addOption(
      new Option('--repo <dir|url>', 'the landscape repo: a bare repository made by kimops init, or its https URL'),
    )
    .addOption(forgeOption())
    .addOption(cacheDirOption())
    .option('--github-api-url <url>', `the GitHub API (GitHub Enterprise: https://<host>/api/v3)`, GITHUB_API)
    .addOption(githubRepoOption())
    .option('--kcp-kubeconfig <file>', 'the KCP cluster with the Runtimes and their kubeconfig Secrets')
    .addOption(contextOption())
    .option('--kcp-namespace <name>', 'the namespace of the Runtimes', DEFAULT_KCP_NAMESPACE)
    .option('--garden-kubeconfig <file>', 'the Garden with the Shoots')
    .addOption(gardenContextOption())
    .addOption(
      new Option('-o, --output <format>', 'text, text with more columns, or the JSON document')
        .choices(['text', 'wide', 'json'])
        .default('text'),
    )
    .addOption(
      new Option('--state <state>', 'only rows in this Runtime state, stage or sync state (repeatable)').argParser(
        collect,
      ),
    )
    .addOption(new Option('--class <class>', 'only rows whose open PR has this class (repeatable)').argParser(collect))
    .option('--no-kubeconfigs', 'do not read the kubeconfig Secrets (the KCP identity then needs no right on Secrets)')
    .option(
      '--kubeconfig-expiration <duration>',
      "how long the kubeconfigs are valid after their sync (as kimops backfill's; Gardener caps it, 24h by default)",
      '24h',
    )
    .option('--watch', 'read the status every --interval until stopped; with --port, serve it as the status page')
    .option('--interval <seconds>', 'with --watch: how often to read the status', String(STATUS_INTERVAL_SECONDS))
    .option('--port <port>', 'with --watch: serve the status page, /metrics, /healthz and /readyz on this port')
    .option('--host <address>', 'with --port: the address to listen on', DEFAULT_HOST);
  for (const option of logOptions()) declared.addOption(option);
  declared.addHelpText('after', HELP).action(async (options: StatusServeOptions, command: Command) => {
    if (options.watch) {
      for (const [flag, given] of [
        ['--output', options.output !== 'text'],
        ['--state', options.state !== undefined],
        ['--class', options.class !== undefined],
      ] as const)
        if (given)
          command.error(
            `error: ${flag} shapes the printed status: leave it out with --watch (the page filters itself)`,
            {
              exitCode: EXIT.usage,
            },
          );
    } else requireWatchFor(options, command, ['--interval', '--port', '--host']);
    const unknown = unknownStates(options.state ?? []);
    if (unknown.length > 0)
      command.error(`error: --state ${unknown.join(', ')}: not a state; one of ${STATE_FILTERS.join(', ')}`, {
        exitCode: EXIT.usage,
      });
    const { statusOnce, namesASource } = await import('../status.js');
    if (!namesASource(options))
      command.error(
        'error: nothing to read: pass at least one of --repo, --kcp-kubeconfig, --garden-kubeconfig (or set KUBECONFIG)',
        { exitCode: EXIT.usage },
      );
    if (!options.watch) {
      setExitCode(await statusOnce(options, io));
      return;
    }
    const { statusWatching } = await import('../status-serve.js');
    setExitCode(await statusWatching(options, io));
  });
}
