import { describe, expect, it } from 'vitest';
import { describeChange, formatCount, show } from './change-text.js';

describe('change text', () => {
  it.each<[unknown, string]>([
    ['1.33.3', '1.33.3'],
    [3, '3'],
    [undefined, '(unset)'],
    [{ a: [1, 'x'] }, '{"a":[1,"x"]}'],
    ['y'.repeat(100), `${'y'.repeat(77)}...`],
  ])('shows %j as %s', (value, text) => {
    expect(show(value)).toBe(text);
  });

  it.each([
    [{ path: 'p', kind: 'changed' as const, before: 1, after: 2 }, 'p 1 → 2'],
    [{ path: 'p[a]', kind: 'added' as const, after: { name: 'a' } }, 'p[a] added: {"name":"a"}'],
    [{ path: 'p[a]', kind: 'removed' as const, before: 'z1' }, 'p[a] removed (was z1)'],
  ])('describes %j', (change, text) => {
    expect(describeChange(change)).toBe(text);
  });

  it.each([
    [0, '0'],
    [999, '999'],
    [1214, '1,214'],
    [1234567, '1,234,567'],
  ])('counts %i as %s', (count, text) => {
    expect(formatCount(count)).toBe(text);
  });
});
