// `kimops policies export`: the policy pack as ValidatingAdmissionPolicies + Bindings + the params ConfigMap for
// one landscape's garden. The command's options and help; it runs cli/policies.ts.
import type { Command } from 'commander';
import { PARAMS_CONFIG_MAP } from '../../model/contract.js';
import type { CliIo } from '../cli-io.js';
import { landscapeOption } from '../options.js';
import type { ExportOptions } from '../policies.js';

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
    .addOption(landscapeOption().makeOptionMandatory())
    .option('--policy-set <name>', 'the policy set shipped with kimops (policies/<name>/)', 'default')
    .option('--out <dir>', 'write one file per object under this folder instead of printing YAML')
    .addHelpText('after', EXPORT_HELP)
    .action(async (options: ExportOptions) => {
      const { exportPolicySet } = await import('../policies.js');
      setExitCode(await exportPolicySet(options, io));
    });
}
