import { describe, expect, it } from 'vitest';
import { sampleStatus } from '../test/helpers/sample-status.js';
import type { LandscapeStatus, RuntimeRow } from './landscape-status.js';
import { statusUpdate } from './status-delta.js';

const base = (): LandscapeStatus => sampleStatus(60);
const rowOf = (status: LandscapeStatus, key: string): RuntimeRow => {
  const row = status.rows.find((r) => r.key === key);
  if (!row) throw new Error(`no row ${key}`);
  return row;
};

describe('statusUpdate', () => {
  it('sends no rows when none changed, and the landscape-wide parts anew', () => {
    const previous = base();
    const next = { ...base(), generatedAt: '2026-12-02T10:05:00Z' };
    const update = statusUpdate(previous, next);
    expect(update.changed).toEqual([]);
    expect(update.removed).toEqual([]);
    expect(update.generatedAt).toBe('2026-12-02T10:05:00Z');
    expect(update.summary).toEqual(next.summary);
    expect(update).not.toHaveProperty('rows');
  });

  it('sends a row that changed deep inside, and only that one', () => {
    const previous = base();
    const next = base();
    rowOf(next, 'kcp-system/rt-00012').timeline.merged = '2026-12-02T10:04:00Z';
    expect(statusUpdate(previous, next).changed.map((row) => row.key)).toEqual(['kcp-system/rt-00012']);
  });

  it('ignores key order and absent-versus-undefined fields: JSON sees no difference', () => {
    const previous = base();
    const next = base();
    const row = rowOf(next, 'kcp-system/rt-00003');
    Object.assign(row, { failure: undefined });
    next.rows[3] = Object.fromEntries(Object.entries(row).reverse()) as unknown as RuntimeRow;
    expect(statusUpdate(previous, next).changed).toEqual([]);
  });

  it('sends added rows as changed and the keys of removed ones', () => {
    const previous = base();
    const next = base();
    const gone = next.rows.splice(5, 2).map((row) => row.key);
    next.rows.push({ key: 'shoot/new-one', shoot: 'new-one', stage: 'ready', sync: 'not-in-main', timeline: {} });
    const update = statusUpdate(previous, next);
    expect(update.removed).toEqual(gone);
    expect(update.changed.map((row) => row.key)).toEqual(['shoot/new-one']);
  });
});
