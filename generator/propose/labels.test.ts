import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ChangeClassName } from './classify.js';
import { labelOf, labelsToSet, PR_LABELS } from './labels.js';

describe('labelOf', () => {
  it.each<[ChangeClassName, boolean, string]>([
    ['create', false, 'kimops:create'],
    ['update', false, 'kimops:update'],
    ['update', true, 'kimops:update-disruptive'],
    ['immutable', true, 'kimops:blocked'],
    ['rollout', true, 'kimops:rollout'],
    ['rollout', false, 'kimops:rollout'],
    ['adopt', false, 'kimops:adopt'],
    ['delete', false, 'kimops:delete'],
    ['delete', true, 'kimops:delete-runtime-absent'],
    ['metadata-only', false, 'kimops:metadata-only'],
    ['skr', false, 'kimops:skr'],
    ['skr-unrequested', false, 'kimops:skr-unrequested'],
    ['shadow', false, 'kimops:shadow'],
    ['cut-over', false, 'kimops:cut-over'],
    ['cut-over', true, 'kimops:cut-over'],
  ])('labels %s (disruptive: %s) %s', (name, disruptive, label) => {
    expect(labelOf({ class: name, disruptive })).toBe(label);
    expect(Object.keys(PR_LABELS)).toContain(label);
  });

  it("is described, each label, in the landscape repo's README for reviewers", () => {
    const readme = readFileSync(new URL('../../repo-template/README.md', import.meta.url), 'utf8');
    for (const label of Object.keys(PR_LABELS)) expect(readme).toContain(`\`${label}\``);
  });
});

describe('labelsToSet', () => {
  it("swaps the label of an earlier class and keeps a human's labels", () => {
    expect(labelsToSet(['kimops:update', 'needs-sre'], 'kimops:blocked')).toEqual(['needs-sre', 'kimops:blocked']);
  });

  it('adds the label to a PR that has none of kimops', () => {
    expect(labelsToSet([], 'kimops:create')).toEqual(['kimops:create']);
  });

  it('drops a second kimops label', () => {
    expect(labelsToSet(['kimops:update', 'kimops:rollout'], 'kimops:rollout')).toEqual(['kimops:rollout']);
  });

  it('changes nothing when the PR carries the label already', () => {
    expect(labelsToSet(['x', 'kimops:rollout'], 'kimops:rollout')).toBeUndefined();
  });
});
