// `kimops apply --watch` on a local repo: a sync as soon as `main` moves (a merge by the local forge or
// `kimops pr merge`, a `git push` into the bare repo), watched through the file system
// (adapters/git/ref-watch.ts). A remote repo's pushes arrive by webhook (--webhook-port) instead. Polling every
// --interval goes on either way: a move the watch misses is synced then.
import { resolve } from 'node:path';
import { watchRef, type RefWatch } from '../adapters/git/ref-watch.js';
import { MAIN_BRANCH } from '../model/contract.js';
import type { CliIo } from './cli-io.js';
import { isHttpUrl } from './landscape-target.js';
import { logLine } from './logging.js';

/** The watch of a local `--repo`'s main, calling `moved` on each move; none for a remote repo or when it cannot start. */
export async function mainRefWatchOf(repo: string, io: CliIo, moved: () => void): Promise<RefWatch | undefined> {
  if (isHttpUrl(repo)) return undefined;
  const log = logLine(io);
  const ref = `refs/heads/${MAIN_BRANCH}`;
  try {
    const watch = await watchRef({
      gitdir: resolve(repo),
      ref,
      onChange: (oid) => {
        log(`${MAIN_BRANCH} moved to ${oid?.slice(0, 12) ?? '(deleted)'}: syncing now`, {}, 'debug');
        moved();
      },
      onError: (message) => log(message, {}, 'warn'),
    });
    log(`watching ${ref} of ${repo}: a merge starts a sync at once`, {}, 'debug');
    return watch;
  } catch (error) {
    log(
      `cannot watch ${ref} of ${repo} (${error instanceof Error ? error.message : String(error)}): main is polled every --interval`,
      {},
      'warn',
    );
    return undefined;
  }
}
