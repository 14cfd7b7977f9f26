// `kimops compare`: where main's Shoots differ from the live ones, landscape-wide (issue 20). The command's options
// and help; it runs cli/compare.ts.
import { Option, type Command } from 'commander';
import { DEFAULT_HOST } from '../../adapters/loopback.js';
import { EXIT, type CliIo } from '../cli-io.js';
import { gardenContextOption, logOptions, requireWatchFor } from '../service-options.js';
import { collect, DEFAULT_INTERVAL_SECONDS, landscapeOption, repoOption, cacheDirOption } from '../options.js';
import type { CompareOptions } from '../compare.js';

const HELP = `
Compares the landscape repo's main (its newest commit) with every Shoot in garden-<project> and reports, per Shoot,
the fields where main differs from the live Shoot (path, main's value, the live value), the Shoots only main has,
the Shoots only the Garden has (listed, never touched) and who leads each Shoot (main's
kimops.kyma-project.io/leader annotation: kim, else kimops), then the differing fields clustered across Shoots.
For a Shoot kimops leads the differences are what the next apply changes; for one KIM leads (the applier only
shadows it) they are what a cut-over to kimops would change.
It writes nothing: the Garden is only listed (and watched, with --watch), the repo only read (a remote one fetched
into --cache-dir). Its Garden identity needs only get, list and watch on Shoots in garden-<project>.

Only the fields main sets count (a default Gardener added is no difference), main held against the live Shoot by
the applier's rules first: where the applier keeps the live value whatever main says (a Kubernetes or image version
Gardener raised, a zone it cannot remove, a create-only field, the worker order) the field is listed as kept, not
as a difference. List items read by their key: spec.provider.workers[cpu-worker-0].machine.type.

--output json prints a ComparisonReport (apiVersion kimops.kyma-project.io/v1alpha1; its fields:
docs/observability.md). The report goes to stdout as it is, whatever --log-format says; log lines go to stderr.
--shoot compares only the Shoot named (repeatable: --shoot a --shoot b).

--watch compares every --interval seconds (and at once when a local repo's main moves) until SIGINT or SIGTERM,
logging one summary line per comparison; with --metrics-port it serves kimops_compare_* metrics (Shoots differing,
Shoots per field, the time of the last comparison) and /healthz and /readyz. Without --landscape each comparison
uses the landscape.yaml of the main commit it compares, so a change merged to it is followed without a restart.

Exit codes (without --watch): 0 main and the Garden agree; 1 they differ (a field, a Shoot only one side has, a
file that cannot be read, a --shoot neither has), as diff and flux diff; 2 usage or configuration error; 69 the
Garden or the git server could not be reached, run again.

Examples:
  kimops compare --repo ./landscape-dev.git --garden-kubeconfig garden.yaml
  kimops compare --landscape ./prod/landscape.yaml --repo https://github.com/acme/landscape-prod.git \\
    --garden-kubeconfig garden.yaml --output json > comparison.json
  kimops compare --repo ./landscape-dev.git --garden-kubeconfig garden.yaml --watch --metrics-port 9090`;

export function registerCompare(program: Command, io: CliIo, setExitCode: (code: number) => void): void {
  const declared = program
    .command('compare')
    .description("report where the landscape repo's main differs from the live Shoots (writes nothing)")
    .addOption(landscapeOption())
    .addOption(repoOption())
    .addOption(cacheDirOption())
    .addOption(new Option('--garden-kubeconfig <file>', 'the Garden to read the Shoots from').makeOptionMandatory())
    .addOption(gardenContextOption())
    .addOption(
      new Option('--output <format>', 'the report as text or as JSON').choices(['text', 'json']).default('text'),
    )
    .addOption(new Option('--shoot <name>', 'compare only this Shoot (repeatable)').argParser(collect))
    .option('--watch', 'compare every --interval until stopped')
    .option('--interval <seconds>', 'with --watch: how often to compare', String(DEFAULT_INTERVAL_SECONDS))
    .option('--metrics-port <port>', 'with --watch: serve Prometheus metrics at /metrics, and /healthz and /readyz')
    .option('--metrics-host <address>', 'with --metrics-port: the address to listen on', DEFAULT_HOST);
  // The log flags of the loops; no Lease: a comparison writes nothing, so replicas need no leader.
  for (const option of logOptions()) declared.addOption(option);
  declared.addHelpText('after', HELP).action(async (options: CompareOptions, command: Command) => {
    if (!options.watch) {
      requireWatchFor(options, command, ['--interval', '--metrics-host']);
      const { compareOnce } = await import('../compare.js');
      setExitCode(await compareOnce(options, io));
      return;
    }
    if (options.output === 'json')
      command.error(
        'error: --output json prints one report: leave out --watch, or read the metrics --watch --metrics-port serves',
        { exitCode: EXIT.usage },
      );
    const { compareWatching } = await import('../compare.js');
    setExitCode(await compareWatching(options, io));
  });
}
