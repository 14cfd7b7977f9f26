// `kimops bootstrap`: a landscape KIM runs, put into its landscape repo as one reviewed PR (issue 20). The command's
// options and help; it runs cli/bootstrap.ts.
import { Option, type Command } from 'commander';
import { GITHUB_API } from '../../adapters/forge/github-api.js';
import { DEFAULT_KCP_NAMESPACE } from '../../model/contract.js';
import type { BootstrapOptions } from '../bootstrap.js';
import type { CliIo } from '../cli-io.js';
import { GIT_TOKEN_SOURCES, GITHUB_TOKEN_SOURCES, sourcesText } from '../environment.js';
import {
  allowExampleLandscapeOption,
  landscapeOption,
  repoOption,
  forgeOption,
  cacheDirOption,
  githubRepoOption,
} from '../options.js';
import { contextOption, gardenContextOption } from '../service-options.js';

const HELP = `
Puts every live Shoot of a landscape into its landscape repo in one commit on the branch
kimops/<landscape>-bootstrap and one pull request: each Runtime's Shoot rendered in update mode against
its live Shoot, as kimops generate renders with --garden-kubeconfig, marked
kimops.kyma-project.io/leader: kim where KIM leads its Runtime (landscape.yaml defaultLeader: kim, or the
Runtime's label), and checked as kimops validate checks a folder. The PR always waits for 1 approval; kimops
never merges it. Its body says where the renders differ from the Garden, clustered by field, and what was
not written; the full report (every Shoot, its leader, each differing field with both values) is committed
at .kimops/reports/<landscape>-bootstrap.md, and --report writes it as JSON.

Live Shoots without a Runtime are listed, never written or deleted. Runtimes without a live Shoot are no
part of a bootstrap: kimops generate creates them. Suspended Runtimes and those KEB is deleting are left
out. Nothing is written to the KCP or the Garden.

main must hold no Shoot folder yet (a bootstrap starts a landscape's shoots/; after it, kimops generate
proposes each change); run it before the first generate. Running it again while its PR is open updates
that PR in place, and writes nothing when nothing changed.

Exit codes: 0 done; 1 some Runtimes could not be read or failed to render (the others are in the PR),
or a Runtime's leader label cannot be read; 2 usage or configuration (main already holds Shoots); 69 a
remote (git server, GitHub, Kubernetes API) failed, run again; 70 a bug in kimops.
Credentials as for kimops generate: for git ${sourcesText(GIT_TOKEN_SOURCES)}; for the GitHub API
${sourcesText(GITHUB_TOKEN_SOURCES)}.

Examples:
  kimops bootstrap --landscape ./prod/landscape.yaml --runtimes runtimes/ --garden-kubeconfig garden.yaml \\
    --repo ./landscape-prod.git --report bootstrap.json
  GITHUB_TOKEN=… kimops bootstrap --kcp-kubeconfig kcp.yaml --garden-kubeconfig garden.yaml \\
    --repo https://github.com/acme/landscape-prod.git`;

export function registerBootstrap(program: Command, io: CliIo, setExitCode: (code: number) => void): void {
  program
    .command('bootstrap')
    .description("put a landscape's live Shoots into its landscape repo as one reviewed pull request")
    .addOption(landscapeOption())
    .addOption(allowExampleLandscapeOption())
    .addOption(
      new Option('--runtimes <dir>', 'Runtime manifests: a file or a folder (read recursively)').conflicts(
        'kcpKubeconfig',
      ),
    )
    .option(
      '--kcp-kubeconfig <file>',
      "the KCP cluster to read the Runtimes from, read only (default: KUBECONFIG, else the pod's ServiceAccount)",
    )
    .addOption(contextOption())
    .option('--kcp-namespace <name>', 'the namespace of the Runtimes', DEFAULT_KCP_NAMESPACE)
    .addOption(
      new Option(
        '--garden-kubeconfig <file>',
        'the Garden to read the live Shoots from (read only)',
      ).makeOptionMandatory(),
    )
    .addOption(gardenContextOption())
    .addOption(repoOption())
    .addOption(forgeOption())
    .addOption(cacheDirOption())
    .option('--github-api-url <url>', `the GitHub API (GitHub Enterprise: https://<host>/api/v3)`, GITHUB_API)
    .addOption(githubRepoOption())
    .option('--report <file>', 'also write the report as JSON (every Shoot and field, both values)')
    .addHelpText('after', HELP)
    .action(async (options: BootstrapOptions) => {
      const { bootstrap } = await import('../bootstrap.js');
      setExitCode(await bootstrap(options, io));
    });
}
