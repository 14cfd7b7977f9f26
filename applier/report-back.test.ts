// The report's text as a function of the facts: per Shoot where it stands after a sync, per commit the status and
// the comment. The golden comment below is what a PR author reads. A report only moves forward: settled lines are
// kept, a failure is final, and what only a later sync can resolve stays pending.
import { describe, expect, it } from 'vitest';
import { APPLIED_TREE_ANNOTATION } from '../model/contract.js';
import type { Shoot } from '../model/shoot.js';
import { testShoot } from '../test/helpers/test-shoot.js';
import type { PlanAction, PlanEntry } from './plan.js';
import {
  changedShoots,
  commitReport,
  shootProgress,
  startedStatus,
  statusShown,
  type ShootProgress,
  type SyncOutcome,
} from './report-back.js';
import { emptySyncResult, type SyncResult } from './sync.js';

const GARDEN = { namespace: 'garden-x', landscape: 'prod' };
const SHA = 'c'.repeat(40);
const APPLIED_AT = '2026-12-01T10:00:03Z';

/** A live Shoot applied from `tree`, with Gardener's last operation. */
function live(
  tree: string,
  operation?: { type: string; state: string; lastUpdateTime?: string },
  extra: { generation?: number; observed?: number; codes?: string[]; deleting?: boolean } = {},
): Shoot {
  const shoot = testShoot();
  shoot.metadata = {
    ...shoot.metadata,
    generation: extra.generation ?? 1,
    annotations: { [APPLIED_TREE_ANNOTATION]: tree },
    managedFields: [
      { manager: 'kimops', operation: 'Apply', time: '2026-12-01T09:00:00Z' },
      { manager: 'kimops', operation: 'Apply', time: APPLIED_AT },
    ],
    ...(extra.deleting && { deletionTimestamp: '2026-12-01T11:00:00Z' }),
  };
  if (operation)
    shoot.status = {
      observedGeneration: extra.observed ?? 1,
      lastOperation: { ...operation, progress: 100 },
      ...(extra.codes && { lastErrors: [{ description: 'it broke', codes: extra.codes }] }),
    };
  return shoot;
}

function entry(shoot: string, action: PlanAction, liveShoot?: Shoot, reasons: string[] = []): PlanEntry {
  return {
    shoot,
    action,
    reasons,
    object: { kind: 'Shoot', name: shoot, action: 'unchanged', changes: [] },
    companions: [],
    ...(liveShoot && { live: liveShoot }),
  };
}

function result(change: Partial<SyncResult> = {}): SyncResult {
  return { ...emptySyncResult(SHA), ...change };
}

function outcome(trees: Record<string, string>, entries: PlanEntry[], syncResult = result()): SyncOutcome {
  return {
    trees: new Map(Object.entries(trees)),
    entries: new Map(entries.map((e) => [e.shoot, e])),
    result: syncResult,
  };
}

const succeeded = { type: 'Create', state: 'Succeeded', lastUpdateTime: '2026-12-01T10:04:00Z' };

/** A sync whose write of Shoot `s` failed with HTTP `status` (0: the Garden did not answer). */
function failedWrite(status: number, message: string): SyncResult {
  return result({ failed: [{ shoot: 's', action: 'create', lines: [message], status }] });
}

describe('changedShoots', () => {
  it('names the folders a commit added, changed or removed, sorted, with their new tree', () => {
    const parent = new Map([
      ['b', 't1'],
      ['a', 't2'],
      ['gone', 't3'],
    ]);
    const commit = new Map([
      ['b', 't1'],
      ['a', 't9'],
      ['new', 't4'],
    ]);
    expect([...changedShoots(parent, commit)]).toEqual([
      ['a', 't9'],
      ['gone', undefined],
      ['new', 't4'],
    ]);
  });
});

