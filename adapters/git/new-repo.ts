// Where `kimops init` may create a landscape repo: a new or empty folder, a bare repository without
// commits on main, or a remote repository (http/https) without a main branch. Anything else is refused
// before a byte is written or pushed.
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError } from '../../model/errors.js';
import { LandscapeRepo } from './landscape-repo.js';
import { MAIN_BRANCH } from '../../model/contract.js';
import { redacted, remoteBranchHead, type RemoteAuth, type RemoteResult } from './remote.js';

/** Checks `gitdir` (shown as `dir`) and returns its HEAD reference text when it is already a bare repo. */
export async function checkNewRepoTarget(dir: string, gitdir: string): Promise<{ head?: string }> {
  if (!existsSync(gitdir)) return {};
  const entries = await readdir(gitdir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOTDIR') throw new ConfigError('<dir>', '', `${dir} is a file; pass a new or empty folder`);
    throw error;
  });
  if (entries.length === 0) return {};
  if (!existsSync(join(gitdir, 'HEAD'))) {
    throw new ConfigError('<dir>', '', `${dir} is not empty and not a bare git repository; pass a new or empty folder`);
  }
  const repo = await LandscapeRepo.open(gitdir);
  const main = await repo.resolve(`refs/heads/${MAIN_BRANCH}`);
  if (main !== undefined) {
    throw new ConfigError(
      '<dir>',
      '',
      `${dir} already has commits on ${MAIN_BRANCH} (${main.slice(0, 12)}); kimops init only creates new landscape repos`,
    );
  }
  return { head: (await readFile(join(gitdir, 'HEAD'), 'utf8')).trim() };
}

/**
 * Checks that the remote at `url` answers to `auth` and has no main branch yet. `authHint` (where the
 * token comes from, how to set it) is added to a refused-credentials message.
 */
export async function checkNewRemoteTarget(url: string, auth: RemoteAuth | undefined, authHint: string): Promise<void> {
  const head = await remoteBranchHead({ url, branch: MAIN_BRANCH, auth });
  if (!head.ok) throw remoteError(head, authHint);
  if (head.oid !== undefined) {
    throw new ConfigError(
      '<url>',
      '',
      `${redacted(url)} already has a ${MAIN_BRANCH} branch (${head.oid.slice(0, 12)}); kimops init only creates new landscape repos — create an empty repository (no README, license or .gitignore) and pass its URL`,
    );
  }
}

/** A failed lookup or push of a new landscape repo as the error the CLI prints (the message names the URL and the fix). */
export function remoteError(result: Extract<RemoteResult, { ok: false }>, authHint: string): ConfigError {
  return new ConfigError('<url>', '', result.reason === 'auth' ? `${result.message}; ${authHint}` : result.message);
}
