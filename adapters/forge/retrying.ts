// A Forge that retries transient failures (a 5xx, a dropped or silent connection, a short rate limit)
// with exponential backoff, and returns every other failure at once. A retry never repeats a side
// effect: before a write is tried again, the forge is asked whether the first try already took effect
// (the response may be lost after GitHub acted), because kimops must never open a second PR (docs/design.md §2).
import type { Forge, ForgeFailure, ForgeResult, MergeMethod, PullRequest } from './forge.js';
import { backoffDelayMs } from '../../model/backoff.js';

/** Tries per call, the first included. Four spans 1+2+4 s of backoff: long enough for a GitHub blip. */
export const DEFAULT_ATTEMPTS = 4;
const DEFAULT_BASE_DELAY_MS = 1_000;
/** No single backoff wait is longer than this. */
const DEFAULT_MAX_DELAY_MS = 30_000;
/**
 * A rate limit that lifts within this is waited out; a longer one (a primary limit resets hourly) is
 * returned at once, so the caller ends its pass and tries again later instead of blocking for an hour.
 */
const DEFAULT_MAX_RATE_LIMIT_WAIT_SECONDS = 120;
/** The marker of the comment a retried closePullRequest leaves, so a retry updates it instead of adding a second. */
export const CLOSE_COMMENT_MARKER = 'close-reason';

export interface RetryEvent {
  /** The wrapped forge's label. */
  forge: string;
  /** The Forge method, e.g. `openPullRequest`. */
  operation: string;
  /** The attempt that failed, from 1. */
  attempt: number;
  /** How long until the next attempt. */
  waitMs: number;
  failure: ForgeFailure;
  /** One line for a log: forge, operation, failure and wait. */
  message: string;
}

export interface RetryOptions {
  attempts?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  maxRateLimitWaitSeconds?: number;
  /** Injectable for tests; a real timer when absent. */
  sleep?: (ms: number) => Promise<void>;
  /** Called before each wait. */
  log?: (event: RetryEvent) => void;
}

const TRANSIENT: ReadonlySet<ForgeFailure['kind']> = new Set(['transport', 'rate-limited']);

