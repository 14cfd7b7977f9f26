// How long the landscape's changes took from one step to the next (status/landscape-status.ts LatencyHistogram):
// per stage, over the rows whose newest change recorded both of its ends, as cumulative histograms with fixed
// buckets from 10 seconds to a day, so two statuses read alike and a page can draw them without rebinning. Pure.
import type { LatencyHistogram, Timeline } from './landscape-status.js';

/** The upper bounds in seconds; a last bucket (+Inf) follows. */
export const LATENCY_BUCKETS = [10, 30, 60, 120, 300, 600, 1800, 3600, 7200, 21_600, 86_400] as const;

const STAGE_ENDS: readonly [LatencyHistogram['stage'], keyof Timeline, keyof Timeline][] = [
  ['propose', 'changed', 'proposed'],
  ['merge', 'proposed', 'merged'],
  ['apply', 'merged', 'applied'],
  ['ready', 'applied', 'ready'],
  ['total', 'changed', 'ready'],
];

export function latencyHistograms(timelines: Iterable<Timeline>): LatencyHistogram[] {
  const histograms = STAGE_ENDS.map(([stage]) => ({
    stage,
    buckets: [...LATENCY_BUCKETS, null].map((le) => ({ le, count: 0 })),
    count: 0,
    sum: 0,
  }));
  for (const timeline of timelines)
    STAGE_ENDS.forEach(([, from, to], index) => {
      const start = timeline[from];
      const end = timeline[to];
      if (start === undefined || end === undefined) return;
      // Whole seconds: the steps come from clocks of different precision (git and managedFields keep seconds, a
      // forge may keep milliseconds), so a merge in the PR's second must not read as before it.
      const seconds = Math.floor(Date.parse(end) / 1000) - Math.floor(Date.parse(start) / 1000);
      // Steps recorded out of order (clocks of different systems) say nothing about how long the stage took.
      if (!(seconds >= 0)) return;
      const histogram = histograms[index] as LatencyHistogram;
      histogram.count += 1;
      histogram.sum += seconds;
      for (const bucket of histogram.buckets) if (bucket.le === null || seconds <= bucket.le) bucket.count += 1;
    });
  return histograms;
}
