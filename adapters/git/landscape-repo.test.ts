import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import git from 'isomorphic-git';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../model/errors.js';
import { useTempDir } from '../../test/helpers/temp-dir.js';
import { type CommitRequest, LandscapeRepo } from './landscape-repo.js';
import { folderOid } from '../../model/git-object-id.js';

const tmp = useTempDir('git-repo');
const author = { name: 'kimops', email: 'kimops@example.com', timestamp: 1_790_000_000 };

function request(files: Record<string, string>, extra: Partial<CommitRequest> = {}): CommitRequest {
  return { branch: 'main', files: new Map(Object.entries(files)), message: 'render', author, ...extra };
}

const landscape = {
  'kimops.yaml': 'landscape: dev\n',
  'shoots/a/shoot.yaml': 'kind: Shoot\nname: a\n',
  'shoots/a/configmap-structured-auth-config-a.yaml': 'kind: ConfigMap\n',
  'shoots/b/shoot.yaml': 'kind: Shoot\nname: b\n',
};

const gitCli = (gitdir: string, ...args: string[]) =>
  execFileSync('git', ['--git-dir', gitdir, ...args], { encoding: 'utf8' });

async function treeOid(repo: LandscapeRepo, commit: string, path: string): Promise<string> {
  return (await git.readTree({ fs, gitdir: repo.gitdir, oid: commit, filepath: path })).oid;
}

