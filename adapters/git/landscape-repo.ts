// The landscape repo (docs/design.md §1.4) as kimops writes it: a bare repository, commits made from file
// contents without a worktree or index, trees written content-addressed (tree-edit.ts), so a no-op
// render makes no commit and one changed Shoot writes one blob and the trees above it.
// No git CLI here: isomorphic-git reads refs and objects and talks to remotes (remote.ts).
// Crash and concurrency safety (docs/reliability.md): objects are written whole (objects.ts), refs move
// by compare-and-swap under git's `<ref>.lock` (refs.ts), and every write runs under the repo's lock
// (repo-lock.ts), which a generator pass or a `kimops pr` command holds across its reads and writes.
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { gitFs as fs } from './git-fs.js';
import git from 'isomorphic-git';
import { ConfigError } from '../../model/errors.js';
import { commitBody, writeObjects } from './objects.js';
import { objectId } from '../../model/git-object-id.js';
import { readRef, updateRef } from './refs.js';
import { fetchBranch, pushBranch, type RemoteAuth, type RemoteResult } from './remote.js';
import { withRepoLock, type RepoLockOptions } from './repo-lock.js';
import { FileInTheWay, TreeEdit } from './tree-edit.js';
import { MAIN_BRANCH, SHOOTS_FOLDER } from '../../model/contract.js';

/**
 * The folder of Shoots, docs/design.md §1.4 (rules/landscape-layout.ts says what goes there; adapters do not
 * import rules/).
 */

export interface Signature {
  name: string;
  email: string;
  /** Seconds since the epoch; fixed for reproducible commits, now when absent. */
  timestamp?: number;
  /** Minutes, as git counts them (UTC+2 is -120); 0 when absent. */
  timezoneOffset?: number;
}

export interface CommitRequest {
  branch: string;
  /** Branch, full ref or commit oid the commit starts from; the branch itself when absent. */
  base?: string;
  /** Repo path → content; an existing file with the same content is left as it is. */
  files: ReadonlyMap<string, string | Uint8Array>;
  /** Files or folders to remove, or `replace-shoots-folder`: what is under shoots/ and not in `files` goes. */
  deletions?: readonly string[] | 'replace-shoots-folder';
  message: string;
  author: Signature;
  /** The author when absent. */
  committer?: Signature;
  /**
   * A second parent (branch, full ref or oid), for updating an open PR branch in place as GitHub's
   * "Update branch" does: the tree is still `base`'s plus the edits, the parents are `[base, alsoParent]`.
   * Because the commit descends from the branch's previous head, it is pushed without force, and a
   * human's concurrent push to the branch makes that push `rejected` instead of being overwritten.
   * When the tree equals `alsoParent`'s, nothing is committed (`changed: false`, `oid` = alsoParent).
   */
  alsoParent?: string;
  /**
   * Write the commit but leave the branch where it is (the caller moves it with `updateBranch` once it
   * has recorded the new head elsewhere, e.g. in the PR body, so a crash in between loses nothing).
   */
  detached?: boolean;
}

export interface CommitResult {
  /** False when the tree equals the base tree: no commit is made and the branch is not touched. */
  changed: boolean;
  /** The new commit, or the base commit when nothing changed (undefined for an empty repo). */
  oid: string | undefined;
  /** Files added, changed or removed relative to the base, sorted. */
  changedPaths: string[];
}

export type MergeResult = { merged: true; oid: string; fastForward: boolean } | { merged: false; conflicts: string[] };

/** An entry directly in a folder: a file (blob) or a folder (tree), by oid. */
export interface FolderEntry {
  oid: string;
  type: 'blob' | 'tree';
}

/** Listings kept: main's root and shoots/, and a branch's, with room to spare. */
const LISTINGS_KEPT = 8;

/** A file of a tree, read when asked. */
export interface TreeFile {
  oid: string;
  read(): Promise<string>;
}

export interface LandscapeRepoOptions {
  /** Deadline of each fetch and push of this repo, unless the call gives its own; DEFAULT_REMOTE_TIMEOUT_MS when absent. */
  remoteTimeoutMs?: number;
  /** How writers wait for the repo's lock (repo-lock.ts); the purpose is each call's own. */
  lock?: Omit<RepoLockOptions, 'purpose'>;
}

