// What /healthz and /readyz say about a watching loop (adapters/metrics/server.ts serves them). Alive: the loop
// runs, or the replica waits for its Lease as a standby. Ready: a standby is (it holds nothing and can take over);
// a running loop is once a pass finished within three intervals — a pass waits for its caches' first lists, so a
// finished pass also says the caches synced. A pass that failed still counts: failures have their own metrics
// and alerts, and taking the replica out of its Service would not make the remote answer.
import type { ProbeResult } from '../adapters/metrics/server.js';

type Phase = 'starting' | 'standby' | 'running' | 'stopped';

export class LoopHealth {
  private phase: Phase = 'starting';
  private lastPassEndedMs: number | undefined;

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

  passEnded(): void {
    this.lastPassEndedMs = this.now();
  }

  live(): ProbeResult {
    if (this.phase === 'stopped') return { ok: false, message: 'the loop stopped' };
    return { ok: true, message: this.phase === 'standby' ? 'standby: waiting for the Lease' : this.phase };
  }

  ready(): ProbeResult {
    if (this.phase === 'standby') return { ok: true, message: 'standby: waiting for the Lease' };
    if (this.phase !== 'running') return { ok: false, message: this.phase };
    if (this.lastPassEndedMs === undefined) return { ok: false, message: 'the first pass has not finished' };
    const ageMs = this.now() - this.lastPassEndedMs;
    const limitMs = 3 * this.intervalMs;
    return ageMs <= limitMs
      ? { ok: true, message: `last pass ended ${Math.round(ageMs / 1000)} s ago` }
      : {
          ok: false,
          message: `last pass ended ${Math.round(ageMs / 1000)} s ago, more than three intervals (${Math.round(limitMs / 1000)} s)`,
        };
  }
}
