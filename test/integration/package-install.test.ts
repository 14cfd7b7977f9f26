// The package as a user gets it: `npm pack` on a copy of the tree (prepack builds dist/ afresh there, leaving the
// checkout's own dist/ alone), the tarball installed into an empty prefix from the npm registry as
// `npm install <tarball>` does, and the installed `kimops` run as processes: --version, the demo, and the KEB
// end-to-end scenario (test/e2e/keb-lifecycle.ts) with generate, apply and backfill as three processes of the
// installed binary. The install takes 30-60 s. docs/release.md.
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, stat, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProcess } from '../helpers/cli.js';
import { kebLifecycle, useKebPlane, type StartPipeline } from '../e2e/keb-lifecycle.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Not copied for packing: installed, built or packed output, and the history. */
const NOT_COPIED = new Set(['.git', 'node_modules', 'dist', 'coverage', 'out']);
/** The children run on the Node running the tests (npm's and the bin's `#!/usr/bin/env node` included). */
const CHILD_ENV = {
  ...process.env,
  PATH: [dirname(process.execPath), process.env.PATH].join(delimiter),
  NODE_OPTIONS: '',
};
const run = promisify(execFile);

const { version } = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string };

let work = '';
let tarball = '';
let bin = '';

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'kimops-package-'));
  const tree = join(work, 'tree');
  await cp(ROOT, tree, { recursive: true, filter: (source) => !NOT_COPIED.has(relative(ROOT, source)) });
  await symlink(join(ROOT, 'node_modules'), join(tree, 'node_modules'), 'dir');
  await mkdir(join(work, 'pack'));
  await run('npm', ['pack', '--pack-destination', join(work, 'pack')], { cwd: tree, env: CHILD_ENV });
  tarball = join(work, 'pack', `kimops-${version}.tgz`);
  const prefix = join(work, 'prefix');
  await mkdir(prefix);
  await run('npm', ['install', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', tarball], {
    cwd: prefix,
    env: CHILD_ENV,
  });
  bin = join(prefix, 'node_modules', '.bin', 'kimops');
}, 300_000);
afterAll(() => rm(work, { recursive: true, force: true }));

/** The installed kimops as three processes. */
const startPipeline: StartPipeline = (commands, signal) =>
  commands.map((argv) => startProcess(bin, argv, signal, { cwd: work, env: CHILD_ENV }));

describe('the package (npm pack, npm install <tarball>)', () => {
  it('holds the compiled kimops and the files it reads at runtime, and no TypeScript, tests or tooling', async () => {
    const files = (await run('tar', ['-tzf', tarball])).stdout
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => line.replace(/^package\//, ''));
    expect(files).toEqual(
      expect.arrayContaining([
        'package.json',
        'README.md',
        'CHANGELOG.md',
        'cli/kimops-bin.js',
        'dist/cli/kimops.js',
        'dist/generator/generate.js',
        'landscapes/dev/landscape.yaml',
        'landscapes/keb-regions.json',
        'policies/default/ssh-access-disabled.yaml',
        'repo-template/.github/workflows/validate.yml',
        'repo-template/shoots/.gitkeep',
        'crds/runtime.yaml',
        'examples/runtimes/keb/aws.yaml',
        'model/schemas/shoot-openapi-v1beta1.json',
      ]),
    );
    expect(files.filter((file) => /\.ts$|\.test\.js$/.test(file))).toEqual([]);
    expect(files.filter((file) => /^(test|scripts|docs|deploy|node_modules|\.github|\.ci)\//.test(file))).toEqual([]);
  });

  it('runs the compiled kimops: --version and the demo', async () => {
    // The installed bin finds no TypeScript beside it, so it runs dist/ and never loads tsx.
    const installed = join(dirname(dirname(bin)), 'kimops');
    await expect(stat(join(installed, 'cli', 'kimops.ts'))).rejects.toThrow();
    await expect(stat(join(installed, 'dist', 'cli', 'kimops.js'))).resolves.toBeDefined();

    expect((await run(bin, ['--version'], { cwd: work, env: CHILD_ENV })).stdout).toBe(`${version}\n`);
    const demo = await run(bin, ['demo', '--dir', join(work, 'demo')], { cwd: work, env: CHILD_ENV });
    expect(demo.stdout).toContain('15 proposed (15 merged, 0 awaiting review, 0 blocked)');
    // The review loop ran to its end: the disruptive update shown, approved and merged.
    expect(demo.stdout).toMatch(/`spec\.provider\.workers\[cpu-worker-0\]\.machine\.type` m6i\.large → m6i\.xlarge/);
    expect(demo.stdout).toMatch(/merged #16 \(kimops\/dev\/c-78fcc25\) into main/);
  }, 60_000);

  describe('KEB against the installed generate, apply and backfill, three processes', () => {
    const plane = useKebPlane('package-keb');

    it(
      'create → Ready with the kubeconfig Secret; update → Pending within 4 s → Ready; failures; delete → gone',
      () => kebLifecycle({ ...plane, start: startPipeline }),
      240_000,
    );
  });
});
