// The landscape repo's validate workflow, run as GitHub's runner runs it (test/helpers/workflow-runner.ts), in a
// clean checkout of a landscape repo `kimops init` made for a landscape that ships nowhere (myprod): kimops packed
// as a release is (npm pack), served by a loopback HTTP server standing in for the release URL, downloaded and
// checked against the sha512 init wrote, installed with the dependencies its npm-shrinkwrap.json pins, then run on a
// pull request with a bad Shoot change (annotations, job summary table) and on main (passes). A tampered tarball
// fails the checksum step and nothing of it is installed; a repo made without a release fails saying what to pin.
// The install runs npm ci against the npm registry (its cache first): ~1 min with the pack.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LandscapeRepo } from '../../../adapters/git/landscape-repo.js';
import { kimops, startKimops } from '../../helpers/cli.js';
import { CHILD_ENV, checkoutVersion, packKimops } from '../../helpers/packed-kimops.js';
import { eventually } from '../../helpers/testenv.js';
import { runWorkflowJob, type RunnerContext, type StepRun, type WorkflowStep } from '../../helpers/workflow-runner.js';

const ROOT = new URL('../../../', import.meta.url).pathname;
const EXAMPLES = join(ROOT, 'examples/runtimes/keb');
const WORKFLOW = '.github/workflows/validate.yml';
/** The Shoot the pull request breaks: KEB's AWS example, Kubernetes 1.33.3 on main. */
const SHOOT = 'shoots/c-56a4813/shoot.yaml';
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

let work = '';
let version = '';
let tarball = '';
/** What the release URL serves: the release, or something else. */
let served: Buffer = Buffer.alloc(0);
let server: Server;
let releaseUrl = '';
/** The landscape repo kimops init made, with the 15 KEB examples' Shoots on main. */
let origin = '';

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'kimops-landscape-workflow-'));
  version = await checkoutVersion();
  tarball = await packKimops(work);
  served = await readFile(tarball);
  server = createServer((request, response) => {
    if (request.url === `/kyma-project/kimops/releases/download/v${version}/kimops-${version}.tgz`) {
      response.writeHead(200, { 'content-type': 'application/octet-stream' }).end(served);
    } else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  releaseUrl = `http://127.0.0.1:${port}/kyma-project/kimops/releases/download/v${version}/kimops-${version}.tgz`;

  const dev = await readFile(join(ROOT, 'landscapes/dev/landscape.yaml'), 'utf8');
  await mkdir(join(work, 'myprod'));
  await writeFile(
    join(work, 'myprod/landscape.yaml'),
    dev.replace('name: dev', 'name: myprod').replace('project: kyma-dev', 'project: myprod'),
  );
  origin = join(work, 'landscape-myprod.git');
  const init = await kimops([
    'init',
    '--landscape',
    join(work, 'myprod'),
    '--release-tarball',
    tarball,
    '--release-url',
    releaseUrl,
    '--reviewers',
    '@acme/myprod-owners',
    origin,
  ]);
  expect(init.stderr).toBe('');
  expect(init.code).toBe(0);
  // The Shoots reach main as they do in production: the generator, reading the landscape from the repo.
  const generate = await kimops(['generate', '--runtimes', EXAMPLES, '--repo', origin, '--once']);
  expect(generate.stderr).toBe('');
  expect(generate.stdout).toContain('15 proposed (15 merged');
}, 300_000);
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await rm(work, { recursive: true, force: true });
});

/** A fresh folder for one job: the workspace and RUNNER_TEMP. */
async function jobFolders(name: string): Promise<{ workspace: string; temp: string }> {
  const base = join(work, name);
  await mkdir(join(base, 'temp'), { recursive: true });
  return { workspace: join(base, 'workspace'), temp: join(base, 'temp') };
}

