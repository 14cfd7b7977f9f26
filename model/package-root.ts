// Where kimops's own shipped files are (landscapes/, policies/, crds/, repo-template/, examples/, the Shoot
// schema snapshot): the folder holding its package.json, found from this module upward, so the same code
// finds them when run from the TypeScript sources (tsx) and from the compiled dist/ (npm run build).
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function packageRoot(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  for (let dir = here; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'landscapes'))) return dir;
    if (dirname(dir) === dir)
      throw new Error(`kimops's package root (package.json beside landscapes/) is not above ${here}: reinstall kimops`);
  }
}

export const PACKAGE_ROOT = packageRoot();

/** A path inside kimops's package, e.g. packagePath('policies', 'default'). */
export function packagePath(...segments: string[]): string {
  return join(PACKAGE_ROOT, ...segments);
}

/**
 * Whether kimops runs from a checkout (its TypeScript sources beside the executable, as cli/kimops-bin.js decides):
 * there the command a user types is `npx kimops`, in the installed package `kimops`.
 */
export function runsFromCheckout(): boolean {
  return existsSync(packagePath('cli', 'kimops.ts'));
}
