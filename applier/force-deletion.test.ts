import { describe, expect, it } from 'vitest';
import type { Shoot } from '../model/shoot.js';
import { FORCE_DELETABLE_CODES, forceDeletionDecision } from './force-deletion.js';
import { FORCE_DELETION_ANNOTATION } from '../model/contract.js';

/** Just after the deletion began: within the delete timeout, so only a Failed deletion counts as stuck. */
const SOON = { now: new Date('2026-01-02T00:05:00Z'), deleteTimeoutMs: 3_600_000 };

function shoot(
  options: { deleting?: boolean; codes?: string[][]; annotations?: Record<string, string>; state?: string } = {},
): Shoot {
  return {
    apiVersion: 'core.gardener.cloud/v1beta1',
    kind: 'Shoot',
    metadata: {
      name: 'c-1',
      namespace: 'garden-kyma',
      ...(options.deleting !== false && { deletionTimestamp: '2026-01-02T00:00:00Z' }),
      ...(options.annotations && { annotations: options.annotations }),
    },
    spec: { region: 'eu-central-1', networking: {}, kubernetes: {}, provider: { type: 'aws', workers: [] } },
    status: {
      lastOperation: { type: 'Delete', state: options.state ?? 'Failed' },
      lastErrors: (options.codes ?? [['ERR_INFRA_UNAUTHORIZED']]).map((codes, i) => ({
        description: `error ${i}`,
        codes,
      })),
    },
  };
}

describe('forceDeletionDecision', () => {
  it('leaves a deletion Gardener is still retrying alone until it runs past the delete timeout', () => {
    const retrying = shoot({ codes: [['ERR_INFRA_DEPENDENCIES']], state: 'Error' });
    expect(forceDeletionDecision(retrying, true, SOON)).toEqual({ action: 'none' });
    expect(forceDeletionDecision(retrying, false, SOON)).toEqual({ action: 'none' });
    const late = { ...SOON, now: new Date('2026-01-02T01:00:01Z') };
    expect(forceDeletionDecision(retrying, true, late)).toMatchObject({
      action: 'force',
      codes: ['ERR_INFRA_DEPENDENCIES'],
    });
    expect(forceDeletionDecision(retrying, false, late)).toMatchObject({ action: 'report' });
  });

  it('names the annotation and the five codes Gardener accepts it for', () => {
    expect(FORCE_DELETION_ANNOTATION).toBe('confirmation.gardener.cloud/force-deletion');
    expect([...FORCE_DELETABLE_CODES].sort()).toEqual([
      'ERR_CLEANUP_CLUSTER_RESOURCES',
      'ERR_CONFIGURATION_PROBLEM',
      'ERR_INFRA_DEPENDENCIES',
      'ERR_INFRA_UNAUTHENTICATED',
      'ERR_INFRA_UNAUTHORIZED',
    ]);
  });

  it.each(FORCE_DELETABLE_CODES)('forces a deleting Shoot with %s where the landscape allows it', (code) => {
    const decision = forceDeletionDecision(shoot({ codes: [[code]] }), true, SOON);
    expect(decision).toMatchObject({ action: 'force', codes: [code] });
    if (decision.action !== 'force') return;
    expect(decision.message).toContain(`Shoot garden-kyma/c-1 is stuck in deletion (${code})`);
    expect(decision.message).toContain('confirmation.gardener.cloud/force-deletion=true');
  });

  it('reports instead where the landscape does not allow it, telling the SRE both ways out', () => {
    const decision = forceDeletionDecision(shoot({ codes: [['ERR_CLEANUP_CLUSTER_RESOURCES']] }), false, SOON);
    expect(decision).toMatchObject({ action: 'report', codes: ['ERR_CLEANUP_CLUSTER_RESOURCES'] });
    if (decision.action !== 'report') return;
    expect(decision.message).toContain('Shoot garden-kyma/c-1 is stuck in deletion (ERR_CLEANUP_CLUSTER_RESOURCES)');
    expect(decision.message).toContain('apply.forceDeletion: true');
    expect(decision.message).toMatch(
      /check its infrastructure.*annotate the Shoot confirmation\.gardener\.cloud\/force-deletion=true by hand/,
    );
  });

  it('keeps only the force-deletable codes, each once, in the order Gardener reports them', () => {
    const codes = [
      ['ERR_INFRA_QUOTA_EXCEEDED', 'ERR_INFRA_DEPENDENCIES'],
      ['ERR_CONFIGURATION_PROBLEM', 'ERR_INFRA_DEPENDENCIES'],
    ];
    const decision = forceDeletionDecision(shoot({ codes }), true, SOON);
    expect(decision).toMatchObject({ action: 'force', codes: ['ERR_INFRA_DEPENDENCIES', 'ERR_CONFIGURATION_PROBLEM'] });
    if (decision.action === 'force')
      expect(decision.message).toContain('(ERR_INFRA_DEPENDENCIES, ERR_CONFIGURATION_PROBLEM)');
  });

  it.each<[string, Shoot]>([
    ['a Shoot not being deleted', shoot({ deleting: false })],
    [
      'a deleting Shoot with only other codes',
      shoot({ codes: [['ERR_INFRA_QUOTA_EXCEEDED'], ['ERR_RETRYABLE_INFRA_DEPENDENCIES']] }),
    ],
    ['a deleting Shoot without errors', shoot({ codes: [] })],
    ['a deleting Shoot with errors without codes', shoot({ codes: [[]] })],
    ['a Shoot already force-deleted', shoot({ annotations: { [FORCE_DELETION_ANNOTATION]: 'true' } })],
    [
      'a Shoot force-deleted with another spelling Go reads as true',
      shoot({ annotations: { [FORCE_DELETION_ANNOTATION]: 'True' } }),
    ],
  ])('does nothing for %s', (_what, subject) => {
    expect(forceDeletionDecision(subject, true, SOON)).toEqual({ action: 'none' });
    expect(forceDeletionDecision(subject, false, SOON)).toEqual({ action: 'none' });
  });

  it('still acts when the annotation is there but not true (Gardener does not force-delete then)', () => {
    expect(
      forceDeletionDecision(shoot({ annotations: { [FORCE_DELETION_ANNOTATION]: 'false' } }), true, SOON),
    ).toMatchObject({ action: 'force' });
  });

  it('does nothing for a deleting Shoot without any status', () => {
    const withoutStatus = shoot();
    delete withoutStatus.status;
    expect(forceDeletionDecision(withoutStatus, true, SOON)).toEqual({ action: 'none' });
  });
});
