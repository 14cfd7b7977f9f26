// Reading one text file, with the failures a user causes (wrong path, a folder, no permission, something that
// is no file at all, a file too large) turned into a ConfigError the caller words for its option or config key.
import { constants, type Stats } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';
import type { ConfigError } from '../../model/errors.js';

/** Builds the caller's error from a reason such as `not found` (the caller names the file). */
export type FileProblem = (reason: string) => ConfigError;

/**
 * The largest file kimops reads. Far above any input it has a use for (all 10,000 Runtimes of a landscape as
 * one `kubectl get -o yaml` list are about 40 MiB), far below the 512 MiB a JavaScript string can hold.
 */
export const MAX_TEXT_FILE_BYTES = 256 * 2 ** 20;

export async function readTextFile(path: string, problem: FileProblem): Promise<string> {
  let handle: FileHandle | undefined;
  try {
    // Checked before opening: reading a FIFO waits for a writer, a device (/dev/zero) never ends.
    const before = notReadable(await stat(path));
    if (before) throw problem(before);
    // Non-blocking, and checked again on what was opened: a FIFO swapped in since the stat cannot hang the open.
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
    const opened = notReadable(await handle.stat());
    if (opened) throw problem(opened);
    const text = await handle.readFile('utf8');
    // Editors on Windows start files with a BOM; neither JSON.parse nor a reader of the value wants it.
    return text.startsWith('\ufeff') ? text.slice(1) : text;
  } catch (error) {
    const reason = fileProblemReason(error);
    if (reason) throw problem(reason);
    throw error;
  } finally {
    await handle?.close();
  }
}

/** Why kimops does not read what `stats` describe, or undefined for a regular file within the limit. */
function notReadable(stats: Stats): string | undefined {
  const fix = 'kimops reads regular files only — save the content to a file and pass that';
  if (stats.isDirectory()) return 'is a directory, not a file';
  if (stats.isFIFO()) return `is a named pipe (FIFO), not a file: ${fix}`;
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return `is a device, not a file: ${fix}`;
  if (stats.isSocket()) return `is a socket, not a file: ${fix}`;
  if (!stats.isFile()) return `is not a regular file: ${fix}`;
  if (stats.size > MAX_TEXT_FILE_BYTES) {
    return `is ${Math.ceil(stats.size / 2 ** 20)} MiB, over kimops's limit of ${MAX_TEXT_FILE_BYTES / 2 ** 20} MiB for one file — split it into several files`;
  }
  return undefined;
}

/** Whether the path is a directory (else a file); a path a user got wrong becomes the caller's error. */
export async function isDirectory(path: string, problem: FileProblem): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch (error) {
    const reason = fileProblemReason(error);
    if (reason) throw problem(reason);
    throw error;
  }
}

/** The user-facing reason for a file-system error, or undefined when it is not one a user can fix. */
export function fileProblemReason(error: unknown): string | undefined {
  switch ((error as NodeJS.ErrnoException | undefined)?.code) {
    case 'ENOENT':
    case 'ENOTDIR': // a path through a file, e.g. runtime.yaml/x
      return 'not found';
    case 'EISDIR':
      return 'is a directory, not a file';
    case 'EACCES':
    case 'EPERM':
      return 'is not readable (permission denied)';
    case 'ELOOP':
      return 'is a symbolic link that leads in a circle';
    case 'ENAMETOOLONG':
      return 'is a path too long for the file system';
    default:
      return undefined;
  }
}
