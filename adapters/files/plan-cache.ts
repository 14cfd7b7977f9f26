// The applier's plan memo (applier/sync-commit.ts's SyncMemo) kept on disk between processes, so an
// `apply --once` — or a watching applier after a restart — reads and plans only the Shoots whose folder or live
// objects moved since the last sync, like a watching one. A cache, not state: each entry is keyed by everything
// it was computed from (folder tree, live resourceVersions, field manager), the file by the code that computed
// it, and deleting it only costs the next sync the full work. Anything unreadable reads as empty.
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packagePath } from '../../model/package-root.js';

/** Raise when the file's shape changes. */
const FORMAT = 1;

/** Where a landscape's plan cache lives by default: beside the repo caches, one file per repo, Garden, namespace and field manager. */
export function defaultPlanCachePath(repo: string, garden: string, namespace: string, fieldManager: string): string {
  const base = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  const id = createHash('sha256')
    .update(JSON.stringify([repo, garden, namespace, fieldManager]))
    .digest('hex')
    .slice(0, 16);
  return join(base, 'kimops', 'plans', `${id}.json`);
}

let stamp: Promise<string> | undefined;

/**
 * What computed the entries: a digest of kimops's code as it runs (applier/, generator/, model/ and rules/, compiled or
 * not) and of the dependencies it was installed with (package.json, package-lock.json), so another kimops — an
 * upgrade, a dependency bump — reads an older one's cache as empty.
 */
export function planCodeStamp(): Promise<string> {
  stamp ??= (async () => {
    const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
    const hash = createHash('sha256').update(`format ${FORMAT}\n`);
    for (const file of [packagePath('package.json'), packagePath('package-lock.json')])
      hash.update(await readFile(file).catch(() => Buffer.from(`no ${file}`)));
    for (const folder of ['applier', 'generator', 'model', 'rules']) {
      const files = (await readdir(join(root, folder), { recursive: true }))
        .filter((file) => /\.(ts|js)$/.test(file) && !/\.test\.(ts|js)$/.test(file))
        .sort();
      for (const file of files) hash.update(`${folder}/${file}\n`).update(await readFile(join(root, folder, file)));
    }
    return hash.digest('hex').slice(0, 32);
  })();
  return stamp;
}

/** The cached entries (without their live Shoot, which the sync links from what it lists); empty when missing, unreadable or of other code. */
export async function readPlanCache<T extends { shoot: string }>(path: string): Promise<Map<string, T>> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(path, 'utf8'));
  } catch {
    return new Map();
  }
  const file = parsed as { stamp?: unknown; entries?: unknown };
  if (file.stamp !== (await planCodeStamp()) || !Array.isArray(file.entries)) return new Map();
  const entries = new Map<string, T>();
  for (const item of file.entries) {
    if (Array.isArray(item) && typeof item[0] === 'string' && typeof (item[1] as T | undefined)?.shoot === 'string')
      entries.set(item[0], item[1] as T);
  }
  return entries;
}

/** Writes the entries (without their live Shoot) whole, through a file renamed into place: a reader never sees half of one. */
export async function writePlanCache<T extends { live?: unknown }>(
  path: string,
  memo: ReadonlyMap<string, T>,
): Promise<void> {
  const entries = [...memo].map(([key, { live: _live, ...entry }]) => [key, entry]);
  await mkdir(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, JSON.stringify({ stamp: await planCodeStamp(), entries }));
  await rename(temporary, path);
}