/** What actions/checkout (fetch-depth: 0) leaves for a pull request: its merge commit checked out, every branch fetched. */
function checkoutPullRequest(repo: string, workspace: string, branch: string): string {
  execFileSync('git', ['clone', '--quiet', repo, workspace]);
  git(workspace, 'checkout', '--quiet', '--detach', 'origin/main');
  git(
    workspace,
    '-c',
    'user.name=GitHub',
    '-c',
    'user.email=noreply@github.com',
    'merge',
    '--quiet',
    '--no-ff',
    '-m',
    `Merge ${branch} into main`,
    `origin/${branch}`,
  );
  return git(workspace, 'rev-parse', 'HEAD');
}

/** The runner as GitHub gives it for this job; the actions' work (checkout, setup-node) done or checked. */
function runner(
  folders: { workspace: string; temp: string },
  event: RunnerContext['event'],
  sha: string,
): RunnerContext {
  return {
    ...folders,
    event,
    ...(event === 'pull_request' && { baseRef: 'main', headRef: 'kimops/myprod/c-56a4813' }),
    ref: event === 'pull_request' ? 'refs/pull/1/merge' : 'refs/heads/main',
    sha,
    repository: 'acme/landscape-myprod',
    hostEnv: runnerHostEnv(),
    action(step: WorkflowStep) {
      if (step.uses?.startsWith('actions/checkout@')) {
        // Done by the test (checkoutPullRequest, or a clone of main) as the action would.
        expect(step.with).toMatchObject({ 'fetch-depth': 0 });
        expect(existsSync(join(folders.workspace, '.git'))).toBe(true);
      } else if (step.uses?.startsWith('actions/setup-node@')) {
        // The Node on PATH is the one the tests run on: the major setup-node installs.
        expect(Number(process.versions.node.split('.')[0])).toBe(step.with?.['node-version']);
      } else throw new Error(`the test runner cannot run ${step.uses}`);
    },
  };
}

/** The runner's own environment: PATH (with Node), HOME (npm's cache), and nothing of the test run's GitHub or kimops settings. */
function runnerHostEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(CHILD_ENV))
    if (value !== undefined && !/^(GITHUB_|RUNNER_|KIMOPS_|npm_|VITEST|NODE_OPTIONS$)/.test(key)) env[key] = value;
  return env;
}

const byName = (runs: StepRun[], name: string) => {
  const run = runs.find((r) => r.step.name === name);
  if (!run) throw new Error(`no step named ${name}`);
  return run;
};
const INSTALL = 'Install kimops, checked against its sha512';
const VALIDATE_PR = "Validate the pull request's change";
const VALIDATE_MAIN = 'Validate main';

