// Reading the landscape-repo template shipped with kimops (`<package root>/repo-template/`, docs/design.md §1.4):
// every file under it, dotfiles included, as repo path → text. Filling in its placeholders is the caller's.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { packagePath } from '../../model/package-root.js';

/** Found from this module's location, not the working directory, so `kimops init` works from anywhere. */
const REPO_TEMPLATE = `${packagePath('repo-template')}/`;

/** Every file under `root` (default: the shipped template), keyed by its `/`-separated path, sorted. */
export async function readTemplate(root: string = REPO_TEMPLATE): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  const walk = async (folder: string, prefix: string): Promise<void> => {
    const entries = await readdir(folder, { withFileTypes: true });
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const path = `${prefix}${entry.name}`;
      if (entry.isDirectory()) await walk(join(folder, entry.name), `${path}/`);
      else if (entry.isFile()) files.set(path, await readFile(join(folder, entry.name), 'utf8'));
    }
  };
  await walk(root, '');
  return files;
}

/** Replaces `{{name}}` for each given name; other `{{…}}` (e.g. GitHub Actions' `${{ github.base_ref }}`) stay. */
export function fillPlaceholders(text: string, values: Readonly<Record<string, string>>): string {
  return text.replace(/\{\{([a-zA-Z][a-zA-Z0-9]*)\}\}/g, (match, name: string) =>
    Object.hasOwn(values, name) ? (values[name] as string) : match,
  );
}
