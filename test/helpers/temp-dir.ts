// Test support: a fresh temporary folder per test, removed afterwards.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';

export interface TempDir {
  /** The folder of the running test. */
  readonly path: string;
  /** Writes `content` at `relativePath` (folders created) and returns the full path. */
  write(relativePath: string, content: string): Promise<string>;
}

export function useTempDir(prefix: string): TempDir {
  let path = '';
  beforeEach(async () => {
    path = await mkdtemp(join(tmpdir(), `kimops-${prefix}-`));
  });
  afterEach(async () => {
    await rm(path, { recursive: true, force: true });
  });
  return {
    get path() {
      return path;
    },
    async write(relativePath, content) {
      const target = join(path, relativePath);
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, content);
      return target;
    },
  };
}
