// The embedded forge: pull requests recorded in the landscape repo itself, so a fresh machine reviews
// and merges with `kimops pr` and no server. Each PR is `pulls/<number>.json` and each commit's
// statuses `statuses/<sha>.json` on the branch `kimops/pulls`, an orphan history of its own. A branch
// rather than a custom ref (refs/kimops/…): `git clone` and a plain fetch carry refs/heads/* only, so
// the records travel with the repo, yet they never mix with `main` (no common history, never merged).
// Semantics follow GitHub's where the Forge interface asks: one open PR per branch, a sha-guarded real
// merge, the latest review per reviewer, sticky comments found by the same hidden marker, and a PR whose
// head reached its base by any way counts as merged. Every change of a record reads, decides and writes
// under the repo's lock (LandscapeRepo.withLock), so two `kimops pr` commands or a generator pass beside
// them never lose each other's update (docs/reliability.md).
import { ConfigError, RefMoved } from '../../model/errors.js';
import type { LandscapeRepo, Signature } from '../git/landscape-repo.js';
import { MAIN_BRANCH } from '../../model/contract.js';
import { isSignatureText } from '../git/objects.js';
import { deleteRef, listRefs } from '../git/refs.js';
import type { Approval, CommitCheck, Forge, ForgeFailure, ForgeResult, MergeMethod, PullRequest } from './forge.js';
import { stickyTag } from './forge.js';
import { parsePullRecord, parseStatuses, type CommitStatus, type PullRecord } from './pull-record.js';

export const PULLS_BRANCH = 'kimops/pulls';

/** A merge past the gate: recorded in the PR record and as trailers of the merge commit. */
interface BreakGlass {
  by: string;
  reason: string;
}

export interface LocalForgeOptions {
  /** Who records PRs, comments and merges; kimops's own signature when absent. */
  author?: Signature;
}

/** The Forge, plus what the terminal review (`kimops pr`) needs. */
export interface LocalForge extends Forge {
  pullRecord(number: number): Promise<ForgeResult<PullRecord>>;
  pullRecords(): Promise<ForgeResult<PullRecord[]>>;
  statuses(sha: string): Promise<ForgeResult<CommitStatus[]>>;
  /** Records `reviewer`'s approval of the branch's current head. */
  approve(number: number, reviewer: string): Promise<ForgeResult<Approval>>;
  /** `mergePullRequest`, past the merge gate: the reason goes into the record and the merge commit. */
  mergePullRequest(
    number: number,
    options: { sha: string; method: MergeMethod; breakGlass?: BreakGlass },
  ): Promise<ForgeResult<{ sha: string }>>;
}

/** Reviewer names go into commit headers and terminals: printable, no angle brackets, at most this long. */
const MAX_REVIEWER_LENGTH = 100;

/** Why a reviewer name cannot be recorded, or undefined when it can. */
export function reviewerNameProblem(name: string): string | undefined {
  if (name.length > MAX_REVIEWER_LENGTH) return `is longer than ${MAX_REVIEWER_LENGTH} characters`;
  if (!isSignatureText(name) || name !== name.trim())
    return 'must be printable text without control characters, "<", ">" or surrounding spaces';
  return undefined;
}

/** How far back in the base's history a PR's head is looked for when deciding whether it was merged. */
const MERGED_LOOKBACK = 1000;

const KIMOPS = { name: 'kimops', email: 'kimops@localhost' };

