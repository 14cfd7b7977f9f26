import { execFile, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { parse } from 'yaml';
import { kimopsVersion } from '../adapters/files/package-version.js';
import { readTemplate } from '../adapters/files/template.js';
import { LandscapeRepo } from '../adapters/git/landscape-repo.js';
import { parseKimopsConfig } from '../model/kimops-config.js';
import { type GitServer, startGitServer } from '../test/helpers/git-http-server.js';
import { useTempDir } from '../test/helpers/temp-dir.js';
import { kimops } from '../test/helpers/cli.js';
import { releaseTarball as releaseTarballIn } from '../test/helpers/release-tarball.js';

const dir = useTempDir('init');

/** The git CLI, only in tests: it checks the repo kimops wrote is one git itself reads. */
const git = (gitdir: string, ...args: string[]) =>
  execFileSync('git', ['--git-dir', gitdir, ...args], { encoding: 'utf8' });

const devLandscape = () => readFile(new URL('../landscapes/dev/landscape.yaml', import.meta.url), 'utf8');

const TEMPLATE_FILES = ['.github/workflows/validate.yml', 'CODEOWNERS', 'README.md', 'kimops.yaml', 'shoots/.gitkeep'];
/** What init commits: the template and the landscape file. */
const REPO_FILES = [...TEMPLATE_FILES.slice(0, 4), 'landscape.yaml', ...TEMPLATE_FILES.slice(4)];

const releaseTarball = (manifest: Record<string, unknown> = { name: 'kimops', version: kimopsVersion() }) =>
  releaseTarballIn(dir.path, manifest);

/** The options a repo needs so that init has nothing to note. */
async function pinned(): Promise<string[]> {
  return ['--release-tarball', (await releaseTarball()).file, '--reviewers', '@acme/kcp-sre'];
}

interface WorkflowFile {
  env: Record<string, string>;
}

describe('kimops init', () => {
  it('creates a bare repo with one commit on main holding the template, landscape and project filled in', async () => {
    const target = join(dir.path, 'dev.git');
    const release = await releaseTarball();
    const { code, stdout, stderr } = await kimops([
      'init',
      '--landscape',
      'dev',
      '--release-tarball',
      release.file,
      '--reviewers',
      '@acme/kcp-sre, @acme/dev-owners',
      target,
    ]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toContain(`created landscape repo ${target} (bare) for landscape dev, Gardener project kyma-dev`);
    expect(stdout).toContain(`git clone ${target}`);
    const version = kimopsVersion();
    const url = `https://github.com/kyma-project/kimops/releases/download/v${version}/kimops-${version}.tgz`;
    expect(stdout).toContain(
      `its validate workflow installs kimops ${version} from ${url}, checked against its sha512`,
    );

    expect(git(target, 'rev-parse', '--is-bare-repository').trim()).toBe('true');
    expect(git(target, 'ls-tree', '-r', '--name-only', 'main').trim().split('\n')).toEqual(REPO_FILES);
    expect(git(target, 'rev-list', '--count', 'main').trim()).toBe('1');
    expect(git(target, 'log', '-1', '--format=%an <%ae>|%cn <%ce>', 'main').trim()).toBe(
      'kimops <kimops@localhost>|kimops <kimops@localhost>',
    );
    git(target, 'fsck', '--strict');

    const config = parseKimopsConfig(git(target, 'show', 'main:kimops.yaml'));
    expect(config).toMatchObject({
      landscape: 'dev',
      gardener: { project: 'kyma-dev' },
      policySet: 'default',
      drift: 'report',
    });

    const readme = git(target, 'show', 'main:README.md');
    expect(readme).toContain('# Landscape repo: dev');
    expect(readme).not.toMatch(/\{\{(landscape|project)\}\}/);
    // GitHub Actions' own expressions are not placeholders of the template.
    const workflow = git(target, 'show', 'main:.github/workflows/validate.yml');
    expect(workflow).toContain('BASE_REF: ${{ github.base_ref }}');
    expect(workflow).not.toMatch(/\{\{[a-zA-Z]+\}\}/);
    expect((parse(workflow) as WorkflowFile).env).toEqual({
      KIMOPS_VERSION: version,
      KIMOPS_TARBALL_URL: url,
      KIMOPS_TARBALL_SHA512: release.sha512,
    });
    const codeowners = git(target, 'show', 'main:CODEOWNERS');
    expect(codeowners.split('\n').filter((line) => line !== '' && !line.startsWith('#'))).toEqual([
      '* @acme/kcp-sre @acme/dev-owners',
    ]);
    expect(codeowners).toContain('landscape dev');
    // The landscape file as shipped, byte for byte (comments kept), for generate, apply and validate to read.
    expect(git(target, 'show', 'main:landscape.yaml')).toBe(await devLandscape());
  });

  it('without a release or reviewers: a workflow that fails saying what to pin, a CODEOWNERS naming nobody, and notes', async () => {
    const target = join(dir.path, 'dev.git');
    const { code, stderr } = await kimops(['init', '--landscape', 'dev', target]);
    expect(code).toBe(0);
    expect(stderr).toContain(
      'note: .github/workflows/validate.yml names no kimops release and fails until it does: set KIMOPS_VERSION, KIMOPS_TARBALL_URL and KIMOPS_TARBALL_SHA512',
    );
    expect(stderr).toContain('note: CODEOWNERS names no reviewers: add "* @<org>/<team>" to it');
    const workflow = git(target, 'show', 'main:.github/workflows/validate.yml');
    expect((parse(workflow) as WorkflowFile).env).toEqual({
      KIMOPS_VERSION: '',
      KIMOPS_TARBALL_URL: '',
      KIMOPS_TARBALL_SHA512: '',
    });
    expect(workflow).toContain('::error file=.github/workflows/validate.yml::no kimops release is pinned');
    // No owner at all: every line is a comment; nobody's team is made up.
    const codeowners = git(target, 'show', 'main:CODEOWNERS').trim().split('\n');
    expect(codeowners.filter((line) => !line.startsWith('#'))).toEqual([]);
    expect(codeowners).toContain('#   * @<org>/<team>');
  });

  it('downloads the release from --release-url, and notes a release of another version than this kimops', async () => {
    const target = join(dir.path, 'dev.git');
    const release = await releaseTarball({ name: 'kimops', version: '9.8.7-rc.1' });
    const { code, stderr } = await kimops([
      'init',
      '--landscape',
      'dev',
      '--release-tarball',
      release.file,
      '--release-url',
      'https://artifacts.example.com/kimops/9.8.7-rc.1/kimops-9.8.7-rc.1.tgz',
      '--reviewers',
      '@acme/kcp-sre',
      target,
    ]);
    expect(code).toBe(0);
    expect(stderr).toBe(
      `note: the validate workflow installs kimops 9.8.7-rc.1, this is kimops ${kimopsVersion()}: the repo's checks may differ from the generator's; pass the release tarball of the version the generator runs\n`,
    );
    expect((parse(git(target, 'show', 'main:.github/workflows/validate.yml')) as WorkflowFile).env).toEqual({
      KIMOPS_VERSION: '9.8.7-rc.1',
      KIMOPS_TARBALL_URL: 'https://artifacts.example.com/kimops/9.8.7-rc.1/kimops-9.8.7-rc.1.tgz',
      KIMOPS_TARBALL_SHA512: release.sha512,
    });
  });

  it.each([
    [
      'a --release-url without the tarball',
      async () => ['--release-url', 'https://example.com/kimops.tgz'],
      /^error: --release-url: needs --release-tarball: the checksum the workflow checks is taken from the tarball/,
    ],
    [
      'a --release-url that is no http(s) URL',
      async () => ['--release-tarball', (await releaseTarball()).file, '--release-url', 'file:///srv/kimops.tgz'],
      /^error: --release-url: file:\/\/\/srv\/kimops.tgz is not an http\(s\) URL; pass the https URL/,
    ],
    [
      'a --release-url with credentials',
      async () => [
        '--release-tarball',
        (await releaseTarball()).file,
        '--release-url',
        'https://u:p@example.com/k.tgz',
      ],
      /holds credentials, which would be committed to the repo/,
    ],
    [
      'a tarball of another package',
      async () => ['--release-tarball', (await releaseTarball({ name: 'kimops-evil', version: '1.0.0' })).file],
      /^error: --release-tarball: .*kimops-1\.0\.0\.tgz is the package "kimops-evil", not kimops; pass the kimops-<version>\.tgz of a kimops release/,
    ],
    [
      'a file that is no tarball',
      async () => ['--release-tarball', await dir.write('kimops.tgz', 'not gzip')],
      /^error: --release-tarball: .*kimops\.tgz is not a gzip-compressed tar file/,
    ],
    [
      'a missing tarball',
      async () => ['--release-tarball', join(dir.path, 'nowhere.tgz')],
      /^error: --release-tarball: .*nowhere\.tgz not found/,
    ],
    [
      'a reviewer that is no team, user or address',
      async () => ['--reviewers', '@acme/kcp-sre,kcp sre'],
      /^error: --reviewers: "kcp sre" is not a GitHub team \(@org\/team\), user \(@name\) or e-mail address; pass e\.g\. --reviewers @acme\/landscape-owners/,
    ],
    ['no reviewer at all', async () => ['--reviewers', ' , '], /^error: --reviewers: " , " is not a GitHub team/],
  ])('%s exits 2 and creates nothing', async (_, options, message) => {
    const target = join(dir.path, 'repo.git');
    const { code, stdout, stderr } = await kimops(['init', '--landscape', 'dev', ...(await options()), target]);
    expect(stderr).toMatch(message);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(existsSync(target)).toBe(false);
  });

  it('ships every file of repo-template/ (and only those)', async () => {
    expect([...(await readTemplate()).keys()].sort()).toEqual(TEMPLATE_FILES);
  });

  it('fills in a landscape given as a folder', async () => {
    await dir.write(
      'lab/landscape.yaml',
      (await devLandscape()).replace('name: dev', 'name: lab').replace('project: kyma-dev', 'project: kyma-lab'),
    );
    const target = join(dir.path, 'lab.git');
    const { code, stdout } = await kimops(['init', '--landscape', join(dir.path, 'lab'), target]);
    expect(code).toBe(0);
    expect(stdout).toContain('for landscape lab, Gardener project kyma-lab');
    expect(parseKimopsConfig(git(target, 'show', 'main:kimops.yaml'))).toMatchObject({
      landscape: 'lab',
      gardener: { project: 'kyma-lab' },
    });
  });

  it('accepts an empty folder and an empty bare repo', async () => {
    const empty = join(dir.path, 'empty');
    await mkdir(empty);
    expect((await kimops(['init', '--landscape', 'dev', empty])).code).toBe(0);

    const bare = join(dir.path, 'bare.git');
    await LandscapeRepo.open(bare);
    expect((await kimops(['init', '--landscape', 'dev', bare])).code).toBe(0);
    expect(git(bare, 'ls-tree', '-r', '--name-only', 'main').trim().split('\n')).toEqual(REPO_FILES);
  });

  it('notes when an existing bare repo names another default branch', async () => {
    const bare = join(dir.path, 'master.git');
    execFileSync('git', ['init', '--quiet', '--bare', '--initial-branch=master', bare]);
    const { code, stderr } = await kimops(['init', '--landscape', 'dev', ...(await pinned()), bare]);
    expect(code).toBe(0);
    expect(stderr).toBe(
      `note: HEAD of ${bare} is "ref: refs/heads/master", not main; for clones to check out main run:\n  git --git-dir ${bare} symbolic-ref HEAD refs/heads/main\n`,
    );
    expect(git(bare, 'ls-tree', '-r', '--name-only', 'main').trim().split('\n')).toEqual(REPO_FILES);
  });

  it('refuses a repo that already has commits on main, and leaves it as it was', async () => {
    const target = join(dir.path, 'dev.git');
    expect((await kimops(['init', '--landscape', 'dev', target])).code).toBe(0);
    const head = git(target, 'rev-parse', 'main').trim();

    const { code, stdout, stderr } = await kimops(['init', '--landscape', 'dev', target]);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(
      new RegExp(
        `^error: <dir>: ${target} already has commits on main \\(${head.slice(0, 12)}\\); kimops init only creates new landscape repos\\n$`,
      ),
    );
    expect(git(target, 'rev-parse', 'main').trim()).toBe(head);
  });

  it.each([
    [
      'an unknown landscape',
      ['--landscape', 'nowhere', 'DIR'],
      /^error: --landscape: no landscape "nowhere" ships with kimops/,
    ],
    ['a missing --landscape', ['DIR'], /required option '--landscape <name\|dir>' not specified/],
    ['a missing <dir>', ['--landscape', 'dev'], /missing required argument 'dir\|url'/],
    [
      'an ssh URL',
      ['--landscape', 'dev', 'ssh://git@github.com/acme/landscape-dev.git'],
      /^error: <url>: ssh:\/\/github.com\/acme\/landscape-dev.git: only local paths and http\(s\) URLs are supported; pass the https URL/,
    ],
    [
      'an scp-like URL',
      ['--landscape', 'dev', 'git@github.com:acme/landscape-dev.git'],
      /^error: <url>: git@github.com:acme\/landscape-dev.git: only local paths and http\(s\) URLs are supported/,
    ],
  ])('%s exits 2 and creates nothing', async (_, args, message) => {
    const target = join(dir.path, 'repo.git');
    const { code, stdout, stderr } = await kimops(['init', ...args.map((a) => (a === 'DIR' ? target : a))]);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(message);
    expect(stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(target)).toBe(false);
  });

  it('refuses a folder with other files in it', async () => {
    await dir.write('work/notes.txt', 'mine\n');
    const { code, stderr } = await kimops(['init', '--landscape', 'dev', join(dir.path, 'work')]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/work is not empty and not a bare git repository; pass a new or empty folder/);
  });

  it('refuses a file', async () => {
    const file = await dir.write('a-file', 'x\n');
    const { code, stderr } = await kimops(['init', '--landscape', 'dev', file]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/a-file is a file; pass a new or empty folder/);
  });

  it('refuses an invalid landscape before writing anything', async () => {
    const folder = join(dir.path, 'long');
    await mkdir(folder);
    await writeFile(
      join(folder, 'landscape.yaml'),
      (await devLandscape()).replace('project: kyma-dev', 'project: far-too-long-project'),
    );
    const target = join(dir.path, 'long.git');
    const { code, stderr } = await kimops(['init', '--landscape', folder, target]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/^error: .*landscape.yaml: gardener.project: must NOT have more than 10 characters/);
    expect(existsSync(target)).toBe(false);
  });
});

describe('kimops init <url>', () => {
  const TOKEN = 'init-token-4711';
  let server: GitServer;
  let serverStopped: boolean;
  let url: string;
  const stopServer = async () => {
    serverStopped = true;
    await server.stop();
  };
  const remoteGitdir = () => join(dir.path, 'remote', 'landscape-dev.git');

  beforeEach(async () => {
    execFileSync('git', ['init', '--quiet', '--bare', '--initial-branch=main', remoteGitdir()]);
    server = await startGitServer({ root: join(dir.path, 'remote'), token: TOKEN });
    serverStopped = false;
    url = `${server.url}/landscape-dev.git`;
    // Whatever the machine running the tests has set must not leak in.
    vi.stubEnv('KIMOPS_GIT_TOKEN', TOKEN);
    vi.stubEnv('GITHUB_TOKEN', '');
  });
  afterEach(async () => {
    vi.unstubAllEnvs();
    if (!serverStopped) await server.stop();
  });

  it('pushes the initial commit to an empty remote; git clones it and finds kimops.yaml; the token is never printed', async () => {
    const { code, stdout, stderr } = await kimops(['init', '--landscape', 'dev', ...(await pinned()), url]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toContain(`created landscape repo ${url} for landscape dev, Gardener project kyma-dev`);
    expect(stdout).toContain(`git clone ${url}`);
    expect(stdout).not.toContain(TOKEN);
    const pushed = git(remoteGitdir(), 'rev-parse', 'main').trim();
    expect(stdout).toContain(`commit ${pushed} on main with 6 files:`);

    const clone = join(dir.path, 'clone');
    // Asynchronously: the git server runs in this process and must keep answering while git clones.
    await promisify(execFile)('git', [
      'clone',
      '--quiet',
      url.replace('http://', `http://x-access-token:${TOKEN}@`),
      clone,
    ]);
    const inClone = (...args: string[]) => execFileSync('git', ['-C', clone, ...args], { encoding: 'utf8' }).trim();
    expect(inClone('rev-parse', 'HEAD')).toBe(pushed);
    expect(inClone('ls-files').split('\n')).toEqual(REPO_FILES);
    expect(parseKimopsConfig(await readFile(join(clone, 'kimops.yaml'), 'utf8'))).toMatchObject({
      landscape: 'dev',
      gardener: { project: 'kyma-dev' },
    });
    git(remoteGitdir(), 'fsck', '--strict');
  });

  it('makes the same commit as a local init of the same landscape', async () => {
    // The commit's timestamp is "now": fixed for both runs.
    vi.useFakeTimers({ now: new Date('2026-05-01T12:00:00Z'), toFake: ['Date'] });
    try {
      expect((await kimops(['init', '--landscape', 'dev', url])).code).toBe(0);
      const local = join(dir.path, 'local.git');
      expect((await kimops(['init', '--landscape', 'dev', local])).code).toBe(0);
      expect(git(remoteGitdir(), 'rev-parse', 'main').trim()).toBe(git(local, 'rev-parse', 'main').trim());
    } finally {
      vi.useRealTimers();
    }
  });

  it('refuses a second init to the same URL and leaves main as it was', async () => {
    expect((await kimops(['init', '--landscape', 'dev', url])).code).toBe(0);
    const head = git(remoteGitdir(), 'rev-parse', 'main').trim();
    const { code, stdout, stderr } = await kimops(['init', '--landscape', 'dev', url]);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toBe(
      `error: <url>: ${url} already has a main branch (${head.slice(0, 12)}); kimops init only creates new landscape repos — create an empty repository (no README, license or .gitignore) and pass its URL\n`,
    );
    expect(git(remoteGitdir(), 'rev-parse', 'main').trim()).toBe(head);
  });

  it('falls back to GITHUB_TOKEN', async () => {
    vi.stubEnv('KIMOPS_GIT_TOKEN', '');
    vi.stubEnv('GITHUB_TOKEN', TOKEN);
    expect((await kimops(['init', '--landscape', 'dev', url])).code).toBe(0);
    expect(git(remoteGitdir(), 'rev-list', '--count', 'main').trim()).toBe('1');
  });

  it.each([
    [
      'a wrong token',
      () => vi.stubEnv('KIMOPS_GIT_TOKEN', 'wrong-token-0815'),
      () => url,
      /HTTP 401.*check the token.*; kimops reads the token from KIMOPS_GIT_TOKEN \(or GITHUB_TOKEN\)/,
    ],
    ['no token', () => vi.stubEnv('KIMOPS_GIT_TOKEN', ''), () => url, /HTTP 401.*KIMOPS_GIT_TOKEN \(or GITHUB_TOKEN\)/],
    [
      'a missing repository',
      () => undefined,
      () => `${server.url}/nowhere.git`,
      /nowhere\.git.*no repository at this URL \(HTTP 404\); check the URL/,
    ],
    ['a stopped server', stopServer, () => url, /check the URL, the network and that the server runs/],
  ])('%s exits 2 with a message naming the URL and the fix, never the token', async (_, arrange, target, message) => {
    await arrange();
    const { code, stdout, stderr } = await kimops(['init', '--landscape', 'dev', target()]);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(new RegExp(`^error: <url>: read main of ${target().replace(/[.]/g, '\\.')}: `));
    expect(stderr).toMatch(message);
    expect(stderr).not.toContain(TOKEN);
    expect(stderr).not.toContain('wrong-token-0815');
    expect(stderr).not.toMatch(/\n\s+at /);
    expect(git(remoteGitdir(), 'for-each-ref').trim()).toBe('');
  });
});
