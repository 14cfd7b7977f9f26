// Reading one text file, with the failures a user causes (wrong path, a folder, no permission) turned
// into a ConfigError the caller words for its option or config key.
import { readFile, stat } from 'node:fs/promises';
import type { ConfigError } from '../../model/errors.js';

/** Builds the caller's error from a reason such as `not found` (the caller names the file). */
export type FileProblem = (reason: string) => ConfigError;

export async function readTextFile(path: string, problem: FileProblem): Promise<string> {
  try {
    const text = await readFile(path, 'utf8');
    // Editors on Windows start files with a BOM; neither JSON.parse nor a reader of the value wants it.
    return text.startsWith('\ufeff') ? text.slice(1) : text;
  } catch (error) {
    const reason = fileProblemReason(error);
    if (reason) throw problem(reason);
    throw error;
  }
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
    default:
      return undefined;
  }
}
