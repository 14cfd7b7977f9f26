import { describe, expect, it } from 'vitest';
import { testShoot } from '../../test/helpers/test-shoot.js';
import { shootSummary } from './shoot-summary.js';

describe('shootSummary', () => {
  it('names the Runtime, where the cluster runs, whose it is and its pools', () => {
    const shoot = testShoot();
    shoot.metadata.labels = { account: 'ga', subaccount: 'sa' };
    shoot.metadata.annotations = { 'infrastructuremanager.kyma-project.io/runtime-id': 'id-1' };
    expect(
      shootSummary(shoot, { namespace: 'kcp-system', name: 'rt-1', generation: 2, plan: 'aws' }, 'create'),
    ).toEqual([
      '- **Runtime:** `kcp-system/rt-1` (runtime id `id-1`, generation 2)',
      '- **Plan:** `aws`',
      '- **Provider and region:** aws, eu-central-1',
      '- **Global account:** `ga`, **subaccount:** `sa`',
      '- **Kubernetes:** 1.32.5',
      '- **Workers:** `a` m6i.large, 1–3 nodes in z1, z2; `b` m6i.xlarge, 1–5 nodes in z1',
    ]);
  });

  it('leaves out a plan it was not told, and says what a Shoot does not record', () => {
    const lines = shootSummary(testShoot(), { namespace: 'kcp-system', name: 'rt-1' }, 'create');
    expect(lines.join('\n')).not.toContain('Plan');
    expect(lines).toContain('- **Global account:** not recorded, **subaccount:** not recorded');
  });

  it.each<[string, Parameters<typeof shootSummary>[1], string]>([
    [
      "counts a deleted cluster's age from its Runtime's creation to KEB's deletion",
      {
        namespace: 'kcp-system',
        name: 'rt-1',
        createdAt: '2026-01-01T10:00:00Z',
        deletionRequestedAt: '2026-03-01T09:59:59Z',
      },
      '- **Age:** 58 days (Runtime created 2026-01-01T10:00:00Z, deletion asked for 2026-03-01T09:59:59Z)',
    ],
    [
      'gives the creation alone without a deletion time',
      { namespace: 'kcp-system', name: 'rt-1', createdAt: '2026-01-01T10:00:00Z' },
      '- **Age:** Runtime created 2026-01-01T10:00:00Z',
    ],
    [
      'says the age of an absent Runtime is not known',
      { namespace: '', name: 'id-1', absent: true },
      '- **Age:** not known (its Runtime is gone, and the Shoot does not record it)',
    ],
    [
      'does not make up an age from a timestamp it cannot read',
      { namespace: 'kcp-system', name: 'rt-1', createdAt: 'yesterday' },
      '- **Age:** not known',
    ],
  ])('%s', (_what, runtime, line) => {
    expect(shootSummary(testShoot(), runtime, 'delete').at(-1)).toBe(line);
  });

  it('says so for a workerless Shoot and a pool of fixed size', () => {
    const shoot = testShoot();
    shoot.spec.provider.workers = [];
    expect(shootSummary(shoot, { namespace: 'n', name: 'r' }, 'create')).toContain('- **Workers:** none (workerless)');
    const fixed = testShoot();
    fixed.spec.provider.workers = [{ name: 'a', machine: { type: 'm' }, minimum: 2, maximum: 2 }];
    expect(shootSummary(fixed, { namespace: 'n', name: 'r' }, 'create')).toContain('- **Workers:** `a` m, 2 nodes');
  });
});
