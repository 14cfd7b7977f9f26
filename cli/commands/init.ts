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
filled in.

<dir>: a bare git repository is created there. It must not exist, be empty, or be a bare repository
without commits on ${MAIN_BRANCH}.
<url>: an http(s) URL of an existing, empty remote repository (e.g. a new GitHub repository created
without README, license or .gitignore). The commit is pushed to its ${MAIN_BRANCH}; a repository that already
has a ${MAIN_BRANCH} branch is refused. The token is read from ${GIT_TOKEN_ENV[0]}, else ${GIT_TOKEN_ENV[1]}, and sent
as HTTP Basic auth (user x-access-token); it is never printed. ssh and scp-like URLs are not supported:
use the https URL of the same repository.

Exit codes: 0 created; 2 usage error, unknown landscape, <dir> or <url> already holds a landscape repo,
<dir> lies under a file or cannot be written, or the remote refused the token, does not exist or did not
answer.

Examples:
  kimops init --landscape dev ./landscape-dev.git && git clone ./landscape-dev.git
  kimops init --landscape ./my-landscape /srv/git/my-landscape.git
  KIMOPS_GIT_TOKEN=github_pat_… kimops init --landscape dev https://github.com/acme/landscape-dev.git`;

export function registerInit(program: Command, io: CliIo, setExitCode: (code: number) => void): void {
  program
    .command('init')
    .description(
      'create a landscape repo (a local bare repository, or pushed to an empty remote one) from the kimops template',
    )
    .addOption(landscapeOption().makeOptionMandatory())
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
