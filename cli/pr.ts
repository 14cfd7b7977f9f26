// `kimops pr list | show | approve | merge`, run: the records and the merge live in adapters/forge/local.ts, the
// merge under kimops's gate in generator/merge-pull-request.ts; this opens the repo and prints. Its options:
// commands/pr.ts. A repo on disk knows no people: `--as` names the reviewer, and where CODEOWNERS names owners of
// a PR's files, only an approval `--as` one of them (a user by login, a team as `@org/team`) counts.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ForgeFailure, ForgeResult } from '../adapters/forge/forge.js';
import { approvalsOf, localForge, reviewerNameProblem, type LocalForge } from '../adapters/forge/local.js';
import type { PullRecord } from '../adapters/forge/pull-record.js';
import { firstParents } from '../adapters/git/history.js';
import { LandscapeRepo } from '../adapters/git/landscape-repo.js';
import { mergePullRequest } from '../generator/merge-pull-request.js';
import { ConfigError } from '../model/errors.js';
import type { LogLine } from '../model/log.js';
import { printable, printableOutput } from '../model/printable.js';
import { EXIT, type CliIo } from './cli-io.js';

export interface MergeOptions extends ReviewerOptions {
  force?: boolean;
  reason?: string;
}
export interface RepoOptions {
  repo: string;
}
export interface ReviewerOptions extends RepoOptions {
  as: string;
}

/** A forge refused the action (not mergeable, moved head, closed PR): not a usage error. */
const REFUSED = 1;

export async function prList(options: RepoOptions, io: CliIo): Promise<number> {
  const { forge } = await openForge(options.repo, options);
  return list(forge, io);
}

export async function prShow(number: string, options: RepoOptions, io: CliIo): Promise<number> {
  const { forge } = await openForge(options.repo, options);
  return show(forge, parseNumber(number), io);
}

export async function prApprove(number: string, options: ReviewerOptions, io: CliIo): Promise<number> {
  const { forge } = await openForge(options.repo, options);
  return approve(forge, parseNumber(number), options.as, io);
}

export async function prMerge(number: string, options: MergeOptions, io: CliIo): Promise<number> {
  const { forge, repo } = await openForge(options.repo, options);
  return merge(forge, repo, parseNumber(number), options, io);
}

async function openForge(
  dir: string,
  options: RepoOptions | ReviewerOptions,
): Promise<{ forge: LocalForge; repo: LandscapeRepo }> {
  const gitdir = resolve(dir);
  // LandscapeRepo.open would create a missing repo; a typo must not.
  if (!existsSync(`${gitdir}/HEAD`))
    throw new ConfigError(
      '--repo',
      '',
      `${dir} is not a bare git repository; pass the landscape repo kimops init created`,
    );
  const as = 'as' in options ? options.as : undefined;
  const problem = as === undefined ? undefined : reviewerNameProblem(as);
  if (problem !== undefined) throw new ConfigError('--as', '', `${JSON.stringify(as)} ${problem}`);
  const repo = await LandscapeRepo.open(gitdir);
  return { repo, forge: localForge(repo, as === undefined ? {} : { author: { name: as, email: `${as}@localhost` } }) };
}

