// Writing a file of the landscape repo as git does: the bytes go to a temporary file beside it, which is
// then renamed over the target. A rename within one folder is atomic, so a reader (or a process started
// after a `kill -9`) finds the old file or the new one, never a truncated or empty one.
import { randomBytes } from 'node:crypto';
import { rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * A name no other writer uses: two processes (or two writes in one) never share a temporary file. Under
 * objects/ it carries git's own prefix, `tmp_obj_`: a temporary a `kill -9` left there is what git expects
 * from a crash — `git fsck` passes over it and `git prune` removes it once stale — not a bad object file.
 */
export function temporaryPathFor(path: string): string {
  const unique = `${process.pid}-${randomBytes(4).toString('hex')}`;
  if (basename(dirname(dirname(path))) === 'objects') return join(dirname(path), `tmp_obj_${unique}`);
  return `${path}.tmp-${unique}`;
}

/**
 * Replaces `path` with `data` in one step. Errors (a missing folder, say) are thrown as node throws
 * them, after the temporary file is removed, so callers may create the folder and try again.
 */
export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  options?: Parameters<typeof writeFile>[2],
): Promise<void> {
  const temporary = temporaryPathFor(path);
  try {
    await writeFile(temporary, data, options);
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}
