import { describe, expect, it } from 'vitest';
import { DEFAULT_MERGE_POLICY, type KimopsConfig } from '../../model/kimops-config.js';
import type { ChangeClassName } from './classify.js';
import { decideMerge } from './merge-policy.js';
import { mergeStatement } from './merge-statement.js';

const requiredChecks = ['kimops/validate', 'validate'];
const statement = (name: ChangeClassName, disruptive: boolean, policy = DEFAULT_MERGE_POLICY) =>
  mergeStatement({ class: name, disruptive, policy, requiredChecks }).text;

describe('mergeStatement', () => {
  it('says a class that auto-merges does so per its policy, once the required checks pass', () => {
    expect(statement('create', false)).toBe(
      'auto-merges per `mergePolicy.create` when the required checks pass: `kimops/validate`, `validate`.',
    );
  });

  it('says a reviewed class waits for its approvals, naming the policy and whose approvals count', () => {
    expect(statement('update', true)).toBe(
      'waits for 1 approval (`mergePolicy.update-disruptive`) by a code owner of its files, or by a collaborator where CODEOWNERS names none; kimops merges it once approved and the required checks pass: `kimops/validate`, `validate`.',
    );
    const strict: KimopsConfig['mergePolicy'] = { ...DEFAULT_MERGE_POLICY, rollout: { mode: 'review', approvals: 2 } };
    expect(statement('rollout', false, strict)).toMatch(
      /^waits for 2 approvals \(`mergePolicy\.rollout`\) by code owners of its files, or by collaborators where CODEOWNERS names none;/,
    );
  });

  it('makes a delete no Runtime asked for wait for a person even where deletes auto-merge', () => {
    expect(statement('delete', true)).toMatch(
      /^waits for 1 approval \(a delete no Runtime asked for always waits for a person, whatever `mergePolicy\.delete` says\) by a code owner/,
    );
    expect(statement('delete', false)).toMatch(/^auto-merges per `mergePolicy\.delete`/);
  });

  it('lists what blocks a change Gardener would reject', () => {
    const blocked = mergeStatement({
      class: 'immutable',
      disruptive: true,
      policy: DEFAULT_MERGE_POLICY,
      requiredChecks,
      blockedBy: ['spec.region a → b: Gardener does not allow changing it'],
    });
    expect(blocked).toEqual({
      action: 'blocked',
      text: 'blocked: Gardener would reject this change, so it never merges:\n- spec.region a → b: Gardener does not allow changing it\n\nChange the Runtime back, or recreate the cluster.',
    });
  });

  it('names the one required check in the singular', () => {
    expect(
      mergeStatement({
        class: 'adopt',
        disruptive: false,
        policy: DEFAULT_MERGE_POLICY,
        requiredChecks: ['kimops/validate'],
      }).text,
    ).toBe('auto-merges per `mergePolicy.adopt` when the required check passes: `kimops/validate`.');
  });

  // The statement is the rule decideMerge applies: for every class and policy mode, the same outcome before any
  // approval (a policy needing none merges; one needing some waits; an immutable change is blocked).
  const classes: ChangeClassName[] = [
    'create',
    'delete',
    'update',
    'immutable',
    'rollout',
    'adopt',
    'metadata-only',
    'skr',
    'skr-unrequested',
    'shadow',
    'cut-over',
    'bootstrap',
  ];
  const policies: [string, KimopsConfig['mergePolicy']][] = [
    ['the defaults', DEFAULT_MERGE_POLICY],
    [
      'everything reviewed',
      Object.fromEntries(
        Object.keys(DEFAULT_MERGE_POLICY).map((key) => [key, { mode: 'review', approvals: 2 }]),
      ) as KimopsConfig['mergePolicy'],
    ],
    [
      'everything auto-merged',
      Object.fromEntries(
        Object.keys(DEFAULT_MERGE_POLICY).map((key) => [key, { mode: 'auto-merge' }]),
      ) as KimopsConfig['mergePolicy'],
    ],
  ];
  it.each(policies)('agrees with decideMerge under %s', (_what, policy) => {
    for (const name of classes) {
      for (const disruptive of [false, true]) {
        const none = { count: 0, reviewers: { by: 'collaborators' as const }, waitingFor: [] };
        const decided = decideMerge({ class: name, disruptive, checks: [], approvals: none, policy }).action;
        expect([name, disruptive, mergeStatement({ class: name, disruptive, policy, requiredChecks }).action]).toEqual([
          name,
          disruptive,
          decided,
        ]);
      }
    }
  });
});
