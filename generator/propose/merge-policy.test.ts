import { describe, expect, it } from 'vitest';
import { DEFAULT_MASS_DELETION, DEFAULT_MERGE_POLICY } from '../../model/kimops-config.js';
import type { ChangeClassName } from './classify.js';
import { type CheckResult, decideMerge, deletionsAllowedAtOnce, massDeletionGuard } from './merge-policy.js';

const pass: CheckResult = { name: 'schema', passed: true, messages: [] };
const fail: CheckResult = { name: 'policy', passed: false, messages: ['spec.region: not allowed'] };
const policy = { ...DEFAULT_MERGE_POLICY, rollout: { mode: 'review' as const, approvals: 2 } };

describe('decideMerge', () => {
  it.each<[ChangeClassName, boolean, CheckResult[], number, string, RegExp]>([
    ['create', false, [pass], 0, 'auto-merge', /create: auto-merge when checks pass/],
    ['delete', false, [pass], 0, 'auto-merge', /delete/],
    ['update', false, [pass], 0, 'auto-merge', /update: auto-merge/],
    ['update', true, [pass], 0, 'await-review', /update-disruptive: needs 1 approval, has 0/],
    ['update', true, [pass], 1, 'auto-merge', /1 of 1 required approvals/],
    ['rollout', false, [pass], 1, 'await-review', /rollout: needs 2 approvals, has 1/],
    ['adopt', false, [pass], 0, 'auto-merge', /adopt/],
    ['metadata-only', false, [pass], 0, 'auto-merge', /metadata-only/],
    ['create', false, [pass, fail], 0, 'blocked', /failed checks: policy/],
    ['update', true, [fail], 5, 'blocked', /failed checks: policy/],
    ['immutable', true, [pass], 9, 'blocked', /Gardener would reject this change/],
    // A delete no Runtime asked for (its Runtime is absent) waits for a human although deletes auto-merge.
    ['delete', true, [pass], 0, 'await-review', /^delete no Runtime asked for: needs 1 approval, has 0$/],
    ['delete', true, [pass], 1, 'auto-merge', /^delete no Runtime asked for: 1 of 1 required approvals$/],
  ])('%s (disruptive %s) → %s', (changeClass, disruptive, checks, approvals, action, reason) => {
    const decision = decideMerge({ class: changeClass, disruptive, checks, approvals, policy });
    expect(decision.action).toBe(action);
    expect(decision.reason).toMatch(reason);
  });
});

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
