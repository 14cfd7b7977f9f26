// `kimops policies export`, run: the landscape, the policy set and KEB's zones read (adapters/files/), the objects
// built (generator/validate/export.ts), written or printed. Its options: commands/policies.ts.
import { readKebZones } from '../adapters/files/keb-zones.js';
import { readLandscape } from '../adapters/files/landscape.js';
import { readPolicySet } from '../adapters/files/policies.js';
import { writeFiles } from '../adapters/files/write-files.js';
import { toCanonicalYaml, toYamlStream } from '../rules/canonical-yaml.js';
import { exportFileName, exportPolicies } from '../generator/validate/export.js';
import { landscapeParams } from '../generator/validate/params.js';
import { parsePolicyFiles } from '../generator/validate/policy-file.js';
import { EXIT, type CliIo } from './cli-io.js';

export interface ExportOptions {
  landscape: string;
  policySet: string;
  out?: string;
}

export async function exportPolicySet(options: ExportOptions, io: CliIo): Promise<number> {
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