describe('shootProgress', () => {
  it.each<[string, string | undefined, SyncOutcome, ShootProgress]>([
    ['a later commit changed the folder', 't1', outcome({ s: 't2' }, [entry('s', 'update')]), { state: 'superseded' }],
    [
      'the mass-deletion guard refused the commit (a later allow lets a later sync apply it)',
      't1',
      outcome({ s: 't1' }, [entry('s', 'create')], result({ refused: 'too many' })),
      { state: 'waiting', message: 'held by the mass-deletion guard' },
    ],
    [
      'the Garden refused the manifest',
      't1',
      outcome({ s: 't1' }, [entry('s', 'create')], failedWrite(422, 'spec.region: Required value')),
      { state: 'not-applied', message: 'spec.region: Required value' },
    ],
    [
      'an admission plugin refused the Shoot',
      't1',
      outcome({ s: 't1' }, [entry('s', 'create')], failedWrite(403, 'admission webhook denied the request')),
      { state: 'not-applied', message: 'admission webhook denied the request' },
    ],
    [
      'RBAC refused the write: fixed outside the repo, the next sync tries again',
      't1',
      outcome(
        { s: 't1' },
        [entry('s', 'create')],
        failedWrite(403, 'user "kimops" cannot patch resource "shoots" in the namespace'),
      ),
      { state: 'waiting', message: 'user "kimops" cannot patch resource "shoots" in the namespace' },
    ],
    ...[0, 409, 429, 503].map((status): [string, string, SyncOutcome, ShootProgress] => [
      `a write that failed with ${status}: the next sync tries again`,
      't1',
      outcome({ s: 't1' }, [entry('s', 'update')], failedWrite(status, 'try again')),
      { state: 'waiting', message: 'try again' },
    ]),
    [
      'held back by its files',
      't1',
      outcome({ s: 't1' }, [entry('s', 'blocked', undefined, ['shoot.yaml: not YAML'])]),
      { state: 'not-applied', message: 'shoot.yaml: not YAML' },
    ],
    [
      'held back until the old Shoot is deleted',
      't1',
      outcome({ s: 't1' }, [
        entry('s', 'blocked', live('t0', succeeded, { deleting: true }), ['the live Shoot is being deleted']),
      ]),
      { state: 'waiting', message: 'the live Shoot is being deleted' },
    ],
    [
      'written by this sync',
      't1',
      outcome({ s: 't1' }, [entry('s', 'create')], result({ applied: [{ shoot: 's', action: 'create', lines: [] }] })),
      { state: 'applied' },
    ],
    ['a create the sync did not get to', 't1', outcome({ s: 't1' }, [entry('s', 'create')]), { state: 'waiting' }],
    [
      'Gardener has not seen the new generation',
      't1',
      outcome({ s: 't1' }, [entry('s', 'unchanged', live('t1', succeeded, { generation: 2, observed: 1 }))]),
      { state: 'applied', appliedAt: APPLIED_AT },
    ],
    [
      'Gardener is at work',
      't1',
      outcome({ s: 't1' }, [entry('s', 'unchanged', live('t1', { type: 'Create', state: 'Processing' }))]),
      { state: 'reconciling', operation: 'Create Processing', appliedAt: APPLIED_AT },
    ],
    [
      'Gardener retries an error',
      't1',
      outcome({ s: 't1' }, [
        entry(
          's',
          'unchanged',
          live('t1', { type: 'Reconcile', state: 'Error' }, { codes: ['ERR_INFRA_QUOTA_EXCEEDED'] }),
        ),
      ]),
      { state: 'reconciling', operation: 'Reconcile Error: ERR_INFRA_QUOTA_EXCEEDED', appliedAt: APPLIED_AT },
    ],
    [
      'reconciled',
      't1',
      outcome({ s: 't1' }, [entry('s', 'unchanged', live('t1', succeeded))]),
      { state: 'reconciled', operation: 'Create Succeeded', appliedAt: APPLIED_AT, at: '2026-12-01T10:04:00Z' },
    ],
    [
      'reconciled, the markers not yet this folder’s: no applied time claimed',
      't1',
      outcome({ s: 't1' }, [entry('s', 'unchanged', live('t0', succeeded))]),
      { state: 'reconciled', operation: 'Create Succeeded', at: '2026-12-01T10:04:00Z' },
    ],
    [
      'Gardener gave up',
      't1',
      outcome({ s: 't1' }, [
        entry('s', 'unchanged', live('t1', { type: 'Create', state: 'Failed' }, { codes: ['ERR_INFRA_UNAUTHORIZED'] })),
      ]),
      { state: 'failed', operation: 'Create Failed: ERR_INFRA_UNAUTHORIZED', appliedAt: APPLIED_AT },
    ],
    ['removed and gone', undefined, outcome({}, []), { state: 'deleted' }],
    [
      'removed, Gardener deleting',
      undefined,
      outcome({}, [entry('s', 'delete', live('t1', { type: 'Delete', state: 'Processing' }, { deleting: true }))]),
      { state: 'deleting', operation: 'Delete Processing' },
    ],
  ])('%s', (_, tree, syncOutcome, expected) => {
    expect(shootProgress('s', tree, syncOutcome)).toEqual(expected);
  });
});

