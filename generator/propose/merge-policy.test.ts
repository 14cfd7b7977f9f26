import { describe, expect, it } from 'vitest';
import { DEFAULT_MERGE_POLICY } from '../../model/kimops-config.js';
import type { ChangeClassName } from './classify.js';
import { type CheckResult, decideMerge } from './merge-policy.js';

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
