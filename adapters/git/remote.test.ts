// Fetch and push against a real git smart-HTTP server (git http-backend on loopback).
import { execFile, execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type GitServer, startGitServer } from '../../test/helpers/git-http-server.js';
import { useTempDir } from '../../test/helpers/temp-dir.js';
import { LandscapeRepo } from './landscape-repo.js';
import { remoteBranchHead } from './remote.js';

const TOKEN = 'test-token-123';
const tmp = useTempDir('git-remote');
let server: GitServer;
let remoteUrl: string;

beforeEach(async () => {
  execFileSync('git', [
    'init',
    '--quiet',
    '--bare',
    '--initial-branch=main',
    join(tmp.path, 'remote', 'landscape.git'),
  ]);
  server = await startGitServer({ root: join(tmp.path, 'remote'), token: TOKEN });
  remoteUrl = `${server.url}/landscape.git`;
});
afterEach(() => server.stop());

const gitCli = (gitdir: string, ...args: string[]) =>
  execFileSync('git', ['--git-dir', gitdir, ...args], { encoding: 'utf8' });
const gitRemote = (...args: string[]) => gitCli(join(tmp.path, 'remote', 'landscape.git'), ...args).trim();
const author = { name: 'kimops', email: 'kimops@example.com', timestamp: 1_790_000_000 };
const auth = { token: TOKEN };
const commit = (repo: LandscapeRepo, files: Record<string, string>, base?: string) =>
  repo.commitFiles({
    branch: 'main',
    ...(base ? { base } : {}),
    files: new Map(Object.entries(files)),
    message: 'render',
    author,
  });

