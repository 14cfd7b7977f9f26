import { describe, expect, it } from 'vitest';
import { DEFAULT_APPLY } from '../model/kimops-config.js';
import type { Shoot } from '../model/shoot.js';
import { operationStart, overdueOperations, timeoutChanges as changesFor } from './operation-timeouts.js';
import { OPERATION_TIMED_OUT_ANNOTATION } from '../model/contract.js';

const timeoutChanges = (shoots: Shoot[], timeouts: typeof DEFAULT_APPLY.timeouts, now: Date) =>
  changesFor(shoots, overdueOperations(shoots, timeouts, now));

const HOUR = 3_600_000;
const created = '2026-11-29T10:00:00Z';

function shoot(status: Shoot['status'], metadata: Partial<Shoot['metadata']> = {}): Shoot {
  return {
    apiVersion: 'core.gardener.cloud/v1beta1',
    kind: 'Shoot',
    metadata: { name: 'c1', generation: 1, creationTimestamp: created, ...metadata },
    spec: {
      region: 'eu',
      networking: {},
      kubernetes: {},
      provider: { type: 'aws', workers: [] },
    } as unknown as Shoot['spec'],
    ...(status && { status }),
  };
}

const at = (iso: string) => new Date(iso);
const processing = (type: string) => ({ observedGeneration: 1, lastOperation: { type, state: 'Processing' } });

describe('operationStart', () => {
  it('takes the creation for a Create, the deletion for a Delete, and retryCycleStartTime otherwise', () => {
    expect(operationStart(shoot(processing('Create')))).toEqual({ type: 'Create', since: created });
    expect(operationStart(shoot(processing('Reconcile'), { deletionTimestamp: '2026-11-29T12:00:00Z' }))).toEqual({
      type: 'Delete',
      since: '2026-11-29T12:00:00Z',
    });
    const failing = {
      observedGeneration: 1,
      lastOperation: { type: 'Reconcile', state: 'Error' },
      retryCycleStartTime: '2026-11-29T11:00:00Z',
    };
    expect(operationStart(shoot(failing))).toEqual({ type: 'Reconcile', since: '2026-11-29T11:00:00Z' });
    expect(operationStart(shoot({ ...failing, retryCycleStartTime: undefined }))).toBeUndefined();
  });

  it('does not time a failing Reconcile once a newer generation waits for Gardener: that is a new operation', () => {
    const failing = {
      observedGeneration: 1,
      lastOperation: { type: 'Reconcile', state: 'Error' },
      retryCycleStartTime: '2026-11-29T11:00:00Z',
    };
    expect(operationStart(shoot(failing, { generation: 2 }))).toBeUndefined();
  });

  it('does not time a healthy Reconcile in progress, periodic or not: its retry cycle may have begun days ago', () => {
    expect(
      operationStart(shoot({ ...processing('Reconcile'), retryCycleStartTime: '2026-11-01T00:00:00Z' })),
    ).toBeUndefined();
  });
});

describe('timeoutChanges', () => {
  it('marks a Create still running past its timeout, once', () => {
    const [change] = timeoutChanges([shoot(processing('Create'))], DEFAULT_APPLY.timeouts, at('2026-11-29T11:00:01Z'));
    expect(change).toEqual({
      shoot: 'c1',
      set: expect.stringContaining(`Create started ${created} has no result after 1h0m0s`) as string,
    });
    const marked = shoot(processing('Create'), {
      annotations: { [OPERATION_TIMED_OUT_ANNOTATION]: (change as { set: string }).set },
    });
    expect(timeoutChanges([marked], DEFAULT_APPLY.timeouts, at('2026-11-29T12:00:00Z'))).toEqual([]);
  });

  it('leaves an operation within its time alone, and a Shoot Gardener has not reported on counts as creating', () => {
    expect(timeoutChanges([shoot(processing('Create'))], DEFAULT_APPLY.timeouts, at('2026-11-29T10:59:59Z'))).toEqual(
      [],
    );
    expect(timeoutChanges([shoot(undefined)], DEFAULT_APPLY.timeouts, at('2026-11-29T11:30:00Z'))).toHaveLength(1);
  });

  it('uses the timeout of the operation: update for a failing Reconcile, delete for a deletion', () => {
    const timeouts = { create: HOUR, update: 2 * HOUR, delete: 3 * HOUR };
    const reconcile = shoot({
      observedGeneration: 1,
      lastOperation: { type: 'Reconcile', state: 'Error' },
      lastErrors: [{ description: 'throttled', codes: ['ERR_INFRA_RATE_LIMITS_EXCEEDED'] }],
      retryCycleStartTime: '2026-11-29T10:00:00Z',
    });
    expect(timeoutChanges([reconcile], timeouts, at('2026-11-29T11:30:00Z'))).toEqual([]);
    expect(timeoutChanges([reconcile], timeouts, at('2026-11-29T12:00:01Z'))).toHaveLength(1);
    const deleting = shoot(processing('Delete'), { deletionTimestamp: '2026-11-29T10:00:00Z' });
    expect(timeoutChanges([deleting], timeouts, at('2026-11-29T12:30:00Z'))).toEqual([]);
    expect(timeoutChanges([deleting], timeouts, at('2026-11-29T13:00:01Z'))).toHaveLength(1);
  });

  it('clears the mark once the operation ended, or when a newer one is within its time', () => {
    const mark = { annotations: { [OPERATION_TIMED_OUT_ANNOTATION]: 'Create started … has no result after 1h0m0s' } };
    const succeeded = shoot({ observedGeneration: 1, lastOperation: { type: 'Create', state: 'Succeeded' } }, mark);
    expect(timeoutChanges([succeeded], DEFAULT_APPLY.timeouts, at('2026-11-30T00:00:00Z'))).toEqual([
      { shoot: 'c1', clear: true },
    ]);
    const newer = shoot(
      {
        observedGeneration: 1,
        lastOperation: { type: 'Reconcile', state: 'Error' },
        retryCycleStartTime: '2026-11-30T00:00:00Z',
      },
      mark,
    );
    expect(timeoutChanges([newer], DEFAULT_APPLY.timeouts, at('2026-11-30T00:10:00Z'))).toEqual([
      { shoot: 'c1', clear: true },
    ]);
  });

  it("counts a failed operation as ended: the backfiller reports Gardener's own verdict", () => {
    const failed = shoot({
      observedGeneration: 1,
      lastOperation: { type: 'Create', state: 'Failed' },
      lastErrors: [{ description: 'no', codes: ['ERR_INFRA_UNAUTHORIZED'] }],
    });
    expect(timeoutChanges([failed], DEFAULT_APPLY.timeouts, at('2026-11-30T00:00:00Z'))).toEqual([]);
  });
});
