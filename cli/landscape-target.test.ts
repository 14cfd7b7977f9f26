// Git credentials from the environment: a token file (a mounted Secret) wins over its variable and is read
// again at each fetch or push; a file that is not there is refused naming the variable, never a token.
import { rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { useTempDir } from '../test/helpers/temp-dir.js';
import { gitAuthFromEnv } from './landscape-target.js';

const dir = useTempDir('landscape-target');
const NAMES = ['KIMOPS_GIT_TOKEN_FILE', 'KIMOPS_GIT_TOKEN', 'KIMOPS_GITHUB_TOKEN_FILE', 'GITHUB_TOKEN'];

beforeEach(() => {
  for (const name of NAMES) vi.stubEnv(name, '');
});
afterEach(() => {
  vi.unstubAllEnvs();
});

async function tokenOf(): Promise<string | undefined> {
  const auth = gitAuthFromEnv();
  if (auth === undefined) return undefined;
  return typeof auth.token === 'string' ? auth.token : await auth.token();
}

describe('gitAuthFromEnv', () => {
  it('takes KIMOPS_GIT_TOKEN_FILE, KIMOPS_GIT_TOKEN, KIMOPS_GITHUB_TOKEN_FILE, GITHUB_TOKEN in that order', async () => {
    expect(gitAuthFromEnv()).toBeUndefined();
    vi.stubEnv('GITHUB_TOKEN', 'from-github-token');
    expect(await tokenOf()).toBe('from-github-token');
    vi.stubEnv('KIMOPS_GITHUB_TOKEN_FILE', await dir.write('github-token', 'from-github-file\n'));
    expect(await tokenOf()).toBe('from-github-file');
    vi.stubEnv('KIMOPS_GIT_TOKEN', 'from-git-token');
    expect(await tokenOf()).toBe('from-git-token');
    vi.stubEnv('KIMOPS_GIT_TOKEN_FILE', await dir.write('git-token', 'from-git-file'));
    expect(await tokenOf()).toBe('from-git-file');
  });

  it('reads the file again at each use: a swapped Secret serves the next fetch', async () => {
    const path = await dir.write('token', 'first');
    vi.stubEnv('KIMOPS_GIT_TOKEN_FILE', path);
    const auth = gitAuthFromEnv();
    const token = auth?.token;
    if (typeof token !== 'function') throw new Error('a file is read at each use');
    expect(await token()).toBe('first');
    await writeFile(join(dir.path, 'next'), 'second\n');
    await rename(join(dir.path, 'next'), path);
    expect(await token()).toBe('second');
  });

  it('refuses a file that is missing or empty, naming the variable and the path', async () => {
    vi.stubEnv('KIMOPS_GIT_TOKEN', 'ghp_secret-value');
    vi.stubEnv('KIMOPS_GIT_TOKEN_FILE', join(dir.path, 'missing'));
    expect(() => gitAuthFromEnv()).toThrow(
      `KIMOPS_GIT_TOKEN_FILE: cannot read ${join(dir.path, 'missing')} (ENOENT); point it at a file holding the token`,
    );
    vi.stubEnv('KIMOPS_GIT_TOKEN_FILE', await dir.write('empty', ''));
    expect(() => gitAuthFromEnv()).toThrow(/^KIMOPS_GIT_TOKEN_FILE: .*empty is empty; point it at a file/);
  });
});
