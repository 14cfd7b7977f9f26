// Writes the applier's report (report-back.ts) to the forge: the `kimops/apply` status of each commit of main a
// sync brought, and the sticky comment on the pull request that merged it, kept up to date as Gardener
// progresses until the commit's status settles (success or failure). Beside the sync, never in its way: the CLI tells it
// when a sync starts and what it did, and the forge calls run afterwards, one at a time, in a chain of their own
// (a sync never waits for the forge, and a forge that fails only delays the report: it is logged and tried again
// after the next sync). Writes only what the forge does not show yet: what this process wrote is remembered, and
// what it has not seen is read first (the latest status of the context), so neither a no-op sync nor a restart
// writes anything twice. A report that settled (success or failure shown) is never written again: a restarted
// applier follows only the commits whose status is missing or pending, so a Shoot changed again by a later commit
// or reconciled again by Gardener never rewrites an older PR's facts. Each round makes at most `maxCalls` forge
// calls, newest commits first; the rest waits for the next sync, by which time only the newest state of each is
// left to write (coalesced).
import type { Forge, ForgeResult } from '../adapters/forge/forge.js';
import type { LogLine } from '../model/log.js';
import type { PlanEntry } from './plan.js';
import type { SyncResult } from './sync.js';
import { APPLY_COMMENT_MARKER, APPLY_STATUS_CONTEXT } from '../model/contract.js';
import {
  changedShoots,
  commitReport,
  startedStatus,
  statusShown,
  type ApplyStatus,
  type CommitChange,
  type GardenTarget,
  type ShootProgress,
  type SyncOutcome,
} from './report-back.js';

/** What reporting needs of the forge. */
export type ReportForge = Pick<
  Forge,
  'label' | 'checksOf' | 'pullRequestsOfCommit' | 'setCommitStatus' | 'upsertStickyComment'
>;

/** What reporting reads of the landscape repo. */
export interface ReportRepo {
  /** `from` and its first-parent ancestors, newest first, at most `limit`, stopping before `until`. */
  firstParents(from: string, options: { limit: number; until?: string }): Promise<string[]>;
  /** The Shoot folders of a commit: name → tree. */
  shootTrees(commit: string): Promise<ReadonlyMap<string, string>>;
}

export interface ReportBackOptions {
  forge: ReportForge;
  repo: ReportRepo;
  log: LogLine;
  /** Forge calls per round (reads included); default MAX_CALLS_PER_ROUND. */
  maxCalls?: number;
}

/**
 * Forge calls a round (one round per sync), reads included: well below the 80 content-creating requests a minute
 * GitHub's secondary rate limit allows, even when merges bring a sync every few seconds (each brings its own few).
 */
const MAX_CALLS_PER_ROUND = 30;
/**
 * A restarted applier looks this far back on main for reports to finish: it reads each one's status once and
 * follows only those showing none or `pending`.
 */
const FIRST_WINDOW = 10;
/** Commits one sync may bring that are reported; a larger burst's older commits get no report. */
const MAX_NEW_COMMITS = 100;
/** Commits followed until they settle; the oldest beyond this are given up (their last report stays). */
const MAX_OPEN = 50;
/** What is remembered of the forge (statuses, comments, PRs per commit): bounded, the oldest forgotten first. */
const MAX_REMEMBERED = 1_000;

/** What a writing sync did: its plan's entries and the writes' result (applier/sync-commit.ts's SyncReport has both). */
export interface SyncFacts {
  entries: readonly PlanEntry[];
  result: SyncResult;
}

/** A commit followed until its report settles. */
interface Followed {
  change: CommitChange;
  /** Its Shoots' lines that settled in an earlier report (Ready, …): said again as they were. */
  kept: ReadonlyMap<string, ShootProgress>;
}

/** What a commit should show; `ifNone`: only when it shows no status at all (the pending of a starting sync). */
interface Wanted {
  status: ApplyStatus;
  comment?: string;
  ifNone?: boolean;
}

export class ReportBack {
  private readonly forge: ReportForge;
  private readonly repo: ReportRepo;
  private readonly log: LogLine;
  private readonly maxCalls: number;
  /** main's commit the last sync started from: the next sync reports the commits after it. */
  private lastHead: string | undefined;
  /** Commits whose report has not settled, oldest first, with the Shoot lines that have (kept as they are). */
  private readonly open = new Map<string, Followed>();
  /** What each commit should show that it may not show yet. */
  private readonly wanted = new Map<string, Wanted>();
  /** The status each commit shows on the forge (null: none), as read or written. */
  private readonly shown = new Map<string, ApplyStatus | null>();
  /** The comment body each PR shows, as written. */
  private readonly comments = new Map<number, string>();
  /** The PRs each commit merged, as looked up. */
  private readonly pulls = new Map<string, number[]>();
  /** The tail of the chain every step runs in. */
  private chain: Promise<void> = Promise.resolve();
  /** The round queued last, until it starts, when no step was queued after it. */
  private queuedRound: object | undefined;

