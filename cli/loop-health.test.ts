import { describe, expect, it } from 'vitest';
import { LoopHealth } from './loop-health.js';

describe('LoopHealth', () => {
  it('is alive but not ready until the first pass ends, then ready while passes keep ending', () => {
    let now = 0;
    const health = new LoopHealth(10_000, () => now);
    expect(health.live().ok).toBe(true);
    expect(health.ready()).toEqual({ ok: false, message: 'starting' });
    health.running();
    expect(health.ready()).toEqual({ ok: false, message: 'the first pass has not finished' });
    health.passEnded();
    now = 30_000;
    expect(health.ready().ok).toBe(true);
    now = 30_001;
    expect(health.ready()).toEqual({
      ok: false,
      message: 'last pass ended 30 s ago, more than three intervals (30 s)',
    });
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
