// `kimops render`: Runtimes (+ landscape or KIM config, + live Shoots) → Shoot manifests on stdout or in the
// landscape-repo layout. The command's options and help; it runs cli/render.ts.
import { Option, type Command } from 'commander';
import { EXIT, type CliIo } from '../cli-io.js';
import { collect, kimConfigOptions, landscapeOption } from '../options.js';
import type { RenderOptions } from '../render.js';

const JSON_HELP = `
Output:
  yaml (default)  the companions and Shoots as one multi-document YAML stream, sorted by Shoot name,
                  each Shoot after its companions (kubectl apply -f - order); nothing on stdout with --out.
  json            one object (keys sorted), also with --out:
                    {"shoots": [{"name", "runtime": "<ns>/<name>", "source": "<file>", "mode": "create"|"update",
                                 "shoot": {...}, "companions": [{...}], "files": ["shoots/<name>/shoot.yaml", ...]}],
                     "errors": [{"source", "message", "runtime"?, "field"?}]}
  Errors are also printed to stderr, one line each: runtime <ns>/<name>: <field>: <reason>.

Files (--out): shoots/<shoot>/shoot.yaml and shoots/<shoot>/<kind>-<name>.yaml per companion.

Exit codes: 0 all rendered; 1 some Runtimes failed (the others are rendered); 2 usage or configuration error;
70 a bug in kimops.

Examples:
  kimops render --landscape dev --runtime examples/runtimes
  kubectl get runtimes -n kcp-system -o yaml | kimops render --landscape ./my-landscape --runtime - --out repo/
  kimops render --kim-config converter_config.json --kim-flag api-server-acl-enabled=true \\
    --kim-configmap acl.yaml --runtime runtime.yaml --live-shoot shoot.yaml`;

export function registerRender(program: Command, io: CliIo, setExitCode: (code: number) => void): void {
  const command = program.command('render');
  command
    .description('render the Gardener Shoots (and their companions) for Kyma Runtimes')
    .addOption(landscapeOption().conflicts('kimConfig'))
    .addOption(
      new Option(
        '--runtime <file|dir|->',
        'Runtime manifests: a file, a folder (read recursively), or - for stdin',
      ).makeOptionMandatory(),
    )
    .option('--live-shoot <file|dir>', 'live Shoots: render in update mode against the one named like spec.shoot.name')
    .option('--out <dir>', 'write the landscape-repo layout under this folder instead of printing YAML')
    .addOption(
      new Option('--output <format>', 'yaml or json (see Output below)').choices(['yaml', 'json']).default('yaml'),
    );
  for (const option of kimConfigOptions(
    "KIM's converter_config.json, in place of --landscape (its tenant and window files are read too)",
  ))
    command.addOption(option);
  command
    .option(
      '--registry-cache-secret <uid=name>',
      "the garden Secret holding a registry cache's credentials, by the cache's uid (update mode; default: the one the live Shoot names; repeatable)",
      collect,
    )
    .addHelpText('after', JSON_HELP)
    .action(async (options: RenderOptions) => {
      const { render, optionsProblem } = await import('../render.js');
      const usageError = optionsProblem(options);
      if (usageError) command.error(`error: ${usageError}`, { exitCode: EXIT.usage });
      setExitCode(await render(options, io));
    });
}
