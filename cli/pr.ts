// `kimops pr list | show | approve | merge`, run: the records and the merge live in adapters/forge/local.ts, the
// merge gate in generator/propose/merge-gate.ts; this opens the repo and prints. Its options: commands/pr.ts.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ForgeResult } from '../adapters/forge/forge.js';
import { VALIDATE_CONTEXT } from '../model/contract.js';
import { approvalsOf, localForge, reviewerNameProblem, type LocalForge } from '../adapters/forge/local.js';
import type { PullRecord } from '../adapters/forge/pull-record.js';
import { LandscapeRepo } from '../adapters/git/landscape-repo.js';
import { mergeGate, recordedClass } from '../generator/propose/merge-gate.js';
import { ConfigError } from '../model/errors.js';
import { KIMOPS_YAML, parseKimopsConfig } from '../model/kimops-config.js';
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

/** Unwraps a result, or prints the failure and gives the exit code: an unknown PR is a usage error. */
function check<T>(result: ForgeResult<T>, io: CliIo): { value: T } | { code: number } {
  if (result.ok) return { value: result.value };
  io.stderr(`error: ${result.failure.message}\n`);
  return { code: result.failure.kind === 'not-found' ? EXIT.usage : REFUSED };
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
  // The gate's inputs and the merge are read and done under one hold of the repo's lock: an approval or
  // status that changes in between cannot slip past the decision.
  return repo.withLock(`pr merge #${number}`, async () => {
    const found = check(await forge.pullRecord(number), io);
    if ('code' in found) return found.code;
    const record = found.value;
    if (!options.force) {
      const decision = await gateOf(forge, repo, record);
      if (decision.action !== 'auto-merge') {
        io.stderr(
          `error: #${number} not merged, ${decision.action}: ${decision.reason}\n  to merge anyway: kimops pr merge ${number} --repo ${options.repo} --force --reason "<why>"\n`,
        );
        return REFUSED;
      }
    }
    // The recorded head is what kimops validated and reviewers saw; a later push must be re-validated first.
    const breakGlass = options.force && reason ? { by: options.as, reason } : undefined;
    const merged = check(
      await forge.mergePullRequest(number, { sha: record.headSha, method: 'merge', ...(breakGlass && { breakGlass }) }),
      io,
    );
    if ('code' in merged) return merged.code;
    io.stdout(
      `merged #${number} (${record.branch}) into ${record.base}: ${merged.value.sha}${breakGlass ? ` past the gate, by ${breakGlass.by}: ${printable(breakGlass.reason)}` : ''}\n`,
    );
    return EXIT.ok;
  });
}

/** kimops's own merge decision for the recorded head: the class recorded for it, approvals on it, its validation. */
async function gateOf(forge: LocalForge, repo: LandscapeRepo, record: PullRecord) {
  const configText = await repo.readFile(record.base, KIMOPS_YAML);
  if (configText === undefined)
    throw new ConfigError(
      `${record.base}:${KIMOPS_YAML}`,
      '',
      `not found in ${repo.gitdir}; the merge policy lives there (create the repo with kimops init)`,
    );
  const policy = parseKimopsConfig(configText, `${record.base}:${KIMOPS_YAML}`).mergePolicy;
  const statuses = await forge.statuses(record.headSha);
  const validation = statuses.ok ? statuses.value.find((status) => status.context === VALIDATE_CONTEXT) : undefined;
  const approvals = approvalsOf(record).filter((approval) => approval.commitSha === record.headSha).length;
  return mergeGate({ recorded: recordedClass(record.body, record.headSha), approvals, validation, policy });
}

async function currentHead(forge: LocalForge, record: PullRecord): Promise<string> {
  if (record.state !== 'open') return record.headSha;
  const head = await forge.branchHead(record.branch);
  return (head.ok ? head.value : undefined) ?? record.headSha;
}
