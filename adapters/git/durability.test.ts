// What a crash or a second writer can leave behind, and how the repo copes: a damaged loose object is
// written again, a damaged ref is an error (never a new history), a ref moves only from the value its
// writer read, and the repo's lock is taken over from a dead holder but waited for while its holder
// lives. The same guarantees with real processes and `kill -9`: test/integration/standalone/repo-torture.test.ts.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdir, readFile, stat, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, TransportError, RefMoved } from '../../model/errors.js';
import { useTempDir } from '../../test/helpers/temp-dir.js';
import { temporaryPathFor } from './atomic-file.js';
import { LandscapeRepo } from './landscape-repo.js';
import { commitBody } from './objects.js';
import { objectId } from '../../model/git-object-id.js';
import { readRef, updateRef } from './refs.js';
import { REPO_LOCK_FILE, withRepoLock } from './repo-lock.js';

const tmp = useTempDir('git-durability');
const author = { name: 'kimops', email: 'kimops@localhost', timestamp: 1_790_000_000 };
const gitCli = (gitdir: string, ...args: string[]) =>
  execFileSync('git', ['--git-dir', gitdir, ...args], { encoding: 'utf8' });
const loosePath = (gitdir: string, oid: string) => join(gitdir, 'objects', oid.slice(0, 2), oid.slice(2));

async function repoWithMain() {
  const repo = await LandscapeRepo.open(join(tmp.path, 'repo.git'));
  const first = await repo.commitFiles({
    branch: 'main',
    files: new Map([['kimops.yaml', 'landscape: dev\n']]),
    message: 'init',
    author,
  });
  return { repo, first: first.oid as string };
}

