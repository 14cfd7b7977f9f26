import { describe, expect, it } from 'vitest';
import type { GardenerCondition, Seed } from '../model/seed.js';
import type { Shoot } from '../model/shoot.js';
import { enforcedSeedRegion, needsSeedCheck, seedCheck, seedListFailure } from './seeds.js';

function shoot(seedRegion?: string, providerType = 'aws'): Shoot {
  return {
    apiVersion: 'core.gardener.cloud/v1beta1',
    kind: 'Shoot',
    metadata: { name: 'c-1', namespace: 'garden-kyma' },
    spec: {
      region: 'eu-central-1',
      ...(seedRegion !== undefined && { seedSelector: { matchLabels: { 'seed.gardener.cloud/region': seedRegion } } }),
      networking: {},
      kubernetes: {},
      provider: { type: providerType, workers: [] },
    },
  };
}

const READY: GardenerCondition[] = [{ type: 'GardenletReady', status: 'True' }];

function seed(name: string, type: string, region: string, change: (s: Seed) => void = () => {}): Seed {
  const result: Seed = {
    apiVersion: 'core.gardener.cloud/v1beta1',
    kind: 'Seed',
    metadata: { name },
    spec: { provider: { type, region }, settings: { scheduling: { visible: true } } },
    status: { lastOperation: { type: 'Reconcile', state: 'Succeeded' }, conditions: READY },
  };
  change(result);
  return result;
}

const withConditions = (s: Seed, conditions: GardenerCondition[]) => (s.status = { ...s.status, conditions });

const notFound = (region: string, listed: string) =>
  `Cannot find available seed for the region ${region}. The followig regions have seeds ready: [${listed}].`;

describe('needsSeedCheck', () => {
  it('is true only with the seed selector region label the converter writes for enforceSeedLocation', () => {
    expect(needsSeedCheck(shoot('eu-central-1'))).toBe(true);
    expect(enforcedSeedRegion(shoot('eu-west-1'))).toBe('eu-west-1');
    expect(needsSeedCheck(shoot())).toBe(false);
    expect(needsSeedCheck(shoot(''))).toBe(false);
    const otherLabel = shoot();
    otherLabel.spec.seedSelector = { matchLabels: { 'seed.gardener.cloud/provider': 'aws' } };
    expect(needsSeedCheck(otherLabel)).toBe(false);
  });
});

describe('seedCheck', () => {
  it('passes with a usable seed of the same provider type in the region', () => {
    expect(seedCheck(shoot('eu-central-1'), [seed('a', 'aws', 'eu-central-1')])).toEqual({ ok: true });
  });

  it('passes a Shoot that does not enforce its seed location, whatever the seeds', () => {
    expect(seedCheck(shoot(), [])).toEqual({ ok: true });
  });

  it('fails with KIM words, listing nothing when no seed is usable', () => {
    expect(seedCheck(shoot('eu-central-1'), [])).toEqual({
      ok: false,
      reason: 'SeedNotFound',
      message: notFound('eu-central-1', ''),
    });
  });

  it('lists the regions of usable seeds of the same provider type once each, in LIST order, space-separated', () => {
    const seeds = [
      seed('s1', 'aws', 'us-east-1'),
      seed('s2', 'gcp', 'eu-central-1'),
      seed('s3', 'aws', 'eu-west-1'),
      seed('s4', 'aws', 'us-east-1'),
      seed('s5', 'aws', 'ap-south-1', (s) => (s.spec.settings = { scheduling: { visible: false } })),
    ];
    expect(seedCheck(shoot('eu-central-1'), seeds)).toMatchObject({
      ok: false,
      message: notFound('eu-central-1', 'us-east-1 eu-west-1'),
    });
  });

  it.each<[string, (s: Seed) => void]>([
    ['is being deleted', (s) => (s.metadata.deletionTimestamp = '2026-01-01T00:00:00Z')],
    ['is not visible', (s) => (s.spec.settings = { scheduling: { visible: false } })],
    ['has no scheduling settings', (s) => delete s.spec.settings],
    ['was never reconciled (no lastOperation)', (s) => delete s.status?.lastOperation],
    ['has no status at all', (s) => delete s.status],
    ['has GardenletReady False', (s) => withConditions(s, [{ type: 'GardenletReady', status: 'False' }])],
    ['has GardenletReady Unknown', (s) => withConditions(s, [{ type: 'GardenletReady', status: 'Unknown' }])],
    ['has no GardenletReady condition', (s) => withConditions(s, [{ type: 'ExtensionsReady', status: 'True' }])],
    ['has a backup whose buckets are not ready', (s) => (s.spec.backup = { provider: 'aws' })],
    [
      'has a backup whose buckets report False',
      (s) => {
        s.spec.backup = { provider: 'aws' };
        withConditions(s, [...READY, { type: 'BackupBucketsReady', status: 'False' }]);
      },
    ],
  ])('does not count a seed that %s', (_what, change) => {
    const result = seedCheck(shoot('eu-central-1'), [seed('a', 'aws', 'eu-central-1', change)]);
    expect(result).toEqual({ ok: false, reason: 'SeedNotFound', message: notFound('eu-central-1', '') });
  });

  it('counts a seed with a backup once its buckets are ready', () => {
    const withBackup = seed('a', 'aws', 'eu-central-1', (s) => {
      s.spec.backup = { provider: 'aws' };
      withConditions(s, [...READY, { type: 'BackupBucketsReady', status: 'True' }]);
    });
    expect(seedCheck(shoot('eu-central-1'), [withBackup])).toEqual({ ok: true });
  });

  it('does not count a seed of another provider type in the region', () => {
    const result = seedCheck(shoot('eu-central-1', 'azure'), [
      seed('a', 'aws', 'eu-central-1'),
      seed('b', 'azure', 'westeurope'),
    ]);
    expect(result).toMatchObject({ ok: false, message: notFound('eu-central-1', 'westeurope') });
  });

  it('checks the selector region, not spec.region', () => {
    expect(seedCheck(shoot('eu-west-1'), [seed('a', 'aws', 'eu-central-1')])).toMatchObject({
      ok: false,
      message: notFound('eu-west-1', 'eu-central-1'),
    });
  });
});

describe('seedListFailure', () => {
  it("is KIM's retryable GardenerErr naming the region", () => {
    expect(seedListFailure(shoot('eu-west-1'))).toEqual({
      ok: false,
      reason: 'GardenerErr',
      message: 'Failed to verify whether seed is available for the region eu-west-1.',
    });
  });
});
