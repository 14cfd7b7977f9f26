// Deterministic synthetic Runtimes shaped like KEB's, spread over every plan and the regions KEB
// offers for it: the input of the converter benchmark.
import { readdirSync, readFileSync } from 'node:fs';
import { parse } from 'yaml';
import type { Runtime } from '../../model/runtime.js';
import { seededRandom } from '../../test/helpers/seeded-random.js';

const EXAMPLES = new URL('../../examples/runtimes/keb/', import.meta.url);
const KEB_REGIONS = new URL('../../landscapes/keb-regions.json', import.meta.url);

const ZONE_STYLE: Record<string, (region: string, letter: string, index: number) => string> = {
  azure: (_r, _l, i) => String(i + 1),
  gdch: (r, l) => `${r}-${l}`,
  gcp: (r, l) => `${r}-${l}`,
};

export function syntheticRuntimes(count: number, seed = 42): Runtime[] {
  const templates = readdirSync(EXAMPLES)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => parse(readFileSync(new URL(f, EXAMPLES), 'utf8')) as Runtime);
  const { regions } = JSON.parse(readFileSync(KEB_REGIONS, 'utf8')) as { regions: Record<string, string[]> };
  const next = seededRandom(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)] as T;
  return Array.from({ length: count }, (_, i) => {
    const runtime = structuredClone(pick(templates));
    const { shoot } = runtime.spec;
    const providerRegions = regions[shoot.provider.type] ?? [];
    const region = providerRegions.length > 0 ? pick(providerRegions) : shoot.region;
    const zoneCount =
      shoot.provider.type === 'azure' && (shoot.provider.workers[0]?.zones ?? []).length === 0
        ? 0
        : 1 + Math.floor(next() * 3);
    const zoneOf = ZONE_STYLE[shoot.provider.type] ?? ((r: string, l: string) => `${r}${l}`);
    const zones = ['a', 'b', 'c'].slice(0, zoneCount).map((l, z) => zoneOf(region, l, z));
    const id = `${i.toString(16).padStart(8, '0')}-bench`;
    runtime.metadata.name = id;
    runtime.metadata.generation = 1 + Math.floor(next() * 20);
    runtime.metadata.labels = {
      ...runtime.metadata.labels,
      'kyma-project.io/runtime-id': id,
      'kyma-project.io/region': region,
    };
    shoot.name = `c-${i.toString(36)}`;
    shoot.region = region;
    for (const worker of [...shoot.provider.workers, ...(shoot.provider.additionalWorkers ?? [])]) {
      worker.zones = zones;
      worker.maximum = worker.minimum + Math.floor(next() * 20);
    }
    return runtime;
  });
}
