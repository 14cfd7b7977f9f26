import { describe, expect, it } from 'vitest';
import type { PlanEntry, SyncPlan } from './plan.js';
import { driftCandidates, isDrift, withDrift } from './drift.js';

const entry = (shoot: string, action: PlanEntry['action'], appliedCommit?: string): PlanEntry => ({
  shoot,
  action,
  reasons: [`spec.provider.workers[a].maximum: 3 → 5`],
  object: { kind: 'Shoot', name: shoot, action: action === 'update' ? 'update' : 'unchanged', changes: [] },
  companions: [],
  ...(appliedCommit !== undefined && { appliedCommit }),
});

const plan: SyncPlan = {
  commit: 'c2',
  fieldManager: 'kimops',
  entries: [entry('a', 'update', 'c1'), entry('b', 'update', 'c2'), entry('c', 'update'), entry('d', 'unchanged', 'c1')],
  counts: { create: 0, update: 3, 'take-over': 0, delete: 0, unchanged: 1, blocked: 0, drifted: 0 },
  problems: [],
};

describe('drift', () => {
  it('offers the updates of Shoots kimops applied before, with their commits', () => {
    expect(driftCandidates(plan)).toEqual([
      { shoot: 'a', appliedCommit: 'c1' },
      { shoot: 'b', appliedCommit: 'c2' },
    ]);
  });

  it('is drift only when the folder is the same tree as at the applied commit', () => {
    expect(isDrift('tree1', 'tree1')).toBe(true);
    expect(isDrift('tree2', 'tree1')).toBe(false);
    expect(isDrift('tree1', undefined)).toBe(false);
    expect(isDrift(undefined, undefined)).toBe(false);
  });

  it('keeps the write under correct, saying it corrects drift', () => {
    const marked = withDrift(plan, new Set(['a']), 'correct');
    expect(marked.entries[0]).toMatchObject({ action: 'update', drift: true, reasons: [expect.stringMatching(/^drift corrected/) as string] });
    expect(marked.counts).toEqual(plan.counts);
  });

  it.each(['report', 'adopt'] as const)('turns drift into no write under %s, leaving Git changes alone', (mode) => {
    const marked = withDrift(plan, new Set(['a']), mode);
    expect(marked.entries.map((e) => e.action)).toEqual(['drifted', 'update', 'update', 'unchanged']);
    expect(marked.entries[0]?.reasons[0]).toContain(`drift: ${mode}`);
    expect(marked.entries[0]?.reasons[0]).toContain('spec.provider.workers[a].maximum');
    expect(marked.counts).toMatchObject({ update: 2, drifted: 1 });
  });
});
