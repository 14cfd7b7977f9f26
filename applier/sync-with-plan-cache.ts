// The plan memo (sync-commit.ts's SyncMemo) kept in a file between processes, so an `apply --once` — or a
// watching applier after a restart — reads and plans only the Shoots whose folder or live objects moved since
// the last sync. The file is read into the memo before a process's first sync and written after a sync only
// when the memo's keys changed; one that cannot be written is said once, and the memo then stays in memory.
// Reading and writing the file is the adapter's (adapters/files/plan-cache.ts).
import { createHash } from 'node:crypto';
import type { PlanEntry } from './plan.js';
import { syncCommit, type SyncCommitInput, type SyncMemo, type SyncReport } from './sync-commit.js';

export interface PlanCacheFiles {
  /** The entries; empty when the file is missing, unreadable or of other code. */
  read(path: string): Promise<Map<string, PlanEntry>>;
  write(path: string, entries: ReadonlyMap<string, PlanEntry>): Promise<void>;
}

/** The plan cache's file as last read or written (its keys' digest), so an unchanged memo is not written again. */
interface PlanCacheMark {
  path: string;
  digest: string;
}

/** What a watching applier keeps of its plan cache from one sync to the next. */
export interface PlanCacheState {
  /** null once the file could not be written: no later sync of the process reads or writes it. */
  mark?: PlanCacheMark | null;
}

export interface PlanCacheUse {
  /** The file; undefined for none. */
  path: string | undefined;
  files: PlanCacheFiles;
  /** Where a cache that cannot be written is said. */
  warn: (line: string) => void;
  /** A watching applier's; a --once run has none. */
  state?: PlanCacheState;
}

/** One sync, its memo read from the plan cache first (unless this process read or wrote it already) and written back when it changed. */
export async function syncWithPlanCache(
  input: SyncCommitInput & { memo: SyncMemo },
  cache: PlanCacheUse,
): Promise<SyncReport> {
  const { memo } = input;
  const { files, warn, state } = cache;
  const path = state?.mark === null ? undefined : cache.path;
  const last = state?.mark && state.mark.path === path ? state.mark : path && (await load(path, memo, files));
  const report = await syncCommit(input);
  if (path) {
    const saved = await save(path, memo, last || undefined, files, warn);
    if (state) state.mark = saved;
  }
  return report;
}

const digestOfKeys = (memo: SyncMemo) =>
  createHash('sha256')
    .update([...memo.plan.keys()].join('\n'))
    .digest('hex');

/** The plan cache's entries into `memo` (none when it is missing, unreadable or of other code). */
async function load(path: string, memo: SyncMemo, files: PlanCacheFiles): Promise<PlanCacheMark> {
  for (const [key, entry] of await files.read(path)) memo.plan.set(key, entry);
  return { path, digest: digestOfKeys(memo) };
}

/** The memo written to the plan cache when it changed; a cache that cannot be written only costs the next run time. */
async function save(
  path: string,
  memo: SyncMemo,
  last: PlanCacheMark | undefined,
  files: PlanCacheFiles,
  warn: (line: string) => void,
): Promise<PlanCacheMark | null> {
  const digest = digestOfKeys(memo);
  if (last?.path === path && last.digest === digest) return last;
  try {
    await files.write(path, memo.plan);
  } catch (error) {
    warn(
      `plan cache ${path} not written (${error instanceof Error ? error.message : String(error)}): the next process plans every Shoot in full; pass --plan-cache <file> somewhere writable, or --no-plan-cache`,
    );
    return null;
  }
  return { path, digest };
}
