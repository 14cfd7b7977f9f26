// The Forge on GitHub and GitHub Enterprise, through octokit. kimops writes commit statuses rather than check
// runs, because the Checks API lets only GitHub Apps write; it reads both, as a merge waits for every required
// check whichever API reported it. Sticky comments carry a hidden HTML marker.
// Credentials may come from files a running kimops sees replaced (a mounted Secret): a token file is read
// again every SECRET_CHECK_EVERY_MS and after a 401 (the request then sent once more), an App's private key
// file before each call once that long has passed (a new key: a new App client, a new installation token).
import { readFileSync } from 'node:fs';
import { App, Octokit, RequestError } from 'octokit';
import {
  stickyTag,
  type Approval,
  type ChecksQuery,
  type CommitCheck,
  type Forge,
  type ForgeFailure,
  type ForgeResult,
  type MergeMethod,
  type PullRequest,
  type StatusState,
} from './forge.js';
import { GITHUB_API } from './github-api.js';

/** A token or an App's private key as given (a string), or as a file read again when it is replaced. */
export type GitHubAuth =
  { token: string | SecretFile } | { appId: number | string; privateKey: string | SecretFile; installationId: number };

/** How old the last look at a secret file may be before it is read again. */
const SECRET_CHECK_EVERY_MS = 10_000;

/**
 * A credential in a file that may be replaced while kimops runs: the kubelet swaps a mounted Secret's files
 * at once (the `..data` symlink), and whoever rotates the token or key updates the Secret. Never in a message:
 * errors name the path only.
 */
export interface SecretFile {
  readonly path: string;
  /** The content (trimmed) as last read; read again first when the last look is older than checkEveryMs. */
  value(): string;
  /** Reads the file now; true when its content changed. A missing or empty file keeps the last content. */
  refresh(): boolean;
}

/** The file at `path`, read now: an Error naming the path when it cannot be read or is empty. */
export function secretFile(path: string, options: { checkEveryMs?: number; now?: () => number } = {}): SecretFile {
  const checkEveryMs = options.checkEveryMs ?? SECRET_CHECK_EVERY_MS;
  const now = options.now ?? Date.now;
  const read = (): string | undefined => {
    try {
      return readFileSync(path, 'utf8').trim() || undefined;
    } catch {
      return undefined;
    }
  };
  let content: string;
  try {
    content = readFileSync(path, 'utf8').trim();
  } catch (error) {
    throw new Error(`cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`, {
      cause: error,
    });
  }
  if (content === '') throw new Error(`${path} is empty`);
  let lastLook = now();
  const refresh = (): boolean => {
    lastLook = now();
    const next = read();
    if (next === undefined || next === content) return false;
    content = next;
    return true;
  };
  return {
    path,
    value: () => {
      if (now() - lastLook >= checkEveryMs) refresh();
      return content;
    },
    refresh,
  };
}

export interface GitHubForgeOptions {
  owner: string;
  repo: string;
  /** GitHub Enterprise: `https://<host>/api/v3`. */
  baseUrl?: string;
  auth: GitHubAuth;
  /**
   * octokit's throttling (writes spaced 1–3 s apart, one retry on rate limits) and retry (5xx three
   * times, 1+4+9 s). On in production; tests turn them off, or shorten the backoff unit.
   */
  throttle?: boolean;
  retry?: boolean | { retries?: number; backoffUnitMs?: number };
  /** Deadline of each API request; DEFAULT_REQUEST_TIMEOUT_MS when absent. */
  requestTimeoutMs?: number;
}

/**
 * octokit waits forever for an answer by default. GitHub answers API calls in well under a second
 * and cuts its own at 10 s, so a request still open after 30 s hangs on the way (a proxy, a dead
 * connection) and ends as a `transport` failure the caller may retry.
 */
const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

/** A review's author_association that makes it the repository's own: its owner, an org member, a collaborator. */
const REPOSITORY_PEOPLE = new Set(['OWNER', 'MEMBER', 'COLLABORATOR']);

/** GitHub rejects longer commit status descriptions with a 422. */
const STATUS_DESCRIPTION_LIMIT = 140;
/** No retry-after and no reset time: GitHub's guidance for secondary limits is to wait at least a minute. */
const DEFAULT_RATE_LIMIT_WAIT_SECONDS = 60;

