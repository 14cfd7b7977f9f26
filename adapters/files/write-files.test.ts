import { execFileSync } from 'node:child_process';
import { lstat, mkdir, readdir, readFile, stat, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../model/errors.js';
import { useTempDir } from '../../test/helpers/temp-dir.js';
import { outputFolder, writeFileWhole, writeFiles, writeProblemReason } from './write-files.js';

const dir = useTempDir('write');

describe('writeFiles', () => {
  it('creates folders, writes the files, and leaves unchanged files alone', async () => {
    const files = [
      { path: 'shoots/a/shoot.yaml', content: 'a\n' },
      { path: 'shoots/b/shoot.yaml', content: 'b\n' },
    ];
    expect(await writeFiles(dir.path, files)).toEqual({
      written: ['shoots/a/shoot.yaml', 'shoots/b/shoot.yaml'],
      unchanged: [],
    });
    const before = (await stat(join(dir.path, 'shoots/a/shoot.yaml'))).mtimeMs;

    const again = await writeFiles(dir.path, [
      { path: 'shoots/a/shoot.yaml', content: 'a\n' },
      { path: 'shoots/b/shoot.yaml', content: 'b2\n' },
    ]);
    expect(again).toEqual({ written: ['shoots/b/shoot.yaml'], unchanged: ['shoots/a/shoot.yaml'] });
    expect((await stat(join(dir.path, 'shoots/a/shoot.yaml'))).mtimeMs).toBe(before);
    expect(await readFile(join(dir.path, 'shoots/b/shoot.yaml'), 'utf8')).toBe('b2\n');
  });

  it.each(['../escape.yaml', 'shoots/../../escape.yaml', '/etc/escape.yaml', '', '.'])(
    'refuses %j and writes nothing at all',
    async (path) => {
      const out = join(dir.path, 'out');
      const write = writeFiles(out, [
        { path: 'shoots/ok/shoot.yaml', content: 'ok\n' },
        { path, content: 'x' },
      ]);
      await expect(write).rejects.toThrow(ConfigError);
      await expect(write).rejects.toThrow('would be written outside the output folder');
      expect(await readdir(dir.path)).toEqual([]);
    },
  );

  it('refuses an output folder that is a file, or lies under one', async () => {
    const file = await dir.write('file', 'x\n');
    await expect(writeFiles(file, [{ path: 'a.yaml', content: 'a\n' }])).rejects.toThrow(
      `--out: ${file} is a file, not a folder — pass a folder (one that does not exist yet is created); nothing was written`,
    );
    await expect(writeFiles(join(file, 'out'), [{ path: 'a.yaml', content: 'a\n' }], '--into')).rejects.toThrow(
      `--into: ${file}/out cannot be created: ${file} is a file, not a folder — pass a path under a folder; nothing was written`,
    );
    expect(
      await outputFolder(join(dir.path, 'new', 'deeper'), () => new ConfigError('x', '', 'unexpected')),
    ).toBeUndefined();
  });

  it('writes nothing through a symbolic link that leads out of the folder, and nothing at all when one does', async () => {
    const out = join(dir.path, 'out');
    const outside = join(dir.path, 'outside');
    await mkdir(join(out, 'shoots'), { recursive: true });
    await mkdir(outside);
    await symlink(outside, join(out, 'shoots', 'b'));
    const write = writeFiles(out, [
      { path: 'shoots/a/shoot.yaml', content: 'a\n' },
      { path: 'shoots/b/deeper/shoot.yaml', content: 'b\n' },
    ]);
    await expect(write).rejects.toThrow(
      `--out: ${out}: shoots/b leads to ${outside}, outside the output folder, through a symbolic link`,
    );
    expect(await readdir(outside)).toEqual([]);
    expect(await readdir(join(out, 'shoots'))).toEqual(['b']);
  });

  it('follows a link to a folder inside the output folder', async () => {
    const out = join(dir.path, 'out');
    await mkdir(join(out, 'real'), { recursive: true });
    await symlink(join(out, 'real'), join(out, 'shoots'));
    expect((await writeFiles(out, [{ path: 'shoots/a/shoot.yaml', content: 'a\n' }])).written).toEqual([
      'shoots/a/shoot.yaml',
    ]);
    expect(await readFile(join(out, 'real', 'a', 'shoot.yaml'), 'utf8')).toBe('a\n');
  });

  it('refuses a link, a folder or a FIFO where a file goes', async () => {
    const out = join(dir.path, 'out');
    const target = await dir.write('target.yaml', 'mine\n');
    await mkdir(join(out, 'a'), { recursive: true });
    await symlink(target, join(out, 'a', 'shoot.yaml'));
    await mkdir(join(out, 'b', 'shoot.yaml'), { recursive: true });
    await mkdir(join(out, 'c'));
    execFileSync('mkfifo', [join(out, 'c', 'shoot.yaml')]);
    for (const [folder, what] of [
      ['a', 'is a symbolic link — kimops writes no file through a link: remove it'],
      ['b', 'is a folder where kimops writes a file — remove it'],
      ['c', 'is no regular file where kimops writes a file — remove it'],
    ]) {
      await expect(writeFiles(out, [{ path: `${folder}/shoot.yaml`, content: 'x\n' }])).rejects.toThrow(
        `--out: ${out}: ${folder}/shoot.yaml ${what}; nothing was written`,
      );
    }
    expect(await readFile(target, 'utf8')).toBe('mine\n');
  });

  it('says why a write failed when the user can fix it', () => {
    const failure = (code: string) => Object.assign(new Error(code), { code });
    expect(['EACCES', 'EROFS', 'ENOSPC', 'EIO'].map((code) => writeProblemReason(failure(code)))).toEqual([
      'permission denied',
      'the file system is read-only',
      'no space left on the device',
      undefined,
    ]);
  });
});

describe('writeFileWhole', () => {
  it('creates the folder and the file, and leaves no temporary file', async () => {
    const path = join(dir.path, 'landscapes/prod/landscape.yaml');
    await writeFileWhole(path, 'name: prod\n', false, '--out');
    expect(await readFile(path, 'utf8')).toBe('name: prod\n');
    expect(await readdir(join(dir.path, 'landscapes/prod'))).toEqual(['landscape.yaml']);
  });

  it('refuses an existing file without force, and a folder even with it', async () => {
    const path = await dir.write('landscape.yaml', 'kept\n');
    await expect(writeFileWhole(path, 'new\n', false, '--out')).rejects.toThrow(
      `--out: ${path} exists — pass --force to replace it, or another path; nothing was written`,
    );
    expect(await readFile(path, 'utf8')).toBe('kept\n');
    await mkdir(join(dir.path, 'folder'));
    await expect(writeFileWhole(join(dir.path, 'folder'), 'new\n', true, '--out')).rejects.toThrow(ConfigError);
    await expect(writeFileWhole(join(dir.path, 'folder'), 'new\n', true, '--out')).rejects.toThrow(
      'is a folder — pass the path of a file',
    );
  });

  it('with force, replaces a file, and a symbolic link in its place rather than writing through it', async () => {
    const target = await dir.write('elsewhere.yaml', 'untouched\n');
    const path = join(dir.path, 'landscape.yaml');
    await symlink(target, path);
    await writeFileWhole(path, 'new\n', true, '--out');
    expect(await readFile(path, 'utf8')).toBe('new\n');
    expect(await readFile(target, 'utf8')).toBe('untouched\n');
    expect((await lstat(path)).isSymbolicLink()).toBe(false);
  });
});
