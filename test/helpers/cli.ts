// Runs the kimops command in-process, as a user would type it, and captures what it prints.
import { main } from '../../cli/kimops.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** `signal` ends long-running commands (generate --watch) as SIGINT would. */
export async function kimops(argv: string[], stdin = '', signal?: AbortSignal): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, {
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    readStdin: async () => stdin,
    ...(signal && { signal }),
  });
  return { code, stdout, stderr };
}

export interface RunningKimops {
  /** What it printed so far. */
  readonly stdout: string;
  readonly stderr: string;
  /** Settles when the command returns (for --watch: after `signal` fired). */
  done: Promise<CliRun>;
}

/** A long-running command (apply --watch) in-process, its output readable while it runs. */
export function startKimops(argv: string[], signal: AbortSignal): RunningKimops {
  let stdout = '';
  let stderr = '';
  const done = main(argv, {
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    readStdin: async () => '',
    signal,
  }).then((code) => ({ code, stdout, stderr }));
  return {
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
    done,
  };
}
