// A landscape repo's working tree as `kimops validate` sees it in CI: every text file under the folder
// (repo path → text, `/`-separated, sorted), without `.git` and without binary files, which no check
// reads. Symlinks are not followed: a link out of the checkout must not pull files in.
import { lstat, readdir, readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { ConfigError } from '../../model/errors.js';

/** Larger files are no landscape repo content kimops wrote; they are skipped, not read into memory. */
const MAX_FILE_BYTES = 4 * 2 ** 20;

export async function readRepoFiles(root: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  const walk = async (dir: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
      throw new ConfigError(
        dir,
        '',
        `cannot be read (${error.code ?? error.message}); pass the landscape repo's checkout`,
      );
    });
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== '.git') await walk(path);
      } else if (entry.isFile() && (await lstat(path)).size <= MAX_FILE_BYTES) {
        const bytes = await readFile(path);
        if (!bytes.includes(0)) files.set(relative(root, path).split(sep).join('/'), bytes.toString('utf8'));
      }
    }
  };
  await walk(root);
  return files;
}