describe('LandscapeRepo over HTTP', () => {
  it('pushes, fetches into a second repo, and the git CLI clones the result', async () => {
    const writer = await LandscapeRepo.open(join(tmp.path, 'writer.git'));
    // Enough files that the commit is written as a packfile, which push must read back.
    const shoots = Object.fromEntries(
      Array.from({ length: 120 }, (_, i) => [`shoots/s${i}/shoot.yaml`, `name: s${i}\n`]),
    );
    const { oid } = await commit(writer, {
      ...shoots,
      'shoots/a/shoot.yaml': 'a\n',
      'kimops.yaml': 'landscape: dev\n',
    });
    expect(await writer.push(remoteUrl, 'main', { auth })).toEqual({ ok: true, oid });

    const reader = await LandscapeRepo.open(join(tmp.path, 'reader.git'));
    expect(await reader.fetch(remoteUrl, 'main', auth)).toEqual({ ok: true, oid });
    const files = await reader.readFiles(oid as string);
    expect(files.size).toBe(122);
    expect(await files.get('shoots/a/shoot.yaml')?.read()).toBe('a\n');

    const cloneUrl = remoteUrl.replace('http://', `http://x-access-token:${TOKEN}@`);
    // Asynchronously: the server runs in this process and must keep answering while git clones.
    await promisify(execFile)('git', ['clone', '--quiet', cloneUrl, join(tmp.path, 'clone')]);
    expect(execFileSync('git', ['-C', join(tmp.path, 'clone'), 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim()).toBe(
      oid,
    );
  });

  it('refuses a wrong token with a message naming the remote and the fix', async () => {
    const repo = await LandscapeRepo.open(join(tmp.path, 'repo.git'));
    await commit(repo, { 'a.yaml': 'a\n' });
    for (const result of [
      await repo.push(remoteUrl, 'main', { auth: { token: 'wrong' } }),
      await repo.fetch(remoteUrl, 'main', { token: 'wrong' }),
    ]) {
      expect(result).toMatchObject({ ok: false, reason: 'auth' });
      expect(!result.ok && result.message).toMatch(new RegExp(`${remoteUrl}.*HTTP 401.*check the token`));
    }
  });

  it('returns a non-fast-forward push as rejected, and a forced push goes through', async () => {
    const first = await LandscapeRepo.open(join(tmp.path, 'first.git'));
    const base = (await commit(first, { 'a.yaml': 'a\n' })).oid as string;
    await first.push(remoteUrl, 'main', { auth });

    const second = await LandscapeRepo.open(join(tmp.path, 'second.git'));
    await second.fetch(remoteUrl, 'main', auth);
    await commit(second, { 'b.yaml': 'b\n' }, base);
    expect(await second.push(remoteUrl, 'main', { auth })).toMatchObject({ ok: true });

    const diverged = await commit(first, { 'c.yaml': 'c\n' });
    const rejected = await first.push(remoteUrl, 'main', { auth });
    expect(rejected).toMatchObject({ ok: false, reason: 'rejected' });
    expect(!rejected.ok && rejected.message).toMatch(/fetch, re-render and push again/);
    expect(await first.push(remoteUrl, 'main', { auth, force: true })).toEqual({ ok: true, oid: diverged.oid });
  });

  it('reports an unreachable remote and a missing repository as values', async () => {
    const repo = await LandscapeRepo.open(join(tmp.path, 'repo.git'));
    await commit(repo, { 'a.yaml': 'a\n' });
    await server.stop();
    const unreachable = await repo.push(remoteUrl, 'main', { auth });
    expect(unreachable).toMatchObject({ ok: false, reason: 'unreachable' });
    expect(!unreachable.ok && unreachable.message).toContain(remoteUrl);
    server = await startGitServer({ root: join(tmp.path, 'remote'), token: TOKEN });
    expect(await repo.fetch(`${server.url}/missing.git`, 'main', auth)).toMatchObject({
      ok: false,
      reason: 'not-found',
    });
  });

  it('updates a PR branch in place without force as a merge of the new main and its head; a human push in between makes it rejected', async () => {
    const bot = await LandscapeRepo.open(join(tmp.path, 'bot.git'));
    const mainV1 = (await commit(bot, { 'kimops.yaml': 'landscape: dev\n' })).oid as string;
    const branch = 'kimops/dev/a';
    const shoot = (content: string, extra: { alsoParent?: string } = {}) =>
      bot.commitFiles({
        branch,
        base: 'main',
        files: new Map([['shoots/a/shoot.yaml', content]]),
        message: 'render a',
        author,
        ...extra,
      });
    const prV1 = (await shoot('a: 1\n')).oid as string;
    for (const b of ['main', branch]) expect(await bot.push(remoteUrl, b, { auth })).toMatchObject({ ok: true });

    // main moves on (another PR merged); the open PR is re-rendered on top of it, keeping its history.
    const mainV2 = (await commit(bot, { 'shoots/b/shoot.yaml': 'b: 1\n' })).oid as string;
    await bot.push(remoteUrl, 'main', { auth });
    const update = await shoot('a: 2\n', { alsoParent: prV1 });
    // Changed paths are relative to base (main): the PR's own change.
    expect(update).toMatchObject({ changed: true, changedPaths: ['shoots/a/shoot.yaml'] });
    const prV2 = update.oid as string;
    expect(gitCli(bot.gitdir, 'log', '-1', '--format=%P', prV2).trim()).toBe(`${mainV2} ${prV1}`);
    expect(gitCli(bot.gitdir, 'ls-tree', '-r', '--name-only', prV2).trim().split('\n')).toEqual([
      'kimops.yaml',
      'shoots/a/shoot.yaml',
      'shoots/b/shoot.yaml',
    ]);
    gitCli(bot.gitdir, 'fsck', '--strict', '--no-dangling');
    expect(await bot.push(remoteUrl, branch, { auth })).toEqual({ ok: true, oid: prV2 });
    expect(await remoteBranchHead({ url: remoteUrl, branch, auth })).toEqual({ ok: true, oid: prV2 });
    expect(await remoteBranchHead({ url: remoteUrl, branch: 'kimops/none', auth })).toEqual({
      ok: true,
      oid: undefined,
    });

    // The same render again is no commit, since the branch already holds it.
    expect(await shoot('a: 2\n', { alsoParent: prV2 })).toEqual({ changed: false, oid: prV2, changedPaths: [] });

    // A human pushes to the PR branch; kimops, not having fetched it, updates from its own last head.
    const human = await LandscapeRepo.open(join(tmp.path, 'human.git'));
    await human.fetch(remoteUrl, branch, auth);
    await human.commitFiles({
      branch,
      base: `refs/remotes/origin/${branch}`,
      files: new Map([['NOTES.md', 'mine\n']]),
      message: 'a note',
      author,
    });
    expect(await human.push(remoteUrl, branch, { auth })).toMatchObject({ ok: true });
    const stale = (await shoot('a: 3\n', { alsoParent: prV2 })).oid as string;
    expect(await bot.push(remoteUrl, branch, { auth })).toMatchObject({ ok: false, reason: 'rejected' });
    expect(gitRemote('rev-parse', branch)).not.toBe(stale);
    expect(gitRemote('show', `${branch}:NOTES.md`)).toBe('mine');
    expect(mainV1).toBe(gitRemote('rev-parse', 'main~1'));
  });

  it('refuses an alsoParent it does not have', async () => {
    const repo = await LandscapeRepo.open(join(tmp.path, 'repo.git'));
    await commit(repo, { 'a.yaml': 'a\n' });
    await expect(
      repo.commitFiles({
        branch: 'x',
        base: 'main',
        alsoParent: 'kimops/none',
        files: new Map([['b.yaml', 'b\n']]),
        message: 'm',
        author,
      }),
    ).rejects.toThrow(/alsoParent: kimops\/none is neither a branch nor a commit here; fetch it first/);
  });
});

describe('remote deadlines', () => {
  /** Accepts connections and requests and never answers: a hung proxy or an overloaded server. */
  async function silentServer() {
    const server = createServer(() => undefined);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/landscape.git`,
      stop: () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    };
  }

  it('ends fetch, push and a branch lookup against a silent server as unreachable, naming the remote and the fix', async () => {
    const silent = await silentServer();
    try {
      const repo = await LandscapeRepo.open(join(tmp.path, 'repo.git'), { remoteTimeoutMs: 200 });
      await commit(repo, { 'a.yaml': 'a\n' });
      // The messages say the deadline ended each call (a silent server never answers); no wall-clock assertion.
      const results = [
        await repo.fetch(silent.url, 'main', auth),
        await repo.push(silent.url, 'main', { auth }),
        await repo.push(silent.url, 'main', { auth, timeoutMs: 100 }),
        await remoteBranchHead({ url: silent.url, branch: 'main', timeoutMs: 100 }),
      ];
      for (const result of results) {
        expect(result).toMatchObject({ ok: false, reason: 'unreachable' });
        expect(!result.ok && result.message).toMatch(
          new RegExp(
            `${silent.url}: no answer within 0\\.[12] s; check that the server is up and answers, or allow more time`,
          ),
        );
      }
      // The repo's queue is free again: a local commit after the timeouts goes through.
      expect(await commit(repo, { 'b.yaml': 'b\n' })).toMatchObject({ changed: true });
    } finally {
      await silent.stop();
    }
  });
});
