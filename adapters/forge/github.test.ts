// The GitHub forge driven by the real octokit against the GitHub test server (real git repos behind,
// every request and response checked against GitHub's OpenAPI description).
import { execFileSync } from 'node:child_process';
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitHubTestServer } from '../../test/helpers/github-test-server.js';
import type { Forge, ForgeResult } from './forge.js';
import { VALIDATE_CONTEXT } from '../../model/contract.js';
import { stickyTag } from './forge.js';
import { githubForge, githubGitToken, secretFile } from './github.js';
import { useTempDir } from '../../test/helpers/temp-dir.js';

let server: GitHubTestServer;

beforeAll(async () => {
  server = await GitHubTestServer.start({ owner: 'acme' });
  await server.createRepo('landscape-dev', { 'kimops.yaml': 'landscape: dev\n' });
});

afterAll(async () => {
  await server.close(); // throws on any contract violation seen during the run
});

/** Tests turn octokit's throttling and retry off: they would space writes seconds apart. */
function forge(overrides: Partial<Parameters<typeof githubForge>[0]> = {}): Promise<Forge> {
  return githubForge({
    owner: 'acme',
    repo: 'landscape-dev',
    baseUrl: server.url,
    auth: { token: server.token },
    throttle: false,
    retry: false,
    ...overrides,
  });
}

function value<T>(result: ForgeResult<T>): T {
  if (!result.ok) throw new Error(`${result.failure.kind}: ${result.failure.message}`);
  return result.value;
}

function gitLog(branch: string): string[] {
  return execFileSync('git', ['--git-dir', server.gitDir('landscape-dev'), 'log', '--format=%P|%s', branch], {
    encoding: 'utf8',
  })
    .trim()
    .split('\n');
}

