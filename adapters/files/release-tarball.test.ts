// The release tarball as `kimops init --release-tarball` reads it: the sha512 sha512sum would print, the version
// from package/package.json — found in a tar as GNU tar writes it too (pax records for long names, ustar prefixes,
// GNU long-name entries).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { useTempDir } from '../../test/helpers/temp-dir.js';
import { readReleaseTarball, tarEntry } from './release-tarball.js';

const dir = useTempDir('release-tarball');

/** A tarball of `package/` holding `files`, made by tar in `format`. */
async function tarball(files: Record<string, string>, format = 'ustar'): Promise<string> {
  const root = join(dir.path, 'tree');
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(root, 'package', path, '..'), { recursive: true });
    await writeFile(join(root, 'package', path), text);
  }
  const file = join(dir.path, 'kimops.tgz');
  // Sorted, so package.json comes after the long names.
  execFileSync('tar', [`--format=${format}`, '--sort=name', '-czf', file, '-C', root, 'package']);
  return file;
}

describe('readReleaseTarball', () => {
  it("gives the file's sha512 as sha512sum prints it and the package's version", async () => {
    const file = await tarball({ 'package.json': '{"name":"kimops","version":"1.2.3-rc.1"}', 'README.md': 'x\n' });
    const sha512 = createHash('sha512')
      .update(await readFile(file))
      .digest('hex');
    expect(execFileSync('sha512sum', [file], { encoding: 'utf8' }).split(' ')[0]).toBe(sha512);
    expect(await readReleaseTarball(file)).toEqual({ version: '1.2.3-rc.1', sha512 });
  });

  it('finds package/package.json after entries with long names (pax, GNU) and deep folders (ustar prefix)', async () => {
    const deep = `dist/${'a'.repeat(80)}/${'c'.repeat(40)}/${'b'.repeat(60)}.js`;
    const long = `${'e'.repeat(110)}.js`;
    const manifest = { 'package.json': '{"name":"kimops","version":"0.9.0"}' };
    for (const [format, files, marker] of [
      ['ustar', { [deep]: 'x', ...manifest }, `package/dist/${'a'.repeat(80)}`],
      ['pax', { [deep]: 'x', [long]: 'x', ...manifest }, `path=package/${long}`],
      ['gnu', { [deep]: 'x', [long]: 'x', ...manifest }, '././@LongLink'],
    ] as const) {
      const file = await tarball(files, format);
      // The archive really has the shape named (a ustar prefix, a pax record, a GNU long-name entry).
      expect(gunzipSync(await readFile(file)).includes(marker)).toBe(true);
      expect((await readReleaseTarball(file)).version).toBe('0.9.0');
    }
  });

  it.each([
    ['no package.json', { 'README.md': 'x' }, 'holds no package/package.json'],
    ['package.json that is no JSON', { 'package.json': '{' }, 'has a package/package.json that is not JSON'],
    ['another package', { 'package.json': '{"name":"left-pad","version":"1.0.0"}' }, 'is the package "left-pad"'],
    ['no version', { 'package.json': '{"name":"kimops"}' }, 'has no version kimops releases carry'],
  ])('refuses a tarball with %s, saying what to pass', async (_, files, reason) => {
    const file = await tarball(files);
    await expect(readReleaseTarball(file)).rejects.toThrow(`--release-tarball: ${file} ${reason}`);
    await expect(readReleaseTarball(file)).rejects.toThrow('; pass the kimops-<version>.tgz of a kimops release');
  });

  it('refuses what is no gzip, no file or not there', async () => {
    await expect(readReleaseTarball(await dir.write('x.tgz', 'plain'))).rejects.toThrow(
      'is not a gzip-compressed tar file',
    );
    await expect(readReleaseTarball(dir.path)).rejects.toThrow('is not a regular file');
    await expect(readReleaseTarball(join(dir.path, 'missing.tgz'))).rejects.toThrow(/missing\.tgz not found$/);
  });
});

describe('tarEntry', () => {
  it('stops at a truncated archive instead of reading past it', () => {
    const header = Buffer.alloc(512);
    header.write('package/package.json', 0);
    header.write('00000001000 ', 124); // 512 bytes claimed, none there
    header.write('0', 156);
    expect(tarEntry(header, 'package/package.json')).toBeUndefined();
    expect(tarEntry(gzipSync(Buffer.alloc(0)), 'package/package.json')).toBeUndefined();
  });
});
