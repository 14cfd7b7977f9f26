// What /healthz and /readyz say about a watching loop (adapters/metrics/server.ts serves them). Alive: the loop
// runs and no pass has hung (run past ten intervals and at least 30 min: the kubelet then restarts the replica,
// and a standby takes over), or the replica waits for its Lease as a standby. Ready: a standby is (it holds
// nothing and can take over); a running loop is once a pass finished within three intervals — a pass waits for
// its caches' first lists, so a finished pass also says the caches synced. A pass that failed still counts:
// failures have their own metrics and alerts, and taking the replica out of its Service would not make the remote
// answer; so the window also covers the longest wait after failures (the loop's backoff plus an interval).
import type { ProbeResult } from '../adapters/metrics/server.js';
import { MAX_FAILURE_BACKOFF_MS } from '../generator/watch.js';

/** A pass running longer than this (and ten intervals) has hung. */
const HUNG_PASS_MS = 30 * 60_000;

type Phase = 'starting' | 'standby' | 'running' | 'stopped';

export class LoopHealth {
  private phase: Phase = 'starting';
  private lastPassEndedMs: number | undefined;
  private passStartedMs: number | undefined;

  constructor(
    private readonly intervalMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  standby(): void {
    this.phase = 'standby';
  }

  running(): void {
    this.phase = 'running';
  }

  stopped(): void {
    this.phase = 'stopped';
  }

  passStarted(): void {
    this.passStartedMs = this.now();
  }

  passEnded(): void {
    this.lastPassEndedMs = this.now();
    this.passStartedMs = undefined;
  }

  live(): ProbeResult {
    if (this.phase === 'stopped') return { ok: false, message: 'the loop stopped' };
    const runningMs = this.passStartedMs === undefined ? 0 : this.now() - this.passStartedMs;
    if (runningMs > Math.max(10 * this.intervalMs, HUNG_PASS_MS))
      return { ok: false, message: `a pass has run for ${Math.round(runningMs / 60_000)} min: it hangs` };
    return { ok: true, message: this.phase === 'standby' ? 'standby: waiting for the Lease' : this.phase };
  }

  ready(): ProbeResult {
    if (this.phase === 'standby') return { ok: true, message: 'standby: waiting for the Lease' };
    if (this.phase !== 'running') return { ok: false, message: this.phase };
    if (this.lastPassEndedMs === undefined) return { ok: false, message: 'the first pass has not finished' };
    const ageMs = this.now() - this.lastPassEndedMs;
    const limitMs = Math.max(3 * this.intervalMs, MAX_FAILURE_BACKOFF_MS + this.intervalMs);
    return ageMs <= limitMs
      ? { ok: true, message: `last pass ended ${Math.round(ageMs / 1000)} s ago` }
      : {
          ok: false,
          message: `last pass ended ${Math.round(ageMs / 1000)} s ago, more than ${Math.round(limitMs / 1000)} s (three intervals, or the longest backoff and an interval)`,
        };
  }
}
