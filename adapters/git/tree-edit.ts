// An edit of a commit's tree, held in memory: only the folders on the way to a written or deleted path
// are read from the base; every other subtree keeps its oid untouched. `finish` hashes the edited
// folders bottom-up and returns only the objects the base lacks, so a folder whose new oid equals its
// base oid costs one hash and nothing else — and so does the whole tree of a no-op render.
import git from 'isomorphic-git';
import { gitFs as fs } from './git-fs.js';
import type { GitObject } from './objects.js';
import { objectId, treeBody, type TreeEntry } from '../../model/git-object-id.js';

const FILE_MODE = '100644';
const FOLDER_MODE = '40000';

/** An entry of an edited folder: unchanged from the base (oid only), a new blob, or a folder being edited. */
type Entry =
  | { kind: 'oid'; mode: string; oid: string }
  | { kind: 'blob'; oid: string; body: string | Uint8Array }
  | { kind: 'folder'; folder: Folder };

interface Folder {
  entries: Map<string, Entry>;
  /** The base tree at this path, if it had one: what this folder started from. */
  baseOid?: string;
  /** The base tree's entries, read when needed. */
  base?: Map<string, { mode: string; oid: string }>;
}

export interface TreeEditResult {
  /** The new root tree, or undefined when it is empty. */
  oid: string | undefined;
  /** Objects the repository does not have yet. */
  objects: GitObject[];
  /** Files added, changed or removed, relative to the base. */
  changedPaths: string[];
}

export class TreeEdit {
  private readonly root: Folder;
  /** Whether the root's entries were read from the base; the first edit or `finish` does it. */
  private rootLoaded: boolean;

  constructor(
    private readonly gitdir: string,
    private readonly cache: object,
    baseTree: string | undefined,
  ) {
    this.root = { entries: new Map(), ...(baseTree ? { baseOid: baseTree } : {}) };
    this.rootLoaded = !baseTree;
  }

  /** Puts `body` (with its precomputed blob oid) at `segments`, creating folders on the way. */
  async write(segments: readonly string[], oid: string, body: string | Uint8Array): Promise<void> {
    const parent = await this.folderAt(segments.slice(0, -1), true);
    const name = segments[segments.length - 1] as string;
    const existing = parent?.entries.get(name);
    if (existing && isFolder(existing)) throw new FileInTheWay(segments.join('/'), 'is a folder, not a file');
    if (existing?.kind === 'oid' && existing.oid === oid && existing.mode === FILE_MODE) return;
    parent?.entries.set(name, { kind: 'blob', oid, body });
  }

  /** Removes the file or folder at `segments`, if there is one. */
  async remove(segments: readonly string[]): Promise<void> {
    const parent = await this.folderAt(segments.slice(0, -1), false);
    parent?.entries.delete(segments[segments.length - 1] as string);
  }

  /** Replaces the folder at `segments` by an empty one that still compares against the base's. */
  async clear(segments: readonly string[]): Promise<void> {
    const folder = await this.folderAt(segments, true);
    if (!folder) return;
    if (folder.baseOid && !folder.base) folder.base = await this.readBase(folder.baseOid);
    folder.entries.clear();
  }

  async finish(): Promise<TreeEditResult> {
    await this.loadRoot();
    const result: TreeEditResult = { oid: undefined, objects: [], changedPaths: [] };
    result.oid = await this.finishFolder(this.root, '', result);
    return result;
  }