describe('commitReport', () => {
  const change = (shoots: Record<string, string | undefined>) => ({
    sha: SHA,
    shoots: new Map(Object.entries(shoots)),
  });

  it('one Shoot reconciled: success with its last operation, and the comment a PR author reads', () => {
    const report = commitReport(
      change({ s1: 't1' }),
      outcome({ s1: 't1' }, [entry('s1', 'unchanged', live('t1', succeeded))]),
      GARDEN,
    );
    expect(report.status).toEqual({
      state: 'success',
      description: 'applied to garden-x; Shoot s1 reconciled (Create Succeeded)',
    });
    expect(report.settled).toBe(true);
    expect(report.comment).toBe(
      [
        '### kimops applied this change',
        '',
        `Merge commit \`${SHA.slice(0, 12)}\` · Garden \`garden-x\` (landscape \`prod\`)`,
        '',
        '| Shoot | applied | Gardener | Ready |',
        '|---|---|---|---|',
        `| \`s1\` | ${APPLIED_AT} | Create Succeeded | 2026-12-01T10:04:00Z |`,
        '',
        '1 reconciled.',
        '',
        '_Updated by `kimops apply` as Gardener progresses; the commit status `kimops/apply` says the same._',
        '',
      ].join('\n'),
    );
  });

  it('pending while applied or reconciling, failure as soon as one Shoot failed, counted for a rollout', () => {
    const shoots = { a: 't1', b: 't2', c: 't3' };
    const progressing = outcome(
      shoots,
      [
        entry('a', 'unchanged', live('t1', succeeded)),
        entry('b', 'unchanged', live('t2', { type: 'Reconcile', state: 'Processing' })),
        entry('c', 'update'),
      ],
      result({ applied: [{ shoot: 'c', action: 'update', lines: [] }] }),
    );
    const pending = commitReport(change(shoots), progressing, GARDEN);
    expect(pending.status).toEqual({
      state: 'pending',
      description: 'garden-x: 3 Shoots: 1 waiting for Gardener, 1 reconciling, 1 reconciled',
    });
    expect(pending.settled).toBe(false);
    expect(pending.comment).toContain('| `c` | yes | not started yet | — |');

    const failing = outcome(
      shoots,
      [
        entry('a', 'unchanged', live('t1', succeeded)),
        entry('b', 'unchanged', live('t2', { type: 'Reconcile', state: 'Processing' })),
        entry('c', 'update'),
      ],
      result({ failed: [{ shoot: 'c', action: 'update', lines: ['forbidden | by policy'], status: 422 }] }),
    );
    const failed = commitReport(change(shoots), failing, GARDEN);
    expect(failed.status.state).toBe('failure');
    // A failure is final: nothing a later sync finds changes what it said.
    expect(failed.settled).toBe(true);
    expect(failed.comment).toContain('### kimops could not apply all of this change');
    // A message never breaks the table.
    expect(failed.comment).toContain('| `c` | no: forbidden \\| by policy | — | — |');
  });

  it('a commit that changed no Shoot succeeds at once; a deletion succeeds once the Shoot is gone', () => {
    expect(commitReport(change({}), outcome({}, []), GARDEN)).toMatchObject({
      status: { state: 'success', description: 'applied to garden-x; no Shoot changed' },
      settled: true,
    });
    const deleting = commitReport(
      change({ s: undefined }),
      outcome({}, [entry('s', 'delete', live('t1', { type: 'Delete', state: 'Processing' }, { deleting: true }))]),
      GARDEN,
    );
    expect(deleting.status).toEqual({
      state: 'pending',
      description: 'deleting Shoot s from garden-x (Delete Processing)',
    });
    expect(commitReport(change({ s: undefined }), outcome({}, []), GARDEN).status).toEqual({
      state: 'success',
      description: 'Shoot s deleted from garden-x',
    });
  });

  it('says the same for the same facts, whichever later commit the sync was of', () => {
    const facts = [entry('s1', 'unchanged', live('t1', succeeded))];
    const first = commitReport(change({ s1: 't1' }), outcome({ s1: 't1' }, facts), GARDEN);
    const later = commitReport(
      change({ s1: 't1' }),
      outcome({ s1: 't1', other: 't7' }, [...facts, entry('other', 'create')], result({ commit: 'd'.repeat(40) })),
      GARDEN,
    );
    expect(later).toEqual(first);
  });

  it('keeps a status description within what GitHub stores', () => {
    const message = 'x'.repeat(500);
    const report = commitReport(
      change({ s: 't1' }),
      outcome(
        { s: 't1' },
        [entry('s', 'create')],
        result({ failed: [{ shoot: 's', action: 'create', lines: [message], status: 422 }] }),
      ),
      GARDEN,
    );
    expect(report.status.description).toHaveLength(140);
    expect(report.status.description.endsWith('…')).toBe(true);
  });

  it('keeps a Shoot Ready once it said so: a later Reconcile or a later commit’s change does not undo it', () => {
    const shoots = { a: 't1', b: 't2' };
    const first = commitReport(
      change(shoots),
      outcome(shoots, [
        entry('a', 'unchanged', live('t1', succeeded)),
        entry('b', 'unchanged', live('t2', { type: 'Create', state: 'Processing' })),
      ]),
      GARDEN,
    );
    expect(first.settled).toBe(false);
    expect([...first.settledShoots.keys()]).toEqual(['a']);

    // Gardener's maintenance reconciles a, and a later commit changes it; b becomes Ready.
    const later = outcome({ a: 't9', b: 't2' }, [
      entry('a', 'unchanged', live('t9', { type: 'Reconcile', state: 'Processing' })),
      entry('b', 'unchanged', live('t2', { ...succeeded, lastUpdateTime: '2026-12-01T10:09:00Z' })),
    ]);
    const next = commitReport(change(shoots), later, GARDEN, first.settledShoots);
    expect(next.comment).toContain(`| \`a\` | ${APPLIED_AT} | Create Succeeded | 2026-12-01T10:04:00Z |`);
    expect(next.comment).toContain(`| \`b\` | ${APPLIED_AT} | Create Succeeded | 2026-12-01T10:09:00Z |`);
    expect(next.status).toEqual({ state: 'success', description: 'garden-x: 2 Shoots: 2 reconciled' });
    expect(next.settled).toBe(true);
    // Without what was kept, the same facts would have said otherwise.
    expect(commitReport(change(shoots), later, GARDEN).comment).toContain('changed again by a later commit');
  });

  it('stays pending, saying why, while only a later sync can apply it', () => {
    const held = commitReport(
      change({ s: 't1' }),
      outcome({ s: 't1' }, [entry('s', 'create')], result({ refused: 'too many deletions' })),
      GARDEN,
    );
    expect(held.status).toEqual({
      state: 'pending',
      description: 'not yet applied to garden-x: Shoot s: held by the mass-deletion guard',
    });
    expect(held.settled).toBe(false);
    expect(held.comment).toContain('| `s` | not yet: held by the mass-deletion guard | — | — |');
  });

  it('names the Garden by its namespace and landscape, never by its API server', () => {
    const report = commitReport(change({}), outcome({}, []), { namespace: 'garden-x', landscape: 'prod' });
    expect(report.comment).toContain(
      `Merge commit \`${SHA.slice(0, 12)}\` · Garden \`garden-x\` (landscape \`prod\`)\n`,
    );
    expect(report.comment).not.toMatch(/https?:/);
  });
});

describe('statuses', () => {
  it('a starting sync is pending; what the forge shows counts only when state and description match', () => {
    const started = startedStatus(GARDEN);
    expect(started).toEqual({ state: 'pending', description: 'applying to garden-x' });
    expect(statusShown(undefined, started)).toBe(false);
    expect(statusShown({ ...started }, started)).toBe(true);
    expect(statusShown({ state: 'success', description: started.description }, started)).toBe(false);
  });
});
