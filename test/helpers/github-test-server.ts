// A GitHub REST test server for the endpoints kimops calls, on 127.0.0.1, backed by real bare git
// repositories (a merge is a real merge commit). Routing comes from the OpenAPI subset
// (test/fixtures/github/openapi-subset.json) and every request and response is validated against it:
// a mismatch is recorded in `violations`, answered with a 500 and makes `close()` throw, so the
// server cannot drift from GitHub's contract unnoticed.
import { execFile } from 'node:child_process';
import { createPublicKey, randomBytes, verify } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { rfc3339Seconds } from '../../model/go-time.js';

const run = promisify(execFile);
const SPEC_FILE = new URL('../fixtures/github/openapi-subset.json', import.meta.url);
const DOCS = 'https://docs.github.com/rest';
const GIT_ENV = {
  GIT_AUTHOR_NAME: 'GitHub',
  GIT_AUTHOR_EMAIL: 'noreply@github.com',
  GIT_COMMITTER_NAME: 'GitHub',
  GIT_COMMITTER_EMAIL: 'noreply@github.com',
};

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Obj = { [key: string]: Json };

// ---------------------------------------------------------------------------------------------
// The contract: OpenAPI 3.0 operations compiled to ajv validators.

interface Operation {
  id: string;
  method: string;
  pattern: RegExp;
  pathNames: string[];
  params: ValidateFunction;
  query: ValidateFunction;
  body?: { required: boolean; validate: ValidateFunction };
  responses: Map<number, ValidateFunction | 'empty'>;
}

/**
 * Error answers GitHub gives on any operation whether or not the description lists them: bad
 * credentials, rate limits, a repository that does not exist or is hidden, outages.
 */
const ANY_OPERATION_ERRORS = new Set([401, 403, 404, 429, 500, 502, 503]);

export class GitHubContract {
  readonly operations: Operation[] = [];
  private readonly basicError: ValidateFunction;

  constructor(spec: Obj = JSON.parse(readFileSync(SPEC_FILE, 'utf8')) as Obj) {
    // strictTypes off: GitHub's schemas are not written for it; unknown keywords still fail (strictSchema).
    const ajv = new Ajv({ strict: true, strictTypes: false, allErrors: true });
    const coercing = new Ajv({ strict: true, strictTypes: false, allErrors: true, coerceTypes: true });
    for (const instance of [ajv, coercing]) {
      addFormats.default(instance);
      instance.addFormat('int64', { type: 'number', validate: Number.isInteger });
      // GitHub's own format: `owner/name`.
      instance.addFormat('repo.nwo', /^[^/]+\/[^/]+$/);
      // OpenAPI's hint which branch of a oneOf applies (the authenticated user's): the oneOf still decides.
      instance.addKeyword('discriminator');
    }
    const components = spec.components as { [kind: string]: Obj | undefined };
    const definitions = toJsonSchema(components.schemas ?? {}) as Obj;
    ajv.addSchema({ $id: 'github', definitions });
    const resolve = (node: Json): Obj => {
      const ref = (node as Obj).$ref;
      if (typeof ref !== 'string') return node as Obj;
      const [, , kind = '', name = ''] = ref.split('/');
      const target = components[kind]?.[name];
      if (target === undefined)
        throw new Error(`${SPEC_FILE.pathname}: unresolved ${ref}; re-run scripts/github-openapi-subset.ts`);
      return resolve(target);
    };
    this.basicError = ajv.compile({ $ref: 'github#/definitions/basic-error' });

    for (const [path, item] of Object.entries(spec.paths as { [path: string]: Obj })) {
      for (const [method, raw] of Object.entries(item)) {
        if (method === 'parameters') continue;
        const op = raw as Obj;
        const parameters = [...((item.parameters as Json[]) ?? []), ...((op.parameters as Json[]) ?? [])].map(resolve);
        const pathNames: string[] = [];
        const pattern = new RegExp(
          `^${path.replace(/\{(\w+)\}/g, (_, name: string) => {
            pathNames.push(name);
            // `{ref}` spans segments (`heads/feature/x`): the description marks it x-multi-segment.
            return parameters.find((p) => p.name === name)?.['x-multi-segment'] ? '(.+)' : '([^/]+)';
          })}$`,
        );
        const objectOf = (where: string, closed: boolean) => {
          const list = parameters.filter((p) => p.in === where);
          return toJsonSchema({
            type: 'object',
            properties: Object.fromEntries(list.map((p) => [p.name as string, p.schema ?? {}])),
            required: list.filter((p) => p.required).map((p) => p.name as string),
            additionalProperties: !closed,
          }) as Obj;
        };
        const requestBody = op.requestBody === undefined ? undefined : resolve(op.requestBody);
        const bodySchema = (requestBody?.content as Obj | undefined)?.['application/json'] as Obj | undefined;
        const responses = new Map<number, ValidateFunction | 'empty'>();
        for (const [status, response] of Object.entries(op.responses as Obj)) {
          const schema = ((resolve(response).content as Obj | undefined)?.['application/json'] as Obj | undefined)
            ?.schema as Obj | undefined;
          responses.set(Number(status), schema === undefined ? 'empty' : ajv.compile(toJsonSchema(schema) as Obj));
        }
        this.operations.push({
          id: op.operationId as string,
          method: method.toUpperCase(),
          pattern,
          pathNames,
          params: coercing.compile(objectOf('path', false)),
          // Closed: a query parameter GitHub does not document means the client drifted.
          query: coercing.compile(objectOf('query', true)),
          ...(bodySchema?.schema === undefined
            ? {}
            : {
                body: {
                  required: requestBody?.required === true,
                  validate: ajv.compile(toJsonSchema(bodySchema.schema) as Obj),
                },
              }),
          responses,
        });
      }
    }
  }

  match(method: string, path: string): { operation: Operation; params: Record<string, string> } | undefined {
    for (const operation of this.operations) {
      const found = operation.method === method ? operation.pattern.exec(path) : null;
      if (found)
        return {
          operation,
          params: Object.fromEntries(
            operation.pathNames.map((name, i) => [name, decodeURIComponent(found[i + 1] ?? '')]),
          ),
        };
    }
    return undefined;
  }

  /** Problems with a request; empty when GitHub would accept its shape. */
  checkRequest(operation: Operation, params: Obj, query: Obj, body: Json | undefined): string[] {
    // Copies: the coercing validator converts `"7"` to 7 in place.
    const problems = [
      ...errorsOf('path', operation.params, { ...params }),
      ...errorsOf('query', operation.query, { ...query }),
    ];
    if (operation.body === undefined) {
      if (body !== undefined) problems.push('body: the operation takes none');
    } else if (body === undefined) {
      if (operation.body.required) problems.push('body: required');
    } else problems.push(...errorsOf('body', operation.body.validate, body));
    return problems.map((p) => `${operation.id} request ${p}`);
  }

