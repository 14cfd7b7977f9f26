import { describe, expect, it } from 'vitest';
import { collectGarbage } from './collect-garbage.js';

describe('collectGarbage', () => {
  it('returns the garbage of a pass: the heap after it is smaller than with the garbage still there', () => {
    collectGarbage();
    const before = process.memoryUsage().heapUsed;
    // ~100 MB of short-lived objects, as a pass over many Shoots leaves behind (made and dropped in a function).
    const withGarbage = (() => {
      const pass = Array.from({ length: 200_000 }, (_, i) => ({
        name: `shoot-${i}`,
        spec: { values: Array.from({ length: 20 }, (_, j) => j * i) },
      }));
      return pass.length > 0 ? process.memoryUsage().heapUsed : 0;
    })();
    collectGarbage();
    const after = process.memoryUsage().heapUsed;
    expect(withGarbage - before).toBeGreaterThan(50 * 2 ** 20);
    expect(after - before).toBeLessThan((withGarbage - before) / 4);
  });
});