export interface RemoteOptions {
  auth?: RemoteAuth;
  /** This call's deadline; the repo's `remoteTimeoutMs` when absent. */
  timeoutMs?: number;
}

export class LandscapeRepo {
  /** isomorphic-git's cache of parsed packs and indexes, shared by every call on this repo. */
  private readonly cache = {};

  /** Folder listings by tree oid, the last few (see listFolder). */
  private readonly listings = new Map<string, ReadonlyMap<string, FolderEntry>>();

  /** The tail of this repo's writes (see `exclusive`). */
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    readonly gitdir: string,
    private readonly options: LandscapeRepoOptions,
  ) {}

  /** Opens the bare repository at `gitdir`, creating it (default branch main) when missing. */
  static async open(gitdir: string, options: LandscapeRepoOptions = {}): Promise<LandscapeRepo> {
    if (!existsSync(`${gitdir}/HEAD`)) await git.init({ fs, gitdir, bare: true, defaultBranch: MAIN_BRANCH });
    return new LandscapeRepo(gitdir, options);
  }

  /** The commit a branch (`origin/<branch>` once fetched), full ref or (abbreviated) oid names, or undefined. */
  async resolve(ref: string): Promise<string | undefined> {
    if (/^[0-9a-f]{40}$/.test(ref)) {
      try {
        await git.readCommit({ fs, gitdir: this.gitdir, oid: ref, cache: this.cache });
        return ref;
      } catch {
        return undefined;
      }
    }
    // git's own order of spellings (git-rev-parse): `origin/main` is refs/remotes/origin/main.
    for (const candidate of ref.startsWith('refs/')
      ? [ref]
      : [`refs/heads/${ref}`, `refs/${ref}`, `refs/tags/${ref}`, `refs/remotes/${ref}`]) {
      // A damaged ref throws: taking it for absent would start a new history over the old one.
      const oid = await readRef(this.gitdir, candidate);
      if (oid !== undefined) return oid;
    }
    if (/^[0-9a-f]{4,39}$/.test(ref)) {
      try {
        return await git.expandOid({ fs, gitdir: this.gitdir, oid: ref, cache: this.cache });
      } catch {
        return undefined;
      }
    }
    return undefined;
  }

  /** Every file of the tree at `ref` (optionally only under a folder), each read lazily. Empty when `ref` is unknown. */
  async readFiles(ref: string, under = ''): Promise<Map<string, TreeFile>> {
    const commit = await this.resolve(ref);
    if (!commit) return new Map();
    const segments = under ? checkedPath(under) : [];
    const start = segments.length ? await this.subtree(commit, segments) : commit;
    return start ? this.readTreeFiles(start, segments.map((s) => `${s}/`).join('')) : new Map();
  }

  /**
   * Every file below the tree `treeOid` (e.g. a folder's oid from listFolder), paths prefixed with
   * `prefix`. Starting from the oid skips the walk down from the commit, which for a folder of
   * shoots/ means parsing the 10,000-entry shoots/ tree again.
   */
  async readTreeFiles(treeOid: string, prefix = ''): Promise<Map<string, TreeFile>> {
    const files = new Map<string, TreeFile>();
    const walk = async (oid: string, at: string): Promise<void> => {
      const { tree } = await git.readTree({ fs, gitdir: this.gitdir, oid, cache: this.cache });
      for (const entry of tree) {
        const path = `${at}${entry.path}`;
        if (entry.type === 'tree') await walk(entry.oid, `${path}/`);
        else if (entry.type === 'blob') files.set(path, { oid: entry.oid, read: () => this.readBlob(entry.oid) });
      }
    };
    await walk(treeOid, prefix);
    return files;
  }

  /**
   * The entries directly in `folder` at `ref` (the root when empty), without reading below them: a
   * caller that keys work by a subtree's oid learns what changed from one tree read. Empty when missing.
   */
  async listFolder(ref: string, folder = ''): Promise<ReadonlyMap<string, FolderEntry>> {
    const commit = await this.resolve(ref);
    const tree = commit && (folder ? await this.subtree(commit, checkedPath(folder)) : commit);
    if (!tree) return new Map();
    const known = this.listings.get(tree);
    if (known) return known;
    const entries = new Map<string, FolderEntry>();
    for (const entry of (await git.readTree({ fs, gitdir: this.gitdir, oid: tree, cache: this.cache })).tree) {
      if (entry.type === 'blob' || entry.type === 'tree') entries.set(entry.path, { oid: entry.oid, type: entry.type });
    }
    // Trees never change under their oid: a watching generator lists shoots/ once per merge, not per pass.
    if (this.listings.size >= LISTINGS_KEPT) this.listings.delete(this.listings.keys().next().value as string);
    this.listings.set(tree, entries);
    return entries;
  }

  /** Whether `ancestor` is in the history of `commit`, looking at most `depth` commits back. */
  async contains(commit: string, ancestor: string, depth: number): Promise<boolean> {
    try {
      return await git.isDescendent({ fs, gitdir: this.gitdir, oid: commit, ancestor, depth, cache: this.cache });
    } catch (error) {
      if (error instanceof git.Errors.MaxDepthError) return false;
      throw error;
    }
  }

  /** The message of a commit (its subject, body and trailers). */
  async commitMessage(commit: string): Promise<string> {
    return (await git.readCommit({ fs, gitdir: this.gitdir, oid: commit, cache: this.cache })).commit.message;
  }

  /** When a commit was committed (its committer time, RFC 3339 UTC), or undefined when the repository lacks it. */
  async committedAt(commit: string): Promise<string | undefined> {
    try {
      const { committer } = (await git.readCommit({ fs, gitdir: this.gitdir, oid: commit, cache: this.cache })).commit;
      return new Date(committer.timestamp * 1000).toISOString().replace(/\.000Z$/, 'Z');
    } catch (error) {
      if (error instanceof git.Errors.NotFoundError) return undefined;
      throw error;
    }
  }

  /** One file's text at `ref`, or undefined when the ref or the file does not exist. */
  async readFile(ref: string, path: string): Promise<string | undefined> {
    const segments = checkedPath(path);
    const name = segments.pop() as string;
    const entry = (await this.listFolder(ref, segments.join('/'))).get(name);
    return entry?.type === 'blob' ? this.readBlob(entry.oid) : undefined;
  }

  /**
   * Runs `work` holding the repo's lock across processes (see repo-lock.ts): what it reads stays what
   * it read until it returns. Re-entrant: the repo's own writes inside it do not wait for it.
   */
  withLock<T>(purpose: string, work: () => Promise<T>, options: Omit<RepoLockOptions, 'purpose'> = {}): Promise<T> {
    return withRepoLock(this.gitdir, { ...this.options.lock, ...options, purpose }, work);
  }

  /** Commits `files` on `branch` from `base`; calls on one repo run one after another. */
  commitFiles(request: CommitRequest): Promise<CommitResult> {
    return this.write(`commit on ${request.branch}`, () => this.commit(request));
  }

  /**
   * Moves `branch` to `oid` if it is still at `expected` (undefined: it must not exist); throws
   * RefMoved otherwise. `force` moves it from wherever it is.
   */
  updateBranch(branch: string, oid: string, expected: string | undefined | { force: true }): Promise<void> {
    checkedBranch(branch);
    return this.write(`update ${branch}`, async () => {
      const ref = `refs/heads/${branch}`;
      await updateRef(this.gitdir, ref, oid, typeof expected === 'object' ? await readRef(this.gitdir, ref) : expected);
    });
  }

  private async commit(request: CommitRequest): Promise<CommitResult> {
    checkedBranch(request.branch);
    const previous = await readRef(this.gitdir, `refs/heads/${request.branch}`);
    const paths = [...request.files.keys()].map((path) => ({ path, segments: checkedPath(path) }));
    const deletions = request.deletions ?? [];
    const deleted = deletions === 'replace-shoots-folder' ? [] : deletions.map(checkedPath);
    const base = await this.resolve(request.base ?? request.branch);
    if (request.base !== undefined && base === undefined) {
      throw new ConfigError(
        `landscape repo ${this.gitdir}`,
        'base',
        `${request.base} is neither a branch nor a commit here; fetch it first`,
      );
    }
    const baseTree = base ? await this.treeOf(base) : undefined;
    const alsoParent = request.alsoParent === undefined ? undefined : await this.resolve(request.alsoParent);
    if (request.alsoParent !== undefined && alsoParent === undefined) {
      throw new ConfigError(
        `landscape repo ${this.gitdir}`,
        'alsoParent',
        `${request.alsoParent} is neither a branch nor a commit here; fetch it first`,
      );
    }

    const edit = new TreeEdit(this.gitdir, this.cache, baseTree);
    try {
      if (deletions === 'replace-shoots-folder') await edit.clear([SHOOTS_FOLDER]);
      for (const segments of deleted) await edit.remove(segments);
      for (const { path, segments } of paths) {
        const content = request.files.get(path) as string | Uint8Array;
        await edit.write(segments, objectId('blob', content), content);
      }
    } catch (error) {
      if (error instanceof FileInTheWay)
        throw new ConfigError(`landscape repo ${this.gitdir}`, error.path, error.detail);
      throw error;
    }
    const tree = await edit.finish();
    const rootTree = tree.oid ?? EMPTY_TREE;
    if (rootTree === baseTree || (!base && !tree.oid)) return { changed: false, oid: base, changedPaths: [] };
    // The branch already holds exactly this content: another commit would only add noise to the PR.
    if (alsoParent !== undefined && rootTree === (await this.treeOf(alsoParent)))
      return { changed: false, oid: alsoParent, changedPaths: [] };
    const parents = [...(base ? [base] : []), ...(alsoParent !== undefined && alsoParent !== base ? [alsoParent] : [])];

    if (!tree.oid) tree.objects.push({ type: 'tree', oid: EMPTY_TREE, body: new Uint8Array() });
    const author = signature(request.author);
    const body = commitBody({
      tree: rootTree,
      parents,
      author,
      committer: request.committer ? signature(request.committer) : author,
      // As the git CLI stores it: ending in one newline.
      message: request.message.endsWith('\n') ? request.message : `${request.message}\n`,
    });
    const oid = objectId('commit', body);
    // Objects first, the commit last, the ref after both: a crash at any point leaves the branch as it was.
    await writeObjects(this.gitdir, tree.objects);
    await writeObjects(this.gitdir, [{ type: 'commit', oid, body }]);
    if (!request.detached) await updateRef(this.gitdir, `refs/heads/${request.branch}`, oid, previous);
    return { changed: true, oid, changedPaths: tree.changedPaths.sort() };
  }

  /**
   * Merges commit `theirs` into `branch`: a fast-forward when `branch` is its ancestor, else a two-parent
   * merge commit (isomorphic-git's three-way merge, no worktree). A conflict, or histories with no single
   * merge base, comes back as `conflicts` and nothing is written.
   */
  mergeInto(request: { branch: string; theirs: string; message: string; author: Signature }): Promise<MergeResult> {
    return this.write(`merge into ${request.branch}`, async () => {
      checkedBranch(request.branch);
      const author = signature(request.author);
      const ref = `refs/heads/${request.branch}`;
      const ours = await readRef(this.gitdir, ref);
      try {
        await rm(`${this.gitdir}/index`, { force: true }); // one a crashed merge left behind
        const merged = await git.merge({
          fs,
          gitdir: this.gitdir,
          cache: this.cache,
          ours: ref,
          theirs: request.theirs,
          author,
          committer: author,
          message: request.message.endsWith('\n') ? request.message : `${request.message}\n`,
          noUpdateBranch: true,
        });
        const oid = merged.oid ?? request.theirs;
        if (oid !== ours) await updateRef(this.gitdir, ref, oid, ours);
        return { merged: true, oid, fastForward: merged.fastForward === true };
      } catch (error) {
        if (error instanceof git.Errors.MergeConflictError) return { merged: false, conflicts: error.data.filepaths };
        if (error instanceof git.Errors.MergeNotSupportedError) return { merged: false, conflicts: [] };
        throw error;
      } finally {
        // isomorphic-git's merge goes through an index, which a bare repository has no use for.
        await rm(`${this.gitdir}/index`, { force: true });
      }
    });
  }

  /** Fetches `branch` from `remoteUrl` into refs/remotes/origin/<branch>; the result names its commit. */
  fetch(
    remoteUrl: string,
    branch: string,
    auth?: RemoteAuth,
    options: Omit<RemoteOptions, 'auth'> = {},
  ): Promise<RemoteResult> {
    const timeoutMs = options.timeoutMs ?? this.options.remoteTimeoutMs;
    return this.write(`fetch ${branch}`, () =>
      fetchBranch({ gitdir: this.gitdir, cache: this.cache, url: remoteUrl, branch, auth, timeoutMs }),
    );
  }

  /** Pushes `branch` to the same branch at `remoteUrl`; a non-fast-forward comes back as `rejected`. */
  push(remoteUrl: string, branch: string, options: RemoteOptions & { force?: boolean } = {}): Promise<RemoteResult> {
    const timeoutMs = options.timeoutMs ?? this.options.remoteTimeoutMs;
    return this.write(`push ${branch}`, () =>
      pushBranch({
        gitdir: this.gitdir,
        cache: this.cache,
        url: remoteUrl,
        branch,
        auth: options.auth,
        force: options.force,
        timeoutMs,
      }),
    );
  }

  /**
   * Every write holds the repo's lock (other processes), and within it one repo instance runs its writes
   * in order: isomorphic-git locks nothing across calls. The lock comes first, so work that holds it
   * never waits in the queue behind a write that waits for the lock.
   */
  private write<T>(purpose: string, work: () => Promise<T>): Promise<T> {
    return this.withLock(purpose, () => {
      const run = this.queue.then(work);
      this.queue = run.catch(() => undefined);
      return run;
    });
  }

  private async treeOf(commit: string): Promise<string> {
    return (await git.readCommit({ fs, gitdir: this.gitdir, oid: commit, cache: this.cache })).commit.tree;
  }

  private async readBlob(oid: string): Promise<string> {
    const { blob } = await git.readBlob({ fs, gitdir: this.gitdir, oid, cache: this.cache });
    return Buffer.from(blob).toString('utf8');
  }

  /** The oid of the tree at `segments` below the commit, parsing only the trees above it. */
  private async subtree(commit: string, segments: readonly string[]): Promise<string | undefined> {
    let oid = (await git.readCommit({ fs, gitdir: this.gitdir, oid: commit, cache: this.cache })).commit.tree;
    for (const segment of segments) {
      const { tree } = await git.readTree({ fs, gitdir: this.gitdir, oid, cache: this.cache });
      const entry = tree.find((e) => e.path === segment && e.type === 'tree');
      if (!entry) return undefined;
      oid = entry.oid;
    }
    return oid;
  }
}

