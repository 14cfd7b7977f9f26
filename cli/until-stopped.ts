// What the long-running commands (generate, apply and backfill --watch) share: a pass on every interval
// (and on demand), failures reported and retried with backoff (generator/watch.ts), and an end on
// SIGINT/SIGTERM — or the caller's signal in tests — after the running pass.
import { watchLoop, type WatchLoop } from '../generator/watch.js';
import { reportFailure, type CliIo } from './cli-io.js';

export interface UntilStoppedOptions {
  pass: () => Promise<unknown>;
  intervalMs: number;
  io: CliIo;
  /** Called once the loop runs: wire event sources to `loop.trigger()`. */
  started?: (loop: WatchLoop) => void;
  /** Called at once on SIGINT/SIGTERM: stop what a running pass may be waiting for. */
  stopping?: () => void;
}

export async function runUntilStopped({ pass, intervalMs, io, started, stopping }: UntilStoppedOptions): Promise<void> {
  const controller = new AbortController();
  const stop = () => {
    controller.abort();
    stopping?.();
  };
  io.signal?.addEventListener('abort', stop, { once: true });
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    const loop = watchLoop({
      pass: async () => void (await pass()),
      intervalMs,
      signal: controller.signal,
      onFailure: (error, retryInMs) => {
        if (controller.signal.aborted) return; // the pass ended because we stop
        reportFailure(error, io);
        io.stderr(`the next pass starts in ${Math.round(retryInMs / 1000)} s\n`);
      },
    });
    started?.(loop);
    await loop.done;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
}
