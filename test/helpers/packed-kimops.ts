// kimops packed as a release packs it: `npm pack` on a copy of the tree without node_modules/, dist/ and .git/, so
// prepack builds dist/ afresh there (and writes npm-shrinkwrap.json) and the checkout's own dist/ is left alone.
// The copy links the checkout's node_modules/ for the build. Takes 10-60 s. For the integration tests that install
// the package as a user or a landscape repo's workflow does.
import { execFile } from 'node:child_process';
import { cp, mkdir, readFile, symlink } from 'node:fs/promises';
import { delimiter, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Not copied for packing: installed, built or packed output, and the history. */
const NOT_COPIED = new Set(['.git', 'node_modules', 'dist', 'coverage', 'out', 'npm-shrinkwrap.json']);

/** The children run on the Node running the tests (npm's and the bin's `#!/usr/bin/env node` included). */
export const CHILD_ENV = {
  ...process.env,
  PATH: [dirname(process.execPath), process.env.PATH].join(delimiter),
  NODE_OPTIONS: '',
};

/** The checkout's package.json version: the one the tarball carries. */
export async function checkoutVersion(): Promise<string> {
  return (JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
}

/** Packs kimops under `work` (into work/pack/); the tarball's path. */
export async function packKimops(work: string): Promise<string> {
  const tree = join(work, 'tree');
  await cp(ROOT, tree, { recursive: true, filter: (source) => !NOT_COPIED.has(relative(ROOT, source)) });
  await symlink(join(ROOT, 'node_modules'), join(tree, 'node_modules'), 'dir');
  await mkdir(join(work, 'pack'));
  await promisify(execFile)('npm', ['pack', '--pack-destination', join(work, 'pack')], { cwd: tree, env: CHILD_ENV });
  return join(work, 'pack', `kimops-${await checkoutVersion()}.tgz`);
}
