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
