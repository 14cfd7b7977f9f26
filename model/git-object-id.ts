// Git's object ids, computed without a repository: what an object, a tree or a folder of files would be
// named in git. Pure (hashing only), so the generator can tell an unchanged Shoot folder on main from its
// rendered files without reading the repo, and the git adapter writes objects under the same names.
import { createHash } from 'node:crypto';

export type ObjectType = 'blob' | 'tree' | 'commit';

/** Hashes text without copying it into a buffer first: rendered Shoots arrive as strings. */
export function objectId(type: ObjectType, body: string | Uint8Array): string {
  return createHash('sha1')
    .update(`${type} ${Buffer.byteLength(body)}\0`)
    .update(body)
    .digest('hex');
}

/** A tree entry: mode as git writes it (`100644`, `40000`, …), name, object id. */
export interface TreeEntry {
  mode: string;
  name: string;
  oid: string;
}

/** The tree object body; entries are sorted the way git sorts them (a folder compares as `name/`).
 * Built in one buffer: a no-op render of a landscape hashes one small tree per Shoot. */
export function treeBody(entries: TreeEntry[]): Buffer {
  const keyed = entries.map((entry) => ({ entry, key: entry.mode === '40000' ? `${entry.name}/` : entry.name }));
  keyed.sort((a, b) => compareBytes(a.key, b.key));
  const heads = keyed.map(({ entry }) => `${entry.mode} ${entry.name}\0`);
  const body = Buffer.allocUnsafe(heads.reduce((size, head) => size + Buffer.byteLength(head) + 20, 0));
  let at = 0;
  keyed.forEach(({ entry }, i) => {
    at += body.write(heads[i] as string, at);
    at += body.write(entry.oid, at, 'hex');
  });
  return body;
}

/**
 * The oid git gives a folder holding exactly these files (path below the folder → text, mode 100644; a path
 * `skr/a.yaml` is a file of the subfolder `skr`): equal to the folder's oid in a commit means equal bytes, with
 * nothing read from the repository.
 */
export function folderOid(files: ReadonlyMap<string, string>): string {
  const entries: TreeEntry[] = [];
  const subfolders = new Map<string, Map<string, string>>();
  for (const [path, text] of files) {
    const slash = path.indexOf('/');
    if (slash < 0) entries.push({ mode: '100644', name: path, oid: objectId('blob', text) });
    else {
      const name = path.slice(0, slash);
      const inner = subfolders.get(name) ?? new Map<string, string>();
      subfolders.set(name, inner.set(path.slice(slash + 1), text));
    }
  }
  for (const [name, inner] of subfolders) entries.push({ mode: '40000', name, oid: folderOid(inner) });
  return objectId('tree', treeBody(entries));
}

/** Byte order of the UTF-8 encodings; JavaScript's own string order agrees with it for ASCII. */
function compareBytes(a: string, b: string): number {
  if (/[^\x20-\x7e]/.test(a + b)) return Buffer.compare(Buffer.from(a), Buffer.from(b));
  return a < b ? -1 : a > b ? 1 : 0;
}
