// Finding and reading a landscape file: a bare name means one shipped with kimops
// (`<package root>/landscapes/<name>/landscape.yaml`), anything path-like a folder or file on disk.
import { readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ConfigError } from '../../model/errors.js';
import type { Landscape } from '../../model/landscape.js';
import { parseLandscape } from '../../model/landscape-parse.js';
import { isDirectory, readTextFile } from './read-text.js';
import { packagePath } from '../../model/package-root.js';

/** The landscape file's name: in a landscape folder, and at the root of a landscape repo (kimops init commits it). */
export const LANDSCAPE_FILE = 'landscape.yaml';

/** Found from this module's location, not the working directory, so `kimops` works from anywhere. */
export const SHIPPED_LANDSCAPES = `${packagePath('landscapes')}/`;

/** A shipped landscape's name is its folder's name: lower-case, digits, `-` — never a path. */
const LANDSCAPE_NAME = /^[a-z0-9](?:[-a-z0-9]*[a-z0-9])?$/;

const OPTION = '--landscape';

/**
 * `dev` → the shipped landscapes/dev/landscape.yaml (whose `name` must be `dev`); `./dev` or any other
 * path → that folder's landscape.yaml, or that file. Throws ConfigError naming the file and the fix.
 */
export async function readLandscape(nameOrPath: string): Promise<Landscape> {
  return (await readLandscapeFile(nameOrPath)).landscape;
}

/** readLandscape, with the file's text as written (comments kept): what `kimops init` commits to the repo. */
export async function readLandscapeFile(nameOrPath: string): Promise<{ landscape: Landscape; text: string }> {
  const { file, expectedName } = await locateLandscape(nameOrPath);
  const text = await readTextFile(file, (reason) => new ConfigError(OPTION, '', `${file} ${reason}`));
  return { landscape: parseLandscape(text, file, expectedName), text };
}

async function locateLandscape(nameOrPath: string): Promise<{ file: string; expectedName?: string }> {
  if (LANDSCAPE_NAME.test(nameOrPath)) {
    const file = join(SHIPPED_LANDSCAPES, nameOrPath, LANDSCAPE_FILE);
    if (await isFile(file)) return { file, expectedName: nameOrPath };
    const known = await shippedLandscapeNames();
    throw new ConfigError(
      OPTION,
      '',
      `no landscape "${nameOrPath}" ships with kimops (known: ${known.join(', ') || 'none'}); ` +
        `for a folder in the current directory write ./${nameOrPath}`,
    );
  }
  const path = resolve(nameOrPath);
  const directory = await isDirectory(
    path,
    (reason) =>
      new ConfigError(
        OPTION,
        '',
        `${nameOrPath} ${reason} — pass a landscape name (dev), a folder with ${LANDSCAPE_FILE}, or the file`,
      ),
  );
  return { file: directory ? join(path, LANDSCAPE_FILE) : path };
}

async function shippedLandscapeNames(): Promise<string[]> {
  const entries = await readdir(SHIPPED_LANDSCAPES, { withFileTypes: true }).catch(() => []);
  const names: string[] = [];
  for (const entry of entries) {
    if (entry.isDirectory() && (await isFile(join(SHIPPED_LANDSCAPES, entry.name, LANDSCAPE_FILE))))
      names.push(entry.name);
  }
  return names.sort();
}

async function isFile(path: string): Promise<boolean> {
  return stat(path).then(
    (stats) => stats.isFile(),
    () => false,
  );
}
