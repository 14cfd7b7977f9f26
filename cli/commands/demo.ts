// `kimops demo`: the main job on the embedded default — no cluster, no GitHub, no network — in a temp folder.
// The command's options; it runs cli/demo.ts.
import type { Command } from 'commander';
import type { CliIo } from '../cli-io.js';
import type { RunKimops } from '../demo.js';

export function registerDemo(program: Command, io: CliIo, run: RunKimops, setExitCode: (code: number) => void): void {
  program
    .command('demo')
    .description(
      'the whole generator on the embedded default, in a temp folder: init, generate, change a Runtime, show its PR',
    )
    .option('--dir <dir>', 'work here instead of a new temp folder')
    .action(async (options: { dir?: string }) => {
      const { demo } = await import('../demo.js');
      setExitCode(await demo(options.dir, io, run));
    });
}
