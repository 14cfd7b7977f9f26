import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../model/errors.js';
import { useTempDir } from '../../test/helpers/temp-dir.js';
import { writeFiles } from './write-files.js';

const dir = useTempDir('write');

describe('writeFiles', () => {
  it('creates folders, writes the files, and leaves unchanged files alone', async () => {
    const files = [
      { path: 'shoots/a/shoot.yaml', content: 'a\n' },
      { path: 'shoots/b/shoot.yaml', content: 'b\n' },
    ];
    expect(await writeFiles(dir.path, files)).toEqual({ written: ['shoots/a/shoot.yaml', 'shoots/b/shoot.yaml'], unchanged: [] });
    const before = (await stat(join(dir.path, 'shoots/a/shoot.yaml'))).mtimeMs;

    const again = await writeFiles(dir.path, [{ path: 'shoots/a/shoot.yaml', content: 'a\n' }, { path: 'shoots/b/shoot.yaml', content: 'b2\n' }]);
    expect(again).toEqual({ written: ['shoots/b/shoot.yaml'], unchanged: ['shoots/a/shoot.yaml'] });
    expect((await stat(join(dir.path, 'shoots/a/shoot.yaml'))).mtimeMs).toBe(before);
    expect(await readFile(join(dir.path, 'shoots/b/shoot.yaml'), 'utf8')).toBe('b2\n');
  });

  it.each(['../escape.yaml', 'shoots/../../escape.yaml', '/etc/escape.yaml', '', '.'])(
    'refuses %j and writes nothing at all',
    async (path) => {
      const out = join(dir.path, 'out');
      const write = writeFiles(out, [{ path: 'shoots/ok/shoot.yaml', content: 'ok\n' }, { path, content: 'x' }]);
      await expect(write).rejects.toThrow(ConfigError);
      await expect(write).rejects.toThrow('would be written outside the output folder');
      expect(await readdir(dir.path)).toEqual([]);
    },
  );
});