type Client = InstanceType<typeof Octokit>;
type PullData =
  | Awaited<ReturnType<Client['rest']['pulls']['get']>>['data']
  | Awaited<ReturnType<Client['rest']['pulls']['list']>>['data'][number];

export async function githubForge(options: GitHubForgeOptions): Promise<Forge> {
  const baseUrl = options.baseUrl ?? GITHUB_API;
  return new GitHubForge(
    await githubClients(options),
    options.owner,
    options.repo,
    `GitHub ${baseUrl} ${options.owner}/${options.repo}`,
  );
}

/** An octokit client with the forge's settings (timeouts, throttling, credentials), for calls beside the Forge. */
export async function githubClient(options: GitHubForgeOptions): Promise<Client> {
  return (await githubClients(options))();
}

/** A failed octokit call as a ForgeFailure naming `label` and the fix, as the forge's own calls fail. */
export function githubFailure(label: string, error: unknown): ForgeFailure {
  return failureOf(label, error, false);
}

/**
 * Where git gets a token when kimops runs as a GitHub App: the installation's token, which octokit
 * caches and renews before its hour runs out. A personal access token serves git as it is.
 */
export async function githubGitToken(options: GitHubForgeOptions): Promise<string | (() => Promise<string>)> {
  if ('token' in options.auth) {
    const token = options.auth.token;
    // Read at each fetch or push: a git operation takes a round trip or more anyway.
    if (typeof token === 'string') return token;
    return () => {
      token.refresh();
      return Promise.resolve(token.value());
    };
  }
  const client = await githubClients(options);
  return async () => ((await (await client()).auth({ type: 'installation' })) as { token: string }).token;
}

/**
 * The client to use now. One client for a token (a token file is read by its fetch); for an App, one per
 * private key: when the key file holds another key, the next call makes a new App client with it.
 */
async function githubClients(options: GitHubForgeOptions): Promise<() => Promise<Client>> {
  const auth = options.auth;
  if ('token' in auth) {
    const client = await newClient(options, auth);
    return () => Promise.resolve(client);
  }
  const keyFile = auth.privateKey;
  if (typeof keyFile === 'string') {
    const client = await newClient(options, { ...auth, privateKey: keyFile });
    return () => Promise.resolve(client);
  }
  let current = { key: keyFile.value(), client: await newClient(options, { ...auth, privateKey: keyFile.value() }) };
  return async () => {
    const key = keyFile.value();
    if (key !== current.key) current = { key, client: await newClient(options, { ...auth, privateKey: key }) };
    return current.client;
  };
}

async function newClient(
  options: GitHubForgeOptions,
  auth: { token: string | SecretFile } | { appId: number | string; privateKey: string; installationId: number },
): Promise<Client> {
  const baseUrl = options.baseUrl ?? GITHUB_API;
  const retry = options.retry ?? true;
  const common = {
    baseUrl,
    request: {
      fetch: fetchWithTimeout(
        options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
        'token' in auth && typeof auth.token !== 'string' ? auth.token : undefined,
      ),
    },
    // Omitted when on: octokit merges options shallowly, and a `throttle` object of our own would drop
    // its default rate-limit handlers (retry once), which the throttling plugin refuses to run without.
    ...(options.throttle === false ? { throttle: { enabled: false } } : {}),
    retry:
      typeof retry === 'boolean'
        ? { enabled: retry }
        : {
            enabled: true,
            ...(retry.retries === undefined ? {} : { retries: retry.retries }),
            ...(retry.backoffUnitMs === undefined ? {} : { retryAfterBaseValue: retry.backoffUnitMs }),
          },
  };
  // A token file's token is set by the fetch, read as it is then.
  if ('token' in auth) return new Octokit(typeof auth.token === 'string' ? { ...common, auth: auth.token } : common);
  // The App signs a JWT locally and exchanges it for an installation token (cached, refreshed hourly)
  // on the first request, against the same baseUrl.
  const app = new App({ appId: auth.appId, privateKey: auth.privateKey, Octokit: Octokit.defaults(common) });
  return app.getInstallationOctokit(auth.installationId);
}

class GitHubForge implements Forge {
  readonly checkReporters = 'ci';
  /** The client of the call in progress, as `clients` hands it out (a new one after an App key rotation). */
  private octokit!: Client;

  constructor(
    private readonly clients: () => Promise<Client>,
    private readonly owner: string,
    private readonly repo: string,
    readonly label: string,
  ) {}

