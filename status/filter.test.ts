import { describe, expect, it } from 'vitest';
import { filterRows, unknownStates } from './filter.js';
import type { LandscapeStatus, RuntimeRow } from './landscape-status.js';

function row(key: string, change: Partial<RuntimeRow>): RuntimeRow {
  return { key, shoot: key, stage: 'ready', sync: 'in-sync', timeline: {}, ...change };
}

const runtime = (state?: 'Ready' | 'Pending' | 'Failed') => ({
  namespace: 'kcp-system',
  name: 'r',
  ...(state && { state }),
  leader: 'kimops' as const,
});

const status = {
  summary: { runtimes: 4 },
  rows: [
    row('ready', { runtime: runtime('Ready') }),
    row('pending-pr', {
      runtime: runtime('Pending'),
      stage: 'pr',
      pr: { number: 1, url: '', state: 'open', class: 'update-disruptive' },
    }),
    row('failed', {
      runtime: runtime('Failed'),
      stage: 'failed',
      pr: { number: 2, url: '', state: 'open', class: 'create' },
    }),
    row('no-state', { runtime: runtime(), stage: 'applied', sync: 'drifted' }),
    row('shoot/orphan', { stage: 'applied', sync: 'not-in-main' }),
  ],
} as unknown as LandscapeStatus;

const keys = (filtered: LandscapeStatus) => filtered.rows.map((r) => r.key);

describe('filterRows', () => {
  it('keeps every row without a filter', () => {
    expect(filterRows(status, {})).toBe(status);
  });

  it('matches a Runtime state, a stage or a sync state, as written; values are alternatives', () => {
    expect(keys(filterRows(status, { states: ['failed'] }))).toEqual(['failed']);
    expect(keys(filterRows(status, { states: ['Pending', 'Unknown'] }))).toEqual(['pending-pr', 'no-state']);
    // `unknown` is the sync state, not the Runtime state Unknown: no row here has it.
    expect(keys(filterRows(status, { states: ['unknown'] }))).toEqual([]);
    expect(keys(filterRows(status, { states: ['applied'] }))).toEqual(['no-state', 'shoot/orphan']);
    expect(keys(filterRows(status, { states: ['drifted', 'not-in-main'] }))).toEqual(['no-state', 'shoot/orphan']);
  });

  it("matches the PR's class with or without kimops:, both flags holding", () => {
    expect(keys(filterRows(status, { classes: ['kimops:update-disruptive', 'create'] }))).toEqual([
      'pending-pr',
      'failed',
    ]);
    expect(keys(filterRows(status, { classes: ['create'], states: ['Pending'] }))).toEqual([]);
  });

  it('leaves the summary as it was', () => {
    expect(filterRows(status, { states: ['Ready'] }).summary).toBe(status.summary);
  });
});

describe('unknownStates', () => {
  it('names the values --state does not know', () => {
    expect(unknownStates(['ready', 'Ready', 'PR', 'out-of-sync', 'Broken'])).toEqual(['PR', 'Broken']);
  });
});
