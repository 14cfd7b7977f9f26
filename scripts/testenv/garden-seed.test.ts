import { describe, expect, it } from 'vitest';
import { seedCheck } from '../../applier/seeds.js';
import type { Seed } from '../../model/seed.js';
import type { Shoot } from '../../model/shoot.js';
import { gardenSeedObjects, gardenletReadyCondition, loadGardenSeedInput, readySeedStatus } from './garden-seed.js';

const AT = '2026-01-02T03:04:05Z';
const seeds = gardenSeedObjects(loadGardenSeedInput()).filter((object) => object.kind === 'Seed') as unknown as Seed[];

function shootIn(seed: Seed): Shoot {
  const { type, region } = seed.spec.provider;
  return {
    apiVersion: 'core.gardener.cloud/v1beta1',
    kind: 'Shoot',
    metadata: { name: 'c-1', namespace: 'garden-kyma' },
    spec: {
      region,
      seedSelector: { matchLabels: { 'seed.gardener.cloud/region': region } },
      networking: {},
      kubernetes: {},
      provider: { type, workers: [] },
    },
  };
}

// The seeding writes readySeedStatus onto every Seed (seed.ts); KIM's check must then find each of them.
describe('the test garden Seeds', () => {
  it('exist for several provider types', () => {
    expect(new Set(seeds.map((seed) => seed.spec.provider.type)).size).toBeGreaterThan(3);
  });

  it.each(seeds.map((seed) => [seed.metadata.name, seed] as const))(
    '%s passes the seed check once its status is written',
    (_name, seed) => {
      expect(seedCheck(shootIn(seed), [seed])).toMatchObject({ ok: false, reason: 'SeedNotFound' });
      expect(seedCheck(shootIn(seed), [{ ...seed, status: readySeedStatus(AT) }])).toEqual({ ok: true });
    },
  );

  it.each(seeds.slice(0, 1).map((seed) => [seed.metadata.name, seed] as const))(
    '%s fails the seed check with GardenletReady False, as a test sets it',
    (_name, seed) => {
      const notReady = {
        ...seed,
        status: { ...readySeedStatus(AT), conditions: [gardenletReadyCondition(false, AT)] },
      };
      expect(seedCheck(shootIn(seed), [notReady])).toMatchObject({ ok: false, reason: 'SeedNotFound' });
    },
  );
});
