// Exponential backoff, the one rule every retry loop in kimops uses (the watch loops, the informer, paced
// Garden writes, forge retries, the backfiller's lists): the first retry waits `initialMs`, each next one
// `factor` times longer, never more than `maxMs`. With `jitter`, a delay is shortened by up to that share of
// itself at random, so many clients failing together do not retry together (client-go's reflector backoff
// jitters the same way) and no delay ever exceeds `maxMs`.

export interface BackoffPolicy {
  initialMs: number;
  maxMs: number;
  /** Growth per attempt; 2 when absent. */
  factor?: number;
  /** 0..1: the largest share of a delay cut at random; 0 (no jitter) when absent. */
  jitter?: number;
}

/** The wait before retry number `attempt` (from 1), in whole milliseconds. `random` is injectable for tests. */
export function backoffDelayMs(attempt: number, policy: BackoffPolicy, random: () => number = Math.random): number {
  const growth = (policy.factor ?? 2) ** Math.max(0, attempt - 1);
  const base = Math.min(policy.maxMs, policy.initialMs * growth);
  const jitter = policy.jitter ?? 0;
  return Math.round(jitter > 0 ? base * (1 - jitter * random()) : base);
}
