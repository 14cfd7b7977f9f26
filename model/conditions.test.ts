import { describe, expect, it } from 'vitest';
import { setCondition, type Condition } from './conditions.js';

const at = (time: string, status = 'True', more: Partial<Condition> = {}): Condition => ({
  type: 'Provisioned',
  status,
  reason: 'Created',
  message: 'done',
  lastTransitionTime: time,
  ...more,
});

describe('setCondition', () => {
  it('appends a new type as given', () => {
    const conditions: Condition[] = [];
    setCondition(conditions, at('2026-01-01T00:00:00Z'));
    expect(conditions).toEqual([at('2026-01-01T00:00:00Z')]);
  });

  it('keeps lastTransitionTime while the status stays, taking reason, message and generation', () => {
    const conditions = [at('2026-01-01T00:00:00Z', 'True', { observedGeneration: 1 })];
    setCondition(conditions, at('2026-02-02T00:00:00Z', 'True', { reason: 'Again', message: 'new' }));
    expect(conditions).toEqual([{ ...at('2026-01-01T00:00:00Z'), reason: 'Again', message: 'new' }]);
  });

  it('takes the new lastTransitionTime when the status changes', () => {
    const conditions = [at('2026-01-01T00:00:00Z', 'Unknown')];
    setCondition(conditions, at('2026-02-02T00:00:00Z', 'False', { observedGeneration: 3 }));
    expect(conditions).toEqual([at('2026-02-02T00:00:00Z', 'False', { observedGeneration: 3 })]);
  });

  it('leaves other types alone and does not alias the given condition', () => {
    const other = { ...at('2025-12-12T00:00:00Z'), type: 'Other' };
    const conditions = [other];
    const given = at('2026-01-01T00:00:00Z');
    setCondition(conditions, given);
    given.message = 'changed later';
    expect(conditions).toEqual([other, at('2026-01-01T00:00:00Z')]);
  });

  it('with transitionOn any, a changed reason or message is a transition too', () => {
    const conditions = [at('2026-01-01T00:00:00Z', 'True', { reason: 'Created' })];
    setCondition(conditions, at('2026-02-02T00:00:00Z', 'True', { reason: 'Rotated' }), 'any');
    expect(conditions).toEqual([at('2026-02-02T00:00:00Z', 'True', { reason: 'Rotated' })]);
    setCondition(conditions, at('2026-03-03T00:00:00Z', 'True', { reason: 'Rotated' }), 'any');
    expect(conditions[0]?.lastTransitionTime).toBe('2026-02-02T00:00:00Z');
  });
});
