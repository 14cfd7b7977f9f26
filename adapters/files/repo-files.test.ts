import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../model/errors.js';
import { useTempDir } from '../../test/helpers/temp-dir.js';
import { readRepoFiles } from './repo-files.js';

const dir = useTempDir('repo-files');

describe('readRepoFiles', () => {
  it('reads every text file by repo path, without .git, binaries or symlinks', async () => {
    await dir.write('kimops.yaml', 'landscape: dev\n');
    await dir.write('shoots/a/shoot.yaml', 'kind: Shoot\n');
    await dir.write('.git/HEAD', 'ref: refs/heads/main\n');
    await writeFile(join(dir.path, 'logo.png'), Buffer.from([0x89, 0x50, 0x00, 0x01]));
    await mkdir(join(dir.path, 'outside'));
    await symlink('/etc', join(dir.path, 'outside', 'etc'));
    const files = await readRepoFiles(dir.path);
    expect([...files.keys()]).toEqual(['kimops.yaml', 'shoots/a/shoot.yaml']);
    expect(files.get('shoots/a/shoot.yaml')).toBe('kind: Shoot\n');
  });

  it('names a folder it cannot read', async () => {
    const error = await readRepoFiles(join(dir.path, 'missing')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain("cannot be read (ENOENT); pass the landscape repo's checkout");
  });
});
