// One writer at a time per landscape repo, across processes: a generator pass, `kimops pr approve` and
// `kimops pr merge` each read, decide and write several refs (a branch, main, kimops/pulls), and two of
// them interleaved lose an update. The lock is the file `kimops.lock` in the git directory, created
// whole by a hard link (so a reader never sees it empty) and naming its holder. A holder that died
// (`kill -9`) leaves it behind; the next process on the same host sees that the pid is gone and takes it
// over. Within one process, holders queue, and work started inside a holder's work is part of it (it
// does not wait for itself).
import { AsyncLocalStorage } from 'node:async_hooks';
import { link, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { TransportError } from '../../model/errors.js';
import { temporaryPathFor } from './atomic-file.js';

export const REPO_LOCK_FILE = 'kimops.lock';

/** How long a writer waits for another by default: a cold generator pass over 10,000 Shoots takes minutes. */
const DEFAULT_LOCK_TIMEOUT_MS = 10 * 60_000;

export interface RepoLockOptions {
  /** Said to whoever waits, e.g. `generate` or `pr merge #3`. */
  purpose: string;
  timeoutMs?: number;
  /** Called once when the lock is taken by someone else and this writer starts to wait. */
  onWait?: (holder: string) => void;
}

interface Holder {
  pid: number;
  host: string;
  purpose: string;
  since: string;
}

/** The git directories whose lock the current async context holds. */
const held = new AsyncLocalStorage<ReadonlySet<string>>();
/** Per git directory, the tail of this process's holders: the next one starts when it settles. */
const queues = new Map<string, Promise<void>>();

/** Runs `work` holding the repo's lock; re-entrant for work started inside it. */
export async function withRepoLock<T>(gitdir: string, options: RepoLockOptions, work: () => Promise<T>): Promise<T> {
  const key = resolve(gitdir);
  const mine = held.getStore();
  if (mine?.has(key)) return work();
  const previous = queues.get(key) ?? Promise.resolve();
  let done!: () => void;
  const tail = previous.then(() => new Promise<void>((settle) => (done = settle)));
  queues.set(key, tail);
  await previous;
  try {
    const release = await acquire(key, options);
    try {
      return await held.run(new Set([...(mine ?? []), key]), work);
    } finally {
      await release();
    }
  } finally {
    done();
    if (queues.get(key) === tail) queues.delete(key);
  }
}

/** Whether the current async context holds the repo's lock (ref updates check it). */
export function holdsRepoLock(gitdir: string): boolean {
  return held.getStore()?.has(resolve(gitdir)) === true;
}

async function acquire(
  gitdir: string,
  { purpose, timeoutMs = DEFAULT_LOCK_TIMEOUT_MS, onWait }: RepoLockOptions,
): Promise<() => Promise<void>> {
  const path = join(gitdir, REPO_LOCK_FILE);
  const text = `${JSON.stringify({ pid: process.pid, host: hostname(), purpose, since: new Date().toISOString() } satisfies Holder)}\n`;
  const deadline = Date.now() + timeoutMs;
  let delayMs = 5;
  let told = false;
  for (;;) {
    if (await create(path, text)) return () => releaseIfOurs(path, text);
    const found = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) =>
      error.code === 'ENOENT' ? undefined : '',
    );
    if (found === undefined) continue; // released between our two steps: try again at once
    const holder = parseHolder(found);
    if (holder !== undefined && isDead(holder)) {
      await breakStale(path, found);
      continue;
    }
    const who =
      holder === undefined
        ? `an unreadable ${REPO_LOCK_FILE}`
        : `${holder.purpose} (pid ${holder.pid} on ${holder.host}, since ${holder.since})`;
    if (Date.now() >= deadline) {
      throw new TransportError(
        `landscape repo ${gitdir}`,
        `${purpose} waited ${Math.round(timeoutMs / 1000)} s for the repo's lock, held by ${who}; let it finish and run again, or, if no kimops runs there any more, remove ${path}`,
      );
    }
    if (!told) onWait?.(who);
    told = true;
    await sleep(delayMs);
    delayMs = Math.min(delayMs * 2, 250);
  }
}

/** Creates the lock with its content in one step: a hard link fails when the name exists. */
async function create(path: string, text: string): Promise<boolean> {
  const temporary = temporaryPathFor(path);
  await writeFile(temporary, text);
  try {
    await link(temporary, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await rm(temporary, { force: true });
  }
}

function parseHolder(text: string): Holder | undefined {
  try {
    const value = JSON.parse(text) as Partial<Holder>;
    if (
      typeof value.pid === 'number' &&
      typeof value.host === 'string' &&
      typeof value.purpose === 'string' &&
      typeof value.since === 'string'
    )
      return value as Holder;
  } catch {
    // not ours: someone else's file; it is waited for like any holder
  }
  return undefined;
}

/** A holder on this host whose process is gone. This process's own pid here is a dead predecessor's: its holders queue in memory. */
function isDead(holder: Holder): boolean {
  if (holder.host !== hostname()) return false;
  if (holder.pid === process.pid) return true;
  try {
    process.kill(holder.pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** A takeover takes seconds at most; a break file older than this was left by a breaker that died. */
const STALE_BREAK_MS = 10_000;

/**
 * Removes a dead holder's lock without removing a live one that replaced it meanwhile. Takeovers are
 * serialised by `<lock>.break`, created whole like the lock: inside it the lock is read again and removed
 * only if it is still the dead holder's. (Creating a lock needs no break file: nobody can while the dead
 * holder's file exists.)
 */
async function breakStale(path: string, stale: string): Promise<void> {
  const breakPath = `${path}.break`;
  if (!(await create(breakPath, `${process.pid}\n`))) {
    const age = await stat(breakPath).then(
      (s) => Date.now() - s.mtimeMs,
      () => 0,
    );
    if (age > STALE_BREAK_MS) await rm(breakPath, { force: true });
    else await sleep(5);
    return; // another process is taking it over; look again
  }
  try {
    if ((await readFile(path, 'utf8').catch(() => undefined)) === stale) await rm(path, { force: true });
  } finally {
    await rm(breakPath, { force: true });
  }
}

async function releaseIfOurs(path: string, text: string): Promise<void> {
  if ((await readFile(path, 'utf8').catch(() => undefined)) === text) await rm(path, { force: true });
}
