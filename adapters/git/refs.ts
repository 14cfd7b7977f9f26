// Reading and moving a ref the way git does: under `<ref>.lock` (created exclusively, the same lock file
// the git CLI takes, so a `git push` into the same bare repository and kimops never interleave), compared
// against the value the caller expects, then renamed into place. A ref is never truncated, and an update
// based on a stale read fails instead of overwriting someone else's.
import { mkdir, open, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ConfigError, TransportError, RefMoved } from '../../model/errors.js';
import { holdsRepoLock } from './repo-lock.js';

const OID = /^[0-9a-f]{40}$/;

/** A ref lock older than this, found by the holder of the repo lock, was left by a process that died. */
const STALE_REF_LOCK_MS = 5_000;
/** How long an update waits for another writer's ref lock (the git CLI holds one for milliseconds). */
const REF_LOCK_WAIT_MS = 10_000;

/**
 * The commit a full ref (`refs/heads/main`) names, loose or packed; undefined when it does not exist.
 * A loose ref that exists but holds no oid is corruption, not absence: taking it for absent would start
 * a new history over the old one (a lost PR record branch restarts PR numbers at #1).
 */
export async function readRef(gitdir: string, ref: string): Promise<string | undefined> {
  // A name that could lead out of the git directory (a record naming `../../x` as its branch) names no ref.
  if (ref.split('/').some((segment) => segment === '' || segment === '.' || segment === '..') || ref.includes('\0'))
    return undefined;
  const loose = await readFile(join(gitdir, ref), 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT' || error.code === 'ENOTDIR' || error.code === 'EISDIR') return undefined;
    throw error;
  });
  if (loose !== undefined) {
    const value = loose.trim();
    if (OID.test(value)) return value;
    if (value.startsWith('ref: ')) return readRef(gitdir, value.slice(5));
    throw new ConfigError(
      `landscape repo ${gitdir}`,
      ref,
      `holds ${JSON.stringify(value.slice(0, 60))}, not a commit id: the ref is damaged; restore it from a clone (git update-ref ${ref} <commit>) before kimops writes here again`,
    );
  }
  const packed = await readFile(join(gitdir, 'packed-refs'), 'utf8').catch(() => '');
  for (const line of packed.split('\n')) {
    const [oid, name] = line.split(' ');
    if (name === ref && oid !== undefined && OID.test(oid)) return oid;
  }
  return undefined;
}

/**
 * Points `ref` at `value` if it still names `expected` (undefined: the ref must not exist yet);
 * throws RefMoved otherwise and changes nothing. A ref written loose shadows a packed one, as in git.
 */
export async function updateRef(
  gitdir: string,
  ref: string,
  value: string,
  expected: string | undefined,
): Promise<void> {
  if (!OID.test(value)) throw new Error(`updateRef ${ref}: ${value} is not a commit id`);
  const path = join(gitdir, ref);
  const lock = `${path}.lock`;
  await mkdir(dirname(path), { recursive: true });
  const handle = await takeRefLock(gitdir, lock);
  let renamed = false;
  try {
    const actual = await readRef(gitdir, ref);
    if (actual !== expected) throw new RefMoved(ref, expected, actual);
    await handle.writeFile(`${value}\n`);
    await handle.close();
    await rename(lock, path);
    renamed = true;
  } finally {
    await handle.close().catch(() => undefined);
    if (!renamed) await rm(lock, { force: true });
  }
}

/**
 * The refs under `prefix` (`refs/heads/kimops/`: any ref whose full name starts with it), loose or packed, a
 * loose one winning as in git; sorted by name. Ref locks and damaged files are skipped, not taken for refs.
 */