export function localForge(repo: LandscapeRepo, options: LocalForgeOptions = {}): LocalForge {
  const label = `local forge ${repo.gitdir}`;
  const author = options.author ?? KIMOPS;
  const fail = (
    kind: Exclude<ForgeFailure['kind'], 'rate-limited' | 'transport'>,
    message: string,
  ): { ok: false; failure: ForgeFailure } => ({ ok: false, failure: { kind, message: `${label}: ${message}` } });
  const ok = <T>(value: T): ForgeResult<T> => ({ ok: true, value });
  // Read-modify-write of the records holds the repo's lock, across processes; the reads happen inside it.
  const exclusive = <T>(purpose: string, work: () => Promise<T>): Promise<T> => repo.withLock(purpose, work);

  const where = (path: string) => `${repo.gitdir} ${PULLS_BRANCH}:${path}`;
  const readFile = async (path: string): Promise<string | undefined> => repo.readFile(PULLS_BRANCH, path);
  const readRecord = async (number: number): Promise<PullRecord | undefined> => {
    const path = `pulls/${number}.json`;
    const text = await readFile(path);
    return text === undefined ? undefined : parsePullRecord(text, where(path), number);
  };
  const records = async (): Promise<PullRecord[]> => {
    const files = await repo.readFiles(PULLS_BRANCH, 'pulls');
    const all = await Promise.all(
      [...files].map(async ([path, file]) => {
        const number = /^pulls\/([1-9]\d*)\.json$/.exec(path)?.[1];
        if (number === undefined)
          throw new ConfigError(
            where(path),
            '',
            `is no pull request record (pulls/<number>.json); remove it from ${PULLS_BRANCH}`,
          );
        return parsePullRecord(await file.read(), where(path), Number(number));
      }),
    );
    return all.sort((a, b) => a.number - b.number);
  };
  /** Whether `head` is in the base's history already: then the PR is merged, whoever brought it there. */
  const reachedBase = async (record: PullRecord, head: string): Promise<string | undefined> => {
    const base = await repo.resolve(`refs/heads/${record.base}`);
    return base !== undefined && (base === head || (await repo.contains(base, head, MERGED_LOOKBACK)))
      ? base
      : undefined;
  };
  const save = async (path: string, value: unknown, message: string, by: Signature = author) => {
    await repo.commitFiles({
      branch: PULLS_BRANCH,
      files: new Map([[path, `${JSON.stringify(value, null, 2)}\n`]]),
      message,
      author: by,
    });
  };
  const saveRecord = (record: PullRecord, message: string, by?: Signature) =>
    save(`pulls/${record.number}.json`, record, `#${record.number}: ${message}`, by);
  const withRecord = async <T>(
    number: number,
    work: (record: PullRecord) => Promise<ForgeResult<T>>,
  ): Promise<ForgeResult<T>> => {
    const record = Number.isInteger(number) && number > 0 ? await readRecord(number) : undefined;
    return record === undefined
      ? fail('not-found', `no pull request #${number}; list them with kimops pr list`)
      : work(record);
  };
  const statusesOf = async (sha: string): Promise<CommitStatus[]> => {
    const path = `statuses/${sha}.json`;
    const text = /^[0-9a-f]{40}$/.test(sha) ? await readFile(path) : undefined;
    return text === undefined ? [] : parseStatuses(text, where(path));
  };
  /** The live branch head when the branch exists (as GitHub reports it), else the recorded one. */
  const pullRequestOf = async (record: PullRecord): Promise<PullRequest> => ({
    number: record.number,
    url: `kimops pr show ${record.number} --repo ${repo.gitdir}`,
    branch: record.branch,
    base: record.base,
    headSha:
      (record.state === 'open' ? await repo.resolve(`refs/heads/${record.branch}`) : undefined) ?? record.headSha,
    title: record.title,
    body: record.body,
    state: record.state === 'open' ? 'open' : 'closed',
    merged: record.state === 'merged',
    ...(record.mergeCommit === undefined ? {} : { mergeCommitSha: record.mergeCommit }),
    labels: record.labels,
    ...(record.createdAt === undefined ? {} : { createdAt: record.createdAt }),
  });

  const forge: LocalForge = {
    label,
    checkReporters: 'kimops',
    defaultBranch: async () => ok(MAIN_BRANCH),
    branchHead: async (branch) => ok(await repo.resolve(`refs/heads/${branch}`)),
    getPullRequest: (number) => withRecord(number, async (record) => ok(await pullRequestOf(record))),
    findOpenPullRequest: async (branch) => {
      const found = (await records()).find((record) => record.state === 'open' && record.branch === branch);
      return ok(found === undefined ? undefined : await pullRequestOf(found));
    },
    openPullRequest: (request) =>
      exclusive(`open a pull request from ${request.branch}`, async () => {
        const all = await records();
        const open = all.find((record) => record.state === 'open' && record.branch === request.branch);
        // GitHub's 422 for the same cases.
        if (open !== undefined)
          return fail('invalid', `a pull request already exists for ${request.branch}: #${open.number}`);
        const head = await repo.resolve(`refs/heads/${request.branch}`);
        if (head === undefined) return fail('invalid', `branch ${request.branch} does not exist; commit it first`);
        if ((await repo.resolve(`refs/heads/${request.base}`)) === undefined)
          return fail('invalid', `base branch ${request.base} does not exist`);
        const number = all.reduce((max, record) => Math.max(max, record.number), 0) + 1;
        const record: PullRecord = {
          number,
          branch: request.branch,
          base: request.base,
          title: request.title,
          body: request.body,
          state: 'open',
          labels: request.labels ?? [],
          headSha: head,
          reviews: [],
          comments: [],
          createdAt: new Date().toISOString(),
        };
        await saveRecord(record, `open from ${request.branch}: ${request.title}`);
        return ok(await pullRequestOf(record));
      }),
    updatePullRequest: (number, change) =>
      exclusive(`update #${number}`, () =>
        withRecord(number, async (record) => {
          if (record.state === 'merged' && change.state === 'open')
            return fail('invalid', `#${number} is merged and cannot be reopened`);
          const head = await repo.resolve(`refs/heads/${record.branch}`);
          const next: PullRecord = {
            ...record,
            ...(change.title === undefined ? {} : { title: change.title }),
            ...(change.body === undefined ? {} : { body: change.body }),
          };
          if (change.state !== undefined && record.state !== 'merged') next.state = change.state;
          // kimops updates its PR after each push to the branch: the new head is what reviewers now see.
          if (next.state === 'open' && head !== undefined) next.headSha = head;
          await saveRecord(next, 'update');
          return ok(await pullRequestOf(next));
        }),
      ),
    closePullRequest: (number, comment) =>
      exclusive(`close #${number}`, () =>
        withRecord(number, async (record) => {
          const comments =
            comment === undefined
              ? record.comments
              : [...record.comments, { id: nextId(record), author: author.name, body: comment }];
          // A merge whose record a crash did not write is recorded now, not turned into a close.
          const head = record.state === 'open' ? await repo.resolve(`refs/heads/${record.branch}`) : undefined;
          const mergedAt = head === undefined ? undefined : await reachedBase(record, head);
          const next: PullRecord =
            mergedAt !== undefined && head !== undefined
              ? { ...record, comments, state: 'merged', headSha: head, mergeCommit: mergedAt }
              : { ...record, comments, state: record.state === 'merged' ? 'merged' : 'closed' };
          await saveRecord(
            next,
            next.state === 'merged' ? `merged as ${next.mergeCommit ?? ''} (found in ${record.base})` : 'close',
          );
          return ok(await pullRequestOf(next));
        }),
      ),
    mergePullRequest: (number, options) =>
      exclusive(`merge #${number}`, () =>
        withRecord(number, async (record) => {
          if (record.state !== 'open') return fail('not-mergeable', `#${number} is ${record.state}, not open`);
          const head = await repo.resolve(`refs/heads/${record.branch}`);
          if (head === undefined)
            return fail('not-mergeable', `branch ${record.branch} of #${number} no longer exists`);
          if (head !== options.sha)
            return fail(
              'head-moved',
              `#${number}: ${record.branch} is at ${head.slice(0, 12)}, not ${options.sha.slice(0, 12)} — the branch moved since it was validated; re-validate the new head`,
            );
          const forced = options.breakGlass;
          // A merge a crash left unrecorded: the head is in the base already; record it, merge nothing twice.
          const already = await reachedBase(record, head);
          if (already !== undefined) {
            await saveRecord(
              { ...record, state: 'merged', headSha: head, mergeCommit: already, ...(forced && { forced }) },
              `merged as ${already} (found in ${record.base})`,
            );
            return ok({ sha: already });
          }
          const trailers = forced
            ? `\n\nKimops-Forced-By: ${forced.by}\nKimops-Force-Reason: ${forced.reason.replace(/\s+/g, ' ')}`
            : '';
          // Every method merges (fast-forward or merge commit): the landscape's history is reverted with `git revert`.
          const merged = await repo.mergeInto({
            branch: record.base,
            theirs: head,
            message: `Merge pull request #${number} from ${record.branch}\n\n${record.title}${trailers}`,
            author,
          });
          if (!merged.merged) {
            const where =
              merged.conflicts.length > 0 ? `conflicts in ${merged.conflicts.join(', ')}` : 'no single merge base';
            return fail(
              'not-mergeable',
              `#${number} cannot be merged into ${record.base}: ${where} — re-render ${record.branch} on top of ${record.base}`,
            );
          }
          await saveRecord(
            { ...record, state: 'merged', headSha: head, mergeCommit: merged.oid, ...(forced && { forced }) },
            `merged as ${merged.oid}${forced ? ` past the gate by ${forced.by}: ${forced.reason}` : ''}`,
          );
          return ok({ sha: merged.oid });
        }),
      ),
    approvals: (number) => withRecord(number, async (record) => ok(approvalsOf(record))),
    // A repo on disk knows no people, only the names `kimops pr approve --as` is given: a reviewer stands for a
    // team by naming it (`--as @acme/sre`), as they stand for a user by naming them.
    isTeamMember: async (org, team, user) => ok(sameName(user, `${org}/${team}`)),
    approve: (number, reviewer) =>
      exclusive(`approve #${number}`, () =>
        withRecord(number, async (record) => {
          const problem = reviewerNameProblem(reviewer);
          if (problem !== undefined)
            return fail('invalid', `reviewer name ${JSON.stringify(reviewer)} ${problem}; pass another with --as`);
          if (record.state !== 'open')
            return fail('invalid', `#${number} is ${record.state}; only open pull requests are reviewed`);
          const commitSha = (await repo.resolve(`refs/heads/${record.branch}`)) ?? record.headSha;
          const next: PullRecord = {
            ...record,
            reviews: [...record.reviews, { reviewer, state: 'approved', commitSha }],
          };
          // The reviewer authors the record's commit: `git log kimops/pulls` is the audit trail.
          await saveRecord(next, `approved by ${reviewer} at ${commitSha}`, {
            name: reviewer,
            email: `${reviewer}@localhost`,
          });
          return ok({ reviewer, commitSha });
        }),
      ),
    setCommitStatus: (sha, status) =>
      exclusive(`status on ${sha.slice(0, 12)}`, async () => {
        const current = await statusesOf(sha);
        const entry: CommitStatus = {
          context: status.context,
          state: status.state,
          description: status.description,
          ...(status.targetUrl === undefined ? {} : { targetUrl: status.targetUrl }),
        };
        // The latest status per context counts, as on GitHub.
        await save(
          `statuses/${sha}.json`,
          [...current.filter((s) => s.context !== status.context), entry],
          `status ${status.context} ${status.state} on ${sha}`,
        );
        return ok(undefined);
      }),
    statuses: async (sha) => ok(await statusesOf(sha)),
    upsertStickyComment: (number, marker, body) =>
      exclusive(`comment on #${number}`, () =>
        withRecord<{ id: number; created: boolean }>(number, async (record) => {
          const tag = stickyTag(marker);
          const text = `${tag}\n${body}`;
          const existing = record.comments.find((comment) => comment.body.startsWith(tag));
          if (existing !== undefined) {
            if (existing.body !== text)
              await saveRecord(
                { ...record, comments: record.comments.map((c) => (c.id === existing.id ? { ...c, body: text } : c)) },
                `comment ${marker}`,
              );
            return ok({ id: existing.id, created: false });
          }
          const id = nextId(record);
          await saveRecord(
            { ...record, comments: [...record.comments, { id, author: author.name, body: text }] },
            `comment ${marker}`,
          );
          return ok({ id, created: true });
        }),
      ),
    listOpenPullRequests: async (filter = {}) => {
      const open = (await records()).filter((record) => record.state === 'open');
      const prefix = filter.labelPrefix;
      const matching =
        prefix === undefined ? open : open.filter((record) => record.labels.some((l) => l.startsWith(prefix)));
      return ok(await Promise.all(matching.map(pullRequestOf)));
    },
    pullRequestsOfCommit: async (sha) =>
      ok(
        await Promise.all(
          (await records())
            .filter((record) => record.state === 'merged' && record.mergeCommit === sha)
            .map(pullRequestOf),
        ),
      ),
    // Only statuses: nothing posts check runs to a repo on disk.
    checksOf: async (sha) => ok((await statusesOf(sha)).map(statusCheckOf)),
    deleteBranch: (branch, options = {}) =>
      exclusive(`delete ${branch}`, async () => {
        if (branch === MAIN_BRANCH || branch === PULLS_BRANCH)
          return fail('invalid', `${branch} is kimops's own branch and is never deleted`);
        try {
          return ok({ deleted: await deleteRef(repo.gitdir, `refs/heads/${branch}`, options.ifHeadIs) });
        } catch (error) {
          if (!(error instanceof RefMoved)) throw error;
          return fail('head-moved', `${branch} moved since it was read (${error.message}); it is left in place`);
        }
      }),
    setLabels: (number, labels) =>
      exclusive(`label #${number}`, () =>
        withRecord(number, async (record) => {
          const next = [...new Set(labels)];
          if (next.join('\n') !== record.labels.join('\n'))
            await saveRecord({ ...record, labels: next }, `labels ${next.join(', ') || '(none)'}`);
          return ok(next);
        }),
      ),
    listBranches: async (prefix) =>
      ok(
        (await listRefs(repo.gitdir, `refs/heads/${prefix}`)).map(({ ref, oid }) => ({
          name: ref.slice('refs/heads/'.length),
          sha: oid,
        })),
      ),
    lastClosedPullRequest: async (branch) => {
      const closed = (await records()).filter((record) => record.state !== 'open' && record.branch === branch);
      const newest = closed.at(-1);
      return ok(newest === undefined ? undefined : await pullRequestOf(newest));
    },
    pullRecord: (number) => withRecord(number, async (record) => ok(record)),
    pullRecords: async () => ok(await records()),
  };
  return forge;
}

function statusCheckOf(status: CommitStatus): CommitCheck {
  return {
    name: status.context,
    source: 'status',
    state: status.state === 'error' ? 'failure' : status.state,
    description: status.description,
    ...(status.targetUrl === undefined ? {} : { url: status.targetUrl }),
  };
}

/** GitHub's names ignore case; a reviewer may give one with or without its `@`. */
function sameName(reviewer: string, name: string): boolean {
  return reviewer.replace(/^@/, '').toLowerCase() === name.toLowerCase();
}

function nextId(record: PullRecord): number {
  return record.comments.reduce((max, comment) => Math.max(max, comment.id), 0) + 1;
}

/** Reviewers whose latest verdict approves. */
export function approvalsOf(record: PullRecord): Approval[] {
  const latest = new Map<string, PullRecord['reviews'][number]>();
  for (const review of record.reviews) latest.set(review.reviewer, review);
  return [...latest.values()]
    .filter((review) => review.state === 'approved')
    .map(({ reviewer, commitSha }) => ({ reviewer, commitSha }));
}
