// The report's writes against a forge that records every call: pending when a sync starts, then the comment and
// the final status; nothing on a no-op sync or after a restart that finds the report shown; a budget per round,
// the rest at the next sync; a failing forge retried at the next sync. A settled report is final: a restart never
// rewrites it, whatever the Garden or main say by then, and finishes only what is still pending.
import { describe, expect, it } from 'vitest';
import type { CommitCheck, ForgeFailure, ForgeResult, PullRequest } from '../adapters/forge/forge.js';
import { APPLIED_TREE_ANNOTATION } from '../model/contract.js';
import type { LogLevel } from '../model/log.js';
import type { Shoot } from '../model/shoot.js';
import { testShoot } from '../test/helpers/test-shoot.js';
import type { PlanEntry } from './plan.js';
import { ReportBack, type ReportForge, type ReportRepo, type SyncFacts } from './report-back-writer.js';
import type { ApplyStatus } from './report-back.js';
import { emptySyncResult } from './sync.js';

const GARDEN = { namespace: 'garden-x', landscape: 'prod' };
const sha = (n: number) => n.toString(16).padStart(40, '0');

/** A forge in memory: statuses per commit, sticky comments per PR, each call recorded. */
class FakeForge implements ReportForge {
  readonly label = 'fake forge';
  readonly calls: string[] = [];
  readonly statuses = new Map<string, ApplyStatus[]>();
  readonly comments = new Map<number, string>();
  /** The failure the next calls answer with. */
  failing: ForgeFailure | undefined;

  constructor(private readonly merged: Record<string, number>) {}

  private answer<T>(call: string, value: () => T): Promise<ForgeResult<T>> {
    this.calls.push(call);
    if (this.failing) return Promise.resolve({ ok: false, failure: this.failing });
    return Promise.resolve({ ok: true, value: value() });
  }

  checksOf(commit: string) {
    return this.answer(`checks ${commit}`, (): CommitCheck[] => {
      const latest = this.statuses.get(commit)?.at(-1);
      return latest ? [{ name: 'kimops/apply', source: 'status', ...latest }] : [];
    });
  }
  pullRequestsOfCommit(commit: string) {
    const number = this.merged[commit];
    return this.answer(`pulls ${commit}`, () => (number === undefined ? [] : [{ number } as PullRequest]));
  }
  setCommitStatus(commit: string, status: { context: string } & ApplyStatus) {
    return this.answer(`status ${commit} ${status.state}`, () => {
      this.statuses.set(commit, [
        ...(this.statuses.get(commit) ?? []),
        { state: status.state, description: status.description },
      ]);
    });
  }
  upsertStickyComment(number: number, marker: string, body: string) {
    return this.answer(`comment #${number} ${marker}`, () => {
      const created = !this.comments.has(number);
      this.comments.set(number, body);
      return { id: number, created };
    });
  }
}

/** main as a list of commits, each with the Shoot folders' trees. */
type Commit = { sha: string; trees: Record<string, string> };

function repoOf(commits: Commit[]): ReportRepo {
  return {
    firstParents: async (from, { limit, until }) => {
      const out: string[] = [];
      for (let i = commits.findIndex((c) => c.sha === from); i >= 0 && out.length < limit; i--) {
        const commit = commits[i]?.sha as string;
        if (commit === until) break;
        out.push(commit);
      }
      return out;
    },
    shootTrees: async (commit) => new Map(Object.entries(commits.find((c) => c.sha === commit)?.trees ?? {})),
  };
}

function liveShoot(tree: string, state: string, type = 'Create'): Shoot {
  const shoot = testShoot();
  shoot.metadata = { ...shoot.metadata, generation: 1, annotations: { [APPLIED_TREE_ANNOTATION]: tree } };
  shoot.status = {
    observedGeneration: 1,
    lastOperation: { type, state, lastUpdateTime: '2026-12-01T10:04:00Z' },
  };
  return shoot;
}

