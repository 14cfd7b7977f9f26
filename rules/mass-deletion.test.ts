import { describe, expect, it } from 'vitest';
import { DEFAULT_MASS_DELETION } from '../model/kimops-config.js';
import { deletionsAllowedAtOnce, massDeletionGuard, parseDeletionCount } from './mass-deletion.js';

describe('massDeletionGuard', () => {
  const guard = { maxShoots: 20, maxPercent: 10 };
  it.each<[number, number, number | undefined, boolean]>([
    [1, 3, undefined, true], // one deletion never trips the percentage
    [2, 100, undefined, true],
    [10, 100, undefined, true],
    [11, 100, undefined, false], // 11 %
    [20, 1000, undefined, true],
    [21, 1000, undefined, false], // more than 20 shoots
    [21, 1000, 21, true],
    [21, 1000, 20, false], // the override must cover every deletion
    [0, 0, undefined, true],
  ])('deleting %i of %i with override %s: allowed %s', (deleting, total, override, allowed) => {
    expect(massDeletionGuard({ deleting, total, policy: guard, override }).allowed).toBe(allowed);
  });

  it('names the numbers and the way to override', () => {
    const result = massDeletionGuard({ deleting: 40, total: 200, policy: DEFAULT_MASS_DELETION });
    expect(result).toEqual({
      allowed: false,
      message:
        'refusing to propose deleting 40 of 200 shoots (20 %) at once: kimops.yaml massDeletion allows 20 shoots or 10 %. ' +
        'These are Shoots whose Runtime is absent (deletions KEB asked for, by a deletionTimestamp, are not counted): check that the Runtime source is complete; ' +
        'if the deletions are intended, re-run with --allow-mass-deletion 40 or raise massDeletion in kimops.yaml.',
    });
  });

  it('holds the percentage exactly: 13 of 130 is 10 %, and deletionsAllowedAtOnce is what the guard lets through', () => {
    const policy = { maxShoots: 20, maxPercent: 10 };
    expect(massDeletionGuard({ deleting: 13, total: 130, policy })).toEqual({ allowed: true });
    expect(massDeletionGuard({ deleting: 14, total: 130, policy }).allowed).toBe(false);
    for (const total of [0, 1, 9, 19, 50, 130, 199, 200, 201, 1000]) {
      const atOnce = deletionsAllowedAtOnce(total, policy);
      expect(
        massDeletionGuard({ deleting: atOnce, total: Math.max(total, atOnce), policy }).allowed,
        `${atOnce} of ${total}`,
      ).toBe(true);
      if (total >= atOnce + 1)
        expect(massDeletionGuard({ deleting: atOnce + 1, total, policy }).allowed, `${atOnce + 1} of ${total}`).toBe(
          false,
        );
    }
  });
});

describe('parseDeletionCount', () => {
  it.each([
    ['0', 0],
    ['25', 25],
    ['-1', undefined],
    ['2.5', undefined],
    ['lots', undefined],
    ['', undefined],
    ['99999999999999999999', undefined],
  ])('reads %j as %j', (text, count) => {
    expect(parseDeletionCount(text)).toBe(count);
  });
});
