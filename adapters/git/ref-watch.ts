// Tells a watching applier the moment a local repo's `main` moves, instead of at its next poll (issue 17): a
// merge by the local forge, a `git push` into the bare repo, a `kimops pr merge`. Git moves a ref by renaming
// `<ref>.lock` over the loose file, and `git pack-refs` (or gc) moves it into `packed-refs` (renamed into place
// under `packed-refs.lock`) and deletes the loose file. So the folders are watched, not the files (a watched file
// is gone once something is renamed over it): the ref's own folder and the git directory. Any event there only
// asks for the ref to be read again, and the callback hears only of a value that differs from the last one read:
// lock files, other branches' refs, kimops.lock and packing a ref without moving it stay silent.
// What the watch misses (a platform without fs.watch, a folder replaced under it) the caller's polling still
// finds: this makes a sync come sooner, never decides whether one comes.
import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { readRef } from './refs.js';

export interface RefWatchOptions {
  /** The bare repository (its git directory). */
  gitdir: string;
  /** A full ref name, e.g. `refs/heads/main`. */
  ref: string;
  /** The ref now names `oid` (undefined: it no longer exists); called once per value read, in order. */
  onChange: (oid: string | undefined) => void;
  /** A watch that could not be set up or failed, or a ref that could not be read: the caller's polling covers it. */
  onError?: (message: string) => void;
}

export interface RefWatch {
  /** The value last read. */
  readonly current: string | undefined;
  close(): void;
}

/** Starts watching; resolves once the ref has been read and both folders are watched. */
export async function watchRef(options: RefWatchOptions): Promise<RefWatch> {
  const { gitdir, ref, onChange } = options;
  const onError = options.onError ?? (() => {});
  const refFile = join(gitdir, ref);
  const refName = basename(refFile);
  let current = await readRef(gitdir, ref);
  let closed = false;
  // Reads run one at a time; events during a read ask for one more read after it, however many they were.
  let reading: Promise<void> | undefined;
  let again = false;

  const read = async (): Promise<void> => {
    do {
      again = false;
      try {
        const oid = await readRef(gitdir, ref);
        if (closed || oid === current) continue;
        current = oid;
        onChange(oid);
      } catch (error) {
        if (!closed) onError(`reading ${ref} of ${gitdir}: ${error instanceof Error ? error.message : String(error)}`);
      }
    } while (again && !closed);
  };
  const check = () => {
    if (closed) return;
    if (reading) {
      again = true;
      return;
    }
    reading = read().finally(() => (reading = undefined));
  };

  const watchers: FSWatcher[] = [];
  const watchFolder = (folder: string, relevant: (name: string) => boolean) => {
    try {
      const watcher = watch(folder, { persistent: false }, (_event, name) => {
        // No name (some platforms): anything may have changed.
        if (name === null || relevant(name.toString())) check();
      });
      watcher.on('error', (error) => {
        onError(`watching ${folder}: ${error.message}; ${ref} is still polled`);
        watcher.close();
      });
      watchers.push(watcher);
    } catch (error) {
      onError(`cannot watch ${folder}: ${(error as Error).message}; ${ref} is still polled`);
    }
  };
  // The loose ref is renamed into place from `<name>.lock`; an event on either name may be a move.
  watchFolder(dirname(refFile), (name) => name === refName || name === `${refName}.lock`);
  if (dirname(refFile) !== gitdir) watchFolder(gitdir, (name) => name.startsWith('packed-refs'));
  // A move between the first read and the watches' start would otherwise wait for the next poll.
  check();
  await reading;

  return {
    get current() {
      return current;
    },
    close() {
      closed = true;
      for (const watcher of watchers) watcher.close();
    },
  };
}
