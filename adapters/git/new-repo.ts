// Where `kimops init` may create a landscape repo: a new or empty folder, or a bare repository
// without commits on main. Anything else is refused before a byte is written.
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError } from '../../model/errors.js';
import { DEFAULT_BRANCH, LandscapeRepo } from './landscape-repo.js';

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
  const main = await repo.resolve(`refs/heads/${DEFAULT_BRANCH}`);
  if (main !== undefined) {
    throw new ConfigError('<dir>', '', `${dir} already has commits on ${DEFAULT_BRANCH} (${main.slice(0, 12)}); kimops init only creates new landscape repos`);
  }
  return { head: (await readFile(join(gitdir, 'HEAD'), 'utf8')).trim() };
}