describe('GitHub forge', () => {
  it('proposes, reviews, merges with the sha guard and closes pull requests', async () => {
    const github = await forge();
    expect(value(await github.defaultBranch())).toBe('main');
    const branch = 'kimops/dev/shoot-a';
    const firstHead = await server.pushBranch('landscape-dev', branch, { 'shoots/a/shoot.yaml': 'kind: Shoot\n' });
    expect(value(await github.branchHead(branch))).toBe(firstHead);
    expect(value(await github.branchHead('kimops/none'))).toBeUndefined();
    expect(value(await github.findOpenPullRequest(branch))).toBeUndefined();

    const opened = value(
      await github.openPullRequest({
        branch,
        base: 'main',
        title: 'Create shoot a',
        body: 'first',
        labels: ['kimops/create'],
      }),
    );
    expect(opened).toMatchObject({
      branch,
      base: 'main',
      headSha: firstHead,
      state: 'open',
      merged: false,
      labels: ['kimops/create'],
    });
    expect(value(await github.findOpenPullRequest(branch))?.number).toBe(opened.number);
    const fetched = value(await github.getPullRequest(opened.number));
    expect(fetched).toMatchObject({ number: opened.number, branch, state: 'open', merged: false });
    // Only a merged PR has a merge commit (GitHub fills merge_commit_sha with a test merge before).
    expect(fetched.mergeCommitSha).toBeUndefined();
    expect(await github.getPullRequest(999)).toMatchObject({ ok: false, failure: { kind: 'not-found' } });
    // A second PR for the same branch is GitHub's 422, a typed value.
    expect(await github.openPullRequest({ branch, base: 'main', title: 'again', body: '' })).toMatchObject({
      ok: false,
      failure: { kind: 'invalid' },
    });

    const updated = value(
      await github.updatePullRequest(opened.number, { title: 'Create shoot a (v2)', body: 'second' }),
    );
    expect(updated).toMatchObject({ title: 'Create shoot a (v2)', body: 'second' });
    expect(value(await github.listOpenPullRequests({ labelPrefix: 'kimops/' })).map((pull) => pull.number)).toEqual([
      opened.number,
    ]);
    expect(value(await github.listOpenPullRequests({ labelPrefix: 'other/' }))).toEqual([]);

    const first = value(await github.upsertStickyComment(opened.number, 'validation', 'checks: 1 failing'));
    const second = value(await github.upsertStickyComment(opened.number, 'validation', 'checks: all green'));
    expect(first.created).toBe(true);
    expect(second).toEqual({ id: first.id, created: false });
    expect(server.comments('landscape-dev', opened.number).map((comment) => comment.body)).toEqual([
      `${stickyTag('validation')}\nchecks: all green`,
    ]);

    value(
      await github.setCommitStatus(firstHead, {
        context: VALIDATE_CONTEXT,
        state: 'success',
        description: 'x'.repeat(200),
        targetUrl: 'https://ci.example/1',
      }),
    );
    const [status] = server.statuses('landscape-dev', firstHead);
    expect(status).toMatchObject({ context: 'kimops/validate', state: 'success', targetUrl: 'https://ci.example/1' });
    expect(status?.description).toHaveLength(140);

    await server.review('landscape-dev', opened.number, 'alice', 'COMMENTED');
    await server.review('landscape-dev', opened.number, 'alice', 'APPROVED');
    await server.review('landscape-dev', opened.number, 'bob', 'APPROVED');
    await server.review('landscape-dev', opened.number, 'bob', 'CHANGES_REQUESTED');
    // Anyone may review a public repository's PR: only its owners, members and collaborators approve.
    await server.review('landscape-dev', opened.number, 'mallory', 'APPROVED', undefined, 'NONE');
    await server.review('landscape-dev', opened.number, 'first-timer', 'APPROVED', undefined, 'FIRST_TIME_CONTRIBUTOR');
    await server.review('landscape-dev', opened.number, 'carol', 'APPROVED', undefined, 'COLLABORATOR');
    expect(value(await github.approvals(opened.number))).toEqual([
      { reviewer: 'alice', commitSha: firstHead },
      { reviewer: 'carol', commitSha: firstHead },
    ]);

    // A push after validation moves the head: merging the validated sha must not merge the new commit.
    const secondHead = await server.pushBranch('landscape-dev', branch, {
      'shoots/a/shoot.yaml': 'kind: Shoot\nspec: {}\n',
    });
    expect(await github.mergePullRequest(opened.number, { sha: firstHead, method: 'merge' })).toMatchObject({
      ok: false,
      failure: { kind: 'head-moved' },
    });
    const merged = value(await github.mergePullRequest(opened.number, { sha: secondHead, method: 'merge' }));
    const [mergeCommit] = gitLog('main');
    expect(mergeCommit).toMatch(
      new RegExp(`^\\w{40} ${secondHead}\\|Merge pull request #${opened.number} from acme/${branch}$`),
    );
    expect(
      execFileSync('git', ['--git-dir', server.gitDir('landscape-dev'), 'rev-parse', 'main'], {
        encoding: 'utf8',
      }).trim(),
    ).toBe(merged.sha);
    expect(value(await github.findOpenPullRequest(branch))).toBeUndefined();
    expect(value(await github.getPullRequest(opened.number))).toMatchObject({
      state: 'closed',
      merged: true,
      mergeCommitSha: merged.sha,
    });
    expect(await github.mergePullRequest(opened.number, { sha: secondHead, method: 'merge' })).toMatchObject({
      ok: false,
      failure: { kind: 'not-mergeable' },
    });

    const otherBranch = 'kimops/dev/shoot-b';
    await server.pushBranch('landscape-dev', otherBranch, { 'shoots/b/shoot.yaml': 'kind: Shoot\n' });
    const other = value(
      await github.openPullRequest({ branch: otherBranch, base: 'main', title: 'Create shoot b', body: '' }),
    );
    const closed = value(
      await github.closePullRequest(other.number, 'The Runtime was deleted before the Shoot was created.'),
    );
    expect(closed).toMatchObject({ state: 'closed', merged: false });
    expect(server.comments('landscape-dev', other.number).map((comment) => comment.body)).toEqual([
      'The Runtime was deleted before the Shoot was created.',
    ]);
  }, 30_000);

  it('reads the checks on a commit: the latest status per context and check run per name, normalised', async () => {
    const github = await forge();
    const head = await server.pushBranch('landscape-dev', 'kimops/dev/checks', {
      'shoots/c/shoot.yaml': 'kind: Shoot\n',
    });
    expect(value(await github.checksOf(head))).toEqual([]);
    for (const [state, description] of [
      ['pending', 'validating'],
      ['error', 'validator crashed'],
    ] as const)
      value(await github.setCommitStatus(head, { context: VALIDATE_CONTEXT, state, description }));
    value(await github.setCommitStatus(head, { context: 'lint', state: 'success', description: 'ok' }));
    server.addCheckRun('landscape-dev', head, 'validate', 'completed', 'failure');
    // A re-run: only the newest run of a name counts, as GitHub's filter=latest answers.
    server.addCheckRun('landscape-dev', head, 'validate', 'in_progress');
    server.addCheckRun('landscape-dev', head, 'docs', 'completed', 'skipped');
    server.addCheckRun('landscape-dev', head, 'e2e', 'completed', 'timed_out');
    const checks = value(await github.checksOf(head));
    expect(checks.map(({ name, source, state, description }) => [name, source, state, description])).toEqual([
      ['lint', 'status', 'success', 'ok'],
      [VALIDATE_CONTEXT, 'status', 'failure', 'validator crashed'],
      ['e2e', 'check-run', 'failure', 'timed_out'],
      ['docs', 'check-run', 'success', 'skipped'],
      ['validate', 'check-run', 'pending', 'in progress'],
    ]);
    expect(checks[2]?.url).toMatch(/\/runs\/\d+$/);
    // Past one page of each: every status and run is read.
    const many = await server.pushBranch('landscape-dev', 'kimops/dev/many', { 'many.txt': 'x\n' });
    for (let i = 0; i < 105; i++) server.addCheckRun('landscape-dev', many, `job-${i}`, 'completed', 'success');
    for (let i = 0; i < 102; i++)
      value(await github.setCommitStatus(many, { context: `ctx-${i}`, state: 'success', description: '' }));
    const counted = value(await github.checksOf(many));
    expect([
      counted.filter((c) => c.source === 'status').length,
      counted.filter((c) => c.source === 'check-run').length,
    ]).toEqual([102, 105]);
  });

  it('finds the merged pull request of a merge commit, sets labels, lists and deletes branches with a head guard', async () => {
    const github = await forge();
    const branch = 'kimops/dev/shoot-m';
    const head = await server.pushBranch('landscape-dev', branch, { 'shoots/m/shoot.yaml': 'kind: Shoot\n' });
    const pr = value(
      await github.openPullRequest({ branch, base: 'main', title: 'm', body: '', labels: ['kimops:update'] }),
    );
    expect(value(await github.setLabels(pr.number, ['kimops:update-disruptive', 'kimops:update-disruptive']))).toEqual([
      'kimops:update-disruptive',
    ]);
    expect(value(await github.getPullRequest(pr.number)).labels).toEqual(['kimops:update-disruptive']);
    // Open: the head is on the branch, no merge commit yet.
    expect(value(await github.pullRequestsOfCommit(head))).toEqual([]);
    const merge = value(await github.mergePullRequest(pr.number, { sha: head, method: 'merge' })).sha;
    expect(value(await github.pullRequestsOfCommit(merge))).toEqual([
      expect.objectContaining({ number: pr.number, merged: true, mergeCommitSha: merge }),
    ]);
    expect(value(await github.lastClosedPullRequest(branch))).toMatchObject({ number: pr.number, headSha: head });
    expect(value(await github.lastClosedPullRequest('kimops/dev/never'))).toBeUndefined();

    const listed = value(await github.listBranches('kimops/dev/shoot-'));
    expect(listed).toContainEqual({ name: branch, sha: head });
    expect(listed.every((b) => b.name.startsWith('kimops/dev/shoot-'))).toBe(true);
    const moved = await github.deleteBranch(branch, { ifHeadIs: merge });
    expect(moved).toMatchObject({ ok: false, failure: { kind: 'head-moved' } });
    expect(value(await github.deleteBranch(branch, { ifHeadIs: head }))).toEqual({ deleted: true });
    expect(await server.hasBranch('landscape-dev', branch)).toBe(false);
    // Gone already (GitHub's own delete-on-merge, or a retry): no failure, nothing deleted.
    expect(value(await github.deleteBranch(branch))).toEqual({ deleted: false });
    expect(value(await github.deleteBranch(branch, { ifHeadIs: head }))).toEqual({ deleted: false });
  });

  it('reads check runs only for the wanted names no status covers, and none when no name is wanted', async () => {
    const github = await forge();
    const head = await server.pushBranch('landscape-dev', 'kimops/dev/wanted', { 'w.txt': 'w\n' });
    value(await github.setCommitStatus(head, { context: VALIDATE_CONTEXT, state: 'success', description: 'ok' }));
    server.addCheckRun('landscape-dev', head, 'validate', 'completed', 'success');
    server.addCheckRun('landscape-dev', head, 'lint', 'completed', 'failure');
    const calls = () => server.requests.filter((r) => r.path.endsWith(`/commits/${head}/check-runs`)).length;
    const names = (checks: { name: string; source: string }[]) => checks.map((c) => `${c.name} ${c.source}`);
    expect(names(value(await github.checksOf(head, { checkRunsFor: [VALIDATE_CONTEXT, 'validate'] })))).toEqual([
      `${VALIDATE_CONTEXT} status`,
      'validate check-run',
    ]);
    expect(calls()).toBe(1);
    // The statuses cover every wanted name, or none is wanted (the applier's own status): no check-run call.
    expect(names(value(await github.checksOf(head, { checkRunsFor: [VALIDATE_CONTEXT] })))).toEqual([
      `${VALIDATE_CONTEXT} status`,
    ]);
    expect(names(value(await github.checksOf(head, { checkRunsFor: [] })))).toEqual([`${VALIDATE_CONTEXT} status`]);
    expect(calls()).toBe(1);
  });

  it('makes only the required check runs a token may not read wait, naming the fix; without names it fails', async () => {
    const github = await forge();
    const head = await server.pushBranch('landscape-dev', 'kimops/dev/no-checks', { 'n.txt': 'n\n' });
    value(await github.setCommitStatus(head, { context: VALIDATE_CONTEXT, state: 'success', description: 'ok' }));
    // The status read passes; the check-run read is refused as a fine-grained token's is.
    const fineGrained = { status: 403 as const, message: 'Resource not accessible by personal access token' };
    server.failNext(1, fineGrained, 1);
    const checks = value(await github.checksOf(head, { checkRunsFor: [VALIDATE_CONTEXT, 'validate'] }));
    expect(checks.map(({ name, source, state }) => [name, source, state])).toEqual([
      [VALIDATE_CONTEXT, 'status', 'success'],
      ['validate', 'check-run', 'pending'],
    ]);
    expect(checks[1]?.description).toMatch(
      /^unreadable: .*403 Resource not accessible by personal access token.*fine-grained tokens cannot be granted it/,
    );
    server.failNext(1, fineGrained, 1);
    const refused = await github.checksOf(head);
    expect(refused).toMatchObject({ ok: false, failure: { kind: 'unauthorized' } });
    expect(!refused.ok && refused.failure.message).toContain('fine-grained tokens cannot be granted it');
  });

  it("tells a team's active members from anyone else, and names the permission a refused lookup needs", async () => {
    const github = await forge();
    server.addTeamMember('acme', 'kcp-sre', 'dave');
    server.addTeamMember('acme', 'kcp-sre', 'erin', 'pending');
    expect(value(await github.isTeamMember('acme', 'kcp-sre', 'Dave'))).toBe(true);
    expect(value(await github.isTeamMember('acme', 'kcp-sre', 'erin'))).toBe(false);
    expect(value(await github.isTeamMember('acme', 'kcp-sre', 'mallory'))).toBe(false);
    expect(value(await github.isTeamMember('acme', 'no-such-team', 'dave'))).toBe(false);
    server.failNext(1, { status: 403, message: 'Resource not accessible by integration' });
    const refused = await github.isTeamMember('acme', 'kcp-sre', 'dave');
    expect(refused).toMatchObject({ ok: false, failure: { kind: 'unauthorized' } });
    expect(!refused.ok && refused.failure.message).toContain('Members: read');
  });

  it('turns a primary rate limit into a typed result with the wait', async () => {
    const github = await forge();
    server.failNext(1, 'rate-limit');
    const result = await github.listOpenPullRequests();
    expect(result).toMatchObject({ ok: false, failure: { kind: 'rate-limited' } });
    expect(!result.ok && result.failure.kind === 'rate-limited' && result.failure.retryAfterSeconds).toBeGreaterThan(
      50,
    );
  });

  it('names the forge and the fix for 404s, bad tokens and an unreachable server', async () => {
    const missing = await forge({ repo: 'nope' });
    const notFound = await missing.defaultBranch();
    expect(notFound).toMatchObject({ ok: false, failure: { kind: 'not-found' } });
    expect(!notFound.ok && notFound.failure.message).toContain(`GitHub ${server.url} acme/nope: 404`);
    expect(await (await forge({ auth: { token: 'ghp_wrong' } })).defaultBranch()).toMatchObject({
      ok: false,
      failure: { kind: 'unauthorized' },
    });
    const unreachable = await (await forge({ baseUrl: 'http://127.0.0.1:9' })).defaultBranch();
    expect(unreachable).toMatchObject({ ok: false, failure: { kind: 'transport' } });
    expect(!unreachable.ok && unreachable.failure.message).toMatch(
      /GitHub http:\/\/127\.0\.0\.1:9 acme\/landscape-dev: cannot reach the API: .* check baseUrl/,
    );
  });

  it('ends a request the server never answers as a transport failure after the request timeout', async () => {
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const baseUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    try {
      // The message says the deadline ended it (a silent server never answers); no wall-clock assertion.
      const result = await (await forge({ baseUrl, requestTimeoutMs: 200 })).defaultBranch();
      expect(result).toMatchObject({ ok: false, failure: { kind: 'transport' } });
      expect(!result.ok && result.failure.message).toBe(
        `GitHub ${baseUrl} acme/landscape-dev: cannot reach the API: no answer within 0.2 s (requestTimeoutMs) — check baseUrl (GitHub Enterprise: https://<host>/api/v3) and the network`,
      );
    } finally {
      silent.closeAllConnections();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it('recovers from a short 502 with production settings (throttling and retry on, backoff shortened)', async () => {
    const github = await forge({ throttle: true, retry: { retries: 3, backoffUnitMs: 1 } });
    const before = server.requests.length;
    server.failNext(2, { status: 502 });
    expect(value(await github.defaultBranch())).toBe('main');
    expect(server.requests.slice(before).map((request) => request.status)).toEqual([502, 502, 200]);
  });

  it('authenticates as a GitHub App installation', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    server.registerApp(4242, publicKey.export({ type: 'spki', format: 'pem' }).toString(), 77);
    const pem = (key: typeof privateKey) => key.export({ type: 'pkcs8', format: 'pem' }).toString();
    const github = await forge({ auth: { appId: 4242, privateKey: pem(privateKey), installationId: 77 } });
    expect(value(await github.defaultBranch())).toBe('main');
    expect(
      server.requests.some(
        (request) => request.path === '/app/installations/77/access_tokens' && request.status === 201,
      ),
    ).toBe(true);

    const wrongInstallation = await forge({ auth: { appId: 4242, privateKey: pem(privateKey), installationId: 78 } });
    expect(await wrongInstallation.defaultBranch()).toMatchObject({ ok: false, failure: { kind: 'not-found' } });
    const otherKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    const wrongKey = await forge({ auth: { appId: 4242, privateKey: pem(otherKey), installationId: 77 } });
    expect(await wrongKey.defaultBranch()).toMatchObject({ ok: false, failure: { kind: 'unauthorized' } });
  });
});

describe('GitHub forge: credentials from files that are replaced', () => {
  const dir = useTempDir('github-secrets');

  it('reads a token file again after a 401 and sends the request once more; the token is never in a message', async () => {
    const path = await dir.write('token', 'ghp_revoked\n');
    // A check period no test waits out: the 401 alone makes it read the file again.
    const token = secretFile(path, { checkEveryMs: 3_600_000 });
    const github = await forge({ auth: { token } });
    const refused = await github.defaultBranch();
    expect(refused).toMatchObject({ ok: false, failure: { kind: 'unauthorized' } });
    expect(!refused.ok && refused.failure.message).not.toContain('ghp_revoked');
    const before = server.requests.length;
    await dir.write('token', `${server.token}\n`); // the Secret updated with the new token
    expect(value(await github.defaultBranch())).toBe('main');
    expect(server.requests.slice(before).map((request) => request.status)).toEqual([401, 200]);
    // git gets the file's token as it is at each fetch or push.
    const gitToken = await githubGitToken({ owner: 'acme', repo: 'landscape-dev', auth: { token } });
    expect(typeof gitToken === 'function' && (await gitToken())).toBe(server.token);
  });

  it('makes a new App client when the private key file holds another key, and mints its token with that key', async () => {
    const pem = () =>
      generateKeyPairSync('rsa', { modulusLength: 2048 })
        .privateKey.export({ type: 'pkcs8', format: 'pem' })
        .toString();
    const publicOf = (key: string) => createPublicKey(key).export({ type: 'spki', format: 'pem' }).toString();
    const first = pem();
    server.registerApp(4343, publicOf(first), 79);
    await writeFile(join(dir.path, 'key.pem'), first);
    let now = 0;
    const privateKey = secretFile(join(dir.path, 'key.pem'), { checkEveryMs: 10_000, now: () => now });
    const github = await forge({ auth: { appId: 4343, privateKey, installationId: 79 } });
    expect(value(await github.defaultBranch())).toBe('main');
    const second = pem();
    server.registerApp(4343, publicOf(second), 79); // the first key deleted on GitHub, the second one added
    await writeFile(join(dir.path, 'key.pem'), second);
    now = 10_000;
    const before = server.requests.length;
    expect(value(await github.defaultBranch())).toBe('main');
    expect(server.requests.slice(before).map((request) => [request.path, request.status])).toEqual([
      ['/app/installations/79/access_tokens', 201],
      ['/repos/acme/landscape-dev', 200],
    ]);
  });

  it('refuses a missing or empty file naming the path only', async () => {
    expect(() => secretFile(join(dir.path, 'nothing'))).toThrow(`cannot read ${join(dir.path, 'nothing')} (ENOENT)`);
    const empty = await dir.write('empty', '\n');
    expect(() => secretFile(empty)).toThrow(`${empty} is empty`);
  });
});
