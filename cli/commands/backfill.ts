// `kimops backfill`: Runtime status, KIM's finalizer and the kubeconfig Secret from the Shoots (issue 7).
// The command's options and help; it runs cli/backfill.ts.
import { Option, type Command } from 'commander';
import { DEFAULT_HOST } from '../../adapters/loopback.js';
import { EXIT, type CliIo } from '../cli-io.js';
import { contextOption, gardenContextOption, requireWatchFor, withServiceOptions } from '../service-options.js';
import { DEFAULT_INTERVAL_SECONDS, allowExampleLandscapeOption, landscapeOption } from '../options.js';
import { DEFAULT_KCP_NAMESPACE } from '../../model/contract.js';
import type { BackfillOptions } from '../backfill.js';

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
  const declared = program
    .command('backfill')
    .description("write the Runtimes' status, finalizer and kubeconfig Secret from their Shoots")
    .addOption(landscapeOption().makeOptionMandatory())
    .addOption(allowExampleLandscapeOption())
    .option(
      '--kcp-kubeconfig <file>',
      "the KCP cluster with the Runtimes (default: KUBECONFIG, else the pod's ServiceAccount)",
    )
    .addOption(contextOption())
    .addOption(new Option('--garden-kubeconfig <file>', 'the Garden with the Shoots').makeOptionMandatory())
    .addOption(gardenContextOption())
    .option('--kcp-namespace <name>', 'the namespace of the Runtimes', DEFAULT_KCP_NAMESPACE)
    .addOption(new Option('--once', 'one pass, then exit').conflicts('watch'))
    .option('--watch', 'keep running: on every Runtime and Shoot change, and a full pass every --interval')
    .option('--interval <seconds>', 'with --watch: a full pass at least this often', String(DEFAULT_INTERVAL_SECONDS))
    .option(
      '--metrics-port <port>',
      "with --watch: serve Prometheus metrics at /metrics (KIM's infrastructure_manager_im_runtime_state among them), and /healthz and /readyz",
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
    );
  withServiceOptions(declared)
    .addHelpText('after', HELP)
    .action(async (options: BackfillOptions, command: Command) => {
      if (!options.once && !options.watch) command.error('error: pass --once or --watch', { exitCode: EXIT.usage });
      requireWatchFor(options, command);
      const { backfill } = await import('../backfill.js');
      setExitCode(await backfill(options, io));
    });
}
