// kimops's own version, as its package.json says (the one file that is released with it), for `kimops --version`
// and the kimops_build_info metric. Read once, synchronously: it is small and `--help` needs it before anything.
import { readFileSync } from 'node:fs';
import { packagePath } from '../../model/package-root.js';

let version: string | undefined;

export function kimopsVersion(): string {
  version ??= (() => {
    const parsed = JSON.parse(readFileSync(packagePath('package.json'), 'utf8')) as { version?: unknown };
    return typeof parsed.version === 'string' ? parsed.version : 'unknown';
  })();
  return version;
}
