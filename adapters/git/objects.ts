// Git objects hashed and written by kimops itself: node's native SHA-1 and zlib, text hashed without a
// copy; a bulk write (the first commit of a landscape, thousands of Shoots) goes into one packfile
// instead of tens of thousands of loose files, whose creation is what makes `git add` slow — the same
// rule as git's own `transfer.unpackLimit`. Small writes stay loose. Every object reaches its final name
// by a rename, so a crash leaves it whole or absent; and an object already there is trusted only after
// its bytes were checked against its id (one left empty by an older kimops is written again).
import { createHash } from 'node:crypto';
import { mkdir, open, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { deflateSync, inflateSync } from 'node:zlib';
import { ConfigError } from '../../model/errors.js';
import { temporaryPathFor, writeFileAtomic } from './atomic-file.js';
import type { ObjectType } from '../../model/git-object-id.js';

export interface GitObject {
  type: ObjectType;
  oid: string;
  /** The object's content, without git's `<type> <size>\0` header; text is UTF-8. */
  body: string | Uint8Array;
}

/** Below this many objects a write stays loose (git's default `transfer.unpackLimit`). */
const LOOSE_OBJECT_LIMIT = 100;

/** Fastest zlib level, as git writes its own new objects (`core.looseCompression` defaults to 1). */
const DEFLATE = { level: 1 };

const bytesOf = (body: string | Uint8Array): Uint8Array => (typeof body === 'string' ? Buffer.from(body) : body);

export async function writeObjects(gitdir: string, objects: readonly GitObject[]): Promise<void> {
  if (objects.length === 0) return;
  if (objects.length < LOOSE_OBJECT_LIMIT) {
    for (const object of objects) await writeLoose(gitdir, object);
    return;
  }
  // A damaged loose copy would shadow the packed one for readers that look at loose objects first.
  for (const { oid } of objects)
    if ((await looseState(gitdir, oid)) === 'damaged') await rm(loosePath(gitdir, oid), { force: true });
  await writePack(gitdir, objects);
}

const loosePath = (gitdir: string, oid: string) => join(gitdir, 'objects', oid.slice(0, 2), oid.slice(2));

async function writeLoose(gitdir: string, { type, oid, body }: GitObject): Promise<void> {
  if ((await looseState(gitdir, oid)) === 'intact') return;
  const wrapped = Buffer.concat([Buffer.from(`${type} ${Buffer.byteLength(body)}\0`), bytesOf(body)]);
  const path = loosePath(gitdir, oid);
  await mkdir(join(gitdir, 'objects', oid.slice(0, 2)), { recursive: true });
  await writeFileAtomic(path, deflateSync(wrapped, DEFLATE));
}

/** Whether a loose object is there, and if so whether its bytes hash to its name. */
async function looseState(gitdir: string, oid: string): Promise<'absent' | 'intact' | 'damaged'> {
  let deflated: Buffer;
  try {
    deflated = await readFile(loosePath(gitdir, oid));
  } catch {
    return 'absent';
  }
  try {
    return createHash('sha1').update(inflateSync(deflated)).digest('hex') === oid ? 'intact' : 'damaged';
  } catch {
    return 'damaged';
  }
}

/** Who and when, as git records it in a commit. */
export interface CommitSignature {
  name: string;
  email: string;
  /** Seconds since the epoch. */
  timestamp: number;
  /** Minutes as isomorphic-git and JavaScript count them: UTC+2 is -120. */
  timezoneOffset: number;
}

/**
 * A commit object's body as git writes it. Names and emails are refused when they would break the
 * header (a newline in a reviewer's name would otherwise add header lines of its own).
 */
export function commitBody(commit: {
  tree: string;
  parents: readonly string[];
  author: CommitSignature;
  committer: CommitSignature;
  message: string;
}): string {
  const lines = [
    `tree ${commit.tree}`,
    ...commit.parents.map((parent) => `parent ${parent}`),
    `author ${signatureLine(commit.author)}`,
    `committer ${signatureLine(commit.committer)}`,
  ];
  return `${lines.join('\n')}\n\n${commit.message}`;
}

function signatureLine({ name, email, timestamp, timezoneOffset }: CommitSignature): string {
  for (const [field, value] of [
    ['name', name],
    ['email', email],
  ] as const) {
    if (!isSignatureText(value))
      throw new ConfigError(
        `commit signature ${JSON.stringify(value)}`,
        field,
        'must be non-empty, without control characters, "<" or ">"; choose another name',
      );
  }
  const minutes = Math.abs(timezoneOffset);
  const zone = `${timezoneOffset > 0 ? '-' : '+'}${String(Math.floor(minutes / 60)).padStart(2, '0')}${String(minutes % 60).padStart(2, '0')}`;
  return `${name} <${email}> ${timestamp} ${zone}`;
}

/** Text git can carry in a signature: no control characters, no angle brackets, not blank. */
export function isSignatureText(text: string): boolean {
  return text.trim() !== '' && !/[\p{Cc}<>]/u.test(text);
}

/** Compressed pack bytes gathered before one write. */
const PACK_WRITE_CHUNK = 4 * 2 ** 20;

const PACK_TYPE: Record<ObjectType, number> = { commit: 1, tree: 2, blob: 3 };

/** A version-2 packfile of undeltified objects and its version-2 index (git's pack-format.txt), written
 * as it is built so that only the compressed bytes of a few objects are in memory at a time. */
async function writePack(gitdir: string, objects: readonly GitObject[]): Promise<void> {
  const dir = join(gitdir, 'objects', 'pack');
  await mkdir(dir, { recursive: true });
  const temporary = temporaryPathFor(join(dir, 'pack'));
  const file = await open(temporary, 'w');
  const packHash = createHash('sha1');
  let buffered: Buffer[] = [];
  let bufferedBytes = 0;
  const append = async (chunk: Buffer) => {
    packHash.update(chunk);
    buffered.push(chunk);
    bufferedBytes += chunk.length;
    if (bufferedBytes < PACK_WRITE_CHUNK) return;
    await file.writev(buffered);
    buffered = [];
    bufferedBytes = 0;
  };

  const entries: { oid: Buffer; offset: number; crc: number }[] = [];
  let checksum: Buffer;
  try {
    const header = Buffer.alloc(12);
    header.write('PACK', 0, 'latin1');
    header.writeUInt32BE(2, 4);
    header.writeUInt32BE(objects.length, 8);
    await append(header);
    let offset = header.length;
    for (const { type, oid, body } of objects) {
      const bytes = bytesOf(body);
      const packed = Buffer.concat([entryHeader(PACK_TYPE[type], bytes.byteLength), deflateSync(bytes, DEFLATE)]);
      entries.push({ oid: Buffer.from(oid, 'hex'), offset, crc: crc32(packed) });
      await append(packed);
      offset += packed.length;
    }
    if (offset >= 2 ** 31) throw new Error(`pack of ${offset} bytes needs 64-bit offsets, which kimops does not write`);
    checksum = packHash.digest();
    await file.writev([...buffered, checksum]);
  } finally {
    await file.close();
  }

  entries.sort((a, b) => Buffer.compare(a.oid, b.oid));
  const fanout = Buffer.alloc(256 * 4);
  for (let byte = 0, i = 0; byte < 256; byte++) {
    while (i < entries.length && (entries[i]?.oid[0] ?? 256) <= byte) i++;
    fanout.writeUInt32BE(i, byte * 4);
  }
  const crcs = Buffer.alloc(entries.length * 4);
  const offsets = Buffer.alloc(entries.length * 4);
  entries.forEach((e, i) => {
    crcs.writeUInt32BE(e.crc, i * 4);
    offsets.writeUInt32BE(e.offset, i * 4);
  });
  const index = Buffer.concat([
    Buffer.from([0xff, 0x74, 0x4f, 0x63, 0, 0, 0, 2]),
    fanout,
    ...entries.map((e) => e.oid),
    crcs,
    offsets,
    checksum,
  ]);

  // Pack first, index last and by rename: readers find a pack through its index, so they never see half of one;
  // the temporary index does not end in .idx, so git never takes it for one.
  const name = join(dir, `pack-${checksum.toString('hex')}`);
  await rename(temporary, `${name}.pack`);
  await writeFile(`${temporary}-idx`, [index, createHash('sha1').update(index).digest()]);
  await rename(`${temporary}-idx`, `${name}.idx`);
}

/** Pack entry header: type in bits 4–6 of the first byte, size in 4 + 7·n bits, low bits first. */
function entryHeader(type: number, size: number): Buffer {
  const bytes = [(type << 4) | (size & 0x0f)];
  let rest = Math.floor(size / 16);
  while (rest > 0) {
    bytes[bytes.length - 1] = (bytes[bytes.length - 1] ?? 0) | 0x80;
    bytes.push(rest & 0x7f);
    rest = Math.floor(rest / 128);
  }
  return Buffer.from(bytes);
}

// node:zlib has crc32 only from Node 22.2; the pack index needs one per entry.
const CRC_TABLE = Int32Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c;
});

function crc32(data: Uint8Array): number {
  let crc = -1;
  for (let i = 0; i < data.length; i++) crc = (CRC_TABLE[(crc ^ (data[i] ?? 0)) & 0xff] ?? 0) ^ (crc >>> 8);
  return (crc ^ -1) >>> 0;
}
