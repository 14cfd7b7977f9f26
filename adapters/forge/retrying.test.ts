// withRetries: the retry logic against a scripted forge, then through the real octokit forge against the
// GitHub test server with injected faults (octokit's own retry and throttling off, so only withRetries retries).
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitHubTestServer } from '../../test/helpers/github-test-server.js';
import { stickyTag, type Forge, type ForgeFailure, type ForgeResult, type PullRequest } from './forge.js';
import { githubForge } from './github.js';
import { CLOSE_COMMENT_MARKER, DEFAULT_ATTEMPTS, type RetryEvent, type RetryOptions, withRetries } from './retrying.js';

const transport: ForgeFailure = { kind: 'transport', status: 502, message: 'GitHub: 502 Bad Gateway' };
const fail = (failure: ForgeFailure): ForgeResult<never> => ({ ok: false, failure });
const ok = <T>(value: T): ForgeResult<T> => ({ ok: true, value });

const pull = (extra: Partial<PullRequest> = {}): PullRequest => ({
  number: 7,
  url: 'https://example/pull/7',
  branch: 'kimops/dev/a',
  base: 'main',
  headSha: 'a'.repeat(40),
  title: 't',
  body: '',
  state: 'open',
  merged: false,
  labels: [],
  ...extra,
});

/** A forge whose methods answer from scripts, one answer per call, and record every call; unscripted calls fail the test. */
function scripted(scripts: Partial<Record<keyof Omit<Forge, 'label'>, ForgeResult<unknown>[]>>) {
  const calls: string[] = [];
  const forge = new Proxy({ label: 'fake forge' } as Forge, {
    get(target, property) {
      if (property === 'label') return target.label;
      if (property === 'checkReporters') return 'ci';
      return async (...args: unknown[]) => {
        calls.push(`${String(property)}(${args.map((a) => JSON.stringify(a)).join(', ')})`);
        const answer = scripts[property as keyof typeof scripts]?.shift();
        if (answer === undefined) throw new Error(`unexpected call ${String(property)}`);
        return answer;
      };
    },
  });
  return { forge, calls };
}

/** Records the waits instead of waiting, and the log events. */
function recorder(extra: RetryOptions = {}) {
  const waits: number[] = [];
  const events: RetryEvent[] = [];
  const options: RetryOptions = {
    sleep: async (ms) => void waits.push(ms),
    log: (event) => void events.push(event),
    ...extra,
  };
  return { waits, events, options };
}

