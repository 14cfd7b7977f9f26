// `kimops landscape from-kim`: KIM's converter_config.json, the files it reads and its flags → a landscape.yaml.
// The command's options and help; it runs cli/landscape.ts.
import { Option, type Command } from 'commander';
import { EXIT, type CliIo } from '../cli-io.js';
import { kimConfigOptions } from '../options.js';
import type { FromKimOptions } from '../landscape.js';

const FROM_KIM_HELP = `
Reads what KIM runs with, as \`render --kim-config\` does, and writes it as one landscape.yaml (canonical YAML, a
header saying where it came from): every setting that changes a Shoot is carried over; one the landscape cannot
hold stops the command, naming it; settings that change no Shoot (mount paths, controller flags, unknown keys)
are listed in the header. Render with either and the Shoots are byte-identical.

Exit codes: 0 written; 2 usage or configuration error (nothing written); 70 a bug in kimops.

Examples:
  kimops landscape from-kim --name prod --kim-config converter_config.json \\
    --kim-file /gardener/tenant/config=./tenants.json \\
    --kim-file /maintenance-window-config/config=./windows.json \\
    --kim-flag api-server-acl-enabled=true --kim-configmap acl-ip-list.yaml --out landscapes/prod/landscape.yaml
  kimops render --landscape landscapes/prod --runtime runtimes/`;

export function registerLandscape(program: Command, io: CliIo, setExitCode: (code: number) => void): void {
  const landscape = program.command('landscape').description("landscape files: make one from KIM's configuration");
  const fromKim = landscape
    .command('from-kim')
    .description("write a landscape.yaml from KIM's converter config, its mounted files, ConfigMaps and flags")
    .addOption(new Option('--name <landscape>', "the landscape's name (dev, stage, prod, …)").makeOptionMandatory());
  for (const option of kimConfigOptions("KIM's converter_config.json (its tenant and window files are read too)"))
    fromKim.addOption(option.name() === 'kim-config' ? option.makeOptionMandatory() : option);
  fromKim
    .option(
      '--project <name>',
      "the Garden project (KIM's -gardener-project-name) when the config names none; must equal converter.gardener.projectName when it does",
    )
    .option('--out <file>', 'write the landscape here instead of printing it')
    .option('--force', 'replace the --out file if it exists')
    .addHelpText('after', FROM_KIM_HELP)
    .action(async (options: FromKimOptions) => {
      if (options.force && !options.out)
        fromKim.error('error: --force only applies with --out', { exitCode: EXIT.usage });
      const { landscapeFromKimCommand } = await import('../landscape.js');
      setExitCode(await landscapeFromKimCommand(options, io));
    });
}
