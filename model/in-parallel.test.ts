import { describe, expect, it } from 'vitest';
import { mapInParallel } from './in-parallel.js';

describe('mapInParallel', () => {
  it('keeps the order of the items and never runs more than the limit at once', async () => {
    let running = 0;
    let most = 0;
    const results = await mapInParallel([5, 1, 4, 2, 3, 0], 3, async (delay, index) => {
      running++;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, delay * 5));
      running--;
      return `${index}:${delay}`;
    });
    expect(results).toEqual(['0:5', '1:1', '2:4', '3:2', '4:3', '5:0']);
    expect(most).toBe(3);
  });

  it('returns nothing for no items and passes a failure on', async () => {
    expect(await mapInParallel([], 4, async () => 1)).toEqual([]);
    await expect(
      mapInParallel([1, 2], 2, async (n) => (n === 2 ? Promise.reject(new Error('two')) : n)),
    ).rejects.toThrow('two');
  });
});