describe("the landscape repo's validate workflow, as GitHub's runner runs it", () => {
  it('installs the released kimops checked against its sha512, then annotates a bad Shoot change and tables it in the summary', async () => {
    // A pull request that downgrades a Shoot's Kubernetes: pushed as a branch, as a PR's head is.
    const author = join(work, 'author');
    execFileSync('git', ['clone', '--quiet', origin, author]);
    git(author, 'switch', '--quiet', '-c', 'kimops/myprod/c-56a4813');
    const shoot = join(author, SHOOT);
    await writeFile(shoot, (await readFile(shoot, 'utf8')).replace('version: 1.33.3', 'version: 1.32.5'));
    git(author, '-c', 'user.name=dev', '-c', 'user.email=dev@example.com', 'commit', '--quiet', '-am', 'downgrade');
    git(author, 'push', '--quiet', 'origin', 'kimops/myprod/c-56a4813');

    const folders = await jobFolders('pull-request');
    const sha = checkoutPullRequest(origin, folders.workspace, 'kimops/myprod/c-56a4813');
    const runs = await runWorkflowJob(
      join(folders.workspace, WORKFLOW),
      'validate',
      runner(folders, 'pull_request', sha),
    );

    const install = byName(runs, INSTALL);
    expect(install.stderr).not.toMatch(/::error/);
    expect(install.code).toBe(0);
    expect(install.stdout).toContain('kimops.tgz: OK');
    // Exactly the dependencies the release's npm-shrinkwrap.json (kimops's package-lock.json) pins, and no dev one.
    const lock = JSON.parse(await readFile(join(ROOT, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { version?: string; dev?: boolean }>;
    };
    const installed = installedPackages(join(folders.temp, 'kimops'));
    expect(installed.size).toBeGreaterThan(50);
    const differing = [...installed].filter(
      ([path, v]) => lock.packages[path]?.version !== v || lock.packages[path]?.dev,
    );
    expect(differing).toEqual([]);

    const validate = byName(runs, VALIDATE_PR);
    expect(validate.code).toBe(1);
    expect(validate.stdout).toContain(
      `::error file=${SHOOT},title=kimops kubernetes-no-downgrade::Kubernetes 1.32.5 is lower than the live 1.33.3`,
    );
    expect(validate.stdout).toContain(`::error file=${SHOOT},title=kimops kubernetes-version-minimum::`);
    expect(validate.stdout).toMatch(
      /1 Shoots checked changed against origin\/main \(14 unchanged\): 0 create, 1 update/,
    );
    expect(validate.summary).toContain('| Shoot | operation | result | findings |');
    expect(validate.summary).toContain(
      '| `c-56a4813` | update | ❌ denied (2) | ✗ **kubernetes-no-downgrade** (shoot.yaml): Kubernetes 1.32.5 is lower than the live 1.33.3',
    );
    expect(byName(runs, VALIDATE_MAIN).code).toBeUndefined();
  }, 240_000);

  it('passes main of the landscape that ships nowhere, every Shoot in the summary', async () => {
    const folders = await jobFolders('push');
    execFileSync('git', ['clone', '--quiet', origin, folders.workspace]);
    const runs = await runWorkflowJob(
      join(folders.workspace, WORKFLOW),
      'validate',
      runner(folders, 'push', git(folders.workspace, 'rev-parse', 'HEAD')),
    );
    expect(byName(runs, INSTALL).code).toBe(0);
    expect(byName(runs, VALIDATE_PR).code).toBeUndefined();
    const validate = byName(runs, VALIDATE_MAIN);
    expect(validate.stderr).toBe('');
    expect(validate.code).toBe(0);
    expect(validate.stdout).toBe('15 Shoots checked: 15 create, 0 update, 0 delete; 0 denied, 0 warnings\n');
    expect(validate.summary.split('\n').filter((line) => line.includes('✅ passed'))).toHaveLength(15);
  }, 240_000);

  it('refuses a tampered tarball at the checksum: nothing of it is unpacked, installed or run', async () => {
    // The same package with one file changed, as a compromised download would be.
    const evil = join(work, 'evil');
    await mkdir(evil);
    execFileSync('tar', ['-xzf', tarball, '-C', evil]);
    await writeFile(join(evil, 'package/dist/cli/kimops.js'), 'console.log("pwned"); process.exit(0);\n');
    execFileSync('tar', ['-czf', join(work, 'evil.tgz'), '-C', evil, 'package']);
    const original = served;
    served = await readFile(join(work, 'evil.tgz'));
    expect(createHash('sha512').update(served).digest('hex')).not.toBe(
      createHash('sha512').update(original).digest('hex'),
    );
    try {
      const folders = await jobFolders('tampered');
      execFileSync('git', ['clone', '--quiet', origin, folders.workspace]);
      const runs = await runWorkflowJob(
        join(folders.workspace, WORKFLOW),
        'validate',
        runner(folders, 'push', git(folders.workspace, 'rev-parse', 'HEAD')),
      );
      const install = byName(runs, INSTALL);
      expect(install.code).toBe(1);
      expect(install.stdout).toContain('kimops.tgz: FAILED');
      expect(install.stderr).toContain('WARNING: 1 computed checksum did NOT match');
      expect(existsSync(join(folders.temp, 'kimops'))).toBe(false);
      expect(await readFile(join(folders.temp, '_runner_file_commands', 'path'), 'utf8')).toBe('');
      expect(byName(runs, VALIDATE_MAIN).code).toBeUndefined();
    } finally {
      served = original;
    }
  }, 120_000);

  it('fails, saying what to pin, in a repo made without a release', async () => {
    const bare = join(work, 'unpinned.git');
    const init = await kimops(['init', '--landscape', join(work, 'myprod'), '--reviewers', '@acme/x', bare]);
    expect(init.code).toBe(0);
    const folders = await jobFolders('unpinned');
    execFileSync('git', ['clone', '--quiet', bare, folders.workspace]);
    const runs = await runWorkflowJob(
      join(folders.workspace, WORKFLOW),
      'validate',
      runner(folders, 'push', git(folders.workspace, 'rev-parse', 'HEAD')),
    );
    const install = byName(runs, INSTALL);
    expect(install.code).toBe(1);
    expect(install.stdout).toBe(
      "::error file=.github/workflows/validate.yml::no kimops release is pinned: set KIMOPS_VERSION, KIMOPS_TARBALL_URL and KIMOPS_TARBALL_SHA512 (a kimops release's notes give them)\n",
    );
    expect(readdirSync(folders.temp).filter((name) => !name.startsWith('_') && !name.endsWith('.sh'))).toEqual([]);
  }, 60_000);
});

describe('generate and the landscape.yaml on main', () => {
  it('renders with a landscape.yaml merged to main from the next pass on: the change comes as a rollout', async () => {
    const bare = join(work, 'followed.git');
    expect((await kimops(['init', '--landscape', join(work, 'myprod'), '--reviewers', '@acme/x', bare])).code).toBe(0);
    const stop = new AbortController();
    const running = startKimops(
      ['generate', '--runtimes', EXAMPLES, '--repo', bare, '--watch', '--interval', '1', '--log-format', 'plain'],
      stop.signal,
    );
    try {
      await eventually(
        'the creates',
        async () => (running.stdout.includes('15 proposed (15 merged') ? true : undefined),
        60_000,
      );
      // A reviewed landscape change lands on main: a newer machine image for every Shoot.
      const repo = await LandscapeRepo.open(bare);
      const text = (await repo.readFile('main', 'landscape.yaml')) ?? '';
      expect(text).toContain('version: "1877.4.0"');
      await repo.commitFiles({
        branch: 'main',
        files: new Map([['landscape.yaml', text.replace('version: "1877.4.0"', 'version: "1877.5.0"')]]),
        message: 'Garden Linux 1877.5.0',
        author: { name: 'sre', email: 'sre@example.com' },
      });
      await eventually(
        'the rollout',
        async () => (/rollout [^:]+: #\d+ with \d+ shoots/.test(running.stdout) ? true : undefined),
        60_000,
      );
      expect(running.stdout).toContain('landscape.yaml on main changed: this pass renders with it');
    } finally {
      stop.abort();
      await running.done;
    }
  }, 180_000);
});

/** Every package under `root`'s node_modules (nested too), by its lock-file path, with its version. */
function installedPackages(root: string): Map<string, string> {
  const found = new Map<string, string>();
  const walk = (dir: string, prefix: string) => {
    const modules = join(dir, 'node_modules');
    if (!existsSync(modules)) return;
    for (const entry of readdirSync(modules)) {
      if (entry.startsWith('.')) continue;
      const names = entry.startsWith('@') ? readdirSync(join(modules, entry)).map((s) => `${entry}/${s}`) : [entry];
      for (const name of names) {
        const manifest = join(modules, name, 'package.json');
        if (!existsSync(manifest)) continue;
        const path = `${prefix}node_modules/${name}`;
        found.set(path, (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version);
        walk(join(modules, name), `${path}/`);
      }
    }
  };
  walk(root, '');
  return found;
}
