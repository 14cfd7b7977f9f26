// `kimops pr list | show | approve | merge`: reviewing the embedded local forge's pull requests from the
// terminal. Wiring only: the records and the merge live in adapters/forge/local.ts.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { Option, type Command } from 'commander';
import type { ForgeResult } from '../adapters/forge/forge.js';
import { approvalsOf, localForge, type LocalForge, type PullRecord } from '../adapters/forge/local.js';
import { LandscapeRepo } from '../adapters/git/landscape-repo.js';
import { ConfigError } from '../model/errors.js';
import { EXIT, type CliIo } from './cli-io.js';

/** A forge refused the action (not mergeable, moved head, closed PR): not a usage error. */
const REFUSED = 1;

interface RepoOptions {
  repo: string;
}
interface ReviewerOptions extends RepoOptions {
  as: string;
}

const HELP = `
Pull requests of the embedded local forge are recorded in the landscape repo itself (branch kimops/pulls),
so reviewing needs no server. Merging is a real git merge into the PR's base (a fast-forward when possible),
guarded by the head recorded when kimops opened or last updated the PR: a branch that moved since is refused.

Exit codes: 0 done; 1 refused (head moved, conflicts, PR not open); 2 usage error, no such repo or PR.

Examples:
  kimops pr list --repo ./landscape-dev.git
  kimops pr show 3 --repo ./landscape-dev.git
  kimops pr approve 3 --repo ./landscape-dev.git --as alice
  kimops pr merge 3 --repo ./landscape-dev.git`;

export function registerPr(program: Command, io: CliIo, setExitCode: (code: number) => void): void {
  const pr = program.command('pr').description('review pull requests of the local forge (recorded in the landscape repo)').addHelpText('after', HELP);
  const repoOption = () => new Option('--repo <dir>', 'the landscape repo (a bare git repository)').makeOptionMandatory();
  const asOption = () => new Option('--as <name>', 'who you are in the record').default(process.env.USER || 'reviewer', '$USER or reviewer');
  const run = (action: (forge: LocalForge) => Promise<number>) => async (options: RepoOptions) => setExitCode(await action(await openForge(options.repo, options)));

  pr.command('list')
    .description('open pull requests: number, branch, title, approvals, validation status')
    .addOption(repoOption())
    .action(async (options: RepoOptions) => run((forge) => list(forge, io))(options));
  pr.command('show')
    .description('one pull request: title, body, statuses, approvals, comments')
    .argument('<number>')
    .addOption(repoOption())
    .action(async (number: string, options: RepoOptions) => run((forge) => show(forge, parseNumber(number), io))(options));
  pr.command('approve')
    .description("approve the pull request's current head")
    .argument('<number>')
    .addOption(repoOption())
    .addOption(asOption())
    .action(async (number: string, options: ReviewerOptions) => run((forge) => approve(forge, parseNumber(number), options.as, io))(options));
  pr.command('merge')
    .description('merge into the base branch, if the head is still the one kimops recorded')
    .argument('<number>')
    .addOption(repoOption())
    .addOption(asOption())
    .action(async (number: string, options: ReviewerOptions) => run((forge) => merge(forge, parseNumber(number), io))(options));
}

async function openForge(dir: string, options: RepoOptions | ReviewerOptions): Promise<LocalForge> {
  const gitdir = resolve(dir);
  // LandscapeRepo.open would create a missing repo; a typo must not.
  if (!existsSync(`${gitdir}/HEAD`)) throw new ConfigError('--repo', '', `${dir} is not a bare git repository; pass the landscape repo kimops init created`);
  const as = 'as' in options ? options.as : undefined;
  return localForge(await LandscapeRepo.open(gitdir), as === undefined ? {} : { author: { name: as, email: `${as}@localhost` } });
}

