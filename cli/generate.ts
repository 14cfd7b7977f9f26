// `kimops generate --once`: one generator pass from a folder of Runtimes to pull requests on a landscape
// repo with the embedded local forge. Wiring only: the pass itself is generator/generate.ts.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { readLandscape } from '../adapters/files/landscape.js';
import { readRuntimes } from '../adapters/files/manifests.js';
import { localForge } from '../adapters/forge/local.js';
import { LandscapeRepo } from '../adapters/git/landscape-repo.js';
import { generate, type GenerateResult } from '../generator/generate.js';
import { ConfigError } from '../model/errors.js';
import { conversionSettingsOf } from '../model/landscape.js';
import { EXIT, reportFailure, type CliIo } from './cli-io.js';
import { INIT_AUTHOR } from './init.js';

interface GenerateOptions {
  landscape: string;
  runtimes: string;
  repo: string;
  forge: 'local';
  once?: boolean;
  allowMassDeletion?: string;
}

const HELP = `
Renders every Runtime, and for each Shoot whose files differ from main commits the branch
kimops/<landscape>/<shoot> and opens or updates its pull request on the local forge (kimops pr).
Shoots whose Runtime is gone are proposed for deletion, under kimops.yaml's mass-deletion guard.
Pull requests are merged as kimops.yaml's mergePolicy says. Running it again with the same inputs
writes nothing.

Exit codes: 0 done; 1 some Runtimes failed to convert (they get no PR) or deletions were refused;
2 usage or configuration error; 70 a bug in kimops.

Example:
  kimops init --landscape dev ./landscape-dev.git
  kimops generate --landscape dev --runtimes examples/runtimes/keb --repo ./landscape-dev.git --once`;

export function registerGenerate(program: Command, io: CliIo, setExitCode: (code: number) => void): void {
  program
    .command('generate')
    .description('propose the rendered Shoots as pull requests on the landscape repo')
    .addOption(new Option('--landscape <name|dir>', 'a landscape shipped with kimops (dev), or a folder/file with landscape.yaml').makeOptionMandatory())
    .addOption(new Option('--runtimes <dir>', 'Runtime manifests: a file or a folder (read recursively)').makeOptionMandatory())
    .addOption(new Option('--repo <dir>', 'the landscape repo (a bare git repository made by kimops init)').makeOptionMandatory())
    .addOption(new Option('--forge <kind>', 'where pull requests live').choices(['local']).default('local'))
    .option('--once', 'one pass, then exit (watch mode is not there yet)')
    .option('--allow-mass-deletion <n>', 'confirm up to n deletions beyond kimops.yaml massDeletion')
    .addHelpText('after', HELP)
    .action(async (options: GenerateOptions, command: Command) => {
      if (!options.once) command.error('error: pass --once (watch mode is not implemented yet)', { exitCode: EXIT.usage });
      setExitCode(await run(options, io));
    });
}

async function run(options: GenerateOptions, io: CliIo): Promise<number> {
  const gitdir = resolve(options.repo);
  // LandscapeRepo.open would create a missing repo; a typo must not.
  if (!existsSync(`${gitdir}/HEAD`)) throw new ConfigError('--repo', '', `${options.repo} is not a bare git repository; create it with kimops init`);
  const allowMassDeletion = options.allowMassDeletion === undefined ? undefined : Number(options.allowMassDeletion);
  if (allowMassDeletion !== undefined && !Number.isInteger(allowMassDeletion)) throw new ConfigError('--allow-mass-deletion', '', `${options.allowMassDeletion} is not a number of Shoots`);
  const landscape = await readLandscape(options.landscape);
  const { runtimes, errors } = await readRuntimes(options.runtimes, () => io.readStdin());
  for (const error of errors) io.stderr(`${error.message}\n`);
  const repo = await LandscapeRepo.open(gitdir);

  const result = await generate({
    landscape: landscape.name,
    settings: conversionSettingsOf(landscape),
    runtimes,
    runtimesComplete: errors.length === 0,
    repo,
    forge: localForge(repo),
    author: INIT_AUTHOR,
    log: (line) => io.stdout(`${line}\n`),
    ...(allowMassDeletion !== undefined && { allowMassDeletion }),
  });

  for (const failure of result.failures) io.stderr(`${failure.message}\n`);
  for (const bug of result.bugs) reportFailure(new Error(`rendering runtime ${bug.runtime} (${bug.source}) failed`, { cause: bug.error }), io);
  if (result.deletionRefused) io.stderr(`${result.deletionRefused}\n`);
  io.stdout(`${summary(result)}\n`);
  if (result.bugs.length > 0) return EXIT.internal;
  return errors.length + result.failures.length > 0 || result.deletionRefused ? EXIT.conversionFailed : EXIT.ok;
}

function summary(result: GenerateResult): string {
  const count = (action: string) => result.proposed.filter((p) => p.action === action).length;
  return [
    `${result.proposed.length} proposed (${count('auto-merge')} merged, ${count('await-review') + count('left-to-human')} awaiting review, ${count('blocked') + count('merge-refused')} blocked)`,
    `${result.unchanged} unchanged`,
    `${result.closed.length} closed`,
    ...(result.leftOpen.length > 0 ? [`${result.leftOpen.length} left open`] : []),
    `${result.failures.length + result.bugs.length} failed`,
  ].join(', ');
}
