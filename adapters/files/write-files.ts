// Writing rendered files under an output folder. Every path is checked before anything is written, so
// a path that would leave the folder stops the whole write rather than half of it.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { ConfigError } from '../../model/errors.js';

export interface FileToWrite {
  /** Relative to the output folder, `/`-separated. */
  path: string;
  content: string;
}

/** Writes the files, creating folders; a file whose content is already on disk is not rewritten. */
export async function writeFiles(outDir: string, files: readonly FileToWrite[]): Promise<{ written: string[]; unchanged: string[] }> {
  const root = resolve(outDir);
  const targets = files.map((file) => ({ ...file, target: insideRoot(root, file.path) }));
  const written: string[] = [];
  const unchanged: string[] = [];
  for (const { path, content, target } of targets) {
    // Unchanged files keep their mtime, so tools watching the folder (and git) see only real changes.
    if ((await readFile(target, 'utf8').catch(() => undefined)) === content) {
      unchanged.push(path);
      continue;
    }
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, content, 'utf8');
    written.push(path);
  }
  return { written, unchanged };
}

function insideRoot(root: string, path: string): string {
  const target = resolve(root, path);
  const fromRoot = relative(root, target);
  if (isAbsolute(path) || fromRoot === '' || fromRoot === '..' || fromRoot.startsWith(`..${sep}`) || isAbsolute(fromRoot)) {
    throw new ConfigError(path, '', `would be written outside the output folder ${root}; refusing to write anything`);
  }
  return target;
}