function parseNumber(text: string): number {
  if (!/^#?[1-9]\d*$/.test(text)) throw new ConfigError('<number>', '', `${text} is not a pull request number; see kimops pr list`);
  return Number(text.replace('#', ''));
}

/** Unwraps a result, or prints the failure and gives the exit code: an unknown PR is a usage error. */
function check<T>(result: ForgeResult<T>, io: CliIo): { value: T } | { code: number } {
  if (result.ok) return { value: result.value };
  io.stderr(`error: ${result.failure.message}\n`);
  return { code: result.failure.kind === 'not-found' ? EXIT.usage : REFUSED };
}

async function validation(forge: LocalForge, sha: string): Promise<string> {
  const statuses = await forge.statuses(sha);
  return statuses.ok && statuses.value.length > 0 ? statuses.value.map((s) => `${s.context}: ${s.state}`).join(', ') : 'no status';
}

async function list(forge: LocalForge, io: CliIo): Promise<number> {
  const records = check(await forge.pullRecords(), io);
  if ('code' in records) return records.code;
  const open = records.value.filter((record) => record.state === 'open');
  if (open.length === 0) io.stdout('no open pull requests\n');
  for (const record of open) {
    const head = await currentHead(forge, record);
    const approvals = approvalsOf(record).map((a) => (a.commitSha === head ? a.reviewer : `${a.reviewer} (earlier head)`));
    io.stdout(`#${record.number}\t${record.branch}\t${record.title}\tapprovals: ${approvals.join(', ') || 'none'}\t${await validation(forge, head)}\n`);
  }
  return EXIT.ok;
}

async function show(forge: LocalForge, number: number, io: CliIo): Promise<number> {
  const found = check(await forge.pullRecord(number), io);
  if ('code' in found) return found.code;
  const record = found.value;
  const head = await currentHead(forge, record);
  const lines = [`#${record.number} ${record.title} [${record.state}]`, `${record.branch} → ${record.base}, head ${head}${head === record.headSha ? '' : ` (recorded ${record.headSha}: the branch moved)`}`];
  if (record.labels.length > 0) lines.push(`labels: ${record.labels.join(', ')}`);
  if (record.mergeCommit !== undefined) lines.push(`merge commit: ${record.mergeCommit}`);
  const statuses = await forge.statuses(head);
  lines.push(`statuses on ${head.slice(0, 12)}:`, ...(statuses.ok && statuses.value.length > 0 ? statuses.value.map((s) => `  ${s.context}: ${s.state} — ${s.description}${s.targetUrl ? ` (${s.targetUrl})` : ''}`) : ['  none']));
  const approvals = approvalsOf(record);
  lines.push('approvals:', ...(approvals.length > 0 ? approvals.map((a) => `  ${a.reviewer} on ${a.commitSha.slice(0, 12)}${a.commitSha === head ? '' : ' (earlier head)'}`) : ['  none']));
  // The body is markdown written for reviewers: printed as stored.
  io.stdout(`${lines.join('\n')}\n\n${record.body}${record.body.endsWith('\n') ? '' : '\n'}`);
  for (const comment of record.comments) io.stdout(`\n--- comment ${comment.id} by ${comment.author}\n${comment.body}${comment.body.endsWith('\n') ? '' : '\n'}`);
  return EXIT.ok;
}

async function approve(forge: LocalForge, number: number, reviewer: string, io: CliIo): Promise<number> {
  const approved = check(await forge.approve(number, reviewer), io);
  if ('code' in approved) return approved.code;
  io.stdout(`approved #${number} as ${reviewer} on ${approved.value.commitSha}\n`);
  return EXIT.ok;
}

async function merge(forge: LocalForge, number: number, io: CliIo): Promise<number> {
  const found = check(await forge.pullRecord(number), io);
  if ('code' in found) return found.code;
  // The recorded head is what kimops validated and reviewers saw; a later push must be re-validated first.
  const merged = check(await forge.mergePullRequest(number, { sha: found.value.headSha, method: 'merge' }), io);
  if ('code' in merged) return merged.code;
  io.stdout(`merged #${number} (${found.value.branch}) into ${found.value.base}: ${merged.value.sha}\n`);
  return EXIT.ok;
}

async function currentHead(forge: LocalForge, record: PullRecord): Promise<string> {
  if (record.state !== 'open') return record.headSha;
  const head = await forge.branchHead(record.branch);
  return (head.ok ? head.value : undefined) ?? record.headSha;
}
