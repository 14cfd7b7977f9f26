// What `kimops --help` loads: the program is built from the commands' declarations (commands/), and a command's
// implementation is imported only when it runs. Read from the sources' static imports (type-only ones are erased),
// so a declaration that starts importing a client, a parser or a component fails here, not in a slow --help.
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const STATIC_IMPORT = /^(?:import|export)\s+(type\s+)?(?:[^'"]*?\sfrom\s+)?['"]([^'"]+)['"]/gm;

/** The repository's modules and the packages reached from `entry` by static value imports. */
function staticGraph(entry: string): { modules: string[]; packages: string[] } {
  const modules = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (modules.has(file)) return;
    modules.add(file);
    for (const [, typeOnly, specifier] of readFileSync(file, 'utf8').matchAll(STATIC_IMPORT)) {
      if (typeOnly || specifier === undefined) continue;
      if (specifier.startsWith('.')) visit(resolve(dirname(file), specifier.replace(/\.js$/, '.ts')));
      else if (!specifier.startsWith('node:')) packages.add(specifier);
    }
  };
  visit(join(ROOT, entry));
  return { modules: [...modules].map((file) => relative(ROOT, file)).sort(), packages: [...packages].sort() };
}

describe('kimops --help', () => {
  const { modules, packages } = staticGraph('cli/kimops.ts');

  it('loads the declarations, not the commands', () => {
    const cli = modules.filter((module) => module.startsWith('cli/'));
    expect(cli).toEqual([
      'cli/cli-io.ts',
      'cli/commands/apply.ts',
      'cli/commands/backfill.ts',
      'cli/commands/bootstrap.ts',
      'cli/commands/compare.ts',
      'cli/commands/demo.ts',
      'cli/commands/generate.ts',
      'cli/commands/import.ts',
      'cli/commands/init.ts',
      'cli/commands/landscape.ts',
      'cli/commands/policies.ts',
      'cli/commands/pr.ts',
      'cli/commands/render.ts',
      'cli/commands/status.ts',
      'cli/commands/validate.ts',
      'cli/environment.ts',
      'cli/kimops.ts',
      'cli/options.ts',
      'cli/service-options.ts',
    ]);
    const components = modules.filter((module) => /^(generator|applier|backfiller)\//.test(module));
    expect(components).toEqual([]);
  });

  it('loads no package but commander', () => {
    expect(packages).toEqual(['commander']);
  });
});
