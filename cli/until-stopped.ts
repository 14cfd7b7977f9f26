// What the long-running commands (generate --watch, apply --watch) share: a pass on every interval
// (and on demand), failures reported and retried with backoff (generator/watch.ts), and an end on
// SIGINT/SIGTERM — or the caller's signal in tests — after the running pass.
import { ConfigError } from '../model/errors.js';
import { watchLoop, type WatchLoop } from '../generator/watch.js';
import { reportFailure, type CliIo } from './cli-io.js';

/** A day: longer intervals overflow Node's timers (~24.8 days) and would mean no resync at all. */
export const MAX_INTERVAL_SECONDS = 86_400;

/** `--interval <seconds>` as milliseconds, refused outside 1 s – a day. */
export function intervalMsOf(text: string): number {
  const ms = Number(text) * 1000;
  if (!(ms >= 1000 && ms <= MAX_INTERVAL_SECONDS * 1000))
    throw new ConfigError('--interval', '', `${text} is not a number of seconds between 1 and ${MAX_INTERVAL_SECONDS}`);
  return ms;
}

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