/** A process that has exited, so its pid is known to be dead. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((done) => child.on('exit', done));
  return child.pid as number;
}

describe('objects', () => {
  it('writes again a loose object a crash left empty, instead of committing it as it is', async () => {
    const { repo } = await repoWithMain();
    const text = 'kind: Shoot\nmetadata: {name: a}\n';
    const blob = objectId('blob', text);
    await mkdir(dirname(loosePath(repo.gitdir, blob)), { recursive: true });
    await writeFile(loosePath(repo.gitdir, blob), '');
    await repo.commitFiles({
      branch: 'main',
      files: new Map([['shoots/a/shoot.yaml', text]]),
      message: 'add a',
      author,
    });
    expect(gitCli(repo.gitdir, 'show', 'main:shoots/a/shoot.yaml')).toBe(text);
    gitCli(repo.gitdir, 'fsck', '--strict', '--no-dangling');
  });

  it('leaves only what git calls a temporary when killed while writing an object', async () => {
    const { repo } = await repoWithMain();
    const target = loosePath(repo.gitdir, objectId('blob', 'half\n'));
    const temporary = temporaryPathFor(target);
    expect(dirname(temporary)).toBe(dirname(target));
    await mkdir(dirname(temporary), { recursive: true });
    await writeFile(temporary, 'half a deflated object'); // what a kill -9 between write and rename leaves
    // git fsck warns on stderr ("bad sha1 file") about anything else it finds beside the objects.
    const fsck = spawnSync('git', ['--git-dir', repo.gitdir, 'fsck', '--strict'], { encoding: 'utf8' });
    expect(fsck.status).toBe(0);
    expect(fsck.stderr).toBe('');
  });

  it('refuses signature text that would add header lines to a commit', () => {
    const signature = { name: 'eve\nparent 0000', email: 'e@x', timestamp: 1, timezoneOffset: 0 };
    expect(() =>
      commitBody({ tree: 'a'.repeat(40), parents: [], author: signature, committer: signature, message: 'm\n' }),
    ).toThrow(ConfigError);
    const body = commitBody({
      tree: 'a'.repeat(40),
      parents: ['b'.repeat(40)],
      author: { ...signature, name: 'Jane', timezoneOffset: -120 },
      committer: { ...signature, name: 'Jane', timezoneOffset: 90 },
      message: 'm\n',
    });
    expect(body).toBe(
      `tree ${'a'.repeat(40)}\nparent ${'b'.repeat(40)}\nauthor Jane <e@x> 1 +0200\ncommitter Jane <e@x> 1 -0130\n\nm\n`,
    );
  });
});

describe('refs', () => {
  it('takes a damaged ref for damage, not for a missing branch that could start over', async () => {
    const { repo } = await repoWithMain();
    await writeFile(join(repo.gitdir, 'refs/heads/main'), '');
    await expect(repo.resolve('main')).rejects.toThrow(
      /refs\/heads\/main: holds "", not a commit id: the ref is damaged/,
    );
    await expect(
      repo.commitFiles({ branch: 'main', files: new Map([['x', 'y']]), message: 'x', author }),
    ).rejects.toThrow(ConfigError);
  });

  it('reads no file outside the git directory for a ref name that leads there', async () => {
    const { repo } = await repoWithMain();
    await writeFile(join(tmp.path, 'outside'), 'secret\n');
    expect(await readRef(repo.gitdir, 'refs/heads/../../../outside')).toBeUndefined();
    expect(await repo.resolve('../../outside')).toBeUndefined();
  });

  it('moves a ref only from the value its writer read, and leaves no lock behind', async () => {
    const { repo, first } = await repoWithMain();
    const second = (
      await repo.commitFiles({ branch: 'side', base: 'main', files: new Map([['x', 'y']]), message: 'x', author })
    ).oid as string;
    await expect(updateRef(repo.gitdir, 'refs/heads/main', second, second)).rejects.toThrow(RefMoved);
    await expect(repo.updateBranch('new', second, first)).rejects.toThrow(RefMoved);
    expect(await readRef(repo.gitdir, 'refs/heads/main')).toBe(first);
    await repo.updateBranch('main', second, first);
    expect(await readRef(repo.gitdir, 'refs/heads/main')).toBe(second);
    await expect(stat(join(repo.gitdir, 'refs/heads/main.lock'))).rejects.toThrow();
    // A packed ref counts as the current value too.
    await writeFile(join(repo.gitdir, 'packed-refs'), `# pack-refs with: peeled\n${first} refs/heads/packed\n`);
    await expect(repo.updateBranch('packed', second, undefined)).rejects.toThrow(RefMoved);
    await repo.updateBranch('packed', second, first);
    expect(gitCli(repo.gitdir, 'rev-parse', 'packed').trim()).toBe(second);
  });

  it("removes a dead writer's ref lock under the repo lock, and waits for a fresh one", async () => {
    const { repo, first } = await repoWithMain();
    const lock = join(repo.gitdir, 'refs/heads/main.lock');
    await writeFile(lock, '');
    const old = new Date(Date.now() - 60_000);
    await utimes(lock, old, old);
    const second = (await repo.commitFiles({ branch: 'main', files: new Map([['x', 'y']]), message: 'x', author }))
      .oid as string;
    expect(await readRef(repo.gitdir, 'refs/heads/main')).toBe(second);
    expect(second).not.toBe(first);
  });
});

describe('the repo lock', () => {
  it("takes over the lock of a process that died, and keeps a live holder's", async () => {
    const { repo } = await repoWithMain();
    const path = join(repo.gitdir, REPO_LOCK_FILE);
    await writeFile(
      path,
      JSON.stringify({ pid: await deadPid(), host: hostname(), purpose: 'generate', since: '2026-01-01T00:00:00Z' }),
    );
    expect(
      await withRepoLock(
        repo.gitdir,
        { purpose: 'test' },
        async () => JSON.parse(await readFile(path, 'utf8')) as { pid: number },
      ),
    ).toMatchObject({ pid: process.pid });
    await expect(stat(path)).rejects.toThrow(); // released

    const parent = process.ppid; // alive for as long as this test runs
    await writeFile(
      path,
      JSON.stringify({ pid: parent, host: hostname(), purpose: 'pr merge #3', since: '2026-01-01T00:00:00Z' }),
    );
    const attempt = withRepoLock(repo.gitdir, { purpose: 'pr approve #3', timeoutMs: 0 }, async () => 'ran');
    await expect(attempt).rejects.toThrow(TransportError);
    await expect(attempt).rejects.toThrow(`held by pr merge #3 (pid ${parent} on ${hostname()}`);
    expect(JSON.parse(await readFile(path, 'utf8'))).toMatchObject({ pid: parent });
  });

  it('waits for a lock it cannot read (here a folder in its place) until its deadline, and says how to fix it', async () => {
    const { repo } = await repoWithMain();
    await mkdir(join(repo.gitdir, REPO_LOCK_FILE));
    const attempt = withRepoLock(repo.gitdir, { purpose: 'generate', timeoutMs: 50 }, async () => 'ran');
    await expect(attempt).rejects.toThrow(
      `held by an unreadable ${REPO_LOCK_FILE}; let it finish and run again, or, if no kimops runs there any more, remove ${join(repo.gitdir, REPO_LOCK_FILE)}`,
    );
  });

  it('is re-entrant within its holder and queues the other holders of this process', async () => {
    const { repo } = await repoWithMain();
    const order: string[] = [];
    let releaseFirst!: () => void;
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    const first = withRepoLock(repo.gitdir, { purpose: 'first' }, async () => {
      order.push('first in');
      // The repo's own writes inside the holder's work do not wait for the holder.
      await repo.commitFiles({ branch: 'main', files: new Map([['a', '1']]), message: 'a', author });
      const released = new Promise<void>((release) => (releaseFirst = release));
      entered();
      await released;
      order.push('first out');
    });
    const second = withRepoLock(repo.gitdir, { purpose: 'second' }, async () => {
      order.push('second');
    });
    await inside;
    expect(await repo.readFile('main', 'a')).toBe('1');
    expect(order).toEqual(['first in']);
    releaseFirst();
    await Promise.all([first, second]);
    expect(order).toEqual(['first in', 'first out', 'second']);
  });
});
