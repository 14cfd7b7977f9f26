import { describe, expect, it } from 'vitest';
import { LATENCY_BUCKETS, latencyHistograms } from './latency.js';

const AT = (seconds: number) => new Date(Date.UTC(2026, 11, 1) + seconds * 1000).toISOString();

describe('latencyHistograms', () => {
  it('counts each stage with both ends, cumulatively per bucket', () => {
    const histograms = latencyHistograms([
      { changed: AT(0), proposed: AT(5), merged: AT(65), applied: AT(70), ready: AT(670) },
      { changed: AT(0), proposed: AT(30), ready: AT(100_000) },
      { changed: AT(0) },
    ]);
    const propose = histograms.find((h) => h.stage === 'propose');
    expect(propose).toMatchObject({ count: 2, sum: 35 });
    // 5 s and 30 s: both within 30 s, one within 10 s.
    expect(propose?.buckets.slice(0, 3)).toEqual([
      { le: 10, count: 1 },
      { le: 30, count: 2 },
      { le: 60, count: 2 },
    ]);
    expect(histograms.find((h) => h.stage === 'merge')).toMatchObject({ count: 1, sum: 60 });
    expect(histograms.find((h) => h.stage === 'apply')).toMatchObject({ count: 1, sum: 5 });
    expect(histograms.find((h) => h.stage === 'ready')).toMatchObject({ count: 1, sum: 600 });
    const total = histograms.find((h) => h.stage === 'total');
    expect(total).toMatchObject({ count: 2, sum: 100_670 });
    // 670 s falls in the 30m bucket; 100,000 s only in +Inf.
    expect(total?.buckets.find((b) => b.le === 600)?.count).toBe(0);
    expect(total?.buckets.find((b) => b.le === 1800)?.count).toBe(1);
    expect(total?.buckets.find((b) => b.le === 86_400)?.count).toBe(1);
    expect(total?.buckets.at(-1)).toEqual({ le: null, count: 2 });
  });

  it('has every stage and bucket, empty, without timelines', () => {
    const histograms = latencyHistograms([]);
    expect(histograms.map((h) => h.stage)).toEqual(['propose', 'merge', 'apply', 'ready', 'total']);
    for (const histogram of histograms) {
      expect(histogram.buckets.map((b) => b.le)).toEqual([...LATENCY_BUCKETS, null]);
      expect(histogram.count).toBe(0);
    }
  });

  it('counts in whole seconds: a merge in the second its PR opened took none', () => {
    const [, merge] = latencyHistograms([{ proposed: '2026-12-01T10:00:00.528Z', merged: '2026-12-01T10:00:00Z' }]);
    expect(merge).toMatchObject({ count: 1, sum: 0 });
  });

  it('leaves out steps recorded out of order', () => {
    const [propose] = latencyHistograms([{ changed: AT(60), proposed: AT(0) }]);
    expect(propose?.count).toBe(0);
  });
});
