// A kimops release tarball (what `npm pack` makes and a GitHub release carries), read for `kimops init
// --release-tarball`: its sha512, which the landscape repo's workflow checks before installing it, and the name
// and version its package/package.json gives. A file that is no kimops package is a ConfigError with the fix.
import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { gunzipSync } from 'node:zlib';
import { ConfigError } from '../../model/errors.js';
import { fileProblemReason } from './read-text.js';

export interface ReleaseTarball {
  /** The package's version (package/package.json). */
  version: string;
  /** sha512 of the file, lower-case hex as `sha512sum` prints it. */
  sha512: string;
}

/** A kimops package is a few MiB unpacked; a file far larger is no release of it. */
const MAX_TARBALL_BYTES = 64 * 2 ** 20;
const MAX_UNPACKED_BYTES = 256 * 2 ** 20;
const OPTION = '--release-tarball';
const PACKAGE_JSON = 'package/package.json';

export async function readReleaseTarball(path: string): Promise<ReleaseTarball> {
  const bytes = await readBytes(path);
  const problem = (detail: string) =>
    new ConfigError(
      OPTION,
      '',
      `${path} ${detail}; pass the kimops-<version>.tgz of a kimops release (npm pack makes it)`,
    );
  let tar: Buffer;
  try {
    tar = gunzipSync(bytes, { maxOutputLength: MAX_UNPACKED_BYTES });
  } catch {
    throw problem('is not a gzip-compressed tar file');
  }
  const packageJson = tarEntry(tar, PACKAGE_JSON);
  if (packageJson === undefined) throw problem(`holds no ${PACKAGE_JSON}`);
  let manifest: unknown;
  try {
    manifest = JSON.parse(packageJson.toString('utf8'));
  } catch {
    throw problem(`has a ${PACKAGE_JSON} that is not JSON`);
  }
  const { name, version } = (manifest ?? {}) as { name?: unknown; version?: unknown };
  if (name !== 'kimops') throw problem(`is the package ${JSON.stringify(name)}, not kimops`);
  if (typeof version !== 'string' || !/^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/.test(version))
    throw problem(`has no version kimops releases carry (got ${JSON.stringify(version)})`);
  return { version, sha512: createHash('sha512').update(bytes).digest('hex') };
}

async function readBytes(path: string): Promise<Buffer> {
  const refused = (reason: string) => new ConfigError(OPTION, '', `${path} ${reason}`);
  try {
    // Only a regular file: a FIFO or device would never end.
    const stats = await stat(path);
    if (!stats.isFile()) throw refused('is not a regular file; pass the downloaded kimops-<version>.tgz');
    if (stats.size > MAX_TARBALL_BYTES)
      throw refused(`is ${Math.ceil(stats.size / 2 ** 20)} MiB, far larger than a kimops release; pass its .tgz`);
    return await readFile(path);
  } catch (error) {
    const reason = fileProblemReason(error);
    if (reason) throw refused(reason);
    throw error;
  }
}

/**
 * The content of the entry at `name` in an uncompressed tar archive (ustar, with pax `path` records as npm's tar
 * writes them for long names), or undefined. Pure: bytes in, bytes out.
 */
export function tarEntry(tar: Buffer, name: string): Buffer | undefined {
  let longName: string | undefined;
  for (let at = 0; at + 512 <= tar.length;) {
    const header = tar.subarray(at, at + 512);
    if (header.every((byte) => byte === 0)) return undefined; // the end-of-archive blocks
    const size = Number.parseInt(field(header, 124, 12).trim() || '0', 8);
    if (!Number.isSafeInteger(size) || size < 0 || at + 512 + size > tar.length) return undefined;
    const body = tar.subarray(at + 512, at + 512 + size);
    const type = String.fromCharCode(header[156] ?? 0);
    at += 512 + Math.ceil(size / 512) * 512;
    if (type === 'x') {
      longName = /(?:^|\n)\d+ path=([^\n]*)\n/.exec(body.toString('utf8'))?.[1];
      continue;
    }
    const prefix = field(header, 345, 155);
    const path = longName ?? (prefix ? `${prefix}/${field(header, 0, 100)}` : field(header, 0, 100));
    longName = undefined;
    if ((type === '0' || type === '\0') && path === name) return body;
  }
  return undefined;
}

function field(header: Buffer, start: number, length: number): string {
  const bytes = header.subarray(start, start + length);
  const end = bytes.indexOf(0);
  return bytes.subarray(0, end < 0 ? bytes.length : end).toString('utf8');
}
