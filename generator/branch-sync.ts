// Where a pass reads main and how its branches reach the forge. With a local repo (the local forge)
// publishing moves the branch where the forge looks, by compare-and-swap from the head the pass read.
// With a remote repo, main is fetched before the pass, and each branch is pushed after its commit: an
// update of an open kimops PR without force (it is a merge of the new main and the old head, so a
// human's push in between makes ours `rejected` rather than lost), a fresh proposal with force (a
// stale branch of a closed PR is replaced).
import type { LandscapeRepo } from '../adapters/git/landscape-repo.js';
import type { RemoteAuth } from '../adapters/git/remote.js';
import { MAIN_BRANCH } from '../model/contract.js';
import { ConfigError, RefMoved, TransportError } from '../model/errors.js';

export interface LandscapeRemote {
  url: string;
  auth?: RemoteAuth;
}

/** A push the remote refused: the pass starts over from a fresh fetch. */
export class RejectedPush extends Error {}

export interface BranchSync {
  /** The ref the pass renders against. */
  readonly baseRef: string;
  /** Brings main up to date (a fetch for a remote repo). */
  refresh(): Promise<void>;
  /** Makes sure `sha`, the head of `branch`, is in the local repo (a fetch for a remote repo). */
  have(branch: string, sha: string): Promise<void>;
  /**
   * Puts `branch` at `head`, a commit made for it, where the forge sees it. `previous` is the open PR's
   * head the commit descends from; absent for a fresh proposal, which replaces whatever is there.
   */
  publish(branch: string, head: string, options: { previous: string | undefined }): Promise<void>;
}

export function branchSync(repo: LandscapeRepo, remote: LandscapeRemote | undefined): BranchSync {
  if (!remote) {
    return {
      baseRef: MAIN_BRANCH,
      refresh: async () => undefined,
      have: async () => undefined,
      async publish(branch, head, { previous }) {
        try {
          await repo.updateBranch(branch, head, previous ?? { force: true });
        } catch (error) {
          // Someone moved the PR's branch since the pass read it (a git push into the repo): as a rejected push.
          if (error instanceof RefMoved) throw new RejectedPush(`${branch}: ${error.message}`);
          throw error;
        }
      },
    };
  }
  const { url, auth } = remote;
  const fetched = async (branch: string) => {
    const result = await repo.fetch(url, branch, auth);
    if (!result.ok) throw new TransportError('landscape repo', result.message);
    return result.oid;
  };
  return {
    baseRef: `refs/remotes/origin/${MAIN_BRANCH}`,
    async refresh() {
      if ((await fetched(MAIN_BRANCH)) === undefined)
        throw new ConfigError(
          '--repo',
          '',
          `the remote repo has no ${MAIN_BRANCH} branch; create the landscape repo with kimops init`,
        );
    },
    async have(branch, sha) {
      if ((await repo.resolve(sha)) === undefined) await fetched(branch);
      if ((await repo.resolve(sha)) === undefined)
        throw new RejectedPush(`${branch} moved past ${sha.slice(0, 12)} while kimops read it`);
    },
    async publish(branch, head, { previous }) {
      // The local copy is only a cache of the remote's branch: the push decides.
      await repo.updateBranch(branch, head, { force: true });
      const result = await repo.push(url, branch, { force: previous === undefined, ...(auth && { auth }) });
      if (result.ok) return;
      if (result.reason === 'rejected') throw new RejectedPush(result.message);
      throw new TransportError('landscape repo', result.message);
    },
  };
}
