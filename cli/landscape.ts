// `kimops landscape from-kim`, run: KIM's files read (adapters/files/kim-settings.ts), turned into a landscape
// (model/kim-landscape.ts), written as canonical YAML under a comment header. Its options: commands/landscape.ts.
import { isDeepStrictEqual } from 'node:util';
import { readKimConfiguration } from '../adapters/files/kim-settings.js';
import { writeFileWhole } from '../adapters/files/write-files.js';
import { landscapeFromKim } from '../model/kim-landscape.js';
import { parseLandscape } from '../model/landscape-parse.js';
import { printable } from '../model/printable.js';
import { toCanonicalYaml } from '../rules/canonical-yaml.js';
import { EXIT, type CliIo } from './cli-io.js';
import { kimInputsOf, type KimConfigFlags } from './options.js';

export interface FromKimOptions extends KimConfigFlags {
  name: string;
  kimConfig: string;
  project?: string;
  out?: string;
  force?: boolean;
}

export async function landscapeFromKimCommand(options: FromKimOptions, io: CliIo): Promise<number> {
  const kim = await readKimConfiguration(kimInputsOf(options, options.project));
  for (const warning of kim.warnings) io.stderr(`warning: ${warning}\n`);
  const { landscape, header } = landscapeFromKim(kim, options.name);
  // Names from KIM's files are escaped: a line break in one must not end the comment.
  const comments = header.map((line) => (line ? `# ${printable(line)}\n` : '#\n')).join('');
  const text = `${comments}\n${toCanonicalYaml(landscape)}`;
  // The file must read back as the landscape it was made from; a difference is a bug in kimops, never a user's to fix.
  let readBack: unknown;
  try {
    readBack = parseLandscape(text, 'the generated landscape.yaml', options.name);
  } catch (error) {
    throw new Error('the landscape.yaml kimops generated does not read back', { cause: error });
  }
  if (!isDeepStrictEqual(readBack, landscape))
    throw new Error('the landscape.yaml kimops generated reads back as another landscape');
  if (!options.out) {
    io.stdout(text);
    return EXIT.ok;
  }
  await writeFileWhole(options.out, text, options.force ?? false, '--out');
  io.stderr(`wrote landscape ${printable(options.name)} to ${printable(options.out)}\n`);
  return EXIT.ok;
}
