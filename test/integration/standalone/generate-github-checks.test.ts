// Merges wait for every required check on GitHub (issue 17): the generator against a remote landscape repo
// (git's own http-backend) and the GitHub test server (real merges, every call checked against GitHub's OpenAPI
// description), kimops.yaml requiring the validate workflow's check as `kimops init` writes it for GitHub. The
// workflow is played by the test: it reports its check run on the PR's head. Merged and closed branches go. A
// token that may not read check runs makes only the checks it cannot read wait; a change that needs review merges
// only with the approval of a code owner of its files, a team member as GitHub answers it.
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readLandscape } from '../../../adapters/files/landscape.js';
import { readRuntimes } from '../../../adapters/files/manifests.js';
import { githubForge } from '../../../adapters/forge/github.js';
import { withRetries } from '../../../adapters/forge/retrying.js';
import { LandscapeRepo } from '../../../adapters/git/landscape-repo.js';
import { generate } from '../../../generator/generate.js';
import { conversionSettingsOf } from '../../../model/landscape.js';
import { kimops } from '../../helpers/cli.js';
import { startGitServer, type GitServer } from '../../helpers/git-http-server.js';
import { GitHubTestServer } from '../../helpers/github-test-server.js';
import { useTempDir } from '../../helpers/temp-dir.js';

const dir = useTempDir('generate-github-checks');
const EXAMPLES = new URL('../../../examples/runtimes/keb/', import.meta.url).pathname;
let github: GitHubTestServer;
let gitServer: GitServer;

beforeAll(async () => {
  github = await GitHubTestServer.start({ owner: 'acme' });
  gitServer = await startGitServer({ root: github.gitRoot, token: (token) => github.acceptsToken(token) });
});

afterAll(async () => {
  await gitServer.stop();
  await github.close(); // throws on any contract violation seen during the run
});

/**
 * A GitHub repository holding what `kimops init` writes for dev on GitHub, and a generator pass over one Runtime;
 * `edit` changes the files first (CODEOWNERS, the merge policy).
 */
async function landscape(name: string, edit: (files: Record<string, string>) => void = () => undefined) {
  const local = `${dir.path}/template.git`;
  expect((await kimops(['init', '--landscape', 'dev', local])).code).toBe(0);
  const files = Object.fromEntries(
    await Promise.all(
      [...(await (await LandscapeRepo.open(local)).readFiles('main'))].map(
        async ([path, file]) => [path, await file.read()] as const,
      ),
    ),
  );
  files['kimops.yaml'] = (files['kimops.yaml'] ?? '').replace(
    /^requiredChecks: .*$/m,
    'requiredChecks: [kimops/validate, validate]',
  );
  edit(files);
  await github.createRepo(name, files);
  const forge = withRetries(
    await githubForge({
      owner: 'acme',
      repo: name,
      baseUrl: github.url,
      auth: { token: github.token },
      throttle: false,
      retry: false,
    }),
    { sleep: async () => undefined },
  );
  const [aws] = (await readRuntimes(`${EXAMPLES}aws.yaml`)).runtimes;
  if (!aws) throw new Error('no example Runtime');
  const settings = conversionSettingsOf(await readLandscape('dev'));
  const repo = await LandscapeRepo.open(`${dir.path}/cache.git`);
  const logs: string[] = [];
  const pass = (runtimes = [aws]) =>
    generate({
      landscape: 'dev',
      settings,
      runtimes,
      runtimesComplete: true,
      repo,
      remote: { url: `${gitServer.url}/${name}.git`, auth: { token: github.token } },
      forge,
      author: { name: 'kimops', email: 'kimops@localhost' },
      log: (line) => logs.push(line),
    });
  return { pass, logs, forge, shoot: aws.runtime.spec.shoot.name };
}

/** The one open PR of the repository. */
async function openPull(forge: Awaited<ReturnType<typeof landscape>>['forge']) {
  const open = await forge.listOpenPullRequests();
  const pr = open.ok ? open.value[0] : undefined;
  if (!pr) throw new Error('no open PR');
  return pr;
}

const merges = (name: string) =>
  execFileSync('git', ['--git-dir', github.gitDir(name), 'log', '--merges', '--format=%s', 'main'], {
    encoding: 'utf8',
  }).trim();