  private get where() {
    return { owner: this.owner, repo: this.repo };
  }

  private async call<T>(run: () => Promise<T>, merging = false): Promise<ForgeResult<T>> {
    try {
      this.octokit = await this.clients();
      return { ok: true, value: await run() };
    } catch (error) {
      return { ok: false, failure: failureOf(this.label, error, merging) };
    }
  }

  defaultBranch() {
    return this.call(async () => (await this.octokit.rest.repos.get(this.where)).data.default_branch);
  }

  async branchHead(branch: string): Promise<ForgeResult<string | undefined>> {
    const result = await this.call(
      async () => (await this.octokit.rest.git.getRef({ ...this.where, ref: `heads/${branch}` })).data.object.sha,
    );
    return !result.ok && result.failure.kind === 'not-found' ? { ok: true, value: undefined } : result;
  }

  getPullRequest(number: number) {
    return this.call(async () =>
      pullRequestOf((await this.octokit.rest.pulls.get({ ...this.where, pull_number: number })).data),
    );
  }

  findOpenPullRequest(branch: string) {
    return this.call(async () => {
      const { data } = await this.octokit.rest.pulls.list({
        ...this.where,
        state: 'open',
        head: `${this.owner}:${branch}`,
      });
      return data[0] === undefined ? undefined : pullRequestOf(data[0]);
    });
  }

  openPullRequest(request: { branch: string; base: string; title: string; body: string; labels?: string[] }) {
    return this.call(async () => {
      const { data } = await this.octokit.rest.pulls.create({
        ...this.where,
        head: request.branch,
        base: request.base,
        title: request.title,
        body: request.body,
      });
      if (!request.labels?.length) return pullRequestOf(data);
      // Labels belong to the PR's issue; GitHub has no way to set them on create.
      const labels = await this.octokit.rest.issues.addLabels({
        ...this.where,
        issue_number: data.number,
        labels: request.labels,
      });
      return { ...pullRequestOf(data), labels: labels.data.map((label) => label.name) };
    });
  }

  updatePullRequest(number: number, change: { title?: string; body?: string; state?: 'open' | 'closed' }) {
    return this.call(async () =>
      pullRequestOf((await this.octokit.rest.pulls.update({ ...this.where, pull_number: number, ...change })).data),
    );
  }

  async closePullRequest(number: number, comment?: string): Promise<ForgeResult<PullRequest>> {
    if (comment !== undefined) {
      const commented = await this.call(() =>
        this.octokit.rest.issues.createComment({ ...this.where, issue_number: number, body: comment }),
      );
      if (!commented.ok) return commented;
    }
    return this.updatePullRequest(number, { state: 'closed' });
  }

  mergePullRequest(number: number, options: { sha: string; method: MergeMethod }) {
    return this.call(async () => {
      const { data } = await this.octokit.rest.pulls.merge({
        ...this.where,
        pull_number: number,
        sha: options.sha,
        merge_method: options.method,
      });
      return { sha: data.sha };
    }, true);
  }

  approvals(number: number) {
    return this.call(async () => {
      const reviews = await this.octokit.paginate(this.octokit.rest.pulls.listReviews, {
        ...this.where,
        pull_number: number,
        per_page: 100,
      });
      // A reviewer's latest verdict counts (GitHub's own rule); plain comments are no verdict.
      const latest = new Map<string, Approval & { state: string; association: string }>();
      for (const review of reviews) {
        if (review.user === null || review.state === 'COMMENTED' || review.state === 'PENDING') continue;
        latest.set(review.user.login, {
          reviewer: review.user.login,
          commitSha: review.commit_id ?? '',
          state: review.state,
          association: review.author_association,
        });
      }
      // Anyone may review a public repo's PR: only the repository's own people approve.
      return [...latest.values()]
        .filter((review) => review.state === 'APPROVED' && REPOSITORY_PEOPLE.has(review.association))
        .map(({ reviewer, commitSha }) => ({ reviewer, commitSha }));
    });
  }