/** A sync's outcome: each Shoot unchanged with its live state, or written by this sync. */
function outcome(commit: string, shoots: Record<string, Shoot | 'written'>): SyncFacts {
  const entries = Object.entries(shoots).map(([name, state]): PlanEntry => ({
    shoot: name,
    action: state === 'written' ? 'create' : 'unchanged',
    reasons: [],
    object: { kind: 'Shoot', name, action: 'unchanged', changes: [] },
    companions: [],
    ...(state !== 'written' && { live: state }),
  }));
  return {
    entries,
    result: {
      ...emptySyncResult(commit),
      applied: Object.entries(shoots)
        .filter(([, state]) => state === 'written')
        .map(([shoot]) => ({ shoot, action: 'create' as const, lines: [] })),
    },
  };
}

function reporter(forge: FakeForge, repo: ReportRepo, maxCalls?: number) {
  const lines: [LogLevel, string][] = [];
  const report = new ReportBack({
    forge,
    repo,
    log: (line, _fields, level = 'info') => void lines.push([level, line]),
    ...(maxCalls !== undefined && { maxCalls }),
  });
  return { report, lines };
}

describe('ReportBack', () => {
  const [init, merge] = [sha(1), sha(2)];
  const main: Commit[] = [
    { sha: init, trees: {} },
    { sha: merge, trees: { s1: 't1' } },
  ];

  it('pending as the sync starts, then the comment and the outcome; a no-op sync makes no call', async () => {
    const forge = new FakeForge({ [merge]: 7 });
    const { report } = reporter(forge, repoOf(main));
    report.syncStarting(merge, GARDEN);
    await report.idle();
    expect(forge.statuses.get(merge)).toEqual([{ state: 'pending', description: 'applying to garden-x' }]);

    report.synced(merge, outcome(merge, { s1: 'written' }), GARDEN);
    await report.idle();
    report.syncStarting(merge, GARDEN);
    report.synced(merge, outcome(merge, { s1: liveShoot('t1', 'Succeeded') }), GARDEN);
    await report.idle();
    expect(forge.statuses.get(merge)?.map((s) => s.state)).toEqual(['pending', 'pending', 'success']);
    expect(forge.statuses.get(merge)?.at(-1)?.description).toBe(
      'applied to garden-x; Shoot s1 reconciled (Create Succeeded)',
    );
    expect(forge.comments.get(7)).toContain('| `s1` | yes | Create Succeeded | 2026-12-01T10:04:00Z |');

    // Settled: later syncs, no-ops or not, leave it alone.
    const calls = forge.calls.length;
    report.syncStarting(merge, GARDEN);
    report.synced(merge, outcome(merge, { s1: liveShoot('t1', 'Succeeded') }), GARDEN);
    await report.idle();
    expect(forge.calls.slice(calls)).toEqual([]);
  });

  it('a restarted applier reads what the forge shows and writes nothing when it is the same', async () => {
    const forge = new FakeForge({ [merge]: 7 });
    const first = reporter(forge, repoOf(main)).report;
    first.syncStarting(merge, GARDEN);
    first.synced(merge, outcome(merge, { s1: liveShoot('t1', 'Succeeded') }), GARDEN);
    await first.idle();
    const writes = () => forge.calls.filter((c) => c.startsWith('status') || c.startsWith('comment'));
    const before = writes().length;

    const restarted = reporter(forge, repoOf(main)).report;
    restarted.syncStarting(merge, GARDEN);
    restarted.synced(merge, outcome(merge, { s1: liveShoot('t1', 'Succeeded') }), GARDEN);
    await restarted.idle();
    expect(writes()).toHaveLength(before);
    // One read per commit of the window it looks back on (init changed nothing: its success is written once).
    expect(forge.statuses.get(init)).toEqual([
      { state: 'success', description: 'applied to garden-x; no Shoot changed' },
    ]);
  });

  it('a restart after the report settled writes nothing, though Gardener reconciles the Shoot again', async () => {
    const forge = new FakeForge({ [merge]: 7 });
    const first = reporter(forge, repoOf(main)).report;
    first.syncStarting(merge, GARDEN);
    first.synced(merge, outcome(merge, { s1: liveShoot('t1', 'Succeeded') }), GARDEN);
    await first.idle();
    const comment = forge.comments.get(7);
    const calls = forge.calls.length;

    const restarted = reporter(forge, repoOf(main)).report;
    restarted.syncStarting(merge, GARDEN);
    restarted.synced(merge, outcome(merge, { s1: liveShoot('t1', 'Processing', 'Reconcile') }), GARDEN);
    restarted.synced(merge, outcome(merge, { s1: liveShoot('t1', 'Processing', 'Reconcile') }), GARDEN);
    await restarted.idle();
    // The window's statuses are read once each; nothing is written.
    expect(forge.calls.slice(calls)).toEqual([`checks ${merge}`, `checks ${init}`]);
    expect(forge.comments.get(7)).toBe(comment);
  });

  it('a restart after a later commit changed the same Shoot leaves the earlier PR as it was', async () => {
    const second = sha(3);
    const history: Commit[] = [...main, { sha: second, trees: { s1: 't2' } }];
    const forge = new FakeForge({ [merge]: 7, [second]: 8 });
    const first = reporter(forge, repoOf(history)).report;
    first.syncStarting(merge, GARDEN);
    first.synced(merge, outcome(merge, { s1: liveShoot('t1', 'Succeeded') }), GARDEN);
    await first.idle();
    const comment = forge.comments.get(7);
    expect(comment).toContain('| `s1` | yes | Create Succeeded | 2026-12-01T10:04:00Z |');
    const statuses = forge.statuses.get(merge);
    const calls = forge.calls.length;

    // A rollout or failover: the new process's first sync is of the later commit.
    const restarted = reporter(forge, repoOf(history)).report;
    restarted.syncStarting(second, GARDEN);
    restarted.synced(second, outcome(second, { s1: 'written' }), GARDEN);
    await restarted.idle();
    expect(forge.comments.get(7)).toBe(comment);
    expect(forge.statuses.get(merge)).toEqual(statuses);
    expect(forge.calls.slice(calls).filter((c) => c.endsWith(merge) || c.includes('#7'))).toEqual([`checks ${merge}`]);
    // The later commit is reported as usual.
    expect(forge.statuses.get(second)?.at(-1)).toEqual({
      state: 'pending',
      description: 'applied to garden-x; waiting for Gardener to reconcile Shoot s1',
    });
    expect(forge.comments.get(8)).toContain('### kimops is applying this change');
  });

  it('a restart finishes a report left pending', async () => {
    const forge = new FakeForge({ [merge]: 7 });
    const first = reporter(forge, repoOf(main)).report;
    first.syncStarting(merge, GARDEN);
    first.synced(merge, outcome(merge, { s1: 'written' }), GARDEN);
    await first.idle();
    expect(forge.statuses.get(merge)?.at(-1)?.state).toBe('pending');

    const restarted = reporter(forge, repoOf(main)).report;
    restarted.syncStarting(merge, GARDEN);
    restarted.synced(merge, outcome(merge, { s1: liveShoot('t1', 'Succeeded') }), GARDEN);
    await restarted.idle();
    expect(forge.statuses.get(merge)?.at(-1)).toEqual({
      state: 'success',
      description: 'applied to garden-x; Shoot s1 reconciled (Create Succeeded)',
    });
    expect(forge.comments.get(7)).toContain('| `s1` | yes | Create Succeeded | 2026-12-01T10:04:00Z |');
    expect(forge.comments.get(7)).toContain('Garden `garden-x` (landscape `prod`)');
  });

  it('keeps a Shoot Ready in a report still pending for another Shoot, through a later Reconcile', async () => {
    const history: Commit[] = [
      { sha: init, trees: {} },
      { sha: merge, trees: { s1: 't1', s2: 't2' } },
    ];
    const forge = new FakeForge({ [merge]: 7 });
    const { report } = reporter(forge, repoOf(history));
    report.syncStarting(merge, GARDEN);
    report.synced(
      merge,
      outcome(merge, { s1: liveShoot('t1', 'Succeeded'), s2: liveShoot('t2', 'Processing') }),
      GARDEN,
    );
    await report.idle();
    expect(forge.statuses.get(merge)?.at(-1)?.state).toBe('pending');

    report.synced(
      merge,
      outcome(merge, { s1: liveShoot('t1', 'Processing', 'Reconcile'), s2: liveShoot('t2', 'Succeeded') }),
      GARDEN,
    );
    await report.idle();
    expect(forge.statuses.get(merge)?.at(-1)).toEqual({
      state: 'success',
      description: 'garden-x: 2 Shoots: 2 reconciled',
    });
    expect(forge.comments.get(7)).toContain('| `s1` | yes | Create Succeeded | 2026-12-01T10:04:00Z |');
  });

  it('reports every commit a sync brings, a later change of the same Shoot superseding the earlier', async () => {
    const [second, third] = [sha(3), sha(4)];
    const history: Commit[] = [
      ...main,
      { sha: second, trees: { s1: 't2' } },
      { sha: third, trees: { s1: 't2', s2: 't3' } },
    ];
    const forge = new FakeForge({ [merge]: 7, [second]: 8, [third]: 9 });
    const { report } = reporter(forge, repoOf(history));
    report.syncStarting(merge, GARDEN);
    report.synced(merge, outcome(merge, { s1: liveShoot('t1', 'Succeeded') }), GARDEN);
    await report.idle();

    report.syncStarting(third, GARDEN);
    report.synced(third, outcome(third, { s1: 'written', s2: 'written' }), GARDEN);
    await report.idle();
    expect(forge.statuses.get(second)?.map((s) => s.state)).toEqual(['pending', 'pending']);
    expect(forge.statuses.get(third)?.at(-1)?.description).toBe(
      'applied to garden-x; waiting for Gardener to reconcile Shoot s2',
    );
    expect([...forge.comments.keys()].sort()).toEqual([7, 8, 9]);
    // The first merge's Shoot changed again: its report is left as it was.
    expect(forge.statuses.get(merge)?.at(-1)?.state).toBe('success');
  });

  it('keeps to its budget per round, newest first, and writes the rest after the next sync', async () => {
    const history: Commit[] = [
      { sha: init, trees: {} },
      { sha: sha(2), trees: { a: 't1' } },
      { sha: sha(3), trees: { a: 't1', b: 't2' } },
    ];
    const forge = new FakeForge({});
    const { report } = reporter(forge, repoOf(history), 2);
    const done = outcome(sha(3), { a: liveShoot('t1', 'Succeeded'), b: liveShoot('t2', 'Succeeded') });
    report.syncStarting(sha(3), GARDEN);
    await report.idle();
    // Round one: the head's read and pending.
    expect(forge.calls).toEqual([`checks ${sha(3)}`, `status ${sha(3)} pending`]);
    report.synced(sha(3), done, GARDEN);
    await report.idle();
    expect(forge.calls).toHaveLength(4);
    for (let round = 0; round < 3; round++) {
      report.synced(sha(3), done, GARDEN);
      await report.idle();
    }
    for (const commit of [init, sha(2), sha(3)]) expect(forge.statuses.get(commit)?.at(-1)?.state).toBe('success');
  });

  it('a failing forge is logged, and the report written after the next sync', async () => {
    const forge = new FakeForge({ [merge]: 7 });
    const { report, lines } = reporter(forge, repoOf(main));
    forge.failing = { kind: 'transport', message: 'GitHub is down' };
    report.syncStarting(merge, GARDEN);
    report.synced(merge, outcome(merge, { s1: liveShoot('t1', 'Succeeded') }), GARDEN);
    await report.idle();
    expect(lines).toContainEqual([
      'warn',
      `report back: fake forge: read the statuses of ${merge.slice(0, 12)}: GitHub is down`,
    ]);
    // The round stopped at the first failure: the forge is not asked again and again.
    expect(new Set(forge.calls).size).toBe(1);
    forge.failing = undefined;
    report.synced(merge, outcome(merge, { s1: liveShoot('t1', 'Succeeded') }), GARDEN);
    await report.idle();
    expect(forge.statuses.get(merge)?.at(-1)?.state).toBe('success');
    expect(forge.comments.get(7)).toContain('Create Succeeded');
  });
});
