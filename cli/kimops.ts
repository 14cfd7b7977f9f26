// The kimops command. `main` takes argv and the I/O to use, so tests call it in-process; run as a script it
// wires itself to the process. The program is built from the commands' declarations (commands/), which load
// nothing but commander: a command's implementation is imported when it runs, so `kimops --help` and a
// command's `--help` stay fast.
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { Command, CommanderError } from 'commander';
import { kimopsVersion } from '../adapters/files/package-version.js';
import { EXIT, processIo, reportFailure, type CliIo } from './cli-io.js';
import { registerApply } from './commands/apply.js';
import { registerBackfill } from './commands/backfill.js';
import { registerCompare } from './commands/compare.js';
import { registerBootstrap } from './commands/bootstrap.js';
import { registerDemo } from './commands/demo.js';
import { registerGenerate } from './commands/generate.js';
import { registerInit } from './commands/init.js';
import { registerImport } from './commands/import.js';
import { registerLandscape } from './commands/landscape.js';
import { registerPolicies } from './commands/policies.js';
import { registerPr } from './commands/pr.js';
import { registerRender } from './commands/render.js';
import { registerStatus } from './commands/status.js';
import { registerValidate } from './commands/validate.js';

/** Runs kimops with `argv` (without node and script) and returns the exit code. */
export async function main(argv: readonly string[], io: CliIo = processIo): Promise<number> {
  let exitCode: number = EXIT.ok;
  const program = new Command('kimops')
    .description('GitOps pipeline from Kyma Runtimes to Gardener Shoots')
    .version(kimopsVersion(), '-V, --version', "print kimops's version")
    .exitOverride() // commander throws instead of exiting, so main returns the code
    .configureOutput({ writeOut: (text) => io.stdout(text), writeErr: (text) => io.stderr(text) });
  const setExitCode = (code: number) => {
    exitCode = code;
  };
  for (const register of [
    registerRender,
    registerLandscape,
    registerImport,
    registerInit,
    registerPr,
    registerGenerate,
    registerBootstrap,
    registerPolicies,
    registerValidate,
    registerApply,
    registerBackfill,
    registerCompare,
    registerStatus,
  ])
    register(program, io, setExitCode);
  // The demo runs the other subcommands, each in a fresh program, with the same I/O.
  registerDemo(program, io, (argv) => main(argv, io), setExitCode);
  try {
    await program.parseAsync([...argv], { from: 'user' });
  } catch (error) {
    // Commander has already printed its message (usage errors) or the help text.
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    return reportFailure(error, io);
  }
  return exitCode;
}

function isEntryPoint(): boolean {
  const script = process.argv[1];
  if (script === undefined) return false;
  try {
    // realpath: an npm bin link points at this file through a symlink.
    return pathToFileURL(realpathSync(script)).href === import.meta.url;
  } catch {
    return false; // not a file (an eval, a REPL): imported, not run
  }
}

if (isEntryPoint()) {
  process.exitCode = await main(process.argv.slice(2));
}