/** git's well-known empty tree. */
const EMPTY_TREE = objectId('tree', new Uint8Array());

function signature({ name, email, timestamp, timezoneOffset }: Signature) {
  return { name, email, timestamp: timestamp ?? Math.floor(Date.now() / 1000), timezoneOffset: timezoneOffset ?? 0 };
}

/** Refuses a branch name git would refuse (git-check-ref-format), before anything is written. */
function checkedBranch(branch: string): void {
  const invalid =
    branch.split('/').some((s) => s === '' || s.startsWith('.') || s.endsWith('.lock')) ||
    /\.\.|@\{|[\s~^:?*[\\]/.test(branch) ||
    [...branch].some((c) => c.charCodeAt(0) < 0x20 || c === '\u007f') ||
    branch.endsWith('.') ||
    branch === '@';
  if (invalid)
    throw new ConfigError(
      `branch ${JSON.stringify(branch)}`,
      '',
      'is not a valid git branch name (see git check-ref-format)',
    );
}

/** A repo path's segments; refuses anything that could leave the repo or is not a plain relative path. */
function checkedPath(path: string): string[] {
  const segments = path.split('/');
  const bad = segments.find(
    (s) => s === '' || s === '.' || s === '..' || s === '.git' || s.includes('\\') || s.includes('\0'),
  );
  if (bad !== undefined || path.length === 0) {
    throw new ConfigError(
      `path ${JSON.stringify(path)}`,
      '',
      'is not a plain relative path inside the landscape repo (no leading "/", no empty, "." or ".." segments, no ".git", no "\\")',
    );
  }
  return segments;
}