function parseNumber(text: string): number {
  if (!/^#?[1-9]\d*$/.test(text))
    throw new ConfigError('<number>', '', `${text} is not a pull request number; see kimops pr list`);
  return Number(text.replace('#', ''));
}

/** Unwraps a result, or prints the failure and gives the exit code. */
function check<T>(result: ForgeResult<T>, io: CliIo): { value: T } | { code: number } {
  return result.ok ? { value: result.value } : { code: failed(result.failure, io) };
}

/** Prints a forge's failure and gives the exit code: an unknown PR is a usage error. */
function failed(failure: ForgeFailure, io: CliIo): number {
  io.stderr(`error: ${failure.message}\n`);
  return failure.kind === 'not-found' ? EXIT.usage : REFUSED;
}

async function validation(forge: LocalForge, sha: string): Promise<string> {
  const statuses = await forge.statuses(sha);
  return statuses.ok && statuses.value.length > 0
    ? statuses.value.map((s) => `${s.context}: ${s.state}`).join(', ')
    : 'no status';
}

async function list(forge: LocalForge, io: CliIo): Promise<number> {
  const records = check(await forge.pullRecords(), io);
  if ('code' in records) return records.code;
  const open = records.value.filter((record) => record.state === 'open');
  if (open.length === 0) io.stdout('no open pull requests\n');
  for (const record of open) {
    const head = await currentHead(forge, record);
    const approvals = approvalsOf(record).map((a) =>
      a.commitSha === head ? a.reviewer : `${a.reviewer} (earlier head)`,
    );
    io.stdout(
      `#${record.number}\t${printable(record.branch)}\t${printable(record.title)}\tapprovals: ${approvals.join(', ') || 'none'}\t${await validation(forge, head)}\n`,
    );
  }
  return EXIT.ok;
}

async function show(forge: LocalForge, number: number, io: CliIo): Promise<number> {
  const found = check(await forge.pullRecord(number), io);
  if ('code' in found) return found.code;
  const record = found.value;
  const head = await currentHead(forge, record);
  const lines = [
    `#${record.number} ${record.title} [${record.state}]`,
    `${record.branch} → ${record.base}, head ${head}${head === record.headSha ? '' : ` (recorded ${record.headSha}: the branch moved)`}`,
  ];
  if (record.labels.length > 0) lines.push(`labels: ${record.labels.join(', ')}`);
  if (record.mergeCommit !== undefined) lines.push(`merge commit: ${record.mergeCommit}`);
  if (record.forced !== undefined) lines.push(`merged past the gate by ${record.forced.by}: ${record.forced.reason}`);
  const statuses = await forge.statuses(head);
  lines.push(
    `statuses on ${head.slice(0, 12)}:`,
    ...(statuses.ok && statuses.value.length > 0
      ? statuses.value.map(
          (s) => `  ${s.context}: ${s.state} — ${s.description}${s.targetUrl ? ` (${s.targetUrl})` : ''}`,
        )
      : ['  none']),
  );
  const approvals = approvalsOf(record);
  lines.push(
    'approvals:',
    ...(approvals.length > 0
      ? approvals.map(
          (a) => `  ${a.reviewer} on ${a.commitSha.slice(0, 12)}${a.commitSha === head ? '' : ' (earlier head)'}`,
        )
      : ['  none']),
  );
  // The body is markdown written for reviewers: printed as stored.
  // Records are text anyone with push access may have edited: printed with control characters escaped (lines kept).
  io.stdout(printableOutput(`${lines.join('\n')}\n\n${record.body}${record.body.endsWith('\n') ? '' : '\n'}`));
  for (const comment of record.comments)
    io.stdout(
      printableOutput(
        `\n--- comment ${comment.id} by ${comment.author}\n${comment.body}${comment.body.endsWith('\n') ? '' : '\n'}`,
      ),
    );
  return EXIT.ok;
}

async function approve(forge: LocalForge, number: number, reviewer: string, io: CliIo): Promise<number> {
  const approved = check(await forge.approve(number, reviewer), io);
  if ('code' in approved) return approved.code;
  io.stdout(`approved #${number} as ${reviewer} on ${approved.value.commitSha}\n`);
  return EXIT.ok;
}

async function merge(
  forge: LocalForge,
  repo: LandscapeRepo,
  number: number,
  options: MergeOptions,
  io: CliIo,
): Promise<number> {
  const reason = options.reason?.trim();
  if (options.force && !reason)
    throw new ConfigError(
      '--force',
      '',
      'needs --reason "<why the gate is overridden>": it is recorded in the PR and the merge commit',
    );
  if (!options.force && reason !== undefined) throw new ConfigError('--reason', '', 'only goes with --force');
  const force = options.force && reason ? { by: options.as, reason } : undefined;
  // The merge stands when its branch cannot be deleted: said as a warning, not as a failure.
  const log: LogLine = (line, _fields, level) => {
    if (level === 'warn') io.stderr(`warning: ${printable(line)}\n`);
  };
  const result = await mergePullRequest(forge, mergeRepoOf(repo), { number, log, ...(force && { force }) });
  if (result.outcome === 'failed') return failed(result.failure, io);
  if (result.outcome === 'refused') {
    io.stderr(
      `error: #${number} not merged, ${result.decision.action}: ${result.decision.reason}\n  to merge anyway: kimops pr merge ${number} --repo ${options.repo} --force --reason "<why>"\n`,
    );
    return REFUSED;
  }
  io.stdout(
    `merged #${number} (${result.record.branch}) into ${result.record.base}: ${result.sha}${force ? ` past the gate, by ${force.by}: ${printable(force.reason)}` : ''}\n`,
  );
  if (result.branchDeleted) io.stdout(`deleted branch ${printable(result.record.branch)}\n`);
  return EXIT.ok;
}

/** The repo as the merge reads it, with a head's first parent: the main a head kimops wrote was written on. */
function mergeRepoOf(repo: LandscapeRepo) {
  return {
    gitdir: repo.gitdir,
    withLock: <T>(purpose: string, work: () => Promise<T>) => repo.withLock(purpose, work),
    readFile: (ref: string, path: string) => repo.readFile(ref, path),
    listFolder: (ref: string, folder?: string) => repo.listFolder(ref, folder),
    firstParent: async (commit: string) => (await firstParents(repo.gitdir, commit, { limit: 2 }))[1],
  };
}

async function currentHead(forge: LocalForge, record: PullRecord): Promise<string> {
  if (record.state !== 'open') return record.headSha;
  const head = await forge.branchHead(record.branch);
  return (head.ok ? head.value : undefined) ?? record.headSha;
}
