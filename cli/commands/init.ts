// `kimops init`: a new landscape repo from repo-template/, for one landscape, either a local bare repository
// or pushed to an empty remote one. The command's options and help; it runs cli/init.ts.
import type { Command } from 'commander';
import { MAIN_BRANCH } from '../../model/contract.js';
import type { CliIo } from '../cli-io.js';
import { GIT_TOKEN_ENV } from '../environment.js';
import { landscapeOption } from '../options.js';
import type { InitOptions } from '../init.js';

const HELP = `
Makes one commit on ${MAIN_BRANCH}: the landscape-repo template (README.md for reviewers, kimops.yaml,
CODEOWNERS, .github/workflows/validate.yml, shoots/), with the landscape's name and Gardener project
filled in, and the landscape's landscape.yaml as given (generate, apply and validate read it from the
repo when --landscape is not given).

--release-tarball: the kimops-<version>.tgz of a kimops release (download it from the release). The
workflow downloads that version from --release-url (default: kimops's GitHub release of it) and installs
it only when its sha512 is the file's; the installed dependencies are those its npm-shrinkwrap.json pins.
Without it the workflow names no release and fails saying what to fill in (a note says so).
--reviewers: the GitHub teams or users CODEOWNERS names for every file (@org/team, comma-separated).
Without it CODEOWNERS names nobody and says whom to name (a note says so).

<dir>: a bare git repository is created there. It must not exist, be empty, or be a bare repository
without commits on ${MAIN_BRANCH}.
<url>: an http(s) URL of an existing, empty remote repository (e.g. a new GitHub repository created
without README, license or .gitignore). The commit is pushed to its ${MAIN_BRANCH}; a repository that already
has a ${MAIN_BRANCH} branch is refused. The token is read from ${GIT_TOKEN_ENV[0]}, else ${GIT_TOKEN_ENV[1]}, and sent
as HTTP Basic auth (user x-access-token); it is never printed. ssh and scp-like URLs are not supported:
use the https URL of the same repository.

On GitHub (a github.com URL, or GitHub Enterprise with --github-api-url https://<host>/api/v3), kimops.yaml
requires the validate workflow's check \`validate\` beside \`kimops/validate\`, and once ${MAIN_BRANCH} is pushed its
branch rules are set up: the rulesets "kimops: main" (the required checks, no force-push or deletion) and
"kimops: review" (code-owner approval; kimops itself may merge without, as kimops.yaml's mergePolicy says),
or classic branch protection where rulesets are not available. They need a token (or App) with the
administration permission; without it init warns and docs/github.md has the same steps by hand.
--no-branch-rules skips them. The API credentials are those generate uses (GITHUB_TOKEN, a GitHub App).

Exit codes: 0 created; 2 usage error, unknown landscape, <dir> or <url> already holds a landscape repo,
<dir> lies under a file or cannot be written, or the remote refused the token, does not exist or did not
answer.

Examples:
  kimops init --landscape dev ./landscape-dev.git && git clone ./landscape-dev.git
  kimops init --landscape ./my-landscape /srv/git/my-landscape.git
  KIMOPS_GIT_TOKEN=github_pat_… kimops init --landscape prod --release-tarball kimops-0.3.0.tgz \\
    --reviewers @acme/kcp-sre https://github.com/acme/landscape-prod.git`;

export function registerInit(program: Command, io: CliIo, setExitCode: (code: number) => void): void {
  program
    .command('init')
    .description(
      'create a landscape repo (a local bare repository, or pushed to an empty remote one) from the kimops template',
    )
    .addOption(landscapeOption().makeOptionMandatory())
    .option('--release-tarball <file>', "the kimops release's kimops-<version>.tgz the validate workflow installs")
    .option('--release-url <url>', "where the workflow downloads it (default: kimops's GitHub release)")
    .option('--reviewers <owners>', 'CODEOWNERS: GitHub teams or users, e.g. @acme/kcp-sre (comma-separated)')
    .option('--github-api-url <url>', 'GitHub Enterprise: its API (https://<host>/api/v3), to set up branch rules')
    .option('--github-repo <owner/name>', "the repository on GitHub (default: the URL's last two path segments)")
    .option('--no-branch-rules', 'on GitHub: push only, set up no rulesets or branch protection')
    .argument(
      '<dir|url>',
      'where to create the repository: a local path, or the http(s) URL of an empty remote repository',
    )
    .addHelpText('after', HELP)
    .action(async (target: string, options: InitOptions) => {
      const { init } = await import('../init.js');
      setExitCode(await init(target, options, io));
    });
}
