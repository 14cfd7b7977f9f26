// The approvals of a PR's head that count, read from Git and the forge for the rules of propose/code-owners.ts:
// the CODEOWNERS file on main, the files the PR changes, and whether an approving reviewer is in a team it names
// (the forge's answer; the local forge's is the name given with `kimops pr approve --as`). Used where approvals
// decide a merge: the generator's pass (propose-branch.ts) and `kimops pr merge` (merge-pull-request.ts).
import type { Approval, Forge, ForgeResult } from '../adapters/forge/forge.js';
import type { LandscapeRepo } from '../adapters/git/landscape-repo.js';
import {
  CODEOWNERS_PATHS,
  ownedFiles,
  parseCodeOwners,
  tallyApprovals,
  teamLookups,
  type ApprovalTally,
  type CodeOwnersRule,
} from './propose/code-owners.js';

/** The rules of the first CODEOWNERS file GitHub would read at `ref`; none when there is none. */
export async function readCodeOwners(repo: Pick<LandscapeRepo, 'readFile'>, ref: string): Promise<CodeOwnersRule[]> {
  for (const path of CODEOWNERS_PATHS) {
    const text = await repo.readFile(ref, path);
    if (text !== undefined) return parseCodeOwners(text);
  }
  return [];
}

export interface ApprovalsInput {
  rules: readonly CodeOwnersRule[];
  /** The files the PR changes, repo-relative. */
  paths: readonly string[];
  /** Every approval the forge reports for the PR; only those given on `head` count. */
  approvals: readonly Approval[];
  head: string;
}

/**
 * The approvals on `head` that count. A team whose members the forge may not show counts nobody, and the tally
 * says why; a forge that cannot be reached (transport, rate limit) fails the whole as any forge call does.
 */
export async function countApprovals(
  forge: Pick<Forge, 'isTeamMember'>,
  { rules, paths, approvals, head }: ApprovalsInput,
): Promise<ForgeResult<ApprovalTally>> {
  const approvers = approvals.filter((approval) => approval.commitSha === head).map((approval) => approval.reviewer);
  const owned = ownedFiles(rules, paths);
  const members = new Set<string>();
  const unreadable: string[] = [];
  for (const { team, reviewer } of teamLookups(owned, approvers)) {
    const [org = '', slug = ''] = team.split('/');
    const answer = await forge.isTeamMember(org, slug, reviewer);
    if (answer.ok) {
      if (answer.value) members.add(`${team} ${reviewer}`);
      continue;
    }
    if (answer.failure.kind === 'transport' || answer.failure.kind === 'rate-limited') return answer;
    unreadable.push(`${reviewer}'s membership of @${team} cannot be read: ${answer.failure.message}`);
  }
  const tally = tallyApprovals(owned, approvers, (team, reviewer) => members.has(`${team} ${reviewer}`));
  return { ok: true, value: unreadable.length > 0 ? { ...tally, unreadable } : tally };
}

/**
 * The files `commit` changes against `parent` (its first parent: for a commit kimops wrote, the main it was written
 * on), every file of `commit` when it has none. Only folders whose trees differ are walked.
 */
export function filesChanged(
  repo: Pick<LandscapeRepo, 'listFolder'>,
  parent: string | undefined,
  commit: string,
): Promise<string[]> {
  return changedBelow(repo, parent, commit, '');
}

async function changedBelow(
  repo: Pick<LandscapeRepo, 'listFolder'>,
  before: string | undefined,
  after: string | undefined,
  folder: string,
): Promise<string[]> {
  const list = (ref: string | undefined) => (ref === undefined ? new Map() : repo.listFolder(ref, folder));
  const [old, now] = await Promise.all([list(before), list(after)]);
  const changed: string[] = [];
  for (const name of new Set([...old.keys(), ...now.keys()])) {
    const [was, is] = [old.get(name), now.get(name)];
    if (was?.oid === is?.oid && was?.type === is?.type) continue;
    const path = folder === '' ? name : `${folder}/${name}`;
    // A file that became a folder (or back) changed both ways.
    if (was?.type === 'blob' || is?.type === 'blob') changed.push(path);
    if (was?.type === 'tree' || is?.type === 'tree')
      changed.push(
        ...(await changedBelow(
          repo,
          was?.type === 'tree' ? before : undefined,
          is?.type === 'tree' ? after : undefined,
          path,
        )),
      );
  }
  return changed;
}