  constructor(options: ReportBackOptions) {
    this.forge = options.forge;
    this.repo = options.repo;
    this.log = options.log;
    this.maxCalls = options.maxCalls ?? MAX_CALLS_PER_ROUND;
  }

  /** A sync of `head` starts: the commits it brings are found, and marked pending where they show nothing yet. */
  syncStarting(head: string, garden: GardenTarget): void {
    this.after(async () => {
      for (const sha of await this.discover(head)) this.want(sha, { status: startedStatus(garden), ifNone: true });
    });
    this.round();
  }

  /** A writing sync of `head` ended with `outcome`: every open commit's report is computed again. */
  synced(head: string, outcome: SyncFacts, garden: GardenTarget): void {
    this.after(async () => {
      const facts: SyncOutcome = {
        trees: await this.repo.shootTrees(head),
        entries: new Map(outcome.entries.map((entry) => [entry.shoot, entry])),
        result: outcome.result,
      };
      for (const [sha, followed] of this.open) {
        const report = commitReport(followed.change, facts, garden, followed.kept);
        this.want(sha, { status: report.status, comment: report.comment });
        if (report.settled) this.open.delete(sha);
        else followed.kept = report.settledShoots;
      }
    });
    this.round();
  }

  /** Settles once every step asked for so far has run (the CLI waits for it before it exits or hands over). */
  idle(): Promise<void> {
    return this.chain;
  }

  private after(step: () => Promise<void>): void {
    // A round queued before this step must not stand for one after it.
    this.queuedRound = undefined;
    this.enqueue(step);
  }

  private enqueue(step: () => Promise<void>): void {
    this.chain = this.chain.then(step).catch((error: unknown) => {
      // A bug or an unreadable repo must not stop later reports, nor the sync: said, and the next sync tries again.
      this.log(`report back: ${error instanceof Error ? error.message : String(error)}`, {}, 'warn');
    });
  }

  /** One round of forge calls after the steps queued so far; a round still waiting at the end covers this one. */
  private round(): void {
    if (this.queuedRound) return;
    const round = {};
    this.queuedRound = round;
    this.enqueue(async () => {
      if (this.queuedRound === round) this.queuedRound = undefined;
      await this.write();
    });
  }

  private want(sha: string, wanted: Wanted): void {
    // A starting sync's pending never replaces what an earlier sync's outcome asked for.
    if (wanted.ifNone && this.wanted.has(sha)) return;
    this.wanted.delete(sha);
    this.wanted.set(sha, wanted); // newest last
  }

  /** The commits `head` brings since the last sync (a first sync: a window of main), now followed; newest first. */
  private async discover(head: string): Promise<string[]> {
    if (head === this.lastHead) return [];
    const first = this.lastHead === undefined;
    const limit = first ? FIRST_WINDOW : MAX_NEW_COMMITS;
    const commits = await this.repo.firstParents(head, { limit, ...(first ? {} : { until: this.lastHead }) });
    const oldest = commits.at(-1);
    const parentOfOldest = oldest === undefined ? undefined : (await this.repo.firstParents(oldest, { limit: 2 }))[1];
    for (let i = commits.length - 1; i >= 0; i--) {
      const sha = commits[i] as string;
      if (this.open.has(sha)) continue;
      const parent = i === commits.length - 1 ? parentOfOldest : commits[i + 1];
      const shoots = changedShoots(
        parent === undefined ? new Map() : await this.repo.shootTrees(parent),
        await this.repo.shootTrees(sha),
      );
      this.open.set(sha, { change: { sha, shoots }, kept: new Map() });
    }
    for (const sha of this.open.keys()) {
      if (this.open.size <= MAX_OPEN) break;
      this.open.delete(sha);
      this.log(`report back: no longer following ${sha.slice(0, 12)}: ${MAX_OPEN} newer commits are`, {}, 'debug');
    }
    this.lastHead = head;
    // A first sync marks only its head pending: the window's older commits were synced before.
    return first ? [head] : commits;
  }

