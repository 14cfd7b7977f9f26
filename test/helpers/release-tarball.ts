// A stand-in for a release's kimops-<version>.tgz: a gzipped tar holding package/package.json, as npm pack makes it.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export async function releaseTarball(
  dir: string,
  manifest: Record<string, unknown>,
): Promise<{ file: string; sha512: string }> {
  const folder = join(dir, `release-${String(manifest.version)}`);
  await mkdir(join(folder, 'package'), { recursive: true });
  await writeFile(join(folder, 'package', 'package.json'), JSON.stringify(manifest));
  await writeFile(join(folder, 'package', 'README.md'), 'kimops\n');
  const file = join(dir, `kimops-${String(manifest.version)}.tgz`);
  execFileSync('tar', ['-czf', file, '-C', folder, 'package']);
  return {
    file,
    sha512: createHash('sha512')
      .update(await readFile(file))
      .digest('hex'),
  };
}
