// The generator's run loop for `--watch`: a pass whenever a Runtime changes (a burst of changes
// settles first, so it costs one pass) and at least every interval — merges and approvals on the
// forge arrive without an event. A failed pass backs off exponentially and never ends the loop:
// kimops keeps no state outside Git and the forge, so the next pass picks up where this one failed.
import { backoffDelayMs, type BackoffPolicy } from '../model/backoff.js';

/** Changes within this window share one pass: KEB writes a new Runtime's spec and labels in quick succession. */
const DEFAULT_DEBOUNCE_MS = 1_000;
/** First wait after a failed pass; doubled per failure in a row up to the maximum. */
const FAILURE_BACKOFF_MS = 5_000;
export const MAX_FAILURE_BACKOFF_MS = 5 * 60_000;

export interface WatchLoopOptions {
  /** One generator pass; a rejection is a failed pass. */
  pass: () => Promise<void>;
  /** A pass at least this often. */
  intervalMs: number;
  debounceMs?: number;
  backoffMs?: number;
  maxBackoffMs?: number;
  /** Ends the loop after the running pass. */
  signal: AbortSignal;
  onFailure: (error: unknown, retryInMs: number) => void;
}

export interface WatchLoop {
  /** Asks for a pass soon (a Runtime changed). */
  trigger(): void;
  /** Settles when the signal has ended the loop. */
  done: Promise<void>;
}

export function watchLoop(options: WatchLoopOptions): WatchLoop {
  const { signal } = options;
  // No jitter: a failed pass is retried as one pass, seconds to minutes apart, not as a burst of requests worth
  // spreading out; and the wait reported to onFailure (and logged) is then the wait taken.
  const backoff: BackoffPolicy = {
    initialMs: options.backoffMs ?? FAILURE_BACKOFF_MS,
    maxMs: options.maxBackoffMs ?? MAX_FAILURE_BACKOFF_MS,
  };
  const backoffOf = (failures: number) => backoffDelayMs(failures, backoff);
  let triggered = false;
  let wake: (() => void) | undefined;

  /** Waits `ms`, or less when the signal fires — or, if `wakeOnTrigger`, when a pass is asked for. */
  const wait = (ms: number, wakeOnTrigger: boolean) =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener('abort', done, { once: true });
      if (wakeOnTrigger) wake = done;
    });

  const run = async () => {
    let failures = 0;
    while (!signal.aborted) {
      triggered = false;
      try {
        await options.pass();
        failures = 0;
      } catch (error) {
        failures++;
        options.onFailure(error, backoffOf(failures));
      }
      if (signal.aborted) break;
      // After a failure only the backoff ends the wait: a burst of Runtime changes must not hammer a failing remote.
      if (failures > 0) await wait(backoffOf(failures), false);
      else if (!triggered) await wait(options.intervalMs, true);
      if (triggered && failures === 0 && !signal.aborted) await wait(options.debounceMs ?? DEFAULT_DEBOUNCE_MS, false);
    }
  };

  return {
    trigger() {
      triggered = true;
      wake?.();
    },
    done: run(),
  };
}
