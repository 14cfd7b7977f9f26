// The GitHub test server itself: its contract check catches drift, and its git-backed semantics
// (conflicts, squash, pagination, the `head` filter) match GitHub's. Plain fetch, no octokit.
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitHubContract, GitHubTestServer } from './github-test-server.js';

let server: GitHubTestServer;
const REPO = 'landscape';

beforeAll(async () => {
  server = await GitHubTestServer.start();
  await server.createRepo(REPO, { 'shoots/a/shoot.yaml': 'replicas: 1\n' });
});

afterAll(async () => {
  await server.close();
});

async function call(method: string, path: string, body?: unknown, token = server.token) {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `token ${token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return {
    status: res.status,
    link: res.headers.get('link'),
    body: (await res.json()) as Record<string, unknown> & unknown[],
  };
}

async function openPull(branch: string, files: Record<string, string>): Promise<number> {
  await server.pushBranch(REPO, branch, files);
  const { status, body } = await call('POST', `/repos/acme/${REPO}/pulls`, {
    head: branch,
    base: 'main',
    title: branch,
  });
  expect(status).toBe(201);
  return body.number as number;
}

describe('GitHubContract', () => {
  const contract = new GitHubContract();

  it('rejects a response that does not match the documented schema or status', () => {
    expect(contract.checkResponse('pulls/get', 200, { number: 'one' }).join('\n')).toMatch(
      /pulls\/get response 200 body must have required property 'url'/,
    );
    expect(contract.checkResponse('pulls/merge', 418, {})).toEqual([
      'pulls/merge response 418 status 418 is not documented',
    ]);
    expect(contract.checkResponse('pulls/merge', 409, { message: 'Head branch was modified.' })).toEqual([]);
    expect(contract.checkResponse('pulls/merge', 503, { message: 'down' })).toEqual([]);
  });
});

describe('GitHubTestServer', () => {
  it('answers a request outside the contract with a 500 and records the violation', async () => {
    expect((await call('GET', `/repos/acme/${REPO}/pulls?colour=blue`)).status).toBe(500);
    expect((await call('DELETE', `/repos/acme/${REPO}`)).status).toBe(500);
    expect(server.violations.splice(0)).toEqual([
      'pulls/list request query must NOT have additional properties {"additionalProperty":"colour"}',
      `DELETE /repos/acme/${REPO}: no such operation in the OpenAPI subset`,
    ]);
  });

  it('authenticates tokens', async () => {
    expect(await call('GET', `/repos/acme/${REPO}`, undefined, 'ghp_unknown')).toMatchObject({
      status: 401,
      body: { message: 'Bad credentials' },
    });
  });

  it('computes mergeability with git and refuses to merge a conflict (405)', async () => {
    const number = await openPull('conflict', { 'shoots/a/shoot.yaml': 'replicas: 2\n' });
    await server.pushBranch(REPO, 'main', { 'shoots/a/shoot.yaml': 'replicas: 3\n' });
    expect((await call('GET', `/repos/acme/${REPO}/pulls/${number}`)).body).toMatchObject({
      mergeable: false,
      mergeable_state: 'dirty',
    });
    expect((await call('PUT', `/repos/acme/${REPO}/pulls/${number}/merge`, {})).status).toBe(405);
  });

  it('squash-merges into one single-parent commit and refuses rebase (405)', async () => {
    const number = await openPull('squash', { 'shoots/b/shoot.yaml': 'replicas: 1\n' });
    expect((await call('PUT', `/repos/acme/${REPO}/pulls/${number}/merge`, { merge_method: 'rebase' })).status).toBe(
      405,
    );
    const { status, body } = await call('PUT', `/repos/acme/${REPO}/pulls/${number}/merge`, { merge_method: 'squash' });
    expect(status).toBe(200);
    const parents = execFileSync(
      'git',
      ['--git-dir', server.gitDir(REPO), 'log', '-1', '--format=%P', body.sha as string],
      { encoding: 'utf8' },
    ).trim();
    expect(parents.split(' ')).toHaveLength(1);
    expect((await call('GET', `/repos/acme/${REPO}/pulls/${number}`)).body).toMatchObject({
      merged: true,
      state: 'closed',
      merge_commit_sha: body.sha,
    });
  });

  it('paginates with a link header and matches `head` only as owner:branch', async () => {
    await openPull('page-1', { 'p/1': '1' });
    await openPull('page-2', { 'p/2': '2' });
    const first = await call('GET', `/repos/acme/${REPO}/pulls?state=all&per_page=1`);
    expect(first.body).toHaveLength(1);
    expect(first.link).toMatch(/page=2>; rel="next"$/);
    expect(
      (await call('GET', `/repos/acme/${REPO}/pulls?head=acme:page-1`)).body.map(
        (pull) => (pull as { head: { ref: string } }).head.ref,
      ),
    ).toEqual(['page-1']);
    // GitHub ignores a bare branch name here, a classic cause of duplicate PRs.
    expect((await call('GET', `/repos/acme/${REPO}/pulls?head=page-1`)).body.length).toBeGreaterThan(1);
  });

  it('answers statuses, check runs and refs as GitHub does: the combined state, filter=latest, prefix matching', async () => {
    const head = await server.pushBranch(REPO, 'kimops/dev/refs-a', { 'r/a': 'a' });
    await server.pushBranch(REPO, 'kimops/dev-rollout/x', { 'r/x': 'x' });
    const status = (state: string, context: string) =>
      call('POST', `/repos/acme/${REPO}/statuses/${head}`, { state, context });
    const combined = async () => (await call('GET', `/repos/acme/${REPO}/commits/${head}/status`)).body;
    expect(await combined()).toMatchObject({ state: 'pending', total_count: 0, statuses: [] });
    await status('success', 'a');
    await status('pending', 'b');
    expect(await combined()).toMatchObject({ state: 'pending', total_count: 2 });
    await status('success', 'b');
    expect(await combined()).toMatchObject({ state: 'success' });
    await status('error', 'a');
    expect(await combined()).toMatchObject({ state: 'failure', total_count: 2 });

    server.addCheckRun(REPO, head, 'validate', 'completed', 'failure');
    server.addCheckRun(REPO, head, 'validate', 'queued');
    const runs = async (query: string) =>
      (
        (await call('GET', `/repos/acme/${REPO}/commits/${head}/check-runs${query}`)).body as unknown as {
          check_runs: { status: string }[];
        }
      ).check_runs.map((run) => run.status);
    expect(await runs('')).toEqual(['queued']);
    expect(await runs('?filter=all')).toEqual(['queued', 'completed']);

    // Any ref that starts with the text, not only whole segments (kimops/dev/ leaves kimops/dev-rollout/ out).
    const refs = async (prefix: string) =>
      ((await call('GET', `/repos/acme/${REPO}/git/matching-refs/${prefix}`)).body as { ref: string }[]).map(
        (ref) => ref.ref,
      );
    expect(await refs('heads/kimops/dev/')).toEqual(['refs/heads/kimops/dev/refs-a']);
    expect(await refs('heads/kimops/dev')).toEqual(['refs/heads/kimops/dev-rollout/x', 'refs/heads/kimops/dev/refs-a']);
    const deleted = await fetch(`${server.url}/repos/acme/${REPO}/git/refs/heads/kimops/dev/refs-a`, {
      method: 'DELETE',
      headers: { authorization: `token ${server.token}` },
    });
    expect([deleted.status, await deleted.text()]).toEqual([204, '']);
    expect(await call('DELETE', `/repos/acme/${REPO}/git/refs/heads/kimops/dev/refs-a`)).toMatchObject({
      status: 422,
      body: { message: 'Reference does not exist' },
    });
  });

  it('answers /user with the user a token acts as', async () => {
    expect((await call('GET', '/user')).body).toMatchObject({ login: 'kimops-bot', type: 'User' });
  });

  it("answers team memberships the test declares, ignoring case, and 404 for anyone else or a team it doesn't know", async () => {
    server.addTeamMember('acme', 'kcp-sre', 'Alice');
    server.addTeamMember('acme', 'kcp-sre', 'carol', 'pending');
    expect(await call('GET', '/orgs/acme/teams/kcp-sre/memberships/alice')).toMatchObject({
      status: 200,
      body: { role: 'member', state: 'active' },
    });
    expect((await call('GET', '/orgs/ACME/teams/KCP-SRE/memberships/carol')).body).toMatchObject({ state: 'pending' });
    expect((await call('GET', '/orgs/acme/teams/kcp-sre/memberships/bob')).status).toBe(404);
    expect((await call('GET', '/orgs/acme/teams/nobody/memberships/alice')).status).toBe(404);
  });

  it('gives each review the author_association the test declares', async () => {
    const number = await openPull('reviewed', { 'r.txt': 'r\n' });
    await server.review(REPO, number, 'mallory', 'APPROVED', undefined, 'NONE');
    await server.review(REPO, number, 'alice');
    const reviews = (await call('GET', `/repos/acme/${REPO}/pulls/${number}/reviews`)).body as unknown as {
      user: { login: string };
      author_association: string;
    }[];
    expect(reviews.map((review) => [review.user.login, review.author_association])).toEqual([
      ['mallory', 'NONE'],
      ['alice', 'MEMBER'],
    ]);
  });

  it('injects faults for the next requests', async () => {
    server.failNext(1, 'rate-limit');
    server.failNext(1, { status: 503 });
    const limited = await fetch(`${server.url}/repos/acme/${REPO}`, {
      headers: { authorization: `token ${server.token}` },
    });
    expect([limited.status, limited.headers.get('x-ratelimit-remaining')]).toEqual([403, '0']);
    expect((await call('GET', `/repos/acme/${REPO}`)).status).toBe(503);
    expect((await call('GET', `/repos/acme/${REPO}`)).status).toBe(200);
  });
});