export function withRetries(forge: Forge, options: RetryOptions = {}): Forge {
  const attempts = Math.max(1, options.attempts ?? DEFAULT_ATTEMPTS);
  const baseDelayMs = options.baseDelayMs ?? DEFAULT_BASE_DELAY_MS;
  const maxDelayMs = options.maxDelayMs ?? DEFAULT_MAX_DELAY_MS;
  const maxRateLimitWaitMs = (options.maxRateLimitWaitSeconds ?? DEFAULT_MAX_RATE_LIMIT_WAIT_SECONDS) * 1000;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));

  /** The wait before the attempt after `attempt`, or undefined when the failure should be returned now. */
  const waitAfter = (attempt: number, failure: ForgeFailure): number | undefined => {
    if (attempt >= attempts) return undefined;
    if (failure.kind === 'rate-limited') {
      const waitMs = failure.retryAfterSeconds * 1000;
      return waitMs > maxRateLimitWaitMs ? undefined : waitMs;
    }
    return backoffDelayMs(attempt, { initialMs: baseDelayMs, maxMs: maxDelayMs });
  };

  /**
   * Runs `run` until it succeeds, fails for good, or the attempts are used up. `alreadyDone`, for
   * writes, runs before every retry: a value means the earlier try took effect, and it is the result.
   */
  const retrying = async <T>(
    operation: string,
    run: () => Promise<ForgeResult<T>>,
    alreadyDone?: () => Promise<ForgeResult<T | undefined>>,
  ): Promise<ForgeResult<T>> => {
    for (let attempt = 1; ; attempt++) {
      let result: ForgeResult<T>;
      const done = attempt > 1 && alreadyDone !== undefined ? await alreadyDone() : undefined;
      if (done !== undefined && !done.ok) result = done;
      else if (done?.value !== undefined) return { ok: true, value: done.value };
      else result = await run();
      if (result.ok || !TRANSIENT.has(result.failure.kind)) return result;
      const waitMs = waitAfter(attempt, result.failure);
      if (waitMs === undefined) return result;
      const seconds = Math.round(waitMs / 100) / 10;
      options.log?.({
        forge: forge.label,
        operation,
        attempt,
        waitMs,
        failure: result.failure,
        message: `${forge.label}: ${operation} failed (attempt ${attempt} of ${attempts}, ${result.failure.kind}): ${result.failure.message}; retrying in ${seconds} s`,
      });
      await sleep(waitMs);
    }
  };

  const open: Forge['openPullRequest'] = (request) =>
    retrying(
      'openPullRequest',
      () => forge.openPullRequest(request),
      () => forge.findOpenPullRequest(request.branch),
    );

  const merge = (number: number, mergeOptions: { sha: string; method: MergeMethod }) =>
    retrying(
      'mergePullRequest',
      () => forge.mergePullRequest(number, mergeOptions),
      async (): Promise<ForgeResult<{ sha: string } | undefined>> => {
        const pull = await forge.getPullRequest(number);
        if (!pull.ok) return pull;
        return {
          ok: true,
          value:
            pull.value.merged && pull.value.mergeCommitSha !== undefined
              ? { sha: pull.value.mergeCommitSha }
              : undefined,
        };
      },
    );

  const closed = (number: number) => async (): Promise<ForgeResult<PullRequest | undefined>> => {
    const pull = await forge.getPullRequest(number);
    return pull.ok ? { ok: true, value: pull.value.state === 'closed' ? pull.value : undefined } : pull;
  };

  return {
    label: forge.label,
    checkReporters: forge.checkReporters,
    defaultBranch: () => retrying('defaultBranch', () => forge.defaultBranch()),
    branchHead: (branch) => retrying('branchHead', () => forge.branchHead(branch)),
    getPullRequest: (number) => retrying('getPullRequest', () => forge.getPullRequest(number)),
    findOpenPullRequest: (branch) => retrying('findOpenPullRequest', () => forge.findOpenPullRequest(branch)),
    openPullRequest: open,
    // Setting the same fields again is harmless.
    updatePullRequest: (number, change) => retrying('updatePullRequest', () => forge.updatePullRequest(number, change)),
    closePullRequest: async (number, comment) => {
      // A plain comment posted by a lost try would be posted again; a sticky one is found and updated.
      if (comment !== undefined) {
        const commented: ForgeResult<unknown> = await retrying('closePullRequest', () =>
          forge.upsertStickyComment(number, CLOSE_COMMENT_MARKER, comment),
        );
        if (!commented.ok) return commented;
      }
      return retrying('closePullRequest', () => forge.closePullRequest(number), closed(number));
    },
    mergePullRequest: merge,
    approvals: (number) => retrying('approvals', () => forge.approvals(number)),
    isTeamMember: (org, team, user) => retrying('isTeamMember', () => forge.isTeamMember(org, team, user)),
    // A repeated status with the same context replaces the first: the latest per context counts.
    setCommitStatus: (sha, status) => retrying('setCommitStatus', () => forge.setCommitStatus(sha, status)),
    // Finds its comment by the marker on every try, so a lost create is updated, not duplicated.
    upsertStickyComment: (number, marker, body) =>
      retrying('upsertStickyComment', () => forge.upsertStickyComment(number, marker, body)),
    listOpenPullRequests: (filter) => retrying('listOpenPullRequests', () => forge.listOpenPullRequests(filter)),
    pullRequestsOfCommit: (sha) => retrying('pullRequestsOfCommit', () => forge.pullRequestsOfCommit(sha)),
    checksOf: (sha, query) => retrying('checksOf', () => forge.checksOf(sha, query)),
    // A try whose answer was lost may have deleted the branch: gone now means deleted by that try.
    deleteBranch: (branch, deleteOptions) =>
      retrying(
        'deleteBranch',
        () => forge.deleteBranch(branch, deleteOptions),
        async (): Promise<ForgeResult<{ deleted: boolean } | undefined>> => {
          const head = await forge.branchHead(branch);
          if (!head.ok) return head;
          return { ok: true, value: head.value === undefined ? { deleted: true } : undefined };
        },
      ),
    // Setting the same labels again is harmless.
    setLabels: (number, labels) => retrying('setLabels', () => forge.setLabels(number, labels)),
    listBranches: (prefix) => retrying('listBranches', () => forge.listBranches(prefix)),
    lastClosedPullRequest: (branch) => retrying('lastClosedPullRequest', () => forge.lastClosedPullRequest(branch)),
  };
}