describe('generate on GitHub: merges wait for every required check', () => {
  it("waits for the workflow's check run, merges once it passed, and deletes the branch", async () => {
    const name = 'landscape-checks';
    const { pass, logs, forge, shoot } = await landscape(name);
    const branch = `kimops/dev/${shoot}`;

    const waiting = await pass();
    expect(waiting.proposed).toEqual([expect.objectContaining({ shoot, action: 'await-checks' })]);
    expect(logs.join('\n')).toContain('but waits for required check: validate (not reported yet)');
    const open = await forge.listOpenPullRequests();
    const pr = open.ok ? open.value[0] : undefined;
    if (!pr) throw new Error('no open PR');
    expect(github.statuses(name, pr.headSha).map((s) => `${s.context} ${s.state}`)).toEqual([
      'kimops/validate success',
    ]);

    github.addCheckRun(name, pr.headSha, 'validate', 'in_progress');
    expect((await pass()).proposed[0]?.action).toBe('await-checks');
    expect(logs.at(-1)).toContain('validate (in progress)');
    github.addCheckRun(name, pr.headSha, 'validate', 'completed', 'failure');
    expect((await pass()).proposed[0]?.action).toBe('blocked');
    expect(merges(name)).toBe('');

    // Re-run and green: merged by GitHub's merge API, the branch deleted through the refs API.
    github.addCheckRun(name, pr.headSha, 'validate', 'completed', 'success');
    const merged = await pass();
    expect(merged.proposed).toEqual([expect.objectContaining({ shoot, action: 'auto-merge' })]);
    expect(merges(name)).toBe(`Merge pull request #${pr.number} from acme/${branch}`);
    expect(await github.hasBranch(name, branch)).toBe(false);
    // octokit sends the ref as one path segment (heads%2Fkimops%2F…), which GitHub accepts.
    const deletes = github.requests.filter((r) => r.method === 'DELETE');
    expect(deletes.map((r) => `${decodeURIComponent(r.path)} ${r.status}`)).toEqual([
      `/repos/acme/${name}/git/refs/heads/${branch} 204`,
    ]);
  });

  it('waits, naming the fix, where the token may not read check runs, and merges on the statuses alone once none is needed', async () => {
    const name = 'landscape-fine-grained';
    const { pass, logs, forge } = await landscape(name);
    github.refuse = { checkRuns: 403 };
    try {
      // The workflow's check is required and no status covers it: it is unreadable, the PR waits, the pass goes on.
      expect((await pass()).proposed[0]?.action).toBe('await-checks');
      expect(logs.at(-1)).toMatch(
        /waits for required check: validate \(unreadable: .*403 Resource not accessible by personal access token.*fine-grained tokens cannot be granted it\)/,
      );
      const pr = await openPull(forge);
      // A status of that name (a CI posting statuses) covers it: no check run is read, and the PR merges.
      const status = await forge.setCommitStatus(pr.headSha, {
        context: 'validate',
        state: 'success',
        description: 'ok',
      });
      expect(status.ok).toBe(true);
      expect((await pass()).proposed[0]?.action).toBe('auto-merge');
    } finally {
      github.refuse = {};
    }
  });

  it("merges a reviewed change only with a code owner's approval: a team member's, not an outsider's or a non-owner's", async () => {
    const name = 'landscape-owners';
    const { pass, logs, forge } = await landscape(name, (files) => {
      files['CODEOWNERS'] = '* @acme/landscape-admins\n/shoots/ @acme/kcp-sre\n';
      files['kimops.yaml'] = (files['kimops.yaml'] ?? '').replace(
        'create: {mode: auto-merge}',
        'create: {mode: review, approvals: 1}',
      );
    });
    github.addTeamMember('acme', 'kcp-sre', 'dave');
    github.addTeamMember('acme', 'landscape-admins', 'alice');
    expect((await pass()).proposed[0]?.action).toBe('await-review');
    const pr = await openPull(forge);
    github.addCheckRun(name, pr.headSha, 'validate', 'completed', 'success');
    expect(pr.body).toContain(
      '**Merge:** waits for 1 approval (`mergePolicy.create`) by a code owner of its files, or by a collaborator where CODEOWNERS names none;',
    );

    // Anyone may approve a public repository's PR; alice owns kimops.yaml, not the Shoot's files; bob is in no team.
    await github.review(name, pr.number, 'mallory', 'APPROVED', undefined, 'NONE');
    await github.review(name, pr.number, 'alice');
    await github.review(name, pr.number, 'bob', 'APPROVED', undefined, 'COLLABORATOR');
    expect((await pass()).proposed[0]?.action).toBe('await-review');
    expect(logs.at(-1)).toContain(
      'waits for 1 approval by a code owner (mergePolicy.create; CODEOWNERS: @acme/kcp-sre), has 0',
    );
    expect(merges(name)).toBe('');

    await github.review(name, pr.number, 'dave');
    expect((await pass()).proposed[0]?.action).toBe('auto-merge');
    expect(merges(name)).toBe(`Merge pull request #${pr.number} from acme/${pr.branch}`);
    const asked = github.requests.filter((r) => r.path.startsWith('/orgs/acme/teams/')).map((r) => r.path);
    expect(asked).toContain('/orgs/acme/teams/kcp-sre/memberships/dave');
    // mallory's approval never counted, so her membership was never asked for.
    expect(asked.some((path) => path.endsWith('/mallory'))).toBe(false);
  });

  it('closes a PR whose change is gone and deletes its branch on GitHub', async () => {
    const name = 'landscape-closed';
    const { pass, shoot } = await landscape(name);
    expect((await pass()).proposed[0]?.action).toBe('await-checks');
    const gone = await pass([]);
    expect(gone.closed).toHaveLength(1);
    expect(await github.hasBranch(name, `kimops/dev/${shoot}`)).toBe(false);
  });
});
