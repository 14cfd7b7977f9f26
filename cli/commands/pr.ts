// `kimops pr list | show | approve | merge`: reviewing the embedded local forge's pull requests from the
// terminal. The commands' options and help; they run cli/pr.ts.
import { Option, type Command } from 'commander';
import type { CliIo } from '../cli-io.js';
import type { MergeOptions, RepoOptions, ReviewerOptions } from '../pr.js';

const HELP = `
Pull requests of the embedded local forge are recorded in the landscape repo itself (branch kimops/pulls),
so reviewing needs no server. Merging is a real git merge into the PR's base (a fast-forward when possible),
guarded by the head recorded when kimops opened or last updated the PR: a branch that moved since is refused.
A merge passes the same gate as kimops's auto-merge: the change class kimops recorded for the PR's head under
kimops.yaml's mergePolicy on main, the approvals on that head, and its kimops/validate status; a blocked class
(an immutable change) never passes. --force --reason "<why>" merges past the gate (not past a moved head)
and records who and why in the PR record and the merge commit.

Exit codes: 0 done; 1 refused (the gate, head moved, conflicts, PR not open); 2 usage error, no such repo or PR.

Examples:
  kimops pr list --repo ./landscape-dev.git
  kimops pr show 3 --repo ./landscape-dev.git
  kimops pr approve 3 --repo ./landscape-dev.git --as alice
  kimops pr merge 3 --repo ./landscape-dev.git`;

export function registerPr(program: Command, io: CliIo, setExitCode: (code: number) => void): void {
  const pr = program
    .command('pr')
    .description('review pull requests of the local forge (recorded in the landscape repo)')
    .addHelpText('after', HELP);
  const repoOption = () =>
    new Option('--repo <dir>', 'the landscape repo (a bare git repository)').makeOptionMandatory();
  const asOption = () =>
    new Option('--as <name>', 'who you are in the record').default(process.env.USER || 'reviewer', '$USER or reviewer');
  const run = () => import('../pr.js');

  pr.command('list')
    .description('open pull requests: number, branch, title, approvals, validation status')
    .addOption(repoOption())
    .action(async (options: RepoOptions) => setExitCode(await (await run()).prList(options, io)));
  pr.command('show')
    .description('one pull request: title, body, statuses, approvals, comments')
    .argument('<number>')
    .addOption(repoOption())
    .action(async (number: string, options: RepoOptions) =>
      setExitCode(await (await run()).prShow(number, options, io)),
    );
  pr.command('approve')
    .description("approve the pull request's current head")
    .argument('<number>')
    .addOption(repoOption())
    .addOption(asOption())
    .action(async (number: string, options: ReviewerOptions) =>
      setExitCode(await (await run()).prApprove(number, options, io)),
    );
  pr.command('merge')
    .description('merge into the base branch if the merge gate allows it and the head is still the one kimops recorded')
    .argument('<number>')
    .addOption(repoOption())
    .addOption(asOption())
    .option('--force', 'merge past the gate (class, approvals, checks); needs --reason')
    .option('--reason <text>', 'why the gate is overridden: recorded in the PR record and the merge commit')
    .action(async (number: string, options: MergeOptions) =>
      setExitCode(await (await run()).prMerge(number, options, io)),
    );
}
