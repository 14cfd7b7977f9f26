// The zone catalogue KEB offers, for policies' landscape facts when no Garden (and so no CloudProfile)
// is at hand: the `zones` of landscapes/keb-regions.json, copied from KEB's chart values like its
// regions (a test keeps the copy equal to the values the test plane seeds its CloudProfiles from).
import type { ZoneCatalog } from '../../model/landscape.js';
import { ConfigError } from '../../model/errors.js';
import { isJsonObject } from '../../model/json.js';
import { readTextFile } from './read-text.js';
import { packagePath } from '../../model/package-root.js';

const KEB_REGIONS = packagePath('landscapes', 'keb-regions.json');

export async function readKebZones(path = KEB_REGIONS): Promise<ZoneCatalog> {
  const text = await readTextFile(path, (reason) => new ConfigError(path, '', `KEB's regions and zones ${reason}`));
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(path, '', `is not JSON: ${(error as Error).message}`);
  }
  if (!isJsonObject(data) || !isJsonObject(data.zones))
    throw new ConfigError(path, 'zones', 'missing; restore landscapes/keb-regions.json');
  return data.zones as ZoneCatalog;
}
