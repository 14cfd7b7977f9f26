// The warm half of `npm run bench -- apply`: `kimops apply --watch` as a child process of its own, as it runs
// in production (like Flux's controllers: one long-lived process that keeps its SyncMemo from one sync to the
// next), its Garden requests counted by the bench's proxy. Each sync is told apart by the applier's own
// metrics: the bench scrapes `--metrics-port` and a sync has ended when the count of
// kimops_applier_sync_duration_seconds has grown; its duration is the growth of the histogram's sum, its
// requests those the proxy recorded since the previous sync ended (the watch sends none between syncs), its
// memory the child's VmHWM since the previous sync ended (/proc/<pid>/status; the high-water mark is reset
// after each sync by writing 5 to /proc/<pid>/clear_refs, Linux ≥ 4.0) and its VmRSS right after.
//
// The sequence: the first sync (its memo empty: a cold sync, as `--once` makes), `noops` no-op syncs, then a
// commit of changed Shoots on main while the watch idles (the bench's `change()`), the sync of that commit
// (told by the commit in the CLI's result line), and one no-op after it. Then SIGTERM (the watch ends after
// its running pass).
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { GardenProxy, ProxiedRequest } from '../../test/helpers/garden-proxy.js';

const HISTOGRAM = 'kimops_applier_sync_duration_seconds';
const SCRAPE_EVERY_MS = 200;
const MEMORY_EVERY_MS = 20;
/** The longest a single sync may take before the bench gives up (a cold sync of 10,000 Shoots: ~1 min). */
const SYNC_TIMEOUT_MS = Number(process.env.KIMOPS_BENCH_APPLY_SYNC_TIMEOUT ?? 15 * 60_000);
const STOP_TIMEOUT_MS = 120_000;

export type WarmKind = 'first' | 'noop' | 'changed' | 'noop-after';

export interface WarmSync {
  kind: WarmKind;
  label: string;
  /** The growth of the histogram's sum: the applier's own measure of the sync (readLandscape … report). */
  seconds: number;
  outcome: string;
  /** What the proxy recorded between the end of the previous sync and the end of this one. */
  requests: ProxiedRequest[];
  /** VmHWM since the previous sync ended (or since the start, for the first; lifetime if the reset failed). */
  peakRssBytes: number;
  /** VmRSS when the sync was seen to have ended. */
  rssAfterBytes: number;
  /** The CLI's result line for this sync. */
  summary: string;
  /** main's commit the sync worked on (12 hex digits, from the result line). */
  commit: string;
}

export interface WarmRun {
  syncs: WarmSync[];
  /** The highest VmHWM of the process over its whole life (cold first sync included). */
  lifetimePeakBytes: number;
  /** Whether writing /proc/<pid>/clear_refs reset the high-water mark (else each peak is the lifetime one). */
  hwmReset: boolean;
  intervalSeconds: number;
  /** Shoots the commit changed (what the changed sync should write). */
  changedShoots: number;
  exitCode: number;
  stderr: string;
  pid: number;
}

export interface WarmInput {
  /** node and its options before the kimops script (e.g. --cpu-prof). */
  nodeArgs: string[];
  /** `apply --landscape … --repo … --garden-kubeconfig <proxy>` without --once/--watch. */
  applyArgs: string[];
  kimopsBin: string;
  cwd: string;
  proxy: GardenProxy;
  intervalSeconds: number;
  noops: number;
  /** Commits the changed Shoots on main; returns the new commit and how many Shoots it changed. */
  change(): Promise<{ oid: string; shoots: number }>;
  log(text: string): void;
}

