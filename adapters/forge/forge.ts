// The forge as the generator needs it: pull requests on one landscape repo, their reviews, labels, the checks
// on a commit (statuses and check runs), a commit status and one sticky comment per concern, the branches, and
// who is in a team CODEOWNERS names. Implementations: `github.ts` (GitHub and GitHub Enterprise), `local.ts`.
// Expected failures are values (`ForgeResult`), so the pipeline decides what a 404 or a moved head means.
// `retrying.ts` wraps any Forge with retries of transient failures that never repeat a side effect.

export interface PullRequest {
  number: number;
  /** Where a human reviews it. */
  url: string;
  branch: string;
  base: string;
  headSha: string;
  title: string;
  body: string;
  state: 'open' | 'closed';
  merged: boolean;
  /** The commit the merge made on the base branch; set only once merged. */
  mergeCommitSha?: string;
  labels: string[];
  /** When it was opened (RFC 3339); absent for local records written before kimops recorded it. */
  createdAt?: string;
}

export interface Approval {
  reviewer: string;
  /** The head the approval was given on: the merge policy decides whether a later push voids it. */
  commitSha: string;
}

export type MergeMethod = 'merge' | 'squash' | 'rebase';
export type StatusState = 'pending' | 'success' | 'failure' | 'error';

/**
 * One check on a commit as a merge gate reads it: a commit status (by its context) or a check run (by its
 * name), normalised to three states. GitHub counts a check run that ended neutral or skipped as passing, and
 * one that was cancelled, timed out or wants an action as failing; a status in `error` fails too.
 */
export interface CommitCheck {
  name: string;
  source: 'status' | 'check-run';
  state: 'pending' | 'success' | 'failure';
  /** The status's description or the check run's conclusion, for a reason a reviewer reads. */
  description: string;
  url?: string;
}

export interface ChecksQuery {
  /** The check names wanted from check runs (kimops.yaml's requiredChecks); every check run when absent. */
  checkRunsFor?: readonly string[];
}

export type ForgeFailure =
  | { kind: 'not-found'; message: string }
  | { kind: 'conflict'; message: string }
  /** The forge refused the input (422): e.g. a PR for a branch that does not exist. */
  | { kind: 'invalid'; message: string }
  /** Merge refused because the head is no longer the commit that was validated and approved. */
  | { kind: 'head-moved'; message: string }
  /** Merge refused: conflicts, failing required checks or a disallowed method (405). */
  | { kind: 'not-mergeable'; message: string }
  | { kind: 'rate-limited'; message: string; retryAfterSeconds: number }
  | { kind: 'unauthorized'; message: string }
  /** Anything else: the forge is unreachable or failed (5xx); the message names the forge and the fix. */
  | { kind: 'transport'; message: string; status?: number };

export type ForgeResult<T> = { ok: true; value: T } | { ok: false; failure: ForgeFailure };

export interface Forge {
  /** Names the forge and repository in messages, e.g. `GitHub https://api.github.com acme/landscape-dev`. */
  readonly label: string;
  defaultBranch(): Promise<ForgeResult<string>>;
  /** The branch's head commit, or undefined when the branch does not exist. */
  branchHead(branch: string): Promise<ForgeResult<string | undefined>>;
  /** Pull request `number` in any state; `not-found` when there is none. */
  getPullRequest(number: number): Promise<ForgeResult<PullRequest>>;
  /** The one open PR from `branch` (kimops never opens a second one), if any. */
  findOpenPullRequest(branch: string): Promise<ForgeResult<PullRequest | undefined>>;
  openPullRequest(request: {
    branch: string;
    base: string;
    title: string;
    body: string;
    labels?: string[];
  }): Promise<ForgeResult<PullRequest>>;
  updatePullRequest(
    number: number,
    change: { title?: string; body?: string; state?: 'open' | 'closed' },
  ): Promise<ForgeResult<PullRequest>>;
  closePullRequest(number: number, comment?: string): Promise<ForgeResult<PullRequest>>;
  /** Merges only if the head is still `sha`; otherwise `head-moved`. Returns the merge commit. */
  mergePullRequest(
    number: number,
    options: { sha: string; method: MergeMethod },
  ): Promise<ForgeResult<{ sha: string }>>;
  /**
   * Reviewers whose latest review approves and who belong to the repository: on GitHub, reviews whose
   * author_association is OWNER, MEMBER or COLLABORATOR (anyone may review a public repo's PR). Whether an
   * approval counts for a class that needs review is the code owners' rule (generator/code-owner-approvals.ts).
   */
  approvals(number: number): Promise<ForgeResult<Approval[]>>;
  /**
   * Whether `user` is an active member of `org`'s team `team` (its slug), as CODEOWNERS names it `@org/team`.
   * False also where the team does not exist or is hidden from kimops (GitHub answers both with 404).
   */
  isTeamMember(org: string, team: string, user: string): Promise<ForgeResult<boolean>>;
  setCommitStatus(
    sha: string,
    status: { context: string; state: StatusState; description: string; targetUrl?: string },
  ): Promise<ForgeResult<void>>;
  /** One comment per `marker` on the PR: updated in place, never duplicated. */
  upsertStickyComment(
    number: number,
    marker: string,
    body: string,
  ): Promise<ForgeResult<{ id: number; created: boolean }>>;
  listOpenPullRequests(filter?: { labelPrefix?: string }): Promise<ForgeResult<PullRequest[]>>;
  /** The merged pull requests whose merge commit is `sha` (none for a commit pushed to the base directly). */
  pullRequestsOfCommit(sha: string): Promise<ForgeResult<PullRequest[]>>;
  /**
   * The checks on commit `sha`: every status (the latest per context), then the check runs (the latest per name),
   * with `checkRunsFor` only those of these names that no status covers, none when it names none (statuses only).
   * A required check run the credentials may not read (GitHub's 403: fine-grained tokens cannot be granted the
   * Checks permission) comes back `pending`, its description naming the fix: the merge waits, the pass goes on.
   */
  checksOf(sha: string, options?: ChecksQuery): Promise<ForgeResult<CommitCheck[]>>;
  /**
   * Deletes `branch`; with `ifHeadIs`, only while it still points there (else `head-moved`: someone pushed
   * to it since). `deleted: false` when the branch did not exist.
   */
  deleteBranch(branch: string, options?: { ifHeadIs?: string }): Promise<ForgeResult<{ deleted: boolean }>>;
  /** Replaces the PR's labels with `labels`; returns the labels it now has. */
  setLabels(number: number, labels: string[]): Promise<ForgeResult<string[]>>;
  /** The branches whose names start with `prefix`, with their heads. */
  listBranches(prefix: string): Promise<ForgeResult<{ name: string; sha: string }[]>>;
  /** The newest closed or merged PR from `branch`, if any: whose branch a leftover is. */
  lastClosedPullRequest(branch: string): Promise<ForgeResult<PullRequest | undefined>>;
  /**
   * Who reports checks on this forge's commits: `ci` (GitHub: workflows, apps, anyone with statuses access), or
   * `kimops` only (the local forge), where a required check kimops does not post never arrives.
   */
  readonly checkReporters: 'ci' | 'kimops';
}

/** Hidden in the rendered comment; lets kimops find its own comment again after a restart. */
export function stickyTag(marker: string): string {
  return `<!-- kimops:${marker} -->`;
}
