import { execFileSync } from 'node:child_process';
import { symlink, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../model/errors.js';
import { useTempDir } from '../../test/helpers/temp-dir.js';
import { MAX_TEXT_FILE_BYTES, readTextFile } from './read-text.js';

const dir = useTempDir('read-text');
const named = (path: string) => (reason: string) => new ConfigError(path, '', reason);

describe('readTextFile', () => {
  it('reads a file (through a link too) without the BOM Windows editors write', async () => {
    const file = await dir.write('a.yaml', '\ufeffa: 1\n');
    await symlink(file, join(dir.path, 'link.yaml'));
    expect(await readTextFile(file, named(file))).toBe('a: 1\n');
    expect(await readTextFile(join(dir.path, 'link.yaml'), named('link.yaml'))).toBe('a: 1\n');
  });

  it('refuses a FIFO without waiting for a writer, and a device (a link to /dev/zero) without reading it', async () => {
    const fifo = join(dir.path, 'fifo.yaml');
    execFileSync('mkfifo', [fifo]);
    await expect(readTextFile(fifo, named(fifo))).rejects.toThrow(
      `${fifo}: is a named pipe (FIFO), not a file: kimops reads regular files only — save the content to a file and pass that`,
    );
    const zero = join(dir.path, 'zero.yaml');
    await symlink('/dev/zero', zero);
    await expect(readTextFile(zero, named(zero))).rejects.toThrow(
      `${zero}: is a device, not a file: kimops reads regular files only`,
    );
  });

  it(`refuses a file over ${MAX_TEXT_FILE_BYTES / 2 ** 20} MiB before reading it`, async () => {
    const large = await dir.write('large.yaml', '');
    await truncate(large, MAX_TEXT_FILE_BYTES + 1); // sparse: nothing is written to disk
    await expect(readTextFile(large, named(large))).rejects.toThrow(
      `${large}: is 257 MiB, over kimops's limit of 256 MiB for one file — split it into several files`,
    );
  });

  it('words the file-system errors a user can fix', async () => {
    await expect(readTextFile(join(dir.path, 'missing.yaml'), named('missing.yaml'))).rejects.toThrow(
      'missing.yaml: not found',
    );
    await expect(readTextFile(dir.path, named('folder'))).rejects.toThrow('folder: is a directory, not a file');
    await symlink('loop.yaml', join(dir.path, 'loop.yaml'));
    await expect(readTextFile(join(dir.path, 'loop.yaml'), named('loop.yaml'))).rejects.toThrow(
      'loop.yaml: is a symbolic link that leads in a circle',
    );
  });
});