  /** Problems with a response; empty when it matches what GitHub documents for the status. */
  checkResponse(operationId: string, status: number, body: Json | undefined): string[] {
    const operation = this.operations.find((op) => op.id === operationId);
    if (operation === undefined) return [`${operationId}: not in the OpenAPI subset`];
    const documented = operation.responses.get(status);
    // An error GitHub documents without a body (git/delete-ref's 422) still comes with its message, as every error does.
    const expected =
      documented === 'empty' && status >= 400
        ? this.basicError
        : (documented ?? (ANY_OPERATION_ERRORS.has(status) ? this.basicError : undefined));
    const problems =
      expected === undefined
        ? [`status ${status} is not documented`]
        : expected === 'empty'
          ? body === undefined
            ? []
            : ['body: documented as empty']
          : errorsOf('body', expected, body ?? null);
    return problems.map((p) => `${operationId} response ${status} ${p}`);
  }
}

function errorsOf(where: string, validate: ValidateFunction, value: unknown): string[] {
  return validate(value)
    ? []
    : (validate.errors ?? []).map(
        (e) => `${where}${e.instancePath} ${e.message ?? ''}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`,
      );
}

/** OpenAPI 3.0 → JSON Schema: component refs into the `github` schema, `nullable` as a null type. */
function toJsonSchema(node: Json, keysAreNames = false): Json {
  if (Array.isArray(node)) return node.map((item) => toJsonSchema(item));
  if (node === null || typeof node !== 'object') return node;
  const out: Obj = {};
  for (const [key, value] of Object.entries(node)) {
    if (!keysAreNames && key === '$ref' && typeof value === 'string')
      out.$ref = value.replace('#/components/schemas/', 'github#/definitions/');
    else if (!keysAreNames && key === 'nullable') continue;
    else out[key] = toJsonSchema(value, key === 'properties' && !keysAreNames);
  }
  if (!keysAreNames && (node as Obj).nullable === true) {
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    if (Array.isArray(out.enum)) out.enum = [...out.enum, null];
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The forge: repositories, pull requests, comments, reviews and statuses.

interface Pull {
  number: number;
  id: number;
  title: string;
  body: string | null;
  head: string;
  base: string;
  state: 'open' | 'closed';
  labels: string[];
  /** Frozen when the PR closes; an open PR follows its branch. */
  closedHeadSha?: string;
  mergedAt: string | null;
  mergeCommitSha: string | null;
  mergedBy: string | null;
  createdAt: string;
  updatedAt: string;
  closedAt: string | null;
  author: string;
}

interface Repo {
  id: number;
  name: string;
  gitDir: string;
  workDir: string;
  defaultBranch: string;
  createdAt: string;
  pulls: Map<number, Pull>;
  comments: { id: number; issue: number; body: string; user: string; createdAt: string; updatedAt: string }[];
  reviews: {
    id: number;
    pull: number;
    user: string;
    state: string;
    commitId: string;
    body: string;
    submittedAt: string;
    /** How the reviewer relates to the repository, as GitHub says it: MEMBER unless a test says otherwise. */
    association: ReviewerAssociation;
  }[];
  statuses: {
    id: number;
    sha: string;
    state: string;
    context: string;
    description: string | null;
    targetUrl: string | null;
    user: string;
    createdAt: string;
  }[];
  /** Check runs, newest last; `filter=latest` answers the newest per name. */
  checkRuns: CheckRun[];
  rulesets: Map<number, Ruleset>;
  /** Classic branch protection, by branch: the request as given. */
  protections: Map<string, Obj>;
}

interface CheckRun {
  id: number;
  sha: string;
  name: string;
  status: 'queued' | 'in_progress' | 'completed';
  conclusion: 'success' | 'failure' | 'neutral' | 'cancelled' | 'skipped' | 'timed_out' | 'action_required' | null;
  startedAt: string;
  completedAt: string | null;
}

/** GitHub's author_association of a review. */
export type ReviewerAssociation =
  'OWNER' | 'MEMBER' | 'COLLABORATOR' | 'CONTRIBUTOR' | 'FIRST_TIME_CONTRIBUTOR' | 'FIRST_TIMER' | 'MANNEQUIN' | 'NONE';

/** A repository ruleset as created or updated: the request's fields, with its id and times. */
interface Ruleset {
  id: number;
  fields: Obj;
  createdAt: string;
  updatedAt: string;
}

/**
 * A 5xx instead of the answer, a 403 primary rate limit, or a 403 refusal (a token without the permission).
 * `afterEffect`: the request is carried out first and only its answer is lost, as when GitHub acts and a proxy
 * then fails — what retries must survive.
 */
export type Fault =
  { status: 500 | 502 | 503; afterEffect?: boolean } | 'rate-limit' | { status: 403; message: string };

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly extra: Obj = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export interface GitHubTestServerOptions {
  owner?: string;
}

/**
 * How the server answers the branch-rule APIs: 404 for rulesets is an older GitHub Enterprise Server (no such
 * API), 403 a plan without them ("Upgrade to GitHub Pro"), which classic branch protection answers alike; and
 * what a token without a permission is refused.
 */
export interface BranchRuleRefusals {
  rulesets?: 403 | 404;
  protection?: 403;
  /** GitHub Enterprise Server knows no `User` bypass actor: a ruleset naming one is refused (422). */
  userBypass?: 422;
  /** A fine-grained token, which cannot be granted the Checks permission: check runs are refused (403). */
  checkRuns?: 403;
}

export class GitHubTestServer {
  /** A personal access token the server accepts, acting as `kimops-bot`. */
  readonly token = `ghp_${randomBytes(12).toString('hex')}`;
  readonly owner: string;
  /** Contract mismatches, each a line; `close()` throws when there are any. */
  readonly violations: string[] = [];
  /** Every request answered: method, path and status. */
  readonly requests: { method: string; path: string; status: number }[] = [];
  readonly contract = new GitHubContract();
  private readonly repos = new Map<string, Repo>();
  private readonly tokens = new Map<string, string>();
  private readonly apps = new Map<string, { publicKey: string; installationId: number }>();
  /** Team memberships by `org/team` (lower case), then login (lower case): active or pending (invited). */
  private readonly teams = new Map<string, Map<string, 'active' | 'pending'>>();
  /** What the branch-rule and check-run APIs refuse; nothing unless a test sets it. */
  refuse: BranchRuleRefusals = {};
  /** Per coming request: its fault, or undefined to answer it normally. */
  private faults: (Fault | undefined)[] = [];
  private nextId = 1000;
  private readonly server = createServer((req, res) => void this.handle(req, res));
  /** The API root, for octokit's `baseUrl`. */
  url = '';

  private constructor(
    /** Bare repositories and their work trees live here; removed by `close()`. */
    private readonly root: string,
    options: GitHubTestServerOptions,
  ) {
    this.owner = options.owner ?? 'acme';
    this.tokens.set(this.token, 'kimops-bot');
  }

  static async start(options: GitHubTestServerOptions = {}): Promise<GitHubTestServer> {
    const server = new GitHubTestServer(await mkdtemp(join(tmpdir(), 'kimops-github-')), options);
    await new Promise<void>((resolve) => server.server.listen(0, '127.0.0.1', resolve));
    server.url = `http://127.0.0.1:${(server.server.address() as AddressInfo).port}`;
    return server;
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    await rm(this.root, { recursive: true, force: true });
    if (this.violations.length > 0)
      throw new Error(`GitHub test server: contract violations:\n${this.violations.join('\n')}`);
  }

  // --- helpers for tests ---

  /** A bare repository whose default branch holds one commit with `files`. */
  async createRepo(
    name: string,
    files: Record<string, string> = { 'README.md': `# ${name}\n` },
    defaultBranch = 'main',
  ): Promise<string> {
    const gitDir = join(this.root, `${name}.git`);
    const workDir = join(this.root, `${name}.work`);
    await git(['init', '--quiet', '--bare', '-b', defaultBranch, gitDir]);
    await git(['init', '--quiet', '-b', defaultBranch, workDir]);
    await git(['-C', workDir, 'remote', 'add', 'origin', gitDir]);
    this.repos.set(name, {
      id: this.id(),
      name,
      gitDir,
      workDir,
      defaultBranch,
      createdAt: now(),
      pulls: new Map(),
      comments: [],
      reviews: [],
      statuses: [],
      checkRuns: [],
      rulesets: new Map(),
      protections: new Map(),
    });
    return this.pushBranch(name, defaultBranch, files, { from: null });
  }

  /** A bare repository without any commit, as GitHub creates one without README, license or .gitignore. */
  async createEmptyRepo(name: string, defaultBranch = 'main'): Promise<void> {
    await this.createRepo(name, {}, defaultBranch);
    const repo = this.repo(name);
    await git(['--git-dir', repo.gitDir, 'update-ref', '-d', `refs/heads/${defaultBranch}`]);
  }

  /** The folder holding the bare repositories (`<name>.git`), for a git server that serves them. */
  get gitRoot(): string {
    return this.root;
  }

  /**
   * Commits `files` (content, or null to delete) onto `branch` (created from `from`, by default the
   * default branch) and pushes it with the git CLI, as a human or CI would. Returns the new head.
   * One call at a time per repo: they share a work tree.
   */
  async pushBranch(
    repoName: string,
    branch: string,
    files: Record<string, string | null>,
    options: { from?: string | null; message?: string } = {},
  ): Promise<string> {
    const repo = this.repo(repoName);
    const work = repo.workDir;
    const existing = await revParse(repo.gitDir, `refs/heads/${branch}`);
    const from = existing ? branch : options.from === undefined ? repo.defaultBranch : options.from;
    if (from === null) await git(['-C', work, 'checkout', '--quiet', '--orphan', branch]);
    else {
      await git(['-C', work, 'fetch', '--quiet', 'origin']);
      await git(['-C', work, 'checkout', '--quiet', '-B', branch, `origin/${from}`]);
    }
    for (const [path, content] of Object.entries(files)) {
      const target = join(work, path);
      if (content === null) await rm(target, { force: true });
      else {
        await mkdir(dirname(target), { recursive: true });
        await writeFile(target, content);
      }
    }
    await git(['-C', work, 'add', '-A']);
    await git(['-C', work, 'commit', '--quiet', '--allow-empty', '-m', options.message ?? `Update ${branch}`]);
    await git(['-C', work, 'push', '--quiet', 'origin', `HEAD:refs/heads/${branch}`]);
    return (await git(['-C', work, 'rev-parse', 'HEAD'])).trim();
  }

  gitDir(repoName: string): string {
    return this.repo(repoName).gitDir;
  }

  /**
   * A review by `reviewer` on the PR's current head (or `commitSha`); `association` is how GitHub relates the
   * reviewer to the repository (NONE: anyone reviewing a public repository's PR).
   */
  async review(
    repoName: string,
    number: number,
    reviewer: string,
    state: 'APPROVED' | 'CHANGES_REQUESTED' | 'COMMENTED' | 'DISMISSED' = 'APPROVED',
    commitSha?: string,
    association: ReviewerAssociation = 'MEMBER',
  ): Promise<void> {
    const repo = this.repo(repoName);
    const pull = this.pull(repo, number);
    repo.reviews.push({
      id: this.id(),
      pull: number,
      user: reviewer,
      state,
      commitId: commitSha ?? (await this.headSha(repo, pull)),
      body: '',
      submittedAt: now(),
      association,
    });
  }

  /** Puts `login` into the team `org/team` (its slug); `pending`: invited, not yet a member. */
  addTeamMember(org: string, team: string, login: string, state: 'active' | 'pending' = 'active'): void {
    const key = `${org}/${team}`.toLowerCase();
    const members = this.teams.get(key) ?? new Map<string, 'active' | 'pending'>();
    members.set(login.toLowerCase(), state);
    this.teams.set(key, members);
  }

  statuses(repoName: string, sha: string) {
    return this.repo(repoName).statuses.filter((status) => status.sha === sha);
  }

  comments(repoName: string, number: number) {
    return this.repo(repoName).comments.filter((comment) => comment.issue === number);
  }

  /** A check run on `sha`, as a workflow job reports it (GitHub Actions names it after the job). */
  addCheckRun(
    repoName: string,
    sha: string,
    name: string,
    status: CheckRun['status'],
    conclusion: CheckRun['conclusion'] = null,
  ): void {
    this.repo(repoName).checkRuns.push({
      id: this.id(),
      sha,
      name,
      status,
      conclusion: status === 'completed' ? conclusion : null,
      startedAt: now(),
      completedAt: status === 'completed' ? now() : null,
    });
  }

  /** The repository's rulesets as created or updated: each request's fields, with its id. */
  rulesets(repoName: string): ({ id: number } & Obj)[] {
    return [...this.repo(repoName).rulesets.values()].map((ruleset) => ({ id: ruleset.id, ...ruleset.fields }));
  }

  /** The classic branch protection of `branch` as last set, or undefined. */
  protection(repoName: string, branch: string): Obj | undefined {
    return this.repo(repoName).protections.get(branch);
  }

  /** Whether `branch` exists. */
  async hasBranch(repoName: string, branch: string): Promise<boolean> {
    return (await revParse(this.repo(repoName).gitDir, `refs/heads/${branch}`)) !== undefined;
  }

  /** The next `count` requests, after `skip` answered normally, fail with `fault` (a 5xx, or a 403 primary rate limit). */
  failNext(count: number, fault: Fault, skip = 0): void {
    this.faults.push(...Array.from({ length: skip }, () => undefined), ...Array.from({ length: count }, () => fault));
  }

  /** Whether the API would accept `token` (the PAT, or an installation token it issued): the git server asks the same. */
  acceptsToken(token: string): boolean {
    return this.tokens.has(token);
  }

  /** A GitHub App: its JWTs (RS256, signed with the matching private key) get installation tokens. */
  registerApp(appId: number | string, publicKeyPem: string, installationId: number): void {
    this.apps.set(String(appId), { publicKey: publicKeyPem, installationId });
  }

  // --- HTTP ---

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.url);
    const method = req.method ?? 'GET';
    const matched = this.contract.match(method, url.pathname);
    let status: number;
    let body: Json | undefined;
    let headers: Record<string, string>;
    try {
      const text = await readBody(req);
      if (matched === undefined)
        throw this.violation(`${method} ${url.pathname}: no such operation in the OpenAPI subset`);
      const requestBody = text === '' ? undefined : (JSON.parse(text) as Json);
      const fault = this.faults.shift();
      if (fault === 'rate-limit') {
        const reset = String(Math.ceil(Date.now() / 1000) + 60);
        throw new HttpError(
          403,
          'API rate limit exceeded for user ID 1.',
          {},
          { 'x-ratelimit-limit': '5000', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset },
        );
      }
      if (fault && 'message' in fault) throw new HttpError(fault.status, fault.message);
      if (fault && fault.afterEffect !== true) throw new HttpError(fault.status, 'Server Error');
      const problems = this.contract.checkRequest(
        matched.operation,
        matched.params,
        Object.fromEntries(url.searchParams),
        requestBody,
      );
      if (problems.length > 0) throw this.violation(problems.join('\n'));
      const user = this.authenticate(req.headers.authorization, matched.operation.id);
      [status, body, headers = {}] = await this.dispatch(
        matched.operation.id,
        matched.params,
        url,
        requestBody as Obj,
        user,
      );
      if (fault) throw new HttpError(fault.status, 'Server Error');
    } catch (caught) {
      // Anything but a deliberate HTTP answer is a test server bug: loud, like a contract violation.
      const error =
        caught instanceof HttpError
          ? caught
          : this.violation(`${method} ${url.pathname}: test server failed: ${String(caught)}`);
      status = error.status;
      body = { message: error.message, documentation_url: DOCS, ...error.extra };
      headers = error.headers;
    }
    if (matched !== undefined) {
      const problems = this.contract.checkResponse(matched.operation.id, status, body);
      if (problems.length > 0) {
        this.violation(problems.join('\n'));
        status = 500;
        body = { message: `test server contract violation: ${problems.join('; ')}`, documentation_url: DOCS };
      }
    }
    this.requests.push({ method, path: url.pathname, status });
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
    res.end(body === undefined ? undefined : JSON.stringify(body));
  }

  private violation(problem: string): HttpError {
    this.violations.push(problem);
    console.error(`GitHub test server: contract violation: ${problem}`);
    return new HttpError(500, `test server contract violation: ${problem}`);
  }

  private authenticate(header: string | undefined, operationId: string): string {
    const [scheme, credential = ''] = (header ?? '').split(' ');
    if (operationId === 'apps/create-installation-access-token') {
      if (scheme?.toLowerCase() !== 'bearer') throw new HttpError(401, 'A JSON web token could not be decoded');
      return this.verifyAppJwt(credential);
    }
    const user = this.tokens.get(credential);
    if (user === undefined) throw new HttpError(401, 'Bad credentials');
    return user;
  }

  private verifyAppJwt(jwt: string): string {
    const [header = '', payload = '', signature = ''] = jwt.split('.');
    let claims: { iss?: string | number; exp?: number };
    try {
      claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as typeof claims;
    } catch {
      throw new HttpError(401, 'A JSON web token could not be decoded');
    }
    const app = this.apps.get(String(claims.iss));
    const valid =
      app !== undefined &&
      verify(
        'RSA-SHA256',
        Buffer.from(`${header}.${payload}`),
        createPublicKey(app.publicKey),
        Buffer.from(signature, 'base64url'),
      );
    if (!valid) throw new HttpError(401, 'A JSON web token could not be decoded');
    if ((claims.exp ?? 0) < Date.now() / 1000)
      throw new HttpError(
        401,
        "'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires",
      );
    return String(claims.iss);
  }

  private async dispatch(
    operationId: string,
    params: Record<string, string>,
    url: URL,
    body: Obj,
    user: string,
  ): Promise<[number, Json | undefined, Record<string, string>?]> {
    if (operationId === 'apps/create-installation-access-token') {
      if (this.apps.get(user)?.installationId !== Number(params.installation_id)) throw new HttpError(404, 'Not Found');
      const token = `ghs_${randomBytes(12).toString('hex')}`;
      this.tokens.set(token, `app-${user}[bot]`);
      return [
        201,
        {
          token,
          expires_at: new Date(Date.now() + 3600_000).toISOString(),
          permissions: { contents: 'write', pull_requests: 'write', statuses: 'write' },
          repository_selection: 'all',
        },
      ];
    }
    if (operationId === 'users/get-authenticated') {
      // An installation token acts as the App, which has no user: GitHub answers 403.
      if (user.endsWith('[bot]')) throw new HttpError(403, 'Resource not accessible by integration');
      return [200, this.authenticatedUserJson(user)];
    }
    if (operationId === 'teams/get-membership-for-user-in-org') {
      // Names ignore case on GitHub; a login outside the team and a team that does not exist answer alike.
      const state = this.teams
        .get(`${params.org}/${params.team_slug}`.toLowerCase())
        ?.get(params.username?.toLowerCase() ?? '');
      if (state === undefined) throw new HttpError(404, 'Not Found');
      return [
        200,
        {
          url: `${this.url}/organizations/${idOf(params.org ?? '')}/team/${idOf(params.team_slug ?? '')}/memberships/${params.username}`,
          role: 'member',
          state,
        },
      ];
    }
    if (params.owner !== this.owner) throw new HttpError(404, 'Not Found');
    const repo = this.repos.get(params.repo ?? '');
    if (repo === undefined) throw new HttpError(404, 'Not Found');
    const number = Number(params.pull_number ?? params.issue_number);
    switch (operationId) {
      case 'repos/get':
        return [
          200,
          {
            ...this.repositoryJson(repo),
            has_discussions: false,
            network_count: 0,
            subscribers_count: 0,
            permissions: { admin: false, maintain: false, push: true, triage: true, pull: true },
          },
        ];
      case 'git/get-ref': {
        const sha = await revParse(repo.gitDir, `refs/${params.ref}`);
        if (sha === undefined) throw new HttpError(404, 'Not Found');
        return [
          200,
          {
            ref: `refs/${params.ref}`,
            node_id: nodeId('REF', repo.id),
            url: `${this.repoApi(repo)}/git/refs/${params.ref}`,
            object: { type: 'commit', sha, url: `${this.repoApi(repo)}/git/commits/${sha}` },
          },
        ];
      }
      case 'pulls/list':
        return this.page(
          url,
          await Promise.all(this.listPulls(repo, url.searchParams).map((pull) => this.pullJson(repo, pull, false))),
        );
      case 'pulls/create':
        return [201, await this.pullJson(repo, await this.createPull(repo, body, user), true)];
      case 'pulls/get':
        return [200, await this.pullJson(repo, this.pull(repo, number), true)];
      case 'pulls/update':
        return [200, await this.pullJson(repo, await this.updatePull(repo, this.pull(repo, number), body), true)];
      case 'pulls/merge':
        return [200, await this.mergePull(repo, this.pull(repo, number), body ?? {}, user)];
      case 'pulls/list-reviews':
        this.pull(repo, number);
        return this.page(
          url,
          repo.reviews.filter((review) => review.pull === number).map((review) => this.reviewJson(repo, review)),
        );
      case 'issues/list-comments':
        this.pull(repo, number);
        return this.page(
          url,
          this.comments(repo.name, number).map((comment) => this.commentJson(repo, comment)),
        );
      case 'issues/create-comment': {
        this.pull(repo, number);
        const comment = {
          id: this.id(),
          issue: number,
          body: body.body as string,
          user,
          createdAt: now(),
          updatedAt: now(),
        };
        repo.comments.push(comment);
        return [201, this.commentJson(repo, comment)];
      }
      case 'issues/update-comment': {
        const comment = repo.comments.find((c) => c.id === Number(params.comment_id));
        if (comment === undefined) throw new HttpError(404, 'Not Found');
        Object.assign(comment, { body: body.body as string, updatedAt: now() });
        return [200, this.commentJson(repo, comment)];
      }
      case 'issues/add-labels': {
        const pull = this.pull(repo, number);
        const names = ((body.labels as Json[]) ?? []).map((label) =>
          typeof label === 'string' ? label : ((label as Obj).name as string),
        );
        pull.labels = [...new Set([...pull.labels, ...names])];
        return [200, pull.labels.map((name) => this.labelJson(repo, name))];
      }
      case 'repos/create-commit-status': {
        if ((await revParse(repo.gitDir, `${params.sha}^{commit}`)) === undefined)
          throw validationFailed(`No commit found for SHA: ${params.sha}`, 'Status', 'sha');
        const status = {
          id: this.id(),
          sha: params.sha ?? '',
          state: body.state as string,
          context: (body.context as string) ?? 'default',
          description: (body.description as string) ?? null,
          targetUrl: (body.target_url as string) ?? null,
          user,
          createdAt: now(),
        };
        repo.statuses.push(status);
        return [201, this.statusJson(repo, status)];
      }
      case 'repos/get-combined-status-for-ref':
        return [200, await this.combinedStatusJson(repo, params.ref ?? '', url)];
      case 'checks/list-for-ref':
        if (this.refuse.checkRuns === 403) throw new HttpError(403, 'Resource not accessible by personal access token');
        return this.checkRunsPage(repo, await this.commitOf(repo, params.ref ?? ''), url);
      case 'repos/list-pull-requests-associated-with-commit': {
        const sha = await this.commitOf(repo, params.commit_sha ?? '');
        const pulls: Pull[] = [];
        for (const pull of [...repo.pulls.values()].sort((a, b) => b.number - a.number))
          if (pull.mergeCommitSha === sha || (await this.headSha(repo, pull)) === sha) pulls.push(pull);
        return this.page(url, await Promise.all(pulls.map((pull) => this.pullJson(repo, pull, false))));
      }
      case 'git/list-matching-refs': {
        // GitHub matches any ref that starts with the given text (git's own patterns match whole segments).
        const listed = await git(['--git-dir', repo.gitDir, 'for-each-ref', '--format=%(refname) %(objectname)']);
        const refs = listed
          .split('\n')
          .map((line) => line.split(' '))
          .filter(([ref]) => ref?.startsWith(`refs/${params.ref}`));
        return [200, refs.map(([ref = '', sha = '']) => this.refJson(repo, ref, sha))];
      }
      case 'git/delete-ref': {
        const ref = `refs/${params.ref}`;
        // GitHub's answer for a ref already gone: a 422 with this message and no error list.
        if ((await revParse(repo.gitDir, ref)) === undefined) throw new HttpError(422, 'Reference does not exist');
        await git(['--git-dir', repo.gitDir, 'update-ref', '-d', ref]);
        return [204, undefined];
      }
      case 'issues/set-labels': {
        const pull = this.pull(repo, number);
        const given = (Array.isArray(body) ? body : (body.labels as Json[] | undefined)) ?? [];
        pull.labels = [
          ...new Set(given.map((label) => (typeof label === 'string' ? label : ((label as Obj).name as string)))),
        ];
        return [200, pull.labels.map((name) => this.labelJson(repo, name))];
      }
      case 'repos/get-repo-rulesets':
        this.refuseRulesets();
        return this.page(
          url,
          [...repo.rulesets.values()].map((ruleset) => this.rulesetJson(repo, ruleset, false)),
        );
      case 'repos/create-repo-ruleset': {
        this.refuseRulesets(body);
        if ([...repo.rulesets.values()].some((ruleset) => ruleset.fields.name === body.name))
          throw validationFailed('Name must be unique', 'Ruleset', 'name');
        const ruleset: Ruleset = { id: this.id(), fields: body, createdAt: now(), updatedAt: now() };
        repo.rulesets.set(ruleset.id, ruleset);
        return [201, this.rulesetJson(repo, ruleset, true)];
      }
      case 'repos/update-repo-ruleset': {
        this.refuseRulesets(body);
        const ruleset = repo.rulesets.get(Number(params.ruleset_id));
        if (ruleset === undefined) throw new HttpError(404, 'Not Found');
        Object.assign(ruleset, { fields: { ...ruleset.fields, ...body }, updatedAt: now() });
        return [200, this.rulesetJson(repo, ruleset, true)];
      }
      case 'repos/update-branch-protection': {
        if (this.refuse.protection === 403)
          throw new HttpError(403, 'Upgrade to GitHub Pro or make this repository public to enable this feature.');
        if ((await revParse(repo.gitDir, `refs/heads/${params.branch}`)) === undefined)
          throw new HttpError(404, 'Branch not found');
        repo.protections.set(params.branch ?? '', body);
        return [200, this.protectionJson(repo, params.branch ?? '', body)];
      }
      default:
        throw this.violation(`${operationId}: in the subset but not implemented by the test server`);
    }
  }

  // --- pull request semantics ---

  private listPulls(repo: Repo, query: URLSearchParams): Pull[] {
    const state = query.get('state') ?? 'open';
    const head = query.get('head');
    const base = query.get('base');
    return (
      [...repo.pulls.values()]
        .filter((pull) => state === 'all' || pull.state === state)
        // GitHub matches `head` only in `owner:branch` form and ignores a bare branch name.
        .filter((pull) => head === null || !head.includes(':') || head === `${this.owner}:${pull.head}`)
        .filter((pull) => base === null || pull.base === base)
        .sort((a, b) => b.number - a.number)
    );
  }

  private async createPull(repo: Repo, body: Obj, user: string): Promise<Pull> {
    const head = String(body.head).replace(`${this.owner}:`, '');
    const base = String(body.base);
    if (typeof body.title !== 'string' || body.title === '')
      throw validationFailed('title is missing', 'PullRequest', 'title');
    if ((await revParse(repo.gitDir, `refs/heads/${head}`)) === undefined)
      throw validationFailed('head invalid', 'PullRequest', 'head');
    if ((await revParse(repo.gitDir, `refs/heads/${base}`)) === undefined)
      throw validationFailed('base invalid', 'PullRequest', 'base');
    if ([...repo.pulls.values()].some((pull) => pull.state === 'open' && pull.head === head && pull.base === base)) {
      throw validationFailed(`A pull request already exists for ${this.owner}:${head}.`, 'PullRequest');
    }
    const ahead = (
      await git(['--git-dir', repo.gitDir, 'rev-list', '--count', `refs/heads/${base}..refs/heads/${head}`])
    ).trim();
    if (ahead === '0') throw validationFailed(`No commits between ${base} and ${head}`, 'PullRequest');
    // Issues and PRs share one number sequence; kimops only makes PRs, so the PR count is the sequence.
    const pull: Pull = {
      number: repo.pulls.size + 1,
      id: this.id(),
      title: body.title,
      body: (body.body as string) ?? null,
      head,
      base,
      state: 'open',
      labels: [],
      mergedAt: null,
      mergeCommitSha: null,
      mergedBy: null,
      createdAt: now(),
      updatedAt: now(),
      closedAt: null,
      author: user,
    };
    repo.pulls.set(pull.number, pull);
    return pull;
  }

  private async updatePull(repo: Repo, pull: Pull, body: Obj): Promise<Pull> {
    if (typeof body.title === 'string') pull.title = body.title;
    if (typeof body.body === 'string') pull.body = body.body;
    if (typeof body.base === 'string') pull.base = body.base;
    if (body.state === 'closed' && pull.state === 'open') {
      pull.closedHeadSha = await this.headSha(repo, pull);
      Object.assign(pull, { state: 'closed', closedAt: now() });
    } else if (body.state === 'open' && pull.state === 'closed') {
      if (pull.mergedAt !== null)
        throw validationFailed('state cannot be changed. The pull request is merged.', 'PullRequest', 'state');
      Object.assign(pull, { state: 'open', closedAt: null, closedHeadSha: undefined });
    }
    pull.updatedAt = now();
    return pull;
  }

  /** GitHub's answers: 405 not mergeable (closed, conflicts, method not allowed), 409 head moved. */
  private async mergePull(repo: Repo, pull: Pull, body: Obj, user: string): Promise<Json> {
    if (pull.state !== 'open') throw new HttpError(405, 'Pull Request is not mergeable');
    const headSha = await this.headSha(repo, pull);
    if (typeof body.sha === 'string' && body.sha !== headSha)
      throw new HttpError(409, 'Head branch was modified. Review and try the merge again.');
    const method = (body.merge_method as string) ?? 'merge';
    // This test repository allows merge commits and squash merges, as landscape repos are set up.
    if (method === 'rebase') throw new HttpError(405, 'Rebase merges are not allowed on this repository.');
    const baseSha = await revParse(repo.gitDir, `refs/heads/${pull.base}`);
    const tree = baseSha === undefined ? undefined : await mergeTree(repo.gitDir, baseSha, headSha);
    if (baseSha === undefined || tree === undefined) throw new HttpError(405, 'Pull Request is not mergeable');
    const title =
      (body.commit_title as string) ??
      (method === 'squash'
        ? `${pull.title} (#${pull.number})`
        : `Merge pull request #${pull.number} from ${this.owner}/${pull.head}`);
    const message = `${title}\n\n${(body.commit_message as string) ?? pull.title}`;
    const parents = method === 'squash' ? ['-p', baseSha] : ['-p', baseSha, '-p', headSha];
    const sha = (await git(['--git-dir', repo.gitDir, 'commit-tree', tree, ...parents, '-m', message])).trim();
    // Compare-and-swap on the base, as GitHub does: a concurrent push to base fails the merge.
    await git(['--git-dir', repo.gitDir, 'update-ref', `refs/heads/${pull.base}`, sha, baseSha]);
    Object.assign(pull, {
      state: 'closed',
      closedAt: now(),
      mergedAt: now(),
      mergeCommitSha: sha,
      mergedBy: user,
      closedHeadSha: headSha,
      updatedAt: now(),
    });
    return { sha, merged: true, message: 'Pull Request successfully merged' };
  }

  private async headSha(repo: Repo, pull: Pull): Promise<string> {
    return pull.closedHeadSha ?? (await revParse(repo.gitDir, `refs/heads/${pull.head}`)) ?? '0'.repeat(40);
  }

  /** GitHub's pagination: `per_page`/`page`, and a `link` header naming the next page. */
  private page(url: URL, items: Json[]): [number, Json, Record<string, string>] {
    const perPage = Number(url.searchParams.get('per_page') ?? 30);
    const page = Number(url.searchParams.get('page') ?? 1);
    const headers: Record<string, string> = {};
    if (page * perPage < items.length) {
      const next = new URL(url);
      next.searchParams.set('page', String(page + 1));
      headers.link = `<${next.href}>; rel="next"`;
    }
    return [200, items.slice((page - 1) * perPage, page * perPage), headers];
  }

  // --- GitHub's JSON shapes: what kimops reads is modelled; the rest are well-typed placeholders ---

  private repoApi(repo: Repo): string {
    return `${this.url}/repos/${this.owner}/${repo.name}`;
  }

  private userJson(login: string): Obj {
    // A bot's login has brackets (`app-1[bot]`), which a URI must escape.
    const path = encodeURIComponent(login);
    const api = `${this.url}/users/${path}`;
    const links = Object.fromEntries(
      [
        'events',
        'followers',
        'following',
        'gists',
        'organizations',
        'received_events',
        'repos',
        'starred',
        'subscriptions',
      ].map((l) => [`${l}_url`, `${api}/${l}`]),
    );
    return {
      login,
      id: idOf(login),
      node_id: nodeId('U', idOf(login)),
      avatar_url: `${this.url}/avatars/${path}`,
      gravatar_id: '',
      url: api,
      html_url: `${this.url}/${path}`,
      type: login.endsWith('[bot]') ? 'Bot' : 'User',
      site_admin: false,
      ...links,
    };
  }

  private repositoryJson(repo: Repo): Obj {
    const api = this.repoApi(repo);
    const full = `${this.owner}/${repo.name}`;
    const links = REPO_LINKS.map((l) => [`${l}_url`, `${api}/${l.replaceAll('_', '/')}`]);
    const counts = [
      'forks',
      'forks_count',
      'open_issues',
      'open_issues_count',
      'size',
      'stargazers_count',
      'watchers',
      'watchers_count',
    ].map((k) => [k, 0]);
    return {
      id: repo.id,
      node_id: nodeId('R', repo.id),
      name: repo.name,
      full_name: full,
      owner: this.userJson(this.owner),
      private: true,
      fork: false,
      description: null,
      homepage: null,
      language: null,
      mirror_url: null,
      license: null,
      url: api,
      html_url: `${this.url}/${full}`,
      clone_url: `${this.url}/${full}.git`,
      git_url: `git://127.0.0.1/${full}.git`,
      ssh_url: `git@127.0.0.1:${full}.git`,
      svn_url: `${this.url}/${full}`,
      default_branch: repo.defaultBranch,
      archived: false,
      disabled: false,
      has_downloads: false,
      has_issues: true,
      has_projects: false,
      has_wiki: false,
      has_pages: false,
      created_at: repo.createdAt,
      updated_at: repo.createdAt,
      pushed_at: repo.createdAt,
      ...Object.fromEntries([...links, ...counts]),
    };
  }

  private labelJson(repo: Repo, name: string): Obj {
    // A string, not null: pulls/list's schema (pull-request-simple) does not allow a null description.
    return {
      id: idOf(name),
      node_id: nodeId('LA', idOf(name)),
      url: `${this.repoApi(repo)}/labels/${encodeURIComponent(name)}`,
      name,
      description: '',
      color: 'ededed',
      default: false,
    };
  }

  private async pullJson(repo: Repo, pull: Pull, full: boolean): Promise<Obj> {
    const api = `${this.repoApi(repo)}/pulls/${pull.number}`;
    const html = `${this.url}/${this.owner}/${repo.name}/pull/${pull.number}`;
    const issue = `${this.repoApi(repo)}/issues/${pull.number}`;
    const headSha = await this.headSha(repo, pull);
    const end = (branch: string, sha: string) => ({
      label: `${this.owner}:${branch}`,
      ref: branch,
      sha,
      repo: this.repositoryJson(repo),
      user: this.userJson(this.owner),
    });
    const statuses = `${this.repoApi(repo)}/statuses/${headSha}`;
    const json: Obj = {
      url: api,
      id: pull.id,
      node_id: nodeId('PR', pull.id),
      html_url: html,
      diff_url: `${html}.diff`,
      patch_url: `${html}.patch`,
      issue_url: issue,
      commits_url: `${api}/commits`,
      review_comments_url: `${api}/comments`,
      review_comment_url: `${this.repoApi(repo)}/pulls/comments{/number}`,
      comments_url: `${issue}/comments`,
      statuses_url: statuses,
      number: pull.number,
      state: pull.state,
      locked: false,
      title: pull.title,
      body: pull.body,
      user: this.userJson(pull.author),
      labels: pull.labels.map((name) => this.labelJson(repo, name)),
      milestone: null,
      assignee: null,
      auto_merge: null,
      author_association: 'NONE',
      created_at: pull.createdAt,
      updated_at: pull.updatedAt,
      closed_at: pull.closedAt,
      merged_at: pull.mergedAt,
      merge_commit_sha: pull.mergeCommitSha,
      head: end(pull.head, headSha),
      base: end(pull.base, (await revParse(repo.gitDir, `refs/heads/${pull.base}`)) ?? headSha),
      _links: Object.fromEntries(
        Object.entries({
          self: api,
          html,
          issue,
          comments: `${issue}/comments`,
          review_comments: `${api}/comments`,
          review_comment: `${this.repoApi(repo)}/pulls/comments{/number}`,
          commits: `${api}/commits`,
          statuses,
        }).map(([k, href]) => [k, { href }]),
      ),
    };
    if (!full) return json;
    // GitHub computes mergeability on a single-PR read only; lists leave it out.
    const mergeable =
      pull.state === 'open' ? (await mergeTree(repo.gitDir, `refs/heads/${pull.base}`, headSha)) !== undefined : null;
    return {
      ...json,
      merged: pull.mergedAt !== null,
      mergeable,
      mergeable_state: mergeable === null ? 'unknown' : mergeable ? 'clean' : 'dirty',
      merged_by: pull.mergedBy === null ? null : this.userJson(pull.mergedBy),
      maintainer_can_modify: false,
      comments: this.comments(repo.name, pull.number).length,
      review_comments: 0,
      commits: 1,
      additions: 0,
      deletions: 0,
      changed_files: 0,
    };
  }

  private commentJson(repo: Repo, comment: Repo['comments'][number]): Obj {
    const html = `${this.url}/${this.owner}/${repo.name}/pull/${comment.issue}#issuecomment-${comment.id}`;
    return {
      id: comment.id,
      node_id: nodeId('IC', comment.id),
      url: `${this.repoApi(repo)}/issues/comments/${comment.id}`,
      html_url: html,
      issue_url: `${this.repoApi(repo)}/issues/${comment.issue}`,
      body: comment.body,
      user: this.userJson(comment.user),
      created_at: comment.createdAt,
      updated_at: comment.updatedAt,
      author_association: 'NONE',
    };
  }

  private reviewJson(repo: Repo, review: Repo['reviews'][number]): Obj {
    const pullApi = `${this.repoApi(repo)}/pulls/${review.pull}`;
    const html = `${this.url}/${this.owner}/${repo.name}/pull/${review.pull}#pullrequestreview-${review.id}`;
    return {
      id: review.id,
      node_id: nodeId('PRR', review.id),
      user: this.userJson(review.user),
      body: review.body,
      state: review.state,
      commit_id: review.commitId,
      html_url: html,
      pull_request_url: pullApi,
      _links: { html: { href: html }, pull_request: { href: pullApi } },
      submitted_at: review.submittedAt,
      author_association: review.association,
    };
  }

  private statusJson(repo: Repo, status: Repo['statuses'][number]): Obj {
    return {
      id: status.id,
      node_id: nodeId('SC', status.id),
      url: `${this.repoApi(repo)}/statuses/${status.sha}`,
      avatar_url: null,
      state: status.state,
      description: status.description,
      target_url: status.targetUrl,
      context: status.context,
      created_at: status.createdAt,
      updated_at: status.createdAt,
      creator: this.userJson(status.user),
    };
  }

  /** The commit a ref names (a sha, a branch or a tag); 422 as GitHub answers an unknown one. */
  private async commitOf(repo: Repo, ref: string): Promise<string> {
    const sha = (await revParse(repo.gitDir, `${ref}^{commit}`)) ?? (await revParse(repo.gitDir, `refs/heads/${ref}`));
    if (sha === undefined) throw validationFailed(`No commit found for SHA: ${ref}`, 'Commit', 'sha');
    return sha;
  }

  /** The latest status per context, newest first, and their combined state (pending when there are none). */
  private async combinedStatusJson(repo: Repo, ref: string, url: URL): Promise<Obj> {
    const sha = await this.commitOf(repo, ref);
    const latest = new Map<string, Repo['statuses'][number]>();
    for (const status of repo.statuses.filter((s) => s.sha === sha)) latest.set(status.context, status);
    const statuses = [...latest.values()].reverse();
    const states = statuses.map((status) => status.state);
    // GitHub's rule: any failure or error fails, else any pending (or no status at all) is pending.
    const state = states.some((s) => s === 'failure' || s === 'error')
      ? 'failure'
      : states.length === 0 || states.includes('pending')
        ? 'pending'
        : 'success';
    const perPage = Number(url.searchParams.get('per_page') ?? 30);
    const page = Number(url.searchParams.get('page') ?? 1);
    return {
      state,
      statuses: statuses.slice((page - 1) * perPage, page * perPage).map((status) => this.statusJson(repo, status)),
      sha,
      total_count: statuses.length,
      repository: this.repositoryJson(repo),
      commit_url: `${this.repoApi(repo)}/commits/${sha}`,
      url: `${this.repoApi(repo)}/commits/${sha}/status`,
    };
  }

  private checkRunsPage(repo: Repo, sha: string, url: URL): [number, Json, Record<string, string>] {
    const all = repo.checkRuns.filter((run) => run.sha === sha);
    const name = url.searchParams.get('check_name');
    const newest = new Map<string, CheckRun>();
    for (const run of all) newest.set(run.name, run);
    const runs = (url.searchParams.get('filter') === 'all' ? all : [...newest.values()])
      .filter((run) => name === null || run.name === name)
      .reverse();
    const [status, page, headers] = this.page(
      url,
      runs.map((run) => this.checkRunJson(repo, run)),
    );
    return [status, { total_count: runs.length, check_runs: page }, headers];
  }

  private checkRunJson(repo: Repo, run: CheckRun): Obj {
    const api = `${this.repoApi(repo)}/check-runs/${run.id}`;
    const html = `${this.url}/${this.owner}/${repo.name}/runs/${run.id}`;
    return {
      id: run.id,
      head_sha: run.sha,
      node_id: nodeId('CR', run.id),
      external_id: '',
      url: api,
      html_url: html,
      details_url: html,
      status: run.status,
      conclusion: run.conclusion,
      started_at: run.startedAt,
      completed_at: run.completedAt,
      output: { title: null, summary: null, text: null, annotations_count: 0, annotations_url: `${api}/annotations` },
      name: run.name,
      check_suite: { id: run.id + 1 },
      app: null,
      pull_requests: [],
    };
  }

  private refJson(repo: Repo, ref: string, sha: string): Obj {
    return {
      ref,
      node_id: nodeId('REF', idOf(ref)),
      url: `${this.repoApi(repo)}/git/${ref}`,
      object: { type: 'commit', sha, url: `${this.repoApi(repo)}/git/commits/${sha}` },
    };
  }

  private authenticatedUserJson(login: string): Obj {
    return {
      ...this.userJson(login),
      name: null,
      company: null,
      blog: null,
      location: null,
      email: null,
      hireable: null,
      bio: null,
      public_repos: 0,
      public_gists: 0,
      followers: 0,
      following: 0,
      created_at: '2020-01-01T00:00:00Z',
      updated_at: '2020-01-01T00:00:00Z',
      private_gists: 0,
      total_private_repos: 0,
      owned_private_repos: 0,
      disk_usage: 0,
      collaborators: 0,
      two_factor_authentication: true,
    };
  }

  private refuseRulesets(body?: Obj): void {
    const actors = (body?.bypass_actors as Obj[] | undefined) ?? [];
    if (this.refuse.userBypass === 422 && actors.some((actor) => actor.actor_type === 'User'))
      throw validationFailed('Invalid actor_type: User', 'Ruleset', 'bypass_actors');
    if (this.refuse.rulesets === 404) throw new HttpError(404, 'Not Found');
    if (this.refuse.rulesets === 403)
      throw new HttpError(403, 'Upgrade to GitHub Pro or make this repository public to enable this feature.');
  }

  /** A ruleset as GitHub answers it: the list leaves out conditions, rules and bypass actors. */
  private rulesetJson(repo: Repo, ruleset: Ruleset, full: boolean): Obj {
    const api = `${this.repoApi(repo)}/rulesets/${ruleset.id}`;
    const { name, target, enforcement, bypass_actors, conditions, rules } = ruleset.fields;
    return {
      id: ruleset.id,
      name: name as string,
      target: (target as string) ?? 'branch',
      source_type: 'Repository',
      source: `${this.owner}/${repo.name}`,
      enforcement: enforcement as string,
      node_id: nodeId('RRS', ruleset.id),
      _links: { self: { href: api }, html: { href: `${this.url}/${this.owner}/${repo.name}/rules/${ruleset.id}` } },
      created_at: ruleset.createdAt,
      updated_at: ruleset.updatedAt,
      ...(full
        ? {
            bypass_actors: bypass_actors ?? [],
            current_user_can_bypass: 'always',
            conditions: conditions ?? null,
            rules: rules ?? [],
          }
        : {}),
    };
  }

  private protectionJson(repo: Repo, branch: string, body: Obj): Obj {
    const api = `${this.repoApi(repo)}/branches/${encodeURIComponent(branch)}/protection`;
    const checks = body.required_status_checks as Obj | null;
    const reviews = body.required_pull_request_reviews as Obj | null;
    const bypass = (reviews?.bypass_pull_request_allowances as Obj | undefined) ?? {};
    const enabled = (value: Json | undefined) => ({ enabled: value === true });
    return {
      url: api,
      ...(checks === null
        ? {}
        : {
            required_status_checks: {
              url: `${api}/required_status_checks`,
              strict: checks.strict === true,
              contexts: (checks.contexts as Json[]) ?? [],
              checks: ((checks.contexts as string[]) ?? []).map((context) => ({ context, app_id: null })),
              contexts_url: `${api}/required_status_checks/contexts`,
            },
          }),
      ...(reviews === null
        ? {}
        : {
            required_pull_request_reviews: {
              url: `${api}/required_pull_request_reviews`,
              dismiss_stale_reviews: reviews.dismiss_stale_reviews === true,
              require_code_owner_reviews: reviews.require_code_owner_reviews === true,
              required_approving_review_count: (reviews.required_approving_review_count as number) ?? 1,
              require_last_push_approval: reviews.require_last_push_approval === true,
              bypass_pull_request_allowances: {
                users: ((bypass.users as string[]) ?? []).map((login) => this.userJson(login)),
                teams: [],
              },
            },
          }),
      enforce_admins: { url: `${api}/enforce_admins`, enabled: body.enforce_admins === true },
      allow_force_pushes: enabled(body.allow_force_pushes),
      allow_deletions: enabled(body.allow_deletions),
      required_linear_history: enabled(body.required_linear_history),
    };
  }

  private repo(name: string): Repo {
    const repo = this.repos.get(name);
    if (repo === undefined) throw new Error(`GitHub test server: no repo ${name}; createRepo() it first`);
    return repo;
  }

  private pull(repo: Repo, number: number): Pull {
    const pull = repo.pulls.get(number);
    if (pull === undefined) throw new HttpError(404, 'Not Found');
    return pull;
  }

  private id(): number {
    return this.nextId++;
  }
}

