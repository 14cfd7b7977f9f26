// Git credentials from the environment: a token file (a mounted Secret) wins over its variable and is read
// again at each fetch or push; a file that is not there is refused naming the variable, never a token. And the
// landscape a command runs for: --landscape, or the repo's own landscape.yaml, the same landscape when both.
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LANDSCAPE_FILE, SHIPPED_LANDSCAPES } from '../adapters/files/landscape.js';
import { LandscapeRepo } from '../adapters/git/landscape-repo.js';
import { useTempDir } from '../test/helpers/temp-dir.js';
import { gitAuthFromEnv, landscapeOnMain } from './landscape-target.js';

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

// The landscape a command on a landscape repo runs for: --landscape, or the repo's own landscape.yaml on main.
describe('landscapeOnMain', () => {
  const devText = () => readFile(join(SHIPPED_LANDSCAPES, 'dev', LANDSCAPE_FILE), 'utf8');
  const customText = async () =>
    (await devText()).replace('name: dev', 'name: myprod').replace('project: kyma-dev', 'project: myprod');

  /** A bare repo whose main holds `files`. */
  async function repoWith(files: Record<string, string>): Promise<{ gitdir: string; repo: LandscapeRepo }> {
    const gitdir = join(dir.path, 'landscape.git');
    const repo = await LandscapeRepo.open(gitdir);
    await repo.commitFiles({
      branch: 'main',
      files: new Map(Object.entries(files)),
      message: 'landscape',
      author: { name: 't', email: 't@localhost' },
    });
    return { gitdir, repo };
  }

  it("reads a landscape that ships nowhere from the repo's main when --landscape is not given", async () => {
    const { gitdir, repo } = await repoWith({ [LANDSCAPE_FILE]: await customText() });
    const notes: string[] = [];
    const landscape = await landscapeOnMain(undefined, { repo }, gitdir, (line) => notes.push(line));
    expect(landscape).toMatchObject({ name: 'myprod', gardener: { project: 'myprod' } });
    expect(notes).toEqual([]);
  });

  it('refuses a --landscape naming another landscape than the repo, naming both and the fix', async () => {
    const { gitdir, repo } = await repoWith({ [LANDSCAPE_FILE]: await customText() });
    await expect(landscapeOnMain('dev', { repo }, gitdir, () => undefined)).rejects.toThrow(
      `--landscape: ${gitdir} holds landscape myprod, not dev; pass the matching landscape or repo, or leave out --landscape to use the repo's landscape.yaml on main`,
    );
  });

  it("uses a --landscape of the same name, noting when it differs from the repo's", async () => {
    const { gitdir, repo } = await repoWith({ [LANDSCAPE_FILE]: await devText() });
    const notes: string[] = [];
    expect((await landscapeOnMain('dev', { repo }, gitdir, (line) => notes.push(line))).name).toBe('dev');
    expect(notes).toEqual([]);

    const changed = await dir.write(
      'newer/landscape.yaml',
      (await devText()).replace('version: "1877.4.0"', 'version: "1877.5.0"'),
    );
    const landscape = await landscapeOnMain(changed, { repo }, gitdir, (line) => notes.push(line));
    expect(landscape.name).toBe('dev');
    expect(notes).toEqual([
      `note: --landscape ${changed} differs from landscape.yaml on main of ${gitdir}; using --landscape — commit it to the repo to make it the landscape's`,
    ]);
  });

  it('takes --landscape alone in a repo without landscape.yaml, and says what to do when there is neither', async () => {
    const { gitdir, repo } = await repoWith({ 'kimops.yaml': 'landscape: dev\n' });
    expect((await landscapeOnMain('dev', { repo }, gitdir, () => undefined)).name).toBe('dev');
    await expect(landscapeOnMain(undefined, { repo }, gitdir, () => undefined)).rejects.toThrow(
      `--landscape: is needed: ${gitdir} has no landscape.yaml on main; pass --landscape <name|dir>, or commit the landscape's landscape.yaml to the repo's root (kimops init does)`,
    );
  });

  it("names the repo's file in a problem with it", async () => {
    const { gitdir, repo } = await repoWith({ [LANDSCAPE_FILE]: 'name: [broken\n' });
    await expect(landscapeOnMain(undefined, { repo }, gitdir, () => undefined)).rejects.toThrow(
      `landscape.yaml on main of ${gitdir}`,
    );
  });

  it('says a repo without main was not made by kimops init', async () => {
    const gitdir = join(dir.path, 'empty.git');
    const repo = await LandscapeRepo.open(gitdir);
    await expect(landscapeOnMain(undefined, { repo }, gitdir, () => undefined)).rejects.toThrow(
      `--repo: ${gitdir} has no main branch; create the landscape repo with kimops init`,
    );
  });
});