  private async finishFolder(folder: Folder, path: string, out: TreeEditResult): Promise<string | undefined> {
    const entries: TreeEntry[] = [];
    const fresh: { entry: Extract<Entry, { kind: 'blob' }>; name: string }[] = [];
    for (const [name, entry] of folder.entries) {
      if (entry.kind === 'oid') entries.push({ mode: entry.mode, name, oid: entry.oid });
      else if (entry.kind === 'blob') {
        entries.push({ mode: FILE_MODE, name, oid: entry.oid });
        fresh.push({ entry, name });
      } else {
        // An unchanged sub-folder adds nothing to `out`; a changed one makes this folder changed too.
        const oid = await this.finishFolder(entry.folder, `${path}${name}/`, out);
        if (oid) entries.push({ mode: FOLDER_MODE, name, oid });
      }
    }
    if (entries.length === 0) {
      if (folder.baseOid) out.changedPaths.push(...(await this.filesUnder(folder.baseOid, path)));
      return undefined;
    }
    const body = treeBody(entries);
    const oid = objectId('tree', body);
    if (oid === folder.baseOid) return oid;

    const base = await this.baseEntriesOf(folder);
    out.objects.push({ type: 'tree', oid, body });
    for (const { entry, name } of fresh) {
      if (base.get(name)?.oid === entry.oid) continue;
      out.objects.push({ type: 'blob', oid: entry.oid, body: entry.body });
      out.changedPaths.push(`${path}${name}`);
    }
    for (const [name, { mode, oid: baseOid }] of base) {
      const now = folder.entries.get(name);
      // Still there, and still a folder or still a file: reported above, if changed at all.
      if (now && isFolder(now) === (mode === FOLDER_MODE)) continue;
      if (mode === FOLDER_MODE) out.changedPaths.push(...(await this.filesUnder(baseOid, `${path}${name}/`)));
      else out.changedPaths.push(`${path}${name}`);
    }
    return oid;
  }

  /** The folder at `segments`, read from the base on the way; missing folders are created when `create`. */
  private async folderAt(segments: readonly string[], create: boolean): Promise<Folder | undefined> {
    await this.loadRoot();
    let folder = this.root;
    for (const [depth, name] of segments.entries()) {
      const entry = folder.entries.get(name);
      if (entry?.kind === 'folder') {
        folder = entry.folder;
        continue;
      }
      if (entry && !isFolder(entry)) {
        if (!create) return undefined;
        throw new FileInTheWay(segments.slice(0, depth + 1).join('/'), 'is a file, not a folder');
      }
      if (!entry && !create) return undefined;
      const inBase = (await this.baseEntriesOf(folder)).get(name);
      const baseOid = entry?.oid ?? (inBase?.mode === FOLDER_MODE ? inBase.oid : undefined);
      const child: Folder = baseOid ? { entries: new Map(), baseOid } : { entries: new Map() };
      if (entry) {
        child.base = await this.readBase(entry.oid);
        for (const [childName, e] of child.base) child.entries.set(childName, { kind: 'oid', ...e });
      }
      folder.entries.set(name, { kind: 'folder', folder: child });
      folder = child;
    }
    return folder;
  }

  private async baseEntriesOf(folder: Folder): Promise<Map<string, { mode: string; oid: string }>> {
    if (!folder.baseOid) return new Map();
    return (folder.base ??= await this.readBase(folder.baseOid));
  }

  private async loadRoot(): Promise<void> {
    if (this.rootLoaded || !this.root.baseOid) return;
    this.rootLoaded = true;
    this.root.base = await this.readBase(this.root.baseOid);
    for (const [name, e] of this.root.base) this.root.entries.set(name, { kind: 'oid', ...e });
  }

  private async readBase(oid: string): Promise<Map<string, { mode: string; oid: string }>> {
    const { tree } = await git.readTree({ fs, gitdir: this.gitdir, oid, cache: this.cache });
    // isomorphic-git reports folders as mode '040000'; git writes and hashes '40000'.
    return new Map(tree.map((e) => [e.path, { mode: e.type === 'tree' ? FOLDER_MODE : e.mode, oid: e.oid }]));
  }

  private async filesUnder(treeOid: string, prefix: string): Promise<string[]> {
    const files: string[] = [];
    for (const [name, { mode, oid }] of await this.readBase(treeOid)) {
      if (mode === FOLDER_MODE) files.push(...(await this.filesUnder(oid, `${prefix}${name}/`)));
      else files.push(`${prefix}${name}`);
    }
    return files;
  }
}

const isFolder = (entry: Entry) => entry.kind === 'folder' || (entry.kind === 'oid' && entry.mode === FOLDER_MODE);

/** A path needs a folder where the tree has a file, or the other way round. */
export class FileInTheWay extends Error {
  constructor(
    readonly path: string,
    readonly detail: string,
  ) {
    super(`${path} ${detail}`);
  }
}