  /** Writes what the forge does not show yet, newest commits first, within the round's budget. */
  private async write(): Promise<void> {
    let calls = 0;
    const call = async <T>(what: string, run: () => Promise<ForgeResult<T>>): Promise<T | Failed> => {
      calls++;
      const result = await run();
      if (result.ok) return result.value;
      const { kind, message } = result.failure;
      this.log(`report back: ${this.forge.label}: ${what}: ${message}`, {}, 'warn');
      // Unreachable, limited or refused: the rest waits for the next sync. Anything else: that item is dropped.
      return kind === 'transport' || kind === 'rate-limited' || kind === 'unauthorized' ? STOP : SKIP;
    };
    for (const [sha, wanted] of [...this.wanted].reverse()) {
      if (calls >= this.maxCalls) {
        this.log(
          `report back: ${this.wanted.size} commit(s) left for the next round (${this.maxCalls} forge calls a round)`,
          {},
          'debug',
        );
        return;
      }
      const outcome = await this.writeOne(sha, wanted, call);
      if (outcome === STOP) return;
      // Only what was shown is done; a newer wish that arrived meanwhile stays.
      if (this.wanted.get(sha) === wanted) this.wanted.delete(sha);
    }
  }

  /** Brings one commit's status and comments up to date; STOP ends the round. */
  private async writeOne(sha: string, wanted: Wanted, call: Call): Promise<typeof STOP | undefined> {
    const short = sha.slice(0, 12);
    let shown = this.shown.get(sha);
    if (shown === undefined) {
      // Statuses only (no check run is wanted): a token that may not read check runs still reports.
      const checks = await call(`read the statuses of ${short}`, () => this.forge.checksOf(sha, { checkRunsFor: [] }));
      if (checks === STOP || checks === SKIP) return failed(checks);
      const status = checks.find((c) => c.source === 'status' && c.name === APPLY_STATUS_CONTEXT);
      shown = status ? { state: status.state, description: status.description } : null;
      remember(this.shown, sha, shown);
    }
    if (wanted.ifNone && shown !== null) return;
    if (shown !== null && shown.state !== 'pending') {
      // Settled (by this process, an earlier one or another replica): final, whatever the facts say now.
      this.open.delete(sha);
      return;
    }
    const statusDone = statusShown(shown ?? undefined, wanted.status);
    // The comment is written before the status: a status that already shows this report, read from a forge this
    // process has not written to (a restart, another replica), means the comment shows it too.
    if (statusDone && !this.pulls.has(sha)) return;
    if (wanted.comment !== undefined) {
      let pulls = this.pulls.get(sha);
      if (pulls === undefined) {
        const found = await call(`find the PR of ${short}`, () => this.forge.pullRequestsOfCommit(sha));
        if (found === STOP || found === SKIP) return failed(found);
        pulls = found.map((pull) => pull.number);
        remember(this.pulls, sha, pulls);
      }
      for (const number of pulls) {
        const known = this.comments.get(number);
        if (known === wanted.comment) continue;
        const comment = wanted.comment;
        const done = await call(`comment on #${number}`, () =>
          this.forge.upsertStickyComment(number, APPLY_COMMENT_MARKER, comment),
        );
        if (done === STOP) return STOP;
        if (done === SKIP) continue;
        remember(this.comments, number, comment);
        this.log(
          `report back: ${done.created ? 'commented' : 'updated the comment'} on #${number} (${short})`,
          { pr: number },
          'info',
        );
      }
    }
    if (statusDone) return;
    const status = wanted.status;
    const set = await call(`set ${APPLY_STATUS_CONTEXT} on ${short}`, () =>
      this.forge.setCommitStatus(sha, { context: APPLY_STATUS_CONTEXT, ...status }),
    );
    if (set === STOP || set === SKIP) return failed(set);
    remember(this.shown, sha, status);
    this.log(`report back: ${APPLY_STATUS_CONTEXT} ${status.state} on ${short}: ${status.description}`, {}, 'info');
  }
}

const STOP = Symbol('stop the round');
const SKIP = Symbol('skip this item');
type Failed = typeof STOP | typeof SKIP;
/** A failed call's end of the item: STOP ends the round, SKIP only this item. */
const failed = (how: Failed): typeof STOP | undefined => (how === STOP ? STOP : undefined);
type Call = <T>(what: string, run: () => Promise<ForgeResult<T>>) => Promise<T | Failed>;

/** Sets `key` in a bounded memory: the oldest entry goes when it is full. */
function remember<K, V>(map: Map<K, V>, key: K, value: V): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > MAX_REMEMBERED) map.delete(map.keys().next().value as K);
}
