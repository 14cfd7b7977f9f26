import { describe, expect, it } from 'vitest';
import type { RuntimeStatus } from '../model/runtime-status.js';
import { timelineOf, type TimelineFacts } from './timeline.js';

const OWN = new Set(['kimops', 'unknown']);

function ready(at: string): Partial<RuntimeStatus> {
  return {
    state: 'Ready',
    conditions: [
      { type: 'Provisioned', status: 'True', reason: 'ConfigurationCompleted', message: '', lastTransitionTime: at },
    ],
  };
}

function facts(change: Partial<TimelineFacts> = {}): TimelineFacts {
  return {
    runtime: {
      creationTimestamp: '2026-12-01T10:00:00Z',
      managedFields: [
        { manager: 'keb', operation: 'Update', time: '2026-12-01T10:00:00Z' },
        { manager: 'keb', operation: 'Update', time: '2026-12-01T12:00:00Z' },
        // The generator's annotation and the backfiller's status: kimops's own, not a change.
        { manager: 'kimops', operation: 'Update', time: '2026-12-01T12:00:05Z' },
        { manager: 'kimops', operation: 'Update', time: '2026-12-01T12:09:00Z', subresource: 'status' },
        { manager: 'someone', operation: 'Update', time: '2026-12-01T12:09:30Z', subresource: 'status' },
      ],
      status: ready('2026-12-01T12:09:00Z'),
    },
    ownManagers: OWN,
    proposedAt: '2026-12-01T12:00:10Z',
    mergedAt: '2026-12-01T12:01:00Z',
    mergeCommits: ['m1'],
    appliedCommit: 'm1',
    shoot: {
      managedFields: [
        { manager: 'kimops', operation: 'Apply', time: '2026-12-01T12:02:00Z' },
        { manager: 'kimops', operation: 'Update', time: '2026-12-01T12:03:00Z' },
        { manager: 'kim', operation: 'Apply', time: '2026-12-01T12:04:00Z' },
        { manager: 'gardener', operation: 'Update', time: '2026-12-01T12:05:00Z' },
      ],
    },
    fieldManager: 'kimops',
    ...change,
  };
}

describe('timelineOf', () => {
  it('takes each step from where it was recorded', () => {
    expect(timelineOf(facts())).toEqual({
      changed: '2026-12-01T12:00:00Z',
      proposed: '2026-12-01T12:00:10Z',
      merged: '2026-12-01T12:01:00Z',
      applied: '2026-12-01T12:02:00Z',
      ready: '2026-12-01T12:09:00Z',
    });
  });

  it('attributes an apply and the Ready after it only to the change whose merge it was applied from', () => {
    // A rollout (or a later merge) applied since: its apply and Ready are not this change's.
    expect(timelineOf(facts({ appliedCommit: 'rollout' }))).toEqual({
      changed: '2026-12-01T12:00:00Z',
      proposed: '2026-12-01T12:00:10Z',
      merged: '2026-12-01T12:01:00Z',
    });
    // No merge known (a Runtime bootstrapped into the repo): nothing to attribute an apply to.
    expect(timelineOf(facts({ mergeCommits: [] })).applied).toBeUndefined();
    // The forge's merge commit counts as well as the generator's record of main.
    expect(timelineOf(facts({ mergeCommits: ['noticed', 'm1'] })).applied).toBe('2026-12-01T12:02:00Z');
  });

  it('takes Ready from the Ready condition, and only when it came after the apply', () => {
    const status = (readyAt: string): Partial<RuntimeStatus> => ({
      state: 'Ready',
      conditions: [
        ...(ready('2026-12-01T12:08:00Z').conditions ?? []),
        { type: 'Ready', status: 'True', reason: 'Ready', message: '', lastTransitionTime: readyAt },
      ],
    });
    const at = (readyAt: string) =>
      timelineOf(facts({ runtime: { ...facts().runtime, status: status(readyAt) } as TimelineFacts['runtime'] }));
    expect(at('2026-12-01T12:10:00Z').ready).toBe('2026-12-01T12:10:00Z');
    // Ready before kimops applied: an older Ready the backfiller has not turned Pending yet.
    expect(at('2026-12-01T12:01:30Z').ready).toBeUndefined();
  });

  it("tells a fast-forward merge, whose commit is older than its PR, at the PR's opening", () => {
    expect(timelineOf(facts({ mergedAt: '2026-12-01T12:00:09Z' })).merged).toBe('2026-12-01T12:00:10Z');
  });

  it('takes the creation when only kimops wrote the Runtime', () => {
    const timeline = timelineOf(
      facts({
        runtime: {
          creationTimestamp: '2026-12-01T09:00:00Z',
          managedFields: [{ manager: 'kimops', operation: 'Update', time: '2026-12-01T09:01:00Z' }],
          status: {},
        },
      }),
    );
    expect(timeline.changed).toBe('2026-12-01T09:00:00Z');
    expect(timeline.ready).toBeUndefined();
  });

  it('leaves out the times of an earlier change', () => {
    const timeline = timelineOf(
      facts({
        proposedAt: '2026-12-01T11:00:00Z',
        mergedAt: '2026-12-01T11:30:00Z',
        shoot: { managedFields: [{ manager: 'kimops', operation: 'Apply', time: '2026-12-01T11:40:00Z' }] },
        runtime: { ...facts().runtime, status: ready('2026-12-01T11:50:00Z') } as TimelineFacts['runtime'],
      }),
    );
    expect(timeline).toEqual({ changed: '2026-12-01T12:00:00Z' });
  });

  it('has no ready time while the Runtime is not Ready', () => {
    const runtime = { ...facts().runtime, status: { ...ready('2026-12-01T12:09:00Z'), state: 'Pending' } };
    expect(timelineOf(facts({ runtime } as Partial<TimelineFacts>)).ready).toBeUndefined();
  });

  it("reads the configured field manager's applies", () => {
    expect(timelineOf(facts({ fieldManager: 'kim' })).applied).toBe('2026-12-01T12:04:00Z');
  });

  it('gives a Shoot without a Runtime its applied time alone', () => {
    expect(timelineOf({ ownManagers: OWN, shoot: facts().shoot, fieldManager: 'kimops' })).toEqual({
      applied: '2026-12-01T12:02:00Z',
    });
  });
});
