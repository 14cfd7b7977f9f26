// Fetch and push against a real git smart-HTTP server (git http-backend on loopback).
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type GitServer, startGitServer } from '../../test/helpers/git-http-server.js';
import { useTempDir } from '../../test/helpers/temp-dir.js';
import { LandscapeRepo } from './landscape-repo.js';

const TOKEN = 'test-token-123';
const tmp = useTempDir('git-remote');
let server: GitServer;
let remoteUrl: string;

beforeEach(async () => {
  execFileSync('git', ['init', '--quiet', '--bare', '--initial-branch=main', join(tmp.path, 'remote', 'landscape.git')]);
  server = await startGitServer({ root: join(tmp.path, 'remote'), token: TOKEN });
  remoteUrl = `${server.url}/landscape.git`;
});
afterEach(() => server.stop());

const author = { name: 'kimops', email: 'kimops@example.com', timestamp: 1_790_000_000 };
const auth = { token: TOKEN };
const commit = (repo: LandscapeRepo, files: Record<string, string>, base?: string) =>
  repo.commitFiles({ branch: 'main', ...(base ? { base } : {}), files: new Map(Object.entries(files)), message: 'render', author });

describe('LandscapeRepo over HTTP', () => {
  it('pushes, fetches into a second repo, and the git CLI clones the result', async () => {
    const writer = await LandscapeRepo.open(join(tmp.path, 'writer.git'));
    // Enough files that the commit is written as a packfile, which push must read back.
    const shoots = Object.fromEntries(Array.from({ length: 120 }, (_, i) => [`shoots/s${i}/shoot.yaml`, `name: s${i}\n`]));
    const { oid } = await commit(writer, { ...shoots, 'shoots/a/shoot.yaml': 'a\n', 'kimops.yaml': 'landscape: dev\n' });
    expect(await writer.push(remoteUrl, 'main', { auth })).toEqual({ ok: true, oid });

    const reader = await LandscapeRepo.open(join(tmp.path, 'reader.git'));
    expect(await reader.fetch(remoteUrl, 'main', auth)).toEqual({ ok: true, oid });
    const files = await reader.readFiles(oid as string);
    expect(files.size).toBe(122);
    expect(await files.get('shoots/a/shoot.yaml')?.read()).toBe('a\n');

    const cloneUrl = remoteUrl.replace('http://', `http://x-access-token:${TOKEN}@`);
    // Asynchronously: the server runs in this process and must keep answering while git clones.
    await promisify(execFile)('git', ['clone', '--quiet', cloneUrl, join(tmp.path, 'clone')]);
    expect(execFileSync('git', ['-C', join(tmp.path, 'clone'), 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim()).toBe(oid);
  });

  it('refuses a wrong token with a message naming the remote and the fix', async () => {
    const repo = await LandscapeRepo.open(join(tmp.path, 'repo.git'));
    await commit(repo, { 'a.yaml': 'a\n' });
    for (const result of [await repo.push(remoteUrl, 'main', { auth: { token: 'wrong' } }), await repo.fetch(remoteUrl, 'main', { token: 'wrong' })]) {
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
    expect(await repo.fetch(`${server.url}/missing.git`, 'main', auth)).toMatchObject({ ok: false, reason: 'not-found' });
  });
});
