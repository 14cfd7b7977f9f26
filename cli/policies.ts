// `kimops policies export`: the policy pack as ValidatingAdmissionPolicies + Bindings + the params
// ConfigMap for one landscape's garden. Wiring only: files are read in adapters/files/, the objects
// built in generator/validate/export.ts, the YAML written by generator/render/canonical-yaml.ts.
import { Option, type Command } from 'commander';
import { readKebZones } from '../adapters/files/keb-zones.js';
import { readLandscape } from '../adapters/files/landscape.js';
import { readPolicySet } from '../adapters/files/policies.js';
import { writeFiles } from '../adapters/files/write-files.js';
import { toCanonicalYaml, toYamlStream } from '../generator/render/canonical-yaml.js';
import { exportFileName, exportPolicies, PARAMS_CONFIG_MAP } from '../generator/validate/export.js';
import { landscapeParams } from '../generator/validate/params.js';
import { parsePolicyFiles } from '../generator/validate/policy-file.js';
import { EXIT, type CliIo } from './cli-io.js';

interface ExportOptions {
  landscape: string;
  policySet: string;
  out?: string;
}

const EXPORT_HELP = `
Output (kubectl apply -f - order): the params ConfigMap ${PARAMS_CONFIG_MAP} in garden-<project> (the
landscape facts policies read as params.data), every policy of the set that applies to the landscape as
the ValidatingAdmissionPolicy its file is, and one ValidatingAdmissionPolicyBinding per policy, named
<policy>.<landscape>: validationActions [Deny] for severity deny, [Warn, Audit] for warn; paramRef to the
ConfigMap (parameterNotFoundAction Deny) when the policy reads params; bound to namespace garden-<project>.
Policies restricted to other landscapes are left out (named on stderr).

The zones come from KEB's plan values shipped with kimops. The Runtime inventory is not known here, so
runtimeInventory is "false" and the policies that need it (eu-access-restricted,
deletion-only-for-gone-runtime) do not apply until the ConfigMap is refreshed with runtime.<id> keys.

--out <dir>: one file per object, <kind>-<name>.yaml; nothing on stdout.

Exit codes: 0 exported; 2 unknown landscape or policy set, or a malformed policy file; 70 a bug in kimops.

Examples:
  kimops policies export --landscape stage | kubectl apply -f -
  kimops policies export --landscape ./my-landscape --out garden-policies/`;

export function registerPolicies(program: Command, io: CliIo, setExitCode: (code: number) => void): void {
  const policies = program.command('policies').description('the validation policies for Shoots (policies/<set>/)');
  policies
    .command('export')
    .description(
      "write a landscape's policies as ValidatingAdmissionPolicy + Binding objects and their params ConfigMap",
    )
    .addOption(
      new Option(
        '--landscape <name|dir>',
        'a landscape shipped with kimops (dev), or a folder/file with landscape.yaml',
      ).makeOptionMandatory(),
    )
    .option('--policy-set <name>', 'the policy set shipped with kimops (policies/<name>/)', 'default')
    .option('--out <dir>', 'write one file per object under this folder instead of printing YAML')
    .addHelpText('after', EXPORT_HELP)
    .action(async (options: ExportOptions) => {
      setExitCode(await exportCommand(options, io));
    });
}

async function exportCommand(options: ExportOptions, io: CliIo): Promise<number> {
  const landscape = await readLandscape(options.landscape);
  const policies = parsePolicyFiles(await readPolicySet(options.policySet));
  const params = landscapeParams({ landscape, zones: await readKebZones() });
  const { objects, skipped } = exportPolicies({
    landscape: landscape.name,
    project: landscape.gardener.project,
    policies,
    params,
  });
  for (const s of skipped) io.stderr(`note: policy ${s.policy} (${s.source}) left out: ${s.reason}\n`);
  if (options.out) {
    const { written, unchanged } = await writeFiles(
      options.out,
      objects.map((o) => ({ path: exportFileName(o), content: toCanonicalYaml(o) })),
    );
    io.stderr(`wrote ${written.length} files under ${options.out} (${unchanged.length} unchanged)\n`);
  } else {
    io.stdout(toYamlStream(objects));
  }
  return EXIT.ok;
}
