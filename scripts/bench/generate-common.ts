// What the generate benchmark's setup (generate.ts) and its passes (generate-passes.ts, a process of
// its own) must agree on: the landscape, the author, the synthetic Runtimes, and how time is taken.
import type { Runtime } from '../../model/runtime.js';
import { syntheticRuntimes } from './synthetic-runtimes.js';

export const BENCH_LANDSCAPE = 'dev';
export const BENCH_AUTHOR = { name: 'kimops bench', email: 'bench@kimops.invalid', timestamp: 1_790_000_000 };

/** The synthetic Runtimes, each with a generation: a Runtime read from KCP always has one. */
export function benchRuntimes(count: number): Runtime[] {
  const runtimes = syntheticRuntimes(count);
  for (const runtime of runtimes) runtime.metadata.generation ??= 1;
  return runtimes;
}

export const msSince = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e6;

export async function timed<T>(work: () => Promise<T>): Promise<[T, number]> {
  const start = process.hrtime.bigint();
  const result = await work();
  return [result, msSince(start)];
}
