// `kimops init <url>` on GitHub: the GitHub test server's repository, served over git by the test git server,
// its API checked against GitHub's OpenAPI description. kimops.yaml requires the workflow's check, and main
// gets its rulesets; a refusal is a warning, the repository is created either way.
import { execFileSync } from 'node:child_process';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { parseKimopsConfig } from '../model/kimops-config.js';
import { GitHubTestServer } from '../test/helpers/github-test-server.js';
import { startGitServer, type GitServer } from '../test/helpers/git-http-server.js';
import { kimops } from '../test/helpers/cli.js';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { githubTargetOf, requireWorkflowCheck, WORKFLOW_CHECK } from './init-branch-rules.js';
import { releaseTarball } from '../test/helpers/release-tarball.js';
import { kimopsVersion } from '../adapters/files/package-version.js';

describe('kimops init <url> on GitHub', () => {
  let github: GitHubTestServer;
  let git: GitServer;
  let repoNumber = 0;
  let name = '';
  let release = '';
  let scratch = '';

  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'kimops-init-branch-rules-'));
    release = (await releaseTarball(scratch, { name: 'kimops', version: kimopsVersion() })).file;
    github = await GitHubTestServer.start({ owner: 'acme' });
    git = await startGitServer({ root: github.gitRoot, token: (token) => github.acceptsToken(token) });
  });
  afterAll(async () => {
    await git.stop();
    await rm(scratch, { recursive: true, force: true });
    await github.close(); // throws on any contract violation seen during the run
  });
  beforeEach(async () => {
    name = `landscape-${++repoNumber}`;
    await github.createEmptyRepo(name);
    vi.stubEnv('KIMOPS_GIT_TOKEN', github.token);
    vi.stubEnv('GITHUB_TOKEN', '');
  });
  afterEach(() => {
    vi.unstubAllEnvs();
    github.refuse = {};
  });

  const init = (...extra: string[]) =>
    kimops([
      'init',
      '--landscape',
      'dev',
      ...(extra.includes('--no-release') ? [] : ['--release-tarball', release]),
      '--reviewers',
      '@acme/kcp-sre',
      '--github-api-url',
      github.url,
      '--github-repo',
      `acme/${name}`,
      ...extra.filter((arg) => arg !== '--no-release'),
      `${git.url}/${name}.git`,
    ]);
  const kimopsYaml = () =>
    parseKimopsConfig(
      execFileSync('git', ['--git-dir', github.gitDir(name), 'show', 'main:kimops.yaml'], { encoding: 'utf8' }),
    );

  it("requires the workflow's check and sets up the rulesets of main", async () => {
    const { code, stdout, stderr } = await init();
    expect(code).toBe(0);
    expect(kimopsYaml().requiredChecks).toEqual(['kimops/validate', 'validate']);
    expect(stdout).toMatch(
      /\nbranch rules of main on GitHub:\n {2}ruleset "kimops: main" \(id \d+, created\): required checks kimops\/validate, validate; no force-push or deletion of main\n {2}ruleset "kimops: review" \(id \d+, created\): 1 approval by code owners; kimops-bot, the identity init ran as, may merge without/,
    );
    expect(stderr).not.toContain('warning');
    // The test server is no github.com: GitHub Actions' App id there is unknown, and init says what to do.
    expect(stderr).toContain(
      'note: the required check "validate" is not bound to GitHub Actions (its App id on this GitHub is not known to kimops)',
    );
    expect(github.rulesets(name).map((ruleset) => ruleset.name)).toEqual(['kimops: main', 'kimops: review']);
  });

  it('says which ruleset exists when GitHub refuses the review ruleset after creating "kimops: main"', async () => {
    // The push and GET /user, the rulesets list and "kimops: main" pass; the review ruleset is refused.
    github.failNext(1, { status: 403, message: 'Resource not accessible by personal access token' }, 3);
    const { code, stdout, stderr } = await init();
    expect(code).toBe(0);
    expect(stdout).toMatch(/\n {2}ruleset "kimops: main" \(id \d+, created\): required checks/);
    expect(stderr).toMatch(
      /warning: ruleset "kimops: review" of main not set up: .*403 Resource not accessible by personal access token.*\n {2}only the rule above is in place; set ruleset "kimops: review" up by hand as docs\/github\.md describes\n/,
    );
    expect(github.rulesets(name).map((ruleset) => ruleset.name)).toEqual(['kimops: main']);
  });

  it("requires the workflow's check only once the workflow names a release it can install", async () => {
    const { code, stderr } = await init('--no-release');
    expect(code).toBe(0);
    expect(kimopsYaml().requiredChecks).toEqual(['kimops/validate']);
    expect(stderr).toContain('note: merges do not wait for the workflow\'s check "validate" until it runs');
    expect(github.rulesets(name).find((ruleset) => ruleset.name === 'kimops: main')).toBeDefined();
  });

  it('creates the repository and warns with the fix when GitHub refuses the rules', async () => {
    github.refuse = { rulesets: 403, protection: 403 };
    const { code, stderr } = await init();
    expect(code).toBe(0);
    expect(stderr).toMatch(
      /warning: branch rules of main not set up: .*403 Upgrade to GitHub Pro.*\n {2}the repository is created; set the rules up by hand as docs\/github\.md describes\n/,
    );
    expect(kimopsYaml().requiredChecks).toEqual(['kimops/validate', 'validate']);
  });

  it('sets up no rules with --no-branch-rules, and still requires the check', async () => {
    const { code, stdout } = await init('--no-branch-rules');
    expect(code).toBe(0);
    expect(stdout).not.toContain('branch rules');
    expect(github.rulesets(name)).toEqual([]);
    expect(kimopsYaml().requiredChecks).toEqual(['kimops/validate', 'validate']);
  });
});

describe('githubTargetOf and requireWorkflowCheck', () => {
  it('takes github.com URLs, and others only with --github-api-url', () => {
    expect(githubTargetOf('https://github.com/acme/landscape-dev.git', {})).toEqual({
      owner: 'acme',
      repo: 'landscape-dev',
      baseUrl: 'https://api.github.com',
    });
    expect(githubTargetOf('https://git.example.com/acme/landscape-dev.git', {})).toBeUndefined();
    expect(
      githubTargetOf('https://ghe.example.com/acme/landscape-dev.git', {
        githubApiUrl: 'https://ghe.example.com/api/v3',
      }),
    ).toMatchObject({ baseUrl: 'https://ghe.example.com/api/v3', owner: 'acme' });
  });

  it("names the check as GitHub Actions reports the template workflow's job: after the job, which has no name of its own", () => {
    const workflow = parse(
      readFileSync(new URL('../repo-template/.github/workflows/validate.yml', import.meta.url), 'utf8'),
    ) as { jobs: Record<string, { name?: string }> };
    expect(Object.keys(workflow.jobs)).toEqual([WORKFLOW_CHECK]);
    expect(workflow.jobs[WORKFLOW_CHECK]?.name).toBeUndefined();
  });

  it('adds the check once, keeping what kimops.yaml requires', () => {
    const base =
      'apiVersion: kimops.kyma-project.io/v1alpha1\nkind: KimopsConfig\nlandscape: dev\ngardener: {project: dev}\n';
    const files = new Map([['kimops.yaml', `${base}requiredChecks: [kimops/validate, lint]\n`]]);
    requireWorkflowCheck(files);
    requireWorkflowCheck(files);
    expect(parseKimopsConfig(files.get('kimops.yaml') ?? '').requiredChecks).toEqual([
      'kimops/validate',
      'lint',
      'validate',
    ]);
  });
});
