import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../model/errors.js';
import { parseLandscape } from '../../model/landscape-parse.js';
import { landscapeParams, minimumKubernetesVersion, zonesFromCloudProfiles, zonesFromKeb } from './params.js';

const stage = parseLandscape(
  readFileSync(new URL('../../landscapes/stage/landscape.yaml', import.meta.url), 'utf8'),
  'landscapes/stage/landscape.yaml',
  'stage',
);

describe('landscapeParams', () => {
  it('turns landscape switches into string facts', () => {
    const data = landscapeParams({
      landscape: { ...stage, features: { ...stage.features, awsIMDSv2: false } },
      zones: {},
    });
    expect(data).toMatchObject({
      landscape: 'stage',
      auditLogMandatory: 'true',
      awsIMDSv2: 'false',
      networkRestriction: 'true',
      minimumKubernetesVersion: '1.33.0',
      runtimeInventory: 'false',
    });
    expect(data.euAccessPlatformRegions?.split(',')).toContain('cf-eu11');
    expect(Object.values(data).every((v) => typeof v === 'string')).toBe(true);
  });

  it('lists zones per provider and region, and the Runtimes that exist with their platform region', () => {
    const data = landscapeParams({
      landscape: stage,
      zones: { aws: { 'eu-central-1': ['eu-central-1a', 'eu-central-1b'] } },
      runtimes: [{ id: 'abc-1', platformRegion: 'cf-eu11' }, { id: 'abc-2' }],
    });
    expect(data['zones.aws.eu-central-1']).toBe('eu-central-1a,eu-central-1b');
    expect(data['runtime.abc-1']).toBe('cf-eu11');
    expect(data['runtime.abc-2']).toBe('');
    expect(data.runtimeInventory).toBe('true');
  });

  it('refuses a zone fact whose key is not a valid ConfigMap key, and leaves such a Runtime out of the inventory', () => {
    expect(() => landscapeParams({ landscape: stage, zones: { aws: { 'eu/central': ['a'] } } })).toThrow(ConfigError);
    const data = landscapeParams({
      landscape: stage,
      zones: {},
      runtimes: [{ id: 'not/valid' }, { id: 'r-1', platformRegion: 'cf-eu10' }],
    });
    expect(Object.keys(data).filter((k) => k.startsWith('runtime.'))).toEqual(['runtime.r-1']);
  });
});

describe('minimumKubernetesVersion', () => {
  it.each([
    ['1.33.3', '1.33.0'],
    ['1.34', '1.34.0'],
  ])('%s → %s', (given, expected) => expect(minimumKubernetesVersion(given)).toBe(expected));
  it('refuses a non-version', () =>
    expect(() => minimumKubernetesVersion('latest')).toThrow(/kubernetes.defaultVersion/));
});

describe('zone catalogues', () => {
  it('reads CloudProfiles, merging profiles of one provider', () => {
    const zones = zonesFromCloudProfiles([
      { spec: { type: 'aws', regions: [{ name: 'eu-central-1', zones: [{ name: 'eu-central-1a' }] }] } },
      {
        spec: {
          type: 'aws',
          regions: [{ name: 'eu-central-1', zones: [{ name: 'eu-central-1b' }, { name: 'eu-central-1a' }] }],
        },
      },
    ]);
    expect(zones).toEqual({ aws: { 'eu-central-1': ['eu-central-1a', 'eu-central-1b'] } });
  });

  it('names KEB zone letters the way each provider writes them, and leaves out the providers whose zones KEB discovers', () => {
    const zones = zonesFromKeb({
      providersConfiguration: {
        aws: { regions: { 'eu-central-1': { zones: ['a'] } } },
        gcp: { regions: { 'europe-west3': { zones: ['b'] } } },
        azure: { regions: { westeurope: { zones: ['1'] } } },
        'sap-converged-cloud': { regions: { 'eu-de-1': { zones: ['d'] } } },
      },
    });
    expect(zones).toEqual({ gcp: { 'europe-west3': ['europe-west3-b'] }, openstack: { 'eu-de-1': ['eu-de-1d'] } });
  });
});
