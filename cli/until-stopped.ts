// What the long-running commands (generate, apply and backfill --watch) share: a pass on every interval
// (and on demand), failures reported and retried with backoff (generator/watch.ts), and an end on
// SIGINT/SIGTERM — or the caller's signal in tests — after the running pass. With --leader-elect the passes
// run only while this replica holds the loop's Lease: it waits as a standby until then, releases the Lease
// when it stops, and exits at once when it loses it, so that a replica without the Lease writes nothing.
import { LeadershipEnded } from '../adapters/kube/leader-election.js';
import { watchLoop, type WatchLoop } from '../generator/watch.js';
import { EXIT, reportFailure, type CliIo } from './cli-io.js';
import type { LeaderElection } from './leader-option.js';
import { logLine } from './logging.js';
import type { LoopHealth } from './loop-health.js';

export interface UntilStoppedOptions {
  pass: () => Promise<unknown>;
  intervalMs: number;
  /** The wait after a trigger before the pass starts (a burst of triggers shares it); the watch loop's default when absent. */
  debounceMs?: number;
  io: CliIo;
  /** Called once the loop runs: wire event sources to `loop.trigger()`. */
  started?: (loop: WatchLoop) => void;
  /** Called at once on SIGINT/SIGTERM: stop what a running pass may be waiting for. */
  stopping?: () => void;
  /** Resolves once work started outside the passes has finished: awaited after the last pass, before the release. */
  drain?: () => Promise<void>;
  /** Hold this Lease while passes run (--leader-elect). */
  leaderElection?: LeaderElection;
  /** What /healthz and /readyz answer (--metrics-port). */
  health?: LoopHealth;
  /** Ends the process when the Lease is lost; tests pass their own. */
  exit?: (code: number) => void;
}

export async function runUntilStopped(options: UntilStoppedOptions): Promise<void> {
  const { pass, intervalMs, debounceMs, io, started, stopping, drain, leaderElection, health } = options;
  const controller = new AbortController();
  const stop = () => {
    controller.abort();
    stopping?.();
  };
  io.signal?.addEventListener('abort', stop, { once: true });
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    const leadership = leaderElection && (await lead(leaderElection, controller.signal, options));
    if (controller.signal.aborted) return;
    health?.running();
    try {
      const loop = watchLoop({
        pass: async () => {
          health?.passStarted();
          try {
            await pass();
          } finally {
            health?.passEnded();
          }
        },
        intervalMs,
        ...(debounceMs !== undefined && { debounceMs }),
        signal: controller.signal,
        onFailure: (error, retryInMs) => {
          if (controller.signal.aborted) return; // the pass ended because we stop
          reportFailure(error, io);
          io.stderr(`the next pass starts in ${Math.round(retryInMs / 1000)} s\n`);
        },
      });
      started?.(loop);
      await loop.done;
      // What writes outside the passes (the backfiller's event-driven reconciles) ends too, before the Lease goes.
      await drain?.();
    } finally {
      // The running pass has finished: a standby may take over at once instead of after the Lease expires.
      await leadership?.release();
    }
  } finally {
    health?.stopped();
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
}

/** Waits as a standby until the Lease is ours (undefined when stopped first), then watches for its loss. */
async function lead(
  election: LeaderElection,
  signal: AbortSignal,
  { io, health, exit = (code) => process.exit(code) }: UntilStoppedOptions,
) {
  health?.standby();
  logLine(io)(`waiting for the Lease ${election.lease} as a standby`);
  try {
    const leadership = await election.acquire(signal);
    leadership.signal.addEventListener(
      'abort',
      () => {
        // Released because we stop: nothing to do. Lost — even while the last pass runs after SIGTERM — is fatal.
        const ended = leadership.signal.reason as unknown;
        if (ended instanceof LeadershipEnded && ended.reason === 'released') return;
        io.stderr(
          `error: lost the Lease ${election.lease}: exiting now so that this replica writes nothing more; it starts again as a standby\n`,
        );
        exit(EXIT.leaseLost);
      },
      { once: true },
    );
    logLine(io)(`holding the Lease ${election.lease}: this replica runs the passes`);
    return leadership;
  } catch (error) {
    if (signal.aborted) return undefined;
    throw error;
  }
}
