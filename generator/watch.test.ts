import { describe, expect, it, vi } from 'vitest';
import { watchLoop } from './watch.js';

/** Resolves when `check` holds, polling the event loop. */
async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 2));
  expect(check()).toBe(true);
}

describe('watchLoop', () => {
  it('passes at once, then once for a burst of triggers spread over the debounce window; stops when aborted', async () => {
    // On a fake clock: with real timers a busy machine can stretch a 20 ms step past the 80 ms window.
    vi.useFakeTimers();
    try {
      const controller = new AbortController();
      const passes: number[] = [];
      const loop = watchLoop({
        pass: async () => void passes.push(Date.now()),
        intervalMs: 60_000,
        debounceMs: 80,
        signal: controller.signal,
        onFailure: () => undefined,
      });
      await vi.advanceTimersByTimeAsync(0);
      expect(passes).toHaveLength(1);
      // Changes arriving 20 ms apart, all within the 80 ms the first one waits: one pass after the last.
      for (let i = 0; i < 3; i++) {
        loop.trigger();
        await vi.advanceTimersByTimeAsync(20);
      }
      await vi.advanceTimersByTimeAsync(20);
      expect(passes).toHaveLength(2);
      await vi.advanceTimersByTimeAsync(150);
      expect(passes).toHaveLength(2);
      controller.abort();
      await loop.done;
    } finally {
      vi.useRealTimers();
    }
  });

  it('runs the next pass after the interval without a trigger', async () => {
    const controller = new AbortController();
    let passes = 0;
    const loop = watchLoop({
      pass: async () => void passes++,
      intervalMs: 10,
      signal: controller.signal,
      onFailure: () => undefined,
    });
    await until(() => passes >= 3);
    controller.abort();
    await loop.done;
  });

  it('backs off after failures, doubling up to the maximum, without waking on triggers, and recovers', async () => {
    const controller = new AbortController();
    const waits: number[] = [];
    let calls = 0;
    const loop = watchLoop({
      pass: async () => {
        calls++;
        if (calls <= 4) throw new Error(`remote down (${calls})`);
      },
      intervalMs: 60_000,
      backoffMs: 5,
      maxBackoffMs: 15,
      signal: controller.signal,
      onFailure: (error, retryInMs) => {
        waits.push(retryInMs);
        loop.trigger(); // must not cut the backoff short
      },
    });
    await until(() => calls === 5);
    expect(waits).toEqual([5, 10, 15, 15]);
    controller.abort();
    await loop.done;
    expect(calls).toBe(5);
  });

  it('ends a wait when aborted, without another pass', async () => {
    const controller = new AbortController();
    let passes = 0;
    const loop = watchLoop({
      pass: async () => void passes++,
      intervalMs: 60_000,
      signal: controller.signal,
      onFailure: () => undefined,
    });
    await until(() => passes === 1);
    controller.abort();
    await loop.done;
    expect(passes).toBe(1);
  });
});
