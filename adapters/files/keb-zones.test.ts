import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { zonesFromKeb } from '../../generator/validate/params.js';
import { ConfigError } from '../../model/errors.js';
import { parseYaml11 } from '../../model/yaml-input.js';
import { readKebZones } from './keb-zones.js';

const KEB_VALUES = new URL('../../scripts/testenv/fixtures/keb/plans-and-regions.values.yaml', import.meta.url);

describe('readKebZones', () => {
  it('reads the zones KEB offers, named as Shoots write them; none for aws and azure, whose zones KEB discovers', async () => {
    const zones = await readKebZones();
    expect(zones.gcp?.['me-central2']).toEqual(['me-central2-a', 'me-central2-b', 'me-central2-c']);
    expect(zones.openstack?.['eu-de-1']).toEqual(['eu-de-1a', 'eu-de-1b', 'eu-de-1d']);
    expect(Object.keys(zones).sort()).toEqual(['alicloud', 'gcp', 'gdch', 'openstack']);
  });

  it("is the copy of KEB's chart values that the test plane seeds its CloudProfiles from", async () => {
    const values = parseYaml11(readFileSync(KEB_VALUES, 'utf8'), 'plans-and-regions.values.yaml') as Parameters<
      typeof zonesFromKeb
    >[0];
    expect(await readKebZones()).toEqual(zonesFromKeb(values));
  });

  it('names the file when it is missing', async () => {
    const error = await readKebZones('/does/not/exist.json').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toBe("/does/not/exist.json: KEB's regions and zones not found");
  });
});
