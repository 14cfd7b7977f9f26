// What every kimops subcommand shares: where output goes (injected, so tests need no subprocess), the
// exit codes, and how a failure becomes one line on stderr.
import { ConfigError, ConversionError, TransportError } from '../model/errors.js';
import type { LogFields, LogLevel } from '../model/log.js';
import { printable, printableLines, printableOutput } from '../model/printable.js';

export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  readStdin(): Promise<string>;
  /** Ends long-running commands (generate --watch) like SIGINT does; tests use it instead of signals. */
  signal?: AbortSignal;
  /** A line with its level and fields, where the command logs records (cli/logging.ts); else plain lines. */
  log?: (level: LogLevel, message: string, fields?: LogFields) => void;
}

/**
 * stderr (messages, logs) passes printableOutput: no input a line quotes can send the terminal a control
 * sequence. stdout stays byte for byte: it carries manifests and reports that other tools read.
 */
export const processIo: CliIo = {
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(printableOutput(text)),
  // Loaded when read: the reader lives with the manifest parsers, which `kimops --help` does not need.
  readStdin: async () => (await import('../adapters/files/manifests.js')).readProcessStdin(),
};

export const EXIT = {
  ok: 0,
  /** Some Runtimes failed to convert; the others were rendered. */
  conversionFailed: 1,
  /** Missing or conflicting options, an unreadable landscape, a bad config. */
  usage: 2,
  /** A remote (git server, forge, Kubernetes API) failed; nothing was lost, run again (sysexits EX_UNAVAILABLE). */
  unavailable: 69,
  /** A bug in kimops (sysexits EX_SOFTWARE). */
  internal: 70,
  /** --leader-elect: this replica lost its Lease and stopped writing; restarted, it waits as a standby (EX_TEMPFAIL). */
  leaseLost: 75,
} as const;

/** Prints a failure that escaped a subcommand and says which exit code it means. */
export function reportFailure(error: unknown, io: CliIo): number {
  if (error instanceof ConfigError) {
    io.stderr(`error: ${error.message}\n`);
    return EXIT.usage;
  }
  if (error instanceof TransportError) {
    io.stderr(`error: ${error.message}\n`);
    return EXIT.unavailable;
  }
  if (error instanceof ConversionError) {
    io.stderr(`${error.message}\n`);
    return EXIT.conversionFailed;
  }
  const cause = error instanceof Error ? error.cause : undefined;
  const chain = [error, ...(cause === undefined ? [] : [cause])];
  // A bug's message may quote user input (a path in a file-system error): escaped like the errors' own messages.
  const detail = chain
    .map((e) => printableLines(e instanceof Error ? (e.stack ?? e.message) : String(e)))
    .join('\ncaused by: ');
  const message = chain.map((e) => printable(e instanceof Error ? e.message : String(e))).join(': ');
  io.stderr(
    `error: internal error: ${message}\nThis is a bug in kimops; please report it with the details below.\n${detail}\n`,
  );
  return EXIT.internal;
}