/** A port the OS just handed out (and that is free again when this returns). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

interface Histogram {
  count: number;
  sum: number;
  countByOutcome: Map<string, number>;
}

function parseHistogram(text: string): Histogram {
  const result: Histogram = { count: 0, sum: 0, countByOutcome: new Map() };
  const line = new RegExp(`^${HISTOGRAM}_(sum|count)\\{([^}]*)\\}\\s+(\\S+)$`, 'gm');
  for (const match of text.matchAll(line)) {
    const value = Number(match[3]);
    if (match[1] === 'sum') result.sum += value;
    else {
      result.count += value;
      const outcome = /outcome="([^"]*)"/.exec(match[2] ?? '')?.[1] ?? '?';
      result.countByOutcome.set(outcome, (result.countByOutcome.get(outcome) ?? 0) + value);
    }
  }
  return result;
}

function memoryOf(pid: number): { hwmKib: number; rssKib: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return {
      hwmKib: Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0),
      rssKib: Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0),
    };
  } catch {
    return undefined;
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export async function measureWarm(input: WarmInput): Promise<WarmRun> {
  const port = await freePort();
  const metricsUrl = `http://127.0.0.1:${port}/metrics`;
  const argv = [
    ...input.nodeArgs,
    input.kimopsBin,
    ...input.applyArgs,
    '--watch',
    '--interval',
    String(input.intervalSeconds),
    '--metrics-port',
    String(port),
  ];
  input.proxy.reset();
  const child = spawn(process.execPath, argv, { cwd: input.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  const pid = child.pid ?? 0;
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  let exited: number | undefined;
  const exit = new Promise<number>((resolve) =>
    child.on('close', (code, signal) => resolve((exited = code ?? (signal ? 128 : -1)))),
  );

  // VmHWM is monotonic between resets: the highest reading since the last reset is the peak since then.
  let peakKib = 0;
  let lifetimeKib = 0;
  const sample = () => {
    const memory = memoryOf(pid);
    if (!memory) return;
    peakKib = Math.max(peakKib, memory.hwmKib);
    lifetimeKib = Math.max(lifetimeKib, memory.hwmKib);
  };
  const poll = setInterval(sample, MEMORY_EVERY_MS);
  let hwmReset = true;

  const syncs: WarmSync[] = [];
  let seen: Histogram = { count: 0, sum: 0, countByOutcome: new Map() };
  let stdoutSeen = 0;
  /** Set once the change is committed (an object: assigned inside try, read after finally). */
  const changed = { shoots: 0 };

  /** Waits until the applier's histogram counts one more sync, and takes its figures. */
  const nextSync = async (kind: WarmKind, label: string): Promise<WarmSync> => {
    const deadline = Date.now() + SYNC_TIMEOUT_MS;
    for (;;) {
      if (exited !== undefined)
        throw new Error(
          `kimops apply --watch exited (${exited}) while the bench waited for ${label}:\n${stderr.slice(-3_000)}`,
        );
      if (Date.now() > deadline)
        throw new Error(`no sync ended within ${SYNC_TIMEOUT_MS / 1000} s while waiting for ${label}`);
      let now: Histogram | undefined;
      try {
        const answer = await fetch(metricsUrl);
        if (answer.ok) now = parseHistogram(await answer.text());
      } catch {
        // the metrics server is not up yet
      }
      if (now && now.count > seen.count) {
        const requests = [...input.proxy.requests];
        input.proxy.reset();
        sample();
        const memory = memoryOf(pid);
        const peakRssBytes = peakKib * 1024;
        try {
          writeFileSync(`/proc/${pid}/clear_refs`, '5');
          peakKib = 0;
        } catch {
          hwmReset = false;
        }
        const outcome = [...now.countByOutcome].find(([o, n]) => n > (seen.countByOutcome.get(o) ?? 0))?.[0] ?? '?';
        if (now.count > seen.count + 1)
          input.log(
            `warning: ${now.count - seen.count} syncs ended between two scrapes; their figures are merged into ${label}`,
          );
        const seconds = now.sum - seen.sum;
        seen = now;
        // The result line of this sync: the last one printed since the previous sync ended.
        const printed = stdout.slice(stdoutSeen).split('\n');
        stdoutSeen = stdout.length;
        const summary =
          printed.filter((l) => / applied, \d+ unchanged/.test(l)).at(-1) ?? printed.filter(Boolean).at(-1) ?? '';
        const commit = /main at ([0-9a-f]{12})/.exec(summary)?.[1] ?? '';
        const sync: WarmSync = {
          kind,
          label,
          seconds,
          outcome,
          requests,
          peakRssBytes,
          rssAfterBytes: (memory?.rssKib ?? 0) * 1024,
          summary,
          commit,
        };
        input.log(
          `warm ${label}: ${(seconds * 1000).toFixed(0)} ms (${outcome}), ${requests.filter((r) => r.method !== 'GET').length} writes of ${requests.length} requests, ` +
            `peak ${(peakRssBytes / 2 ** 20).toFixed(0)} MiB, resident after ${(sync.rssAfterBytes / 2 ** 20).toFixed(0)} MiB`,
        );
        syncs.push(sync);
        return sync;
      }
      await sleep(SCRAPE_EVERY_MS);
    }
  };

  try {
    await nextSync('first', 'first sync (memo empty)');
    for (let i = 1; i <= input.noops; i++) await nextSync('noop', `no-op ${i}`);
    // Committed while the watch waits out its interval; a sync that starts before the commit lands is one more no-op.
    const change = await input.change();
    changed.shoots = change.shoots;
    const target = change.oid.slice(0, 12);
    for (let extra = 1; ; extra++) {
      const sync = await nextSync('changed', `${change.shoots} Shoots changed`);
      if (sync.commit === target || extra >= 3) break;
      sync.kind = 'noop';
      sync.label = `no-op ${input.noops + extra} (began before the commit)`;
    }
    await nextSync('noop-after', 'no-op after the change');
  } finally {
    if (exited === undefined) child.kill('SIGTERM');
    const timer = setTimeout(() => exited === undefined && child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    await exit;
    clearTimeout(timer);
    clearInterval(poll);
  }
  return {
    syncs,
    lifetimePeakBytes: lifetimeKib * 1024,
    hwmReset,
    intervalSeconds: input.intervalSeconds,
    changedShoots: changed.shoots,
    exitCode: exited ?? -1,
    stderr,
    pid,
  };
}