  async isTeamMember(org: string, team: string, user: string): Promise<ForgeResult<boolean>> {
    const membership = await this.call(
      async () =>
        (await this.octokit.rest.teams.getMembershipForUserInOrg({ org, team_slug: team, username: user })).data,
    );
    if (membership.ok) return { ok: true, value: membership.value.state === 'active' };
    // GitHub's answer for a user outside the team, and for a team kimops may not see.
    if (membership.failure.kind === 'not-found') return { ok: true, value: false };
    if (membership.failure.kind !== 'unauthorized') return membership;
    return {
      ok: false,
      failure: {
        kind: 'unauthorized',
        message: `${membership.failure.message} (reading @${org}/${team}'s members needs the organization's Members: read permission for the App or token)`,
      },
    };
  }

  setCommitStatus(
    sha: string,
    status: { context: string; state: StatusState; description: string; targetUrl?: string },
  ) {
    return this.call(async () => {
      const description =
        status.description.length > STATUS_DESCRIPTION_LIMIT
          ? `${status.description.slice(0, STATUS_DESCRIPTION_LIMIT - 1)}…`
          : status.description;
      await this.octokit.rest.repos.createCommitStatus({
        ...this.where,
        sha,
        context: status.context,
        state: status.state,
        description,
        ...(status.targetUrl === undefined ? {} : { target_url: status.targetUrl }),
      });
    });
  }

  upsertStickyComment(number: number, marker: string, body: string) {
    return this.call(async () => {
      const tag = stickyTag(marker);
      const text = `${tag}\n${body}`;
      const comments = await this.octokit.paginate(this.octokit.rest.issues.listComments, {
        ...this.where,
        issue_number: number,
        per_page: 100,
      });
      const existing = comments.find((comment) => comment.body?.startsWith(tag));
      if (existing !== undefined) {
        if (existing.body !== text)
          await this.octokit.rest.issues.updateComment({ ...this.where, comment_id: existing.id, body: text });
        return { id: existing.id, created: false };
      }
      const { data } = await this.octokit.rest.issues.createComment({
        ...this.where,
        issue_number: number,
        body: text,
      });
      return { id: data.id, created: true };
    });
  }

  listOpenPullRequests(filter: { labelPrefix?: string } = {}) {
    return this.call(async () => {
      const pulls = (
        await this.octokit.paginate(this.octokit.rest.pulls.list, { ...this.where, state: 'open', per_page: 100 })
      ).map(pullRequestOf);
      const prefix = filter.labelPrefix;
      return prefix === undefined
        ? pulls
        : pulls.filter((pull) => pull.labels.some((label) => label.startsWith(prefix)));
    });
  }

  pullRequestsOfCommit(sha: string) {
    return this.call(async () => {
      const pulls = await this.octokit.paginate(this.octokit.rest.repos.listPullRequestsAssociatedWithCommit, {
        ...this.where,
        commit_sha: sha,
        per_page: 100,
      });
      // GitHub also lists open PRs whose branch holds the commit, and merged ones that only contain it.
      return pulls.map(pullRequestOf).filter((pull) => pull.merged && pull.mergeCommitSha === sha);
    });
  }

  async checksOf(sha: string, options: ChecksQuery = {}): Promise<ForgeResult<CommitCheck[]>> {
    const statuses = await this.call(async () => {
      const all: CommitCheck[] = [];
      // The combined status holds the latest status per context, a page at a time (no link header to follow).
      for (let page = 1; ; page++) {
        const { data } = await this.octokit.rest.repos.getCombinedStatusForRef({
          ...this.where,
          ref: sha,
          per_page: 100,
          page,
        });
        all.push(...data.statuses.map(statusCheckOf));
        if (data.statuses.length < 100 || all.length >= data.total_count) return all;
      }
    });
    if (!statuses.ok) return statuses;
    // Check runs only for the names no status covers: a token that may not read them then costs nothing.
    const wanted = options.checkRunsFor?.filter((name) => !statuses.value.some((status) => status.name === name));
    if (wanted?.length === 0) return statuses;
    const runs = await this.call(async () =>
      (
        await this.octokit.paginate(this.octokit.rest.checks.listForRef, {
          ...this.where,
          ref: sha,
          filter: 'latest',
          per_page: 100,
        })
      ).map(checkRunOf),
    );
    if (runs.ok)
      return {
        ok: true,
        value: [...statuses.value, ...(wanted ? runs.value.filter((run) => wanted.includes(run.name)) : runs.value)],
      };
    if (runs.failure.kind !== 'unauthorized') return runs;
    const fix = `${runs.failure.message} (reading check runs needs a GitHub App with checks: read or a classic token with repo scope; fine-grained tokens cannot be granted it)`;
    if (wanted === undefined) return { ok: false, failure: { kind: 'unauthorized', message: fix } };
    // Only these checks are unknown: they wait, saying why, and the statuses still count.
    const unreadable = wanted.map((name): CommitCheck => ({
      name,
      source: 'check-run',
      state: 'pending',
      description: `unreadable: ${fix}`,
    }));
    return { ok: true, value: [...statuses.value, ...unreadable] };
  }