export async function listRefs(gitdir: string, prefix: string): Promise<{ ref: string; oid: string }[]> {
  const found = new Map<string, string>();
  const packed = await readFile(join(gitdir, 'packed-refs'), 'utf8').catch(() => '');
  for (const line of packed.split('\n')) {
    const [oid, name] = line.split(' ');
    if (name?.startsWith(prefix) && oid !== undefined && OID.test(oid)) found.set(name, oid);
  }
  // The folder that holds the prefix's refs: `refs/heads/kimops/` lists refs/heads/kimops, `refs/heads/ki` refs/heads.
  const folder = prefix.slice(0, prefix.lastIndexOf('/'));
  const files = await readdir(join(gitdir, folder), { recursive: true, withFileTypes: true }).catch(() => []);
  for (const entry of files) {
    if (!entry.isFile() || entry.name.endsWith('.lock')) continue;
    const ref = relative(gitdir, join(entry.parentPath, entry.name)).split(sep).join('/');
    if (!ref.startsWith(prefix)) continue;
    const oid = (await readFile(join(gitdir, ref), 'utf8').catch(() => '')).trim();
    if (OID.test(oid)) found.set(ref, oid);
  }
  return [...found].map(([ref, oid]) => ({ ref, oid })).sort((a, b) => a.ref.localeCompare(b.ref));
}

/**
 * Deletes `ref` if it still names `expected` (any value when `expected` is undefined), as `git update-ref -d`
 * does: under `<ref>.lock`, the packed entry (if any) rewritten away under `packed-refs.lock`, then the loose
 * file removed. Throws RefMoved when the ref names another commit; false when it did not exist.
 */
export async function deleteRef(gitdir: string, ref: string, expected?: string): Promise<boolean> {
  if (!ref.startsWith('refs/') || ref.split('/').some((s) => s === '' || s === '.' || s === '..') || ref.includes('\0'))
    throw new Error(`deleteRef: ${JSON.stringify(ref)} is no ref name`);
  const path = join(gitdir, ref);
  const lock = `${path}.lock`;
  await mkdir(dirname(path), { recursive: true });
  const handle = await takeRefLock(gitdir, lock);
  try {
    await handle.close();
    const actual = await readRef(gitdir, ref);
    if (actual === undefined) return false;
    if (expected !== undefined && actual !== expected) throw new RefMoved(ref, expected, actual);
    // The packed entry goes first: removing the loose file alone would bring an older packed value back.
    await dropPackedRef(gitdir, ref);
    await rm(path, { force: true });
    return true;
  } finally {
    await rm(lock, { force: true });
  }
}

/** Rewrites packed-refs without `ref` (and its peeled `^` line), renamed into place under git's lock. */
async function dropPackedRef(gitdir: string, ref: string): Promise<void> {
  const packedPath = join(gitdir, 'packed-refs');
  const packed = await readFile(packedPath, 'utf8').catch(() => undefined);
  if (packed === undefined || !packed.split('\n').some((line) => line.split(' ')[1] === ref)) return;
  const lock = `${packedPath}.lock`;
  const handle = await takeRefLock(gitdir, lock);
  let renamed = false;
  try {
    // Read again under the lock: another writer may have repacked meanwhile.
    const lines = (await readFile(packedPath, 'utf8')).split('\n');
    const kept = lines.filter(
      (line, i) => line.split(' ')[1] !== ref && !(line.startsWith('^') && lines[i - 1]?.split(' ')[1] === ref),
    );
    await handle.writeFile(kept.join('\n'));
    await handle.close();
    await rename(lock, packedPath);
    renamed = true;
  } finally {
    await handle.close().catch(() => undefined);
    if (!renamed) await rm(lock, { force: true });
  }
}

async function takeRefLock(gitdir: string, lock: string) {
  const deadline = Date.now() + REF_LOCK_WAIT_MS;
  for (let delayMs = 2; ; delayMs = Math.min(delayMs * 2, 100)) {
    try {
      return await open(lock, 'wx');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    // Every kimops ref update runs under the repo lock, so a ref lock this old is a dead writer's.
    const age = await stat(lock).then(
      (s) => Date.now() - s.mtimeMs,
      () => 0,
    );
    if (holdsRepoLock(gitdir) && age > STALE_REF_LOCK_MS) {
      await rm(lock, { force: true });
      continue;
    }
    if (Date.now() >= deadline) {
      throw new TransportError(
        `landscape repo ${gitdir}`,
        `${lock} exists for ${Math.round(age / 1000)} s: another git process is updating the ref; if none runs, remove the file and run again`,
      );
    }
    await sleep(delayMs);
  }
}
