import { describe, expect, it } from 'vitest';
import { DEFAULT_MERGE_POLICY } from '../../model/kimops-config.js';
import type { ChangeClassName } from './classify.js';
import type { ApprovalTally } from './code-owners.js';
import {
  type CheckResult,
  decideMerge,
  onlyKimopsReports,
  type ReportedCheck,
  requiredChecksDecision,
  withRequiredChecks,
} from './merge-policy.js';

const pass: CheckResult = { name: 'schema', passed: true, messages: [] };
const fail: CheckResult = { name: 'policy', passed: false, messages: ['spec.region: not allowed'] };
const policy = { ...DEFAULT_MERGE_POLICY, rollout: { mode: 'review' as const, approvals: 2 } };
/** `count` approvals where CODEOWNERS names nobody for the PR's files. */
const byCollaborators = (count: number): ApprovalTally => ({
  count,
  reviewers: { by: 'collaborators' },
  waitingFor: [],
});

describe('decideMerge', () => {
  it.each<[ChangeClassName, boolean, CheckResult[], number, string, RegExp]>([
    ['create', false, [pass], 0, 'auto-merge', /^auto-merge per mergePolicy\.create$/],
    ['delete', false, [pass], 0, 'auto-merge', /^auto-merge per mergePolicy\.delete$/],
    ['update', false, [pass], 0, 'auto-merge', /^auto-merge per mergePolicy\.update$/],
    [
      'update',
      true,
      [pass],
      0,
      'await-review',
      /^waits for 1 approval by a collaborator \(mergePolicy\.update-disruptive; CODEOWNERS names no owner of its files\), has 0$/,
    ],
    [
      'update',
      true,
      [pass],
      1,
      'auto-merge',
      /^approved: 1 of 1 approval by a collaborator \(mergePolicy\.update-disruptive; CODEOWNERS names no owner of its files\)$/,
    ],
    [
      'rollout',
      false,
      [pass],
      1,
      'await-review',
      /^waits for 2 approvals by collaborators \(mergePolicy\.rollout; CODEOWNERS names no owner of its files\), has 1$/,
    ],
    ['adopt', false, [pass], 0, 'auto-merge', /mergePolicy\.adopt/],
    // ADR 0011: a shadow changes nothing live; a cut-over merges alone only where the live Shoot matches main.
    ['shadow', false, [pass], 0, 'auto-merge', /^auto-merge per mergePolicy\.shadow$/],
    ['shadow', false, [fail], 0, 'blocked', /^failed checks: policy;/],
    ['cut-over', false, [pass], 0, 'auto-merge', /^auto-merge per mergePolicy\.cut-over$/],
    [
      'cut-over',
      true,
      [pass],
      0,
      'await-review',
      /^waits for 1 approval by a collaborator \(a cut-over whose live Shoot is not known to match main; CODEOWNERS names no owner of its files\), has 0$/,
    ],
    ['cut-over', true, [pass], 1, 'auto-merge', /^approved: 1 of 1 approval by a collaborator \(a cut-over/],
    // kimops bootstrap: a whole landscape into main at once is always read by a person, and one approval merges it.
    [
      'bootstrap',
      false,
      [pass],
      0,
      'await-review',
      /^waits for 1 approval by a collaborator \(a bootstrap is always reviewed; CODEOWNERS names no owner of its files\), has 0$/,
    ],
    ['bootstrap', false, [pass], 1, 'auto-merge', /^approved: 1 of 1 approval by a collaborator \(a bootstrap/],
    ['bootstrap', false, [fail], 1, 'blocked', /^failed checks: policy/],
    ['metadata-only', false, [pass], 0, 'auto-merge', /mergePolicy\.metadata-only/],
    // Inside the cluster: what the Runtime asked for merges as KIM applies it; what no Runtime asked for waits.
    ['skr', false, [pass], 0, 'auto-merge', /^auto-merge per mergePolicy\.skr$/],
    [
      'skr-unrequested',
      false,
      [pass],
      0,
      'await-review',
      /^waits for 1 approval by a collaborator \(mergePolicy\.skr-unrequested; CODEOWNERS names no owner of its files\), has 0$/,
    ],
    ['skr-unrequested', false, [pass], 1, 'auto-merge', /^approved: 1 of 1 approval/],
    ['skr', false, [fail], 0, 'blocked', /failed checks: policy/],
    ['create', false, [pass, fail], 0, 'blocked', /failed checks: policy/],
    ['update', true, [fail], 5, 'blocked', /failed checks: policy/],
    ['immutable', true, [pass], 9, 'blocked', /^Gardener would reject this change; change the Runtime back/],
    // A delete no Runtime asked for (its Runtime is absent) waits for a human although deletes auto-merge.
    [
      'delete',
      true,
      [pass],
      0,
      'await-review',
      /^waits for 1 approval by a collaborator \(a delete no Runtime asked for; CODEOWNERS names no owner of its files\), has 0$/,
    ],
    [
      'delete',
      true,
      [pass],
      1,
      'auto-merge',
      /^approved: 1 of 1 approval by a collaborator \(a delete no Runtime asked for; CODEOWNERS names no owner of its files\)$/,
    ],
  ])('%s (disruptive %s) → %s', (changeClass, disruptive, checks, approvals, action, reason) => {
    const decision = decideMerge({
      class: changeClass,
      disruptive,
      checks,
      approvals: byCollaborators(approvals),
      policy,
    });
    expect(decision.action).toBe(action);
    expect(decision.reason).toMatch(reason);
  });

  it("names the code owners it waits for, and waits for an owner of every owned file as GitHub's rule does", () => {
    const decide = (approvals: ApprovalTally) =>
      decideMerge({ class: 'rollout', disruptive: false, checks: [pass], approvals, policy });
    const reviewers = { by: 'code-owners' as const, owners: ['@acme/sre', '@bob'] };
    expect(decide({ count: 1, reviewers, waitingFor: [] })).toEqual({
      action: 'await-review',
      reason: 'waits for 2 approvals by code owners (mergePolicy.rollout; CODEOWNERS: @acme/sre, @bob), has 1',
    });
    const bobs = { owners: ['@bob'], paths: ['shoots/c-2/shoot.yaml', 'shoots/c-3/shoot.yaml'] };
    expect(decide({ count: 2, reviewers, waitingFor: [bobs] })).toEqual({
      action: 'await-review',
      reason:
        'waits for 2 approvals by code owners (mergePolicy.rollout; CODEOWNERS: @acme/sre, @bob), has 2, but none yet by an owner of shoots/c-2/shoot.yaml and 1 more (@bob)',
    });
    expect(decide({ count: 2, reviewers, waitingFor: [] })).toEqual({
      action: 'auto-merge',
      reason: 'approved: 2 of 2 approvals by code owners (mergePolicy.rollout; CODEOWNERS: @acme/sre, @bob)',
    });
  });
});

const check = (name: string, state: ReportedCheck['state'], description: string = state): ReportedCheck => ({
  name,
  state,
  description,
});

describe('requiredChecksDecision', () => {
  const required = ['kimops/validate', 'validate'];

  it('passes when every required check is green, whatever else is reported', () => {
    const reported = [check('kimops/validate', 'success'), check('validate', 'success'), check('lint', 'failure')];
    expect(requiredChecksDecision({ required, reported })).toBeUndefined();
    expect(requiredChecksDecision({ required: [], reported: [check('lint', 'failure')] })).toBeUndefined();
  });

  it('waits for a pending or missing check and names each with its state', () => {
    expect(requiredChecksDecision({ required, reported: [check('validate', 'pending', 'queued')] })).toEqual({
      action: 'await-checks',
      reason: 'waits for required checks: kimops/validate (not reported yet), validate (queued)',
    });
  });

  it('is blocked by a failed check, which wins over one still pending', () => {
    const reported = [check('kimops/validate', 'pending'), check('validate', 'failure', 'cancelled')];
    expect(requiredChecksDecision({ required, reported })).toEqual({
      action: 'blocked',
      reason: 'required check failed: validate (cancelled); fix the cause and run it again',
    });
  });

  it('counts a name reported twice (a status and a check run) by its worst report', () => {
    const twice = [check('validate', 'success'), check('validate', 'failure')];
    expect(requiredChecksDecision({ required: ['validate'], reported: twice })?.action).toBe('blocked');
    const pending = [check('validate', 'success'), check('validate', 'pending')];
    expect(requiredChecksDecision({ required: ['validate'], reported: pending })?.action).toBe('await-checks');
  });

  it('says why a check never arrives on a forge only kimops posts to', () => {
    const decision = requiredChecksDecision({ required, reported: [], unreportable: onlyKimopsReports });
    expect(decision?.reason).toBe(
      'waits for required checks: kimops/validate (not reported yet), validate (never reported: only kimops posts statuses to a local repository; remove it from requiredChecks in kimops.yaml, or merge with kimops pr merge --force --reason)',
    );
  });
});

describe('withRequiredChecks', () => {
  const green = [check('kimops/validate', 'success')];

  it("holds an auto-merge back and says both the policy's reason and what it waits for", () => {
    const decision = withRequiredChecks(
      { action: 'auto-merge', reason: 'auto-merge per mergePolicy.create' },
      { required: ['kimops/validate', 'validate'], reported: green },
    );
    expect(decision).toEqual({
      action: 'await-checks',
      reason: 'auto-merge per mergePolicy.create, but waits for required check: validate (not reported yet)',
    });
  });

  it('names the green checks when it merges, and leaves a decision that does not merge as it is', () => {
    expect(
      withRequiredChecks(
        { action: 'auto-merge', reason: 'auto-merge per mergePolicy.create' },
        { required: ['kimops/validate'], reported: green },
      ),
    ).toEqual({
      action: 'auto-merge',
      reason: 'auto-merge per mergePolicy.create; required checks green: kimops/validate',
    });
    const waiting = { action: 'await-review' as const, reason: 'waits for 1 approval' };
    expect(withRequiredChecks(waiting, { required: ['validate'], reported: [] })).toBe(waiting);
  });
});
