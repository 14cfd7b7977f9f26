// `kimops import`: Runtime CRs in KEB's shape for the live Shoots that have none. The command's options and help;
// it runs cli/import.ts.
import { Option, type Command } from 'commander';
import { ANNOTATION_RUNTIME_GENERATION, DEFAULT_KCP_NAMESPACE } from '../../model/contract.js';
import { EXIT, type CliIo } from '../cli-io.js';
import type { ImportOptions } from '../import.js';
import { allowExampleLandscapeOption, collect, landscapeOption } from '../options.js';
import { contextOption, gardenContextOption } from '../service-options.js';

const IMPORT_HELP = `
For every Shoot in garden-<project> that no Runtime names (the KCP's Runtimes, or --runtimes as the known set)
and that is not being deleted, writes the Runtime KEB would have written: <runtime-id>.yaml in --kcp-namespace,
its labels from the Shoot and the KCP's GardenerCluster, its spec from the Shoot, its structured-authentication
ConfigMap and the landscape. A Shoot that names no Runtime ID is no Kyma runtime: a note, no file.
What nothing there tells is left out and listed per Runtime (in the file's header and on stderr), never guessed:
the platform region and KEB's labels when there is no GardenerCluster, the administrators and the additional OIDC
providers unless --skr reads them from the Shoot's cluster (KIM's cluster-admin ClusterRoleBindings and
OpenIDConnects kyma-oidc-<i>). A required field left out (platform region, administrators) makes kubectl apply
refuse the file until it is filled in.

No known Runtime while the Garden has Shoots (an empty --runtimes, a misspelt --kcp-namespace) stops the run
(exit 2): every Shoot would be imported, and applying a file named after a Runtime KEB has would overwrite it.
Pass --landscape-has-no-runtimes when the landscape truly has none.

Each Runtime is checked before its file is written: rendered in update mode against the Shoot it came from, the
applier's take-over of that render must write nothing to the Shoot or its ConfigMap but kimops's ownership labels
and the annotation ${ANNOTATION_RUNTIME_GENERATION} (the new Runtime's generation).
A Shoot that fails gets no file, and a line naming it and the fields that would change (exit 1).
A file that exists is kept as it is (it may hold what someone filled in) unless --force.

Writes nothing to the KCP or the Garden: review the files, fill in what is listed, then kubectl apply -f them.
With --skr it POSTs shoots/adminkubeconfig for each Shoot (needs create on shoots/adminkubeconfig; Gardener
stores nothing for it) and reads each cluster.

Exit codes: 0 every Shoot imported (or none lacked a Runtime); 1 some Shoot could not be imported (the others
were); 2 usage or configuration error; 69 the Garden or the KCP did not answer; 70 a bug in kimops.

Examples:
  kimops import --landscape ./prod/landscape.yaml --garden-kubeconfig garden.yaml --kcp-kubeconfig kcp.yaml \\
    --skr --out imported/
  kimops import --landscape ./prod/landscape.yaml --garden-kubeconfig garden.yaml --runtimes runtimes/ \\
    -o yaml --shoot c-1a2b3c4
  kubectl apply -f imported/        # after review, with the listed fields filled in`;

export function registerImport(program: Command, io: CliIo, setExitCode: (code: number) => void): void {
  const command = program
    .command('import')
    .description("write Runtime CRs in KEB's shape for live Shoots that have none, each checked to change nothing")
    .addOption(landscapeOption().makeOptionMandatory())
    .addOption(new Option('--garden-kubeconfig <file>', 'the Garden to read the Shoots from').makeOptionMandatory())
    .addOption(gardenContextOption())
    .option('--kcp-kubeconfig <file>', 'the KCP to read the Runtimes and GardenerClusters from (read only)')
    .addOption(contextOption())
    .option('--kcp-namespace <name>', 'the namespace of the Runtimes and GardenerClusters', DEFAULT_KCP_NAMESPACE)
    .option('--runtimes <dir>', "the known Runtimes: a file or a folder (instead of the KCP's)")
    .option(
      '--landscape-has-no-runtimes',
      'accept that no Runtime is known (a landscape KEB has made none in); without it that stops the run',
    )
    .addOption(new Option('--shoot <name>', 'only this Shoot (repeatable)').argParser(collect))
    .option(
      '--skr',
      "read the administrators and OIDC providers from each Shoot's cluster (POSTs shoots/adminkubeconfig, then reads)",
    )
    .addOption(new Option('--out <dir>', 'write <runtime-id>.yaml files here').conflicts('output'))
    .option('--force', 'with --out: replace a file that exists (by default it is kept: it may hold filled-in fields)')
    .addOption(new Option('-o, --output <format>', 'print the Runtimes as a YAML stream instead').choices(['yaml']))
    .addOption(allowExampleLandscapeOption())
    .addHelpText('after', IMPORT_HELP)
    .action(async (options: ImportOptions) => {
      if (!options.out && !options.output)
        command.error('error: pass --out <dir> or -o yaml', { exitCode: EXIT.usage });
      if (options.force && !options.out)
        command.error('error: --force only applies with --out', { exitCode: EXIT.usage });
      if (!options.kcpKubeconfig && !options.runtimes)
        command.error(
          'error: pass --kcp-kubeconfig or --runtimes: the Runtimes that exist say which Shoots have none',
          { exitCode: EXIT.usage },
        );
      const { importRuntimes } = await import('../import.js');
      setExitCode(await importRuntimes(options, io));
    });
}
