import { describe, expect, it } from 'vitest';
import { LoopHealth } from './loop-health.js';

describe('LoopHealth', () => {
  it('is alive but not ready until the first pass ends, then ready while passes keep ending', () => {
    let now = 0;
    const health = new LoopHealth(200_000, () => now);
    expect(health.live().ok).toBe(true);
    expect(health.ready()).toEqual({ ok: false, message: 'starting' });
    health.running();
    expect(health.ready()).toEqual({ ok: false, message: 'the first pass has not finished' });
    health.passEnded();
    now = 600_000;
    expect(health.ready().ok).toBe(true);
    now = 600_001;
    expect(health.ready()).toEqual({
      ok: false,
      message: 'last pass ended 600 s ago, more than 600 s (three intervals, or the longest backoff and an interval)',
    });
    expect(health.live().ok).toBe(true);
  });

  it('stays ready through the longest backoff after failed passes, with a short interval', () => {
    let now = 0;
    const health = new LoopHealth(60_000, () => now);
    health.running();
    health.passEnded();
    now = 5 * 60_000 + 60_000; // the 5 min backoff and an interval: past three intervals, still ready
    expect(health.ready().ok).toBe(true);
    now += 1;
    expect(health.ready().ok).toBe(false);
  });

  it('is no longer alive when a pass hangs past ten intervals and 30 min', () => {
    let now = 0;
    const health = new LoopHealth(60_000, () => now);
    health.running();
    health.passStarted();
    now = 30 * 60_000;
    expect(health.live().ok).toBe(true);
    now += 1;
    expect(health.live()).toEqual({ ok: false, message: 'a pass has run for 30 min: it hangs' });
    health.passEnded();
    expect(health.live().ok).toBe(true);
  });

  it('counts a standby as alive and ready, and a stopped loop as neither', () => {
    const health = new LoopHealth(1_000, () => 0);
    health.standby();
    expect(health.live()).toEqual({ ok: true, message: 'standby: waiting for the Lease' });
    expect(health.ready().ok).toBe(true);
    health.stopped();
    expect(health.live()).toEqual({ ok: false, message: 'the loop stopped' });
    expect(health.ready().ok).toBe(false);
  });
});
