import { describe, expect, it } from 'vitest';
import { backoffDelayMs } from './backoff.js';

describe('backoffDelayMs', () => {
  it.each([
    [1, 500],
    [2, 1_000],
    [3, 2_000],
    [7, 30_000],
    [60, 30_000],
  ])('attempt %d waits %d ms without jitter', (attempt, ms) => {
    expect(backoffDelayMs(attempt, { initialMs: 500, maxMs: 30_000 })).toBe(ms);
  });

  it('grows by the given factor', () => {
    expect(backoffDelayMs(3, { initialMs: 100, maxMs: 10_000, factor: 3 })).toBe(900);
  });

  it('shortens a delay by at most the jitter share, never past the cap', () => {
    const policy = { initialMs: 1_000, maxMs: 4_000, jitter: 0.2 };
    expect(backoffDelayMs(1, policy, () => 0)).toBe(1_000);
    expect(backoffDelayMs(1, policy, () => 0.5)).toBe(900);
    expect(backoffDelayMs(1, policy, () => 0.999_999)).toBe(800);
    expect(backoffDelayMs(10, policy, () => 0)).toBe(4_000);
  });

  it('treats attempt 0 like the first attempt', () => {
    expect(backoffDelayMs(0, { initialMs: 250, maxMs: 1_000 })).toBe(250);
  });
});