describe('withRetries', () => {
  it('retries transport failures with exponential backoff up to the cap, logging forge, operation and wait', async () => {
    const { forge, calls } = scripted({
      defaultBranch: [fail(transport), fail(transport), fail(transport), ok('main')],
    });
    const { waits, events, options } = recorder({ baseDelayMs: 100, maxDelayMs: 300 });
    expect(await withRetries(forge, options).defaultBranch()).toEqual(ok('main'));
    expect(calls).toHaveLength(4);
    expect(waits).toEqual([100, 200, 300]);
    expect(events.map((e) => [e.forge, e.operation, e.attempt, e.waitMs])).toEqual([
      ['fake forge', 'defaultBranch', 1, 100],
      ['fake forge', 'defaultBranch', 2, 200],
      ['fake forge', 'defaultBranch', 3, 300],
    ]);
    expect(events[0]?.message).toBe(
      'fake forge: defaultBranch failed (attempt 1 of 4, transport): GitHub: 502 Bad Gateway; retrying in 0.1 s',
    );
  });

  it('gives up after the attempts and returns the last failure', async () => {
    const { forge, calls } = scripted({ branchHead: Array.from({ length: DEFAULT_ATTEMPTS }, () => fail(transport)) });
    const { waits, options } = recorder();
    expect(await withRetries(forge, options).branchHead('main')).toEqual(fail(transport));
    expect(calls).toHaveLength(DEFAULT_ATTEMPTS);
    expect(waits).toEqual([1_000, 2_000, 4_000]);
  });

  it.each<ForgeFailure>([
    { kind: 'not-found', message: 'x' },
    { kind: 'conflict', message: 'x' },
    { kind: 'invalid', message: 'x' },
    { kind: 'head-moved', message: 'x' },
    { kind: 'not-mergeable', message: 'x' },
    { kind: 'unauthorized', message: 'x' },
  ])('returns $kind at once, unchanged', async (failure) => {
    const { forge, calls } = scripted({ listOpenPullRequests: [fail(failure)] });
    const { waits, options } = recorder();
    expect(await withRetries(forge, options).listOpenPullRequests()).toEqual(fail(failure));
    expect(calls).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it('waits out a short rate limit, and returns a long one at once so the caller tries later', async () => {
    const short: ForgeFailure = { kind: 'rate-limited', retryAfterSeconds: 30, message: 'limited' };
    const long: ForgeFailure = { kind: 'rate-limited', retryAfterSeconds: 3_600, message: 'limited' };
    const { forge, calls } = scripted({ approvals: [fail(short), ok([]), fail(long)] });
    const { waits, events, options } = recorder({ maxRateLimitWaitSeconds: 60 });
    const retrying = withRetries(forge, options);
    expect(await retrying.approvals(7)).toEqual(ok([]));
    expect(waits).toEqual([30_000]);
    expect(events[0]?.message).toMatch(/approvals failed \(attempt 1 of 4, rate-limited\): limited; retrying in 30 s$/);
    expect(await retrying.approvals(7)).toEqual(fail(long));
    expect(calls).toHaveLength(3);
    expect(waits).toEqual([30_000]);
  });

  it('returns the PR a lost openPullRequest created instead of opening a second one', async () => {
    const created = pull();
    const { forge, calls } = scripted({ openPullRequest: [fail(transport)], findOpenPullRequest: [ok(created)] });
    const { options } = recorder();
    expect(
      await withRetries(forge, options).openPullRequest({ branch: 'kimops/dev/a', base: 'main', title: 't', body: '' }),
    ).toEqual(ok(created));
    expect(calls.map((c) => c.slice(0, c.indexOf('(')))).toEqual(['openPullRequest', 'findOpenPullRequest']);
  });

  it('opens again when the failed try created nothing, and retries the check itself when it fails transiently', async () => {
    const created = pull();
    const { forge, calls } = scripted({
      openPullRequest: [fail(transport), ok(created)],
      findOpenPullRequest: [fail(transport), ok(undefined)],
    });
    const { options } = recorder();
    expect(
      await withRetries(forge, options).openPullRequest({ branch: 'kimops/dev/a', base: 'main', title: 't', body: '' }),
    ).toEqual(ok(created));
    expect(calls.map((c) => c.slice(0, c.indexOf('(')))).toEqual([
      'openPullRequest',
      'findOpenPullRequest',
      'findOpenPullRequest',
      'openPullRequest',
    ]);
  });

  it('returns the merge commit of a lost mergePullRequest instead of merging again', async () => {
    const { forge, calls } = scripted({
      mergePullRequest: [fail(transport)],
      getPullRequest: [ok(pull({ state: 'closed', merged: true, mergeCommitSha: 'm'.repeat(40) }))],
    });
    const { options } = recorder();
    expect(await withRetries(forge, options).mergePullRequest(7, { sha: 'a'.repeat(40), method: 'merge' })).toEqual(
      ok({ sha: 'm'.repeat(40) }),
    );
    expect(calls.map((c) => c.slice(0, c.indexOf('(')))).toEqual(['mergePullRequest', 'getPullRequest']);
  });

  it('merges again when the PR is still open, and passes on head-moved', async () => {
    const moved: ForgeFailure = { kind: 'head-moved', message: 'moved' };
    const { forge, calls } = scripted({
      mergePullRequest: [fail(transport), fail(moved)],
      getPullRequest: [ok(pull())],
    });
    const { options } = recorder();
    expect(await withRetries(forge, options).mergePullRequest(7, { sha: 'a'.repeat(40), method: 'merge' })).toEqual(
      fail(moved),
    );
    expect(calls).toHaveLength(3);
  });

  it('retries the reads and the label write, and passes on who reports checks', async () => {
    const { forge, calls } = scripted({
      checksOf: [fail(transport), ok([])],
      pullRequestsOfCommit: [fail(transport), ok([])],
      listBranches: [fail(transport), ok([])],
      lastClosedPullRequest: [fail(transport), ok(undefined)],
      setLabels: [fail(transport), ok(['kimops:create'])],
    });
    const retrying = withRetries(forge, recorder().options);
    expect(retrying.checkReporters).toBe('ci');
    expect(await retrying.checksOf('a'.repeat(40))).toEqual(ok([]));
    expect(await retrying.pullRequestsOfCommit('a'.repeat(40))).toEqual(ok([]));
    expect(await retrying.listBranches('kimops/dev/')).toEqual(ok([]));
    expect(await retrying.lastClosedPullRequest('kimops/dev/a')).toEqual(ok(undefined));
    expect(await retrying.setLabels(7, ['kimops:create'])).toEqual(ok(['kimops:create']));
    expect(calls).toHaveLength(10);
  });

  it('takes a branch gone after a lost deleteBranch as deleted by it, and deletes again when it is still there', async () => {
    const lost = scripted({ deleteBranch: [fail(transport)], branchHead: [ok(undefined)] });
    expect(await withRetries(lost.forge, recorder().options).deleteBranch('kimops/dev/a', { ifHeadIs: 'a' })).toEqual(
      ok({ deleted: true }),
    );
    expect(lost.calls).toEqual(['deleteBranch("kimops/dev/a", {"ifHeadIs":"a"})', 'branchHead("kimops/dev/a")']);
    const still = scripted({
      deleteBranch: [fail(transport), ok({ deleted: true })],
      branchHead: [ok('a'.repeat(40))],
    });
    expect(await withRetries(still.forge, recorder().options).deleteBranch('kimops/dev/a')).toEqual(
      ok({ deleted: true }),
    );
    expect(still.calls).toHaveLength(3);
  });

  it('closes with its comment as a sticky one, so a retried close never posts it twice', async () => {
    const closed = pull({ state: 'closed' });
    const { forge, calls } = scripted({
      upsertStickyComment: [fail(transport), ok({ id: 1, created: false })],
      closePullRequest: [fail(transport)],
      getPullRequest: [ok(closed)],
    });
    const { options } = recorder();
    expect(await withRetries(forge, options).closePullRequest(7, 'gone')).toEqual(ok(closed));
    expect(calls).toEqual([
      `upsertStickyComment(7, "${CLOSE_COMMENT_MARKER}", "gone")`,
      `upsertStickyComment(7, "${CLOSE_COMMENT_MARKER}", "gone")`,
      'closePullRequest(7)',
      'getPullRequest(7)',
    ]);
  });
});

describe('withRetries through the GitHub forge', () => {
  let server: GitHubTestServer;
  const REPO = 'landscape-retry';

  beforeAll(async () => {
    server = await GitHubTestServer.start({ owner: 'acme' });
    await server.createRepo(REPO, { 'kimops.yaml': 'landscape: dev\n' });
  });
  afterAll(async () => {
    await server.close();
  });

  const github = () =>
    githubForge({
      owner: 'acme',
      repo: REPO,
      baseUrl: server.url,
      auth: { token: server.token },
      throttle: false,
      retry: false,
    });

  it('ends a 502 that lost the answer to a created PR in exactly one PR', async () => {
    const branch = 'kimops/dev/retry-open';
    await server.pushBranch(REPO, branch, { 'shoots/a/shoot.yaml': 'kind: Shoot\n' });
    const { waits, events, options } = recorder();
    const forge = withRetries(await github(), options);
    const before = server.requests.length;
    server.failNext(1, { status: 502, afterEffect: true });
    const opened = await forge.openPullRequest({ branch, base: 'main', title: 'Create shoot a', body: '' });
    expect(opened).toMatchObject({ ok: true, value: { branch, state: 'open' } });
    expect(server.requests.slice(before).map((r) => `${r.method} ${r.status}`)).toEqual(['POST 502', 'GET 200']);
    expect(waits).toEqual([1_000]);
    expect(events[0]?.message).toMatch(
      new RegExp(`^GitHub ${server.url} acme/${REPO}: openPullRequest failed \\(attempt 1 of 4, transport\\)`),
    );
    const open = await forge.listOpenPullRequests();
    expect(open.ok && open.value.filter((p) => p.branch === branch).map((p) => p.number)).toEqual([
      opened.ok && opened.value.number,
    ]);
  });

  it('merges once when the answer to a merge is lost, returning the merge commit on main', async () => {
    const branch = 'kimops/dev/retry-merge';
    const head = await server.pushBranch(REPO, branch, { 'shoots/b/shoot.yaml': 'kind: Shoot\n' });
    const { options } = recorder();
    const forge = withRetries(await github(), options);
    const opened = await forge.openPullRequest({ branch, base: 'main', title: 'Create shoot b', body: '' });
    if (!opened.ok) throw new Error(opened.failure.message);
    server.failNext(1, { status: 502, afterEffect: true });
    const before = server.requests.length;
    const merged = await forge.mergePullRequest(opened.value.number, { sha: head, method: 'merge' });
    expect(server.requests.slice(before).map((r) => `${r.method} ${r.status}`)).toEqual(['PUT 502', 'GET 200']);
    const main = execFileSync('git', ['--git-dir', server.gitDir(REPO), 'rev-parse', 'main'], {
      encoding: 'utf8',
    }).trim();
    expect(merged).toEqual({ ok: true, value: { sha: main } });
    expect(
      execFileSync(
        'git',
        ['--git-dir', server.gitDir(REPO), 'log', '--format=%s', '--grep', `#${opened.value.number} from`, 'main'],
        { encoding: 'utf8' },
      )
        .trim()
        .split('\n'),
    ).toHaveLength(1);
    expect(await forge.getPullRequest(opened.value.number)).toMatchObject({
      ok: true,
      value: { merged: true, mergeCommitSha: main, state: 'closed' },
    });
  });

  it('deletes a branch once when the answer to the deletion is lost', async () => {
    const branch = 'kimops/dev/retry-delete';
    const head = await server.pushBranch(REPO, branch, { 'shoots/d/shoot.yaml': 'kind: Shoot\n' });
    const forge = withRetries(await github(), recorder().options);
    // The head guard's read is answered; the deletion done and its answer lost.
    server.failNext(1, { status: 502, afterEffect: true }, 1);
    const before = server.requests.length;
    expect(await forge.deleteBranch(branch, { ifHeadIs: head })).toEqual({ ok: true, value: { deleted: true } });
    expect(server.requests.slice(before).map((r) => `${r.method} ${r.status}`)).toEqual([
      'GET 200',
      'DELETE 502',
      'GET 404',
    ]);
    expect(await server.hasBranch(REPO, branch)).toBe(false);
  });

  it('closes with one sticky comment when the answer to the comment is lost', async () => {
    const branch = 'kimops/dev/retry-close';
    await server.pushBranch(REPO, branch, { 'shoots/c/shoot.yaml': 'kind: Shoot\n' });
    const forge = withRetries(await github(), recorder().options);
    const opened = await forge.openPullRequest({ branch, base: 'main', title: 'Create shoot c', body: '' });
    if (!opened.ok) throw new Error(opened.failure.message);
    // The comment list is answered, the comment created and its answer lost.
    const before = server.requests.length;
    server.failNext(1, { status: 502, afterEffect: true }, 1);
    const closed = await forge.closePullRequest(opened.value.number, 'The Runtime was deleted.');
    expect(closed).toMatchObject({ ok: true, value: { state: 'closed', merged: false } });
    expect(server.requests.slice(before).map((r) => `${r.method} ${r.status}`)).toEqual([
      'GET 200',
      'POST 502',
      'GET 200',
      'PATCH 200',
    ]);
    expect(server.comments(REPO, opened.value.number).map((c) => c.body)).toEqual([
      `${stickyTag(CLOSE_COMMENT_MARKER)}\nThe Runtime was deleted.`,
    ]);
  });

  it('waits out a rate limit GitHub announces, and returns one beyond the maximum wait at once', async () => {
    const { waits, options } = recorder();
    const forge = withRetries(await github(), options);
    server.failNext(1, 'rate-limit');
    expect(await forge.defaultBranch()).toEqual({ ok: true, value: 'main' });
    expect(waits).toHaveLength(1);
    // The test server's limit resets in 60 s.
    expect(waits[0]).toBeGreaterThan(55_000);
    expect(waits[0]).toBeLessThanOrEqual(61_000);

    const impatient = recorder({ maxRateLimitWaitSeconds: 30 });
    server.failNext(1, 'rate-limit');
    expect(await withRetries(await github(), impatient.options).defaultBranch()).toMatchObject({
      ok: false,
      failure: { kind: 'rate-limited' },
    });
    expect(impatient.waits).toEqual([]);
  });
});