const REPO_LINKS =
  'archive assignees blobs branches collaborators comments commits compare contents contributors deployments downloads events forks git_commits git_refs git_tags hooks issue_comment issue_events issues keys labels languages merges milestones notifications pulls releases stargazers statuses subscribers subscription tags teams trees'.split(
    ' ',
  );

function validationFailed(message: string, resource: string, field?: string): HttpError {
  return new HttpError(422, 'Validation Failed', {
    errors: [{ resource, code: field ? 'invalid' : 'custom', ...(field ? { field } : {}), message }],
  });
}

function now(): string {
  return rfc3339Seconds(new Date());
}

/** Stable ids for names (users, labels), so the same login is the same id across responses. */
function idOf(name: string): number {
  let hash = 7;
  for (const char of name) hash = (hash * 31 + char.charCodeAt(0)) % 1_000_000_007;
  return hash;
}

function nodeId(prefix: string, id: number): string {
  return `${prefix}_${Buffer.from(String(id)).toString('base64url')}`;
}

async function git(args: string[]): Promise<string> {
  const { stdout } = await run('git', args, { env: { ...process.env, ...GIT_ENV } });
  return stdout;
}

async function revParse(gitDir: string, rev: string): Promise<string | undefined> {
  try {
    return (await git(['--git-dir', gitDir, 'rev-parse', '--verify', '--quiet', rev])).trim() || undefined;
  } catch {
    return undefined;
  }
}

/** The merged tree of two commits, or undefined when they conflict (`git merge-tree` exits 1). */
async function mergeTree(gitDir: string, base: string, head: string): Promise<string | undefined> {
  try {
    // The first line of the output is the tree; conflict details follow it.
    return (await git(['--git-dir', gitDir, 'merge-tree', '--write-tree', base, head])).split('\n', 1)[0]?.trim();
  } catch (error) {
    if ((error as { code?: number }).code === 1) return undefined;
    throw error;
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
