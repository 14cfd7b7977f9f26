// The kimops command. `main` takes argv and the I/O to use, so tests call it in-process; run as a
// script it wires itself to the process.
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { Command, CommanderError } from 'commander';
import { registerApply } from './apply.js';
import { registerBackfill } from './backfill.js';
import { EXIT, processIo, reportFailure, type CliIo } from './cli-io.js';
import { registerDemo } from './demo.js';
import { registerGenerate } from './generate.js';
import { registerInit } from './init.js';
import { registerPolicies } from './policies.js';
import { registerPr } from './pr.js';
import { registerRender } from './render.js';
import { registerValidate } from './validate.js';

/** Runs kimops with `argv` (without node and script) and returns the exit code. */
export async function main(argv: readonly string[], io: CliIo = processIo): Promise<number> {
  let exitCode: number = EXIT.ok;
  const program = new Command('kimops')
    .description('GitOps pipeline from Kyma Runtimes to Gardener Shoots')
    .exitOverride() // commander throws instead of exiting, so main returns the code
    .configureOutput({ writeOut: (text) => io.stdout(text), writeErr: (text) => io.stderr(text) });
  registerRender(program, io, (code) => {
    exitCode = code;
  });
  registerInit(program, io, (code) => {
    exitCode = code;
  });
  registerPr(program, io, (code) => {
    exitCode = code;
  });
  registerGenerate(program, io, (code) => {
    exitCode = code;
  });
  registerPolicies(program, io, (code) => (exitCode = code));
  registerValidate(program, io, (code) => (exitCode = code));
  registerApply(program, io, (code) => (exitCode = code));
  registerBackfill(program, io, (code) => (exitCode = code));
  // The demo runs the other subcommands, each in a fresh program, with the same I/O.
  registerDemo(
    program,
    io,
    (argv) => main(argv, io),
    (code) => {
      exitCode = code;
    },
  );
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
