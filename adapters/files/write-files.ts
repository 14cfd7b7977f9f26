// Writing rendered files under an output folder. Every path is checked before anything is written, so a
// path that would leave the folder — by `..`, or through a symbolic link inside it — stops the whole write
// rather than half of it.
import { constants } from 'node:fs';
import { link, lstat, mkdir, readFile, realpath, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { ConfigError } from '../../model/errors.js';
import { temporaryPathFor } from '../git/atomic-file.js';
import { isInside } from './inside.js';
import { fileProblemReason, type FileProblem } from './read-text.js';

export interface FileToWrite {
  /** Relative to the output folder, `/`-separated. */
  path: string;
  content: string;
}

/**
 * Writes the files, creating folders; a file whose content is already on disk is not rewritten. `option`
 * names the output folder in errors. Nothing is written through a symbolic link: a link to a folder is
 * followed only when it stays inside the output folder, a link in place of a file is refused.
 */
export async function writeFiles(
  outDir: string,
  files: readonly FileToWrite[],
  option = '--out',
): Promise<{ written: string[]; unchanged: string[] }> {
  const root = resolve(outDir);
  const targets = files.map((file) => ({ ...file, target: insideRoot(root, file.path) }));
  const refuse = (reason: string) => new ConfigError(option, '', `${outDir}${reason}; nothing was written`);
  const realRoot = await outputFolder(root, (reason) => refuse(` ${reason}`));
  // What is on disk, for the unchanged check; read while checking, so a refusal comes before any write.
  const onDisk = new Map<string, string>();
  if (realRoot !== undefined) {
    const checked = new Set<string>();
    for (const { path, target } of targets) {
      const folder = dirname(target);
      if (!checked.has(folder)) await checkFolder(root, realRoot, folder, refuse);
      checked.add(folder);
      const content = await existingFile(target, (reason) => refuse(`: ${path} ${reason}`));
      if (content !== undefined) onDisk.set(target, content);
    }
  }
  const written: string[] = [];
  const unchanged: string[] = [];
  for (const { path, content, target } of targets) {
    // Unchanged files keep their mtime, so tools watching the folder (and git) see only real changes.
    if (onDisk.get(target) === content) {
      unchanged.push(path);
      continue;
    }
    try {
      await mkdir(dirname(target), { recursive: true });
      // O_NOFOLLOW: a link put in place since the check fails the write instead of being written through.
      await writeFile(target, content, {
        encoding: 'utf8',
        flag: constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW,
      });
    } catch (error) {
      const reason = writeProblemReason(error);
      if (reason === undefined) throw error;
      throw new ConfigError(
        option,
        '',
        `${outDir}: ${path} cannot be written (${reason}); ${written.length} of ${targets.length} files were written before it`,
      );
    }
    written.push(path);
  }
  return { written, unchanged };
}

function insideRoot(root: string, path: string): string {
  const target = resolve(root, path);
  const fromRoot = relative(root, target);
  if (isAbsolute(path) || fromRoot === '' || !isInside(root, target)) {
    throw new ConfigError(path, '', `would be written outside the output folder ${root}; refusing to write anything`);
  }
  return target;
}

/**
 * The real path of the folder `dir` (a link to a folder counts as one), or undefined when it does not exist
 * yet and can be created: the nearest existing path above it is a folder. Anything else is `problem`:
 * `dir` is a file, or lies under one. For every command that writes into a folder it may create.
 */
export async function outputFolder(dir: string, problem: FileProblem): Promise<string | undefined> {
  const found = await nearestExisting(resolve(dir), problem);
  if (found.path === resolve(dir)) {
    if (!found.isFolder)
      throw problem('is a file, not a folder — pass a folder (one that does not exist yet is created)');
    return realpath(found.path);
  }
  if (!found.isFolder)
    throw problem(`cannot be created: ${found.path} is a file, not a folder — pass a path under a folder`);
  return undefined;
}

/** The path itself when it exists, else the nearest existing folder or file above it. */
async function nearestExisting(path: string, problem: FileProblem): Promise<{ path: string; isFolder: boolean }> {
  for (let current = path; ; current = dirname(current)) {
    try {
      return { path: current, isFolder: (await stat(current)).isDirectory() };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // ENOTDIR: a file further up; the loop reaches it.
      if ((code !== 'ENOENT' && code !== 'ENOTDIR') || dirname(current) === current)
        throw problem(fileProblemReason(error) ?? String(error));
    }
  }
}

/** `folder` (below `root`) must be a folder, or not exist yet, and its real path must stay inside the real root. */
async function checkFolder(
  root: string,
  realRoot: string,
  folder: string,
  refuse: (reason: string) => ConfigError,
): Promise<void> {
  const shown = (path: string) => relative(root, path).split(sep).join('/');
  const found = await nearestExisting(folder, (reason) => refuse(`: ${shown(folder)} ${reason}`));
  if (found.path === root) return;
  if (!found.isFolder)
    throw refuse(`: ${shown(found.path)} is a file where a folder is needed — remove it, or pass another folder`);
  const real = await realpath(found.path);
  if (!isInside(realRoot, real)) {
    throw refuse(
      `: ${shown(found.path)} leads to ${real}, outside the output folder, through a symbolic link — kimops writes nothing outside it: remove the link, or pass another folder`,
    );
  }
}

/** The text of the file at `target`, undefined when there is none; a link, a folder, a FIFO or a device in its place is `problem`. */
async function existingFile(target: string, problem: FileProblem): Promise<string | undefined> {
  let stats;
  try {
    stats = await lstat(target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw problem(fileProblemReason(error) ?? String(error));
  }
  if (stats.isSymbolicLink()) throw problem('is a symbolic link — kimops writes no file through a link: remove it');
  if (!stats.isFile())
    throw problem(`is ${stats.isDirectory() ? 'a folder' : 'no regular file'} where kimops writes a file — remove it`);
  return readFile(target, 'utf8');
}

/** The user-facing reason a write failed, or undefined when it is not one a user can fix. */
export function writeProblemReason(error: unknown): string | undefined {
  switch ((error as NodeJS.ErrnoException | undefined)?.code) {
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EROFS':
      return 'the file system is read-only';
    case 'ENOSPC':
    case 'EDQUOT':
      return 'no space left on the device';
    case 'ELOOP':
      return 'a symbolic link was put in its place';
    default:
      return undefined;
  }
}

/**
 * Writes one file whole: the bytes go to a temporary file beside it, renamed into place, so a reader never sees
 * half of it. An existing file is replaced only with `force`; without, a file that appears meanwhile is kept
 * too (the temporary is linked into place, which fails rather than replace). `option` names the path in errors.
 */
export async function writeFileWhole(path: string, content: string, force: boolean, option: string): Promise<void> {
  const refuse = (reason: string) => new ConfigError(option, '', `${path} ${reason}; nothing was written`);
  const existing = await lstat(path).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw refuse(fileProblemReason(error) ?? String(error));
  });
  if (existing?.isDirectory()) throw refuse('is a folder — pass the path of a file');
  if (existing && !force) throw refuse('exists — pass --force to replace it, or another path');
  await outputFolder(dirname(path), (reason) => refuse(`cannot be written: its folder ${reason}`));
  await mkdir(dirname(path), { recursive: true });
  const temporary = temporaryPathFor(path);
  try {
    await writeFile(temporary, content, { encoding: 'utf8', flag: 'wx' });
    if (force) await rename(temporary, path);
    else await link(temporary, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST')
      throw refuse('appeared while it was written — pass --force to replace it, or another path');
    const reason = writeProblemReason(error);
    if (reason === undefined) throw error;
    throw refuse(`cannot be written (${reason})`);
  } finally {
    await rm(temporary, { force: true });
  }
}