describe('LandscapeRepo.commitFiles', () => {
  it('commits nested files that the git CLI reads and fsck accepts', async () => {
    const repo = await LandscapeRepo.open(join(tmp.path, 'repo.git'));
    const result = await repo.commitFiles(request(landscape));
    expect(result).toMatchObject({ changed: true, changedPaths: Object.keys(landscape).sort() });
    const gitdir = repo.gitdir;
    expect(gitCli(gitdir, 'ls-tree', '-r', '--name-only', 'main').trim().split('\n')).toEqual(
      Object.keys(landscape).sort(),
    );
    expect(gitCli(gitdir, 'show', 'main:shoots/b/shoot.yaml')).toBe(landscape['shoots/b/shoot.yaml']);
    expect(gitCli(gitdir, 'log', '--format=%an <%ae> %at %s', 'main').trim()).toBe(
      `kimops <kimops@example.com> ${author.timestamp} render`,
    );
    gitCli(gitdir, 'fsck', '--strict', '--no-dangling');
    const files = await repo.readFiles('main', 'shoots');
    expect([...files.keys()]).toEqual([
      'shoots/a/configmap-structured-auth-config-a.yaml',
      'shoots/a/shoot.yaml',
      'shoots/b/shoot.yaml',
    ]);
    expect(await files.get('shoots/a/shoot.yaml')?.read()).toBe(landscape['shoots/a/shoot.yaml']);
  });

  it('makes no commit for byte-identical content, also from a fresh instance', async () => {
    const repo = await LandscapeRepo.open(join(tmp.path, 'repo.git'));
    const first = await repo.commitFiles(request(landscape));
    expect(await repo.commitFiles(request(landscape))).toEqual({ changed: false, oid: first.oid, changedPaths: [] });
    const reopened = await LandscapeRepo.open(repo.gitdir);
    expect(await reopened.commitFiles(request(landscape, { deletions: 'replace-shoots-folder' }))).toEqual({
      changed: false,
      oid: first.oid,
      changedPaths: [],
    });
    expect(gitCli(repo.gitdir, 'rev-list', '--count', 'main').trim()).toBe('1');
  });

  it('writes one changed file as one new blob and keeps every other subtree oid', async () => {
    const repo = await LandscapeRepo.open(join(tmp.path, 'repo.git'));
    const first = (await repo.commitFiles(request(landscape))).oid as string;
    const objectsBefore = gitCli(repo.gitdir, 'count-objects', '-v');
    const second = await repo.commitFiles(
      request(
        { ...landscape, 'shoots/b/shoot.yaml': 'kind: Shoot\nname: b\nmaximum: 5\n' },
        { branch: 'kimops/dev/b', base: 'main', deletions: 'replace-shoots-folder' },
      ),
    );
    expect(second).toMatchObject({ changed: true, changedPaths: ['shoots/b/shoot.yaml'] });
    const oid = second.oid as string;
    expect(await repo.resolve('main')).toBe(first);
    expect(await repo.resolve('kimops/dev/b')).toBe(oid);
    expect(await treeOid(repo, oid, 'shoots/a')).toBe(await treeOid(repo, first, 'shoots/a'));
    expect(await treeOid(repo, oid, 'shoots/b')).not.toBe(await treeOid(repo, first, 'shoots/b'));
    // New: the blob, shoots/b, shoots, the root tree and the commit — five loose objects.
    const looseCount = (stats: string) => Number(/^count: (\d+)$/m.exec(stats)?.[1]);
    expect(looseCount(gitCli(repo.gitdir, 'count-objects', '-v')) - looseCount(objectsBefore)).toBe(5);
    expect(gitCli(repo.gitdir, 'rev-parse', 'kimops/dev/b^').trim()).toBe(first);
  });

  it('removes a deleted Shoot folder and leaves no empty folder', async () => {
    const repo = await LandscapeRepo.open(join(tmp.path, 'repo.git'));
    await repo.commitFiles(request(landscape));
    const { changedPaths } = await repo.commitFiles(request({}, { deletions: ['shoots/a'] }));
    expect(changedPaths).toEqual(['shoots/a/configmap-structured-auth-config-a.yaml', 'shoots/a/shoot.yaml']);
    const replaced = await repo.commitFiles(
      request({ 'shoots/c/shoot.yaml': 'c\n' }, { deletions: 'replace-shoots-folder' }),
    );
    expect(replaced.changedPaths).toEqual(['shoots/b/shoot.yaml', 'shoots/c/shoot.yaml']);
    expect(gitCli(repo.gitdir, 'ls-tree', '-r', '-t', '--name-only', 'main').trim().split('\n')).toEqual([
      'kimops.yaml',
      'shoots',
      'shoots/c',
      'shoots/c/shoot.yaml',
    ]);
    await repo.commitFiles(request({}, { deletions: ['shoots/c/shoot.yaml'] }));
    expect(gitCli(repo.gitdir, 'ls-tree', '-r', '-t', '--name-only', 'main').trim()).toBe('kimops.yaml');
    gitCli(repo.gitdir, 'fsck', '--strict', '--no-dangling');
  });

  it('reports a file that became a folder, and a folder that became a file, with everything under them', async () => {
    const repo = await LandscapeRepo.open(join(tmp.path, 'repo.git'));
    await repo.commitFiles(request({ 'shoots/a': 'file\n', 'shoots/b/shoot.yaml': 'b\n', 'shoots/b/cm.yaml': 'cm\n' }));
    const swapped = await repo.commitFiles(
      request({ 'shoots/a/shoot.yaml': 'a\n', 'shoots/b': 'file\n' }, { deletions: 'replace-shoots-folder' }),
    );
    expect(swapped.changedPaths).toEqual([
      'shoots/a',
      'shoots/a/shoot.yaml',
      'shoots/b',
      'shoots/b/cm.yaml',
      'shoots/b/shoot.yaml',
    ]);
    gitCli(repo.gitdir, 'fsck', '--strict', '--no-dangling');
  });

  it('sorts tree entries as git does (a folder compares as "name/")', async () => {
    const repo = await LandscapeRepo.open(join(tmp.path, 'repo.git'));
    await repo.commitFiles(
      request({ 'a/x.yaml': 'x\n', 'a.yaml': '.\n', 'a-b.yaml': '-\n', a0: '0\n', 'ü.yaml': 'u\n', 'z.yaml': 'z\n' }),
    );
    gitCli(repo.gitdir, 'fsck', '--strict', '--no-dangling');
    expect(gitCli(repo.gitdir, 'ls-tree', '--name-only', 'main').trim().split('\n')).toEqual([
      'a-b.yaml',
      'a.yaml',
      'a',
      'a0',
      'z.yaml',
      '"\\303\\274.yaml"',
    ]);
  });

  it('writes the same commit oid for the same input and timestamp', async () => {
    const one = await LandscapeRepo.open(join(tmp.path, 'one.git'));
    const two = await LandscapeRepo.open(join(tmp.path, 'two.git'));
    expect((await one.commitFiles(request(landscape))).oid).toBe((await two.commitFiles(request(landscape))).oid);
  });

  it.each([
    '../escape.yaml',
    '/etc/passwd',
    'shoots//a.yaml',
    'shoots/./a.yaml',
    'shoots/a/',
    '.git/config',
    'a\\..\\b',
    '',
  ])('refuses the path %j', async (path) => {
    const repo = await LandscapeRepo.open(join(tmp.path, 'repo.git'));
    await expect(repo.commitFiles(request({ [path]: 'x' }))).rejects.toThrow(ConfigError);
    await expect(repo.commitFiles(request({}, { deletions: [path] }))).rejects.toThrow(ConfigError);
  });

  it('refuses a file where a folder is, and an unknown base', async () => {
    const repo = await LandscapeRepo.open(join(tmp.path, 'repo.git'));
    await repo.commitFiles(request(landscape));
    await expect(repo.commitFiles(request({ 'kimops.yaml/x': 'x' }))).rejects.toThrow(
      /kimops.yaml: is a file, not a folder/,
    );
    await expect(repo.commitFiles(request({ shoots: 'x' }))).rejects.toThrow(/shoots: is a folder, not a file/);
    await expect(repo.commitFiles(request({}, { base: 'nowhere' }))).rejects.toThrow(
      /nowhere is neither a branch nor a commit/,
    );
    for (const branch of ['kimops/dev/../x', 'kimops dev', 'kimops/dev/', '.hidden', 'x.lock']) {
      await expect(repo.commitFiles(request({ 'a.yaml': 'a' }, { branch }))).rejects.toThrow(
        /is not a valid git branch name/,
      );
    }
  });

  it('writes a large first commit as one pack that git verifies', async () => {
    const repo = await LandscapeRepo.open(join(tmp.path, 'repo.git'));
    const many = Object.fromEntries(
      Array.from({ length: 300 }, (_, i) => [`shoots/s${i}/shoot.yaml`, `name: s${i}\n${'x'.repeat(i * 7)}\n`]),
    );
    const { oid } = await repo.commitFiles(request(many));
    const packs = fs.readdirSync(join(repo.gitdir, 'objects', 'pack'));
    expect(packs.filter((f) => f.endsWith('.idx'))).toHaveLength(1);
    gitCli(
      repo.gitdir,
      'verify-pack',
      join(repo.gitdir, 'objects', 'pack', packs.find((f) => f.endsWith('.idx')) as string),
    );
    gitCli(repo.gitdir, 'fsck', '--strict', '--no-dangling');
    expect(gitCli(repo.gitdir, 'show', `${oid}:shoots/s299/shoot.yaml`)).toBe(many['shoots/s299/shoot.yaml']);
    // isomorphic-git reads it back too: a change on top of the pack.
    const next = await repo.commitFiles(
      request({ ...many, 'shoots/s7/shoot.yaml': 'changed\n' }, { deletions: 'replace-shoots-folder' }),
    );
    expect(next.changedPaths).toEqual(['shoots/s7/shoot.yaml']);
    // A second pack, written by the same instance, is found by it and by git.
    const rewritten = Object.fromEntries(Object.entries(many).map(([path, content]) => [path, `${content}v2\n`]));
    const third = await repo.commitFiles(request(rewritten, { deletions: 'replace-shoots-folder' }));
    expect(third.changedPaths).toHaveLength(300);
    expect(await (await repo.readFiles('main')).get('shoots/s5/shoot.yaml')?.read()).toBe(
      rewritten['shoots/s5/shoot.yaml'],
    );
    gitCli(repo.gitdir, 'fsck', '--strict', '--no-dangling');
  });
});

describe('folderOid', () => {
  it('is the oid git gives the committed folder, so equal oids mean equal files without reading any', async () => {
    const repo = await LandscapeRepo.open(join(tmp.path, 'landscape.git'));
    await repo.commitFiles(request(landscape));
    const folders = await repo.listFolder('main', 'shoots');
    const a = new Map([
      ['shoot.yaml', landscape['shoots/a/shoot.yaml']],
      ['configmap-structured-auth-config-a.yaml', landscape['shoots/a/configmap-structured-auth-config-a.yaml']],
    ]);
    expect(folderOid(a)).toBe(folders.get('a')?.oid);
    expect(folderOid(a)).toBe(gitCli(repo.gitdir, 'rev-parse', 'main:shoots/a').trim());
    expect(folderOid(new Map([...a, ['shoot.yaml', 'kind: Shoot\nname: changed\n']]))).not.toBe(folders.get('a')?.oid);
    expect(folderOid(new Map([['shoot.yaml', landscape['shoots/a/shoot.yaml']]]))).not.toBe(folders.get('a')?.oid);
  });
});
