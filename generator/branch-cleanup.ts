// The branch of a kimops PR deleted once the PR is merged or closed (as GitHub's "automatically delete head
// branches" does), so the landscape repo lists only the branches of open PRs. Only kimops's own branches (the
// landscape's prefixes), and only while the branch points at a head kimops wrote: a push by someone else is
// never thrown away. A failure is logged and never fails the pass: a later pass finds the branch again.
import type { Forge, PullRequest } from '../adapters/forge/forge.js';
import type { LogLine } from '../model/log.js';
import { wroteByKimops } from './propose/written-heads.js';

interface CleanupContext {
  forge: Pick<Forge, 'deleteBranch' | 'listBranches' | 'lastClosedPullRequest'>;
  log: LogLine;
}

/** Deletes the branch of `pr` (merged or closed) if it is kimops's and still at the head kimops wrote. */
export async function deleteProposalBranch(
  { forge, log }: Pick<CleanupContext, 'log'> & { forge: Pick<Forge, 'deleteBranch'> },
  pr: Pick<PullRequest, 'number' | 'branch' | 'headSha' | 'body'>,
  prefixes: readonly string[],
): Promise<boolean> {
  if (!prefixes.some((prefix) => pr.branch.startsWith(prefix)) || !wroteByKimops(pr)) return false;
  const fields = { pr: pr.number, branch: pr.branch };
  const result = await forge.deleteBranch(pr.branch, { ifHeadIs: pr.headSha });
  if (!result.ok) {
    log(
      `#${pr.number} ${pr.branch}: branch not deleted (${result.failure.kind}): ${result.failure.message}; a later pass tries again`,
      fields,
      'warn',
    );
    return false;
  }
  if (result.value.deleted) log(`#${pr.number} ${pr.branch}: branch deleted`, fields, 'debug');
  return result.value.deleted;
}

/**
 * The branches under `prefixes` that no open PR uses and whose newest PR was closed or merged at the head the
 * branch still has: deleted (a deletion right after the merge failed, or kimops died before it). A branch no PR
 * was ever closed from is left alone: kimops may have pushed it and died before opening its PR.
 */
export async function deleteLeftoverBranches(
  context: CleanupContext,
  prefixes: readonly string[],
  openBranches: ReadonlySet<string>,
): Promise<string[]> {
  const { forge, log } = context;
  const deleted: string[] = [];
  for (const prefix of prefixes) {
    const branches = await forge.listBranches(prefix);
    if (!branches.ok) {
      log(`branches under ${prefix} not listed: ${branches.failure.message}; a later pass tries again`, {}, 'warn');
      continue;
    }
    for (const { name, sha } of branches.value) {
      if (openBranches.has(name)) continue;
      const last = await forge.lastClosedPullRequest(name);
      if (!last.ok) {
        log(
          `${name}: its pull requests not read: ${last.failure.message}; a later pass tries again`,
          { branch: name },
          'warn',
        );
        continue;
      }
      if (last.value === undefined || last.value.headSha !== sha) continue;
      if (await deleteProposalBranch(context, last.value, prefixes)) deleted.push(name);
    }
  }
  return deleted;
}
