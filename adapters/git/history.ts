// A branch's own line of history: from a commit along first parents, as `git log --first-parent` walks it. On
// `main` of a landscape repo that is one commit per merged pull request (its merge commit) or direct push, which
// is what the applier reports on (applier/report-back-writer.ts). Read only.
import git from 'isomorphic-git';
import { gitFs as fs } from './git-fs.js';

export interface FirstParentsOptions {
  /** At most this many commits, `from` included. */
  limit: number;
  /** Stop before this commit (it is not returned): e.g. the commit the last sync already covered. */
  until?: string;
}

/**
 * `from` and its first-parent ancestors, newest first; fewer than `limit` when the root, `until` or the end of a
 * shallow history comes first.
 */
export async function firstParents(gitdir: string, from: string, options: FirstParentsOptions): Promise<string[]> {
  const commits: string[] = [];
  const cache = {};
  let oid: string | undefined = from;
  while (oid !== undefined && oid !== options.until && commits.length < options.limit) {
    let parent: string | undefined;
    try {
      parent = (await git.readCommit({ fs, gitdir, oid, cache })).commit.parent[0];
    } catch (error) {
      // A shallow clone ends where its history does: the walk ends there too.
      if (commits.length > 0 && error instanceof git.Errors.NotFoundError) break;
      throw error;
    }
    commits.push(oid);
    oid = parent;
  }
  return commits;
}