  async deleteBranch(branch: string, options: { ifHeadIs?: string } = {}): Promise<ForgeResult<{ deleted: boolean }>> {
    // GitHub's ref deletion has no precondition: the head is compared just before, a window of one round trip.
    if (options.ifHeadIs !== undefined) {
      const head = await this.branchHead(branch);
      if (!head.ok) return head;
      if (head.value === undefined) return { ok: true, value: { deleted: false } };
      if (head.value !== options.ifHeadIs)
        return {
          ok: false,
          failure: {
            kind: 'head-moved',
            message: `${this.label}: ${branch} is at ${head.value.slice(0, 12)}, not ${options.ifHeadIs.slice(0, 12)}; someone pushed to it, so it is left in place`,
          },
        };
    }
    const result = await this.call(() => this.octokit.rest.git.deleteRef({ ...this.where, ref: `heads/${branch}` }));
    if (result.ok) return { ok: true, value: { deleted: true } };
    // GitHub answers 422 "Reference does not exist" for a branch already gone (e.g. deleted on merge by GitHub).
    return result.failure.kind === 'invalid' && /does not exist/i.test(result.failure.message)
      ? { ok: true, value: { deleted: false } }
      : result;
  }

  listBranches(prefix: string) {
    return this.call(async () =>
      (await this.octokit.paginate(this.octokit.rest.git.listMatchingRefs, { ...this.where, ref: `heads/${prefix}` }))
        .filter((ref) => ref.object.type === 'commit')
        .map((ref) => ({ name: ref.ref.replace(/^refs\/heads\//, ''), sha: ref.object.sha })),
    );
  }

  lastClosedPullRequest(branch: string) {
    return this.call(async () => {
      const { data } = await this.octokit.rest.pulls.list({
        ...this.where,
        state: 'closed',
        head: `${this.owner}:${branch}`,
        sort: 'created',
        direction: 'desc',
        per_page: 1,
      });
      return data[0] === undefined ? undefined : pullRequestOf(data[0]);
    });
  }

  setLabels(number: number, labels: string[]) {
    return this.call(async () =>
      (await this.octokit.rest.issues.setLabels({ ...this.where, issue_number: number, labels })).data.map(
        (label) => label.name,
      ),
    );
  }
}

type StatusData = Awaited<ReturnType<Client['rest']['repos']['getCombinedStatusForRef']>>['data']['statuses'][number];
type CheckRunData = Awaited<ReturnType<Client['rest']['checks']['listForRef']>>['data']['check_runs'][number];

function statusCheckOf(status: StatusData): CommitCheck {
  return {
    name: status.context,
    source: 'status',
    state: status.state === 'success' ? 'success' : status.state === 'pending' ? 'pending' : 'failure',
    description: status.description ?? status.state,
    ...(status.target_url ? { url: status.target_url } : {}),
  };
}

/** GitHub's rule for required checks: success, neutral and skipped pass; every other conclusion fails. */
const PASSING_CONCLUSIONS = new Set(['success', 'neutral', 'skipped']);

function checkRunOf(run: CheckRunData): CommitCheck {
  const state =
    run.status !== 'completed' || run.conclusion === null
      ? 'pending'
      : PASSING_CONCLUSIONS.has(run.conclusion)
        ? 'success'
        : 'failure';
  return {
    name: run.name,
    source: 'check-run',
    state,
    description: run.status === 'completed' ? (run.conclusion ?? 'completed') : run.status.replace('_', ' '),
    ...(run.html_url ? { url: run.html_url } : {}),
  };
}

function pullRequestOf(data: PullData): PullRequest {
  return {
    number: data.number,
    url: data.html_url,
    branch: data.head.ref,
    base: data.base.ref,
    headSha: data.head.sha,
    title: data.title,
    body: data.body ?? '',
    state: data.state === 'closed' ? 'closed' : 'open',
    merged: data.merged_at !== null,
    // GitHub also fills merge_commit_sha for an open PR (its test merge); only a merged PR's is the merge.
    ...(data.merged_at !== null && data.merge_commit_sha ? { mergeCommitSha: data.merge_commit_sha } : {}),
    labels: data.labels.map((label) => label.name),
    createdAt: data.created_at,
  };
}

/**
 * Global fetch with a deadline per request, on top of any signal octokit passes. With a token file it also
 * sets the Authorization header from the file, and after a 401 reads the file at once and, when it holds
 * another token, sends the request once more (a refused request did nothing).
 */
function fetchWithTimeout(timeoutMs: number, token?: SecretFile): typeof fetch {
  const once = (input: Parameters<typeof fetch>[0], init: RequestInit | undefined, deadline: AbortSignal) => {
    const signal = init?.signal ? AbortSignal.any([init.signal, deadline]) : deadline;
    if (!token) return fetch(input, { ...init, signal });
    const headers = new Headers(init?.headers);
    headers.set('authorization', `token ${token.value()}`);
    return fetch(input, { ...init, headers, signal });
  };
  return async (input, init) => {
    const deadline = AbortSignal.timeout(timeoutMs);
    try {
      const response = await once(input, init, deadline);
      if (response.status !== 401 || !token?.refresh()) return response;
      await response.body?.cancel();
      return await once(input, init, deadline);
    } catch (error) {
      // octokit turns this into a RequestError without a response: a `transport` failure.
      if (deadline.aborted)
        throw new Error(`no answer within ${timeoutMs / 1000} s (requestTimeoutMs)`, { cause: error });
      throw error;
    }
  };
}

function failureOf(label: string, error: unknown, merging: boolean): ForgeFailure {
  if (!(error instanceof RequestError) || error.response === undefined) {
    const reason = error instanceof Error ? error.message : String(error);
    return {
      kind: 'transport',
      message: `${label}: cannot reach the API: ${reason} — check baseUrl (GitHub Enterprise: https://<host>/api/v3) and the network`,
    };
  }
  const headers = error.response.headers;
  const data = error.response.data as { message?: string } | undefined;
  const said = `${label}: ${error.status} ${data?.message ?? error.message}`;
  if (
    (error.status === 403 || error.status === 429) &&
    (headers['x-ratelimit-remaining'] === '0' || headers['retry-after'] !== undefined)
  ) {
    const reset = Number(headers['x-ratelimit-reset']);
    const retryAfterSeconds =
      Number(headers['retry-after']) ||
      (reset > 0 ? Math.max(0, Math.ceil(reset - Date.now() / 1000)) : DEFAULT_RATE_LIMIT_WAIT_SECONDS);
    return {
      kind: 'rate-limited',
      retryAfterSeconds,
      message: `${said} — rate limited; retry in ${retryAfterSeconds} s, or authenticate as a GitHub App for a higher limit`,
    };
  }
  switch (error.status) {
    case 401:
      return { kind: 'unauthorized', message: `${said} — the token or App credentials were rejected; renew them` };
    case 403:
      return {
        kind: 'unauthorized',
        message: `${said} — grant the token contents, pull requests, issues and commit statuses write access on the repo`,
      };
    case 404:
      return {
        kind: 'not-found',
        message: `${said} — check the repo name, and that the token can see it (GitHub answers 404 for repos it hides)`,
      };
    case 405:
      return {
        kind: 'not-mergeable',
        message: `${said} — resolve conflicts or required checks, or allow the merge method in the repo settings`,
      };
    case 409:
      return merging
        ? { kind: 'head-moved', message: `${said} — the branch moved since it was validated; re-validate the new head` }
        : { kind: 'conflict', message: said };
    case 422:
      return { kind: 'invalid', message: `${said}${validationDetail(error.response.data)}` };
    default:
      return {
        kind: 'transport',
        status: error.status,
        message: `${said} — GitHub failed; retry later (throttling and retry should be on in production)`,
      };
  }
}

function validationDetail(data: unknown): string {
  const errors = (data as { errors?: { message?: string; field?: string; code?: string }[] } | undefined)?.errors ?? [];
  const parts = errors.map((e) => e.message ?? [e.field, e.code].filter(Boolean).join(' '));
  return parts.length > 0 ? `: ${parts.join('; ')}` : '';
}
