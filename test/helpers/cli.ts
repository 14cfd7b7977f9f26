// Runs the kimops command in-process, as a user would type it, and captures what it prints; or as a process of
// its own, where a test needs one (a kill -9, the installed package).
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { expect } from 'vitest';
import { main } from '../../cli/kimops.js';

/** A kubeconfig for a server nothing listens on: a command that reaches for the cluster fails as unreachable (69). */
export const UNREACHABLE_KUBECONFIG = `apiVersion: v1
kind: Config
clusters: [{ name: garden, cluster: { server: 'https://127.0.0.1:9', insecure-skip-tls-verify: true } }]
users: [{ name: garden, user: { token: t } }]
contexts: [{ name: garden, context: { cluster: garden, user: garden } }]
current-context: garden
`;

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

/** Fails the test unless `run` exited 0, showing what it printed: a failing command says why in the test's output. */
export function expectOk(run: CliRun, what: string): void {
  expect(run.code === 0 ? 'exit 0' : `${what}: exit ${run.code}\n${run.stdout}\n${run.stderr}`).toBe('exit 0');
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

/** A command in a child process: RunningKimops, and its pid for signals of the test's own (kill -9). */
export interface RunningProcess extends RunningKimops {
  readonly pid: number;
}

/**
 * `file argv…` as a child process, its output readable while it runs; SIGTERM when `signal` fires (a watcher
 * ends after its running pass), SIGKILL 30 s later, so a watcher that does not stop fails the test instead of
 * hanging it. `done` settles with the exit code, or 128 + the signal's number when a signal ended it.
 */
export function startProcess(
  file: string,
  argv: string[],
  signal: AbortSignal,
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): RunningProcess {
  const child = spawn(file, argv, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => void (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => void (stderr += chunk));
  let kill: NodeJS.Timeout | undefined;
  const stop = () => {
    child.kill('SIGTERM');
    kill = setTimeout(() => child.kill('SIGKILL'), 30_000);
  };
  if (signal.aborted) stop();
  else signal.addEventListener('abort', stop, { once: true });
  const done = new Promise<CliRun>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, killedBy) => {
      signal.removeEventListener('abort', stop);
      clearTimeout(kill);
      resolve({ code: code ?? 128 + (killedBy ? constants.signals[killedBy] : 0), stdout, stderr });
    });
  });
  return {
    pid: child.pid ?? 0,
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
    done,
  };
}
