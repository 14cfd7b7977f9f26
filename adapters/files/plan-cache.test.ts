import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { PlanEntry } from '../../applier/plan.js';
import { useTempDir } from '../../test/helpers/temp-dir.js';
import { defaultPlanCachePath, planCodeStamp, readPlanCache, writePlanCache } from './plan-cache.js';

const dir = useTempDir('plan-cache');
const entry = (shoot: string): PlanEntry => ({
  shoot,
  action: 'unchanged',
  reasons: [],
  object: { kind: 'Shoot', name: shoot, path: `shoots/${shoot}/shoot.yaml`, action: 'unchanged', changes: [] },
  companions: [],
  tree: 't1',
  appliedTree: 't1',
  live: {
    apiVersion: 'core.gardener.cloud/v1beta1',
    kind: 'Shoot',
    metadata: { name: shoot, resourceVersion: '5' },
  } as never,
});

describe('the plan cache', () => {
  const xdg = process.env.XDG_CACHE_HOME;
  afterEach(() => {
    if (xdg === undefined) delete process.env.XDG_CACHE_HOME;
    else process.env.XDG_CACHE_HOME = xdg;
  });

  it('reads back the entries it wrote, without their live Shoot (the sync links the listed one)', async () => {
    const path = join(dir.path, 'nested', 'plans.json');
    await writePlanCache(
      path,
      new Map([
        ['k-a', entry('a')],
        ['k-b', entry('b')],
      ]),
    );
    const read = await readPlanCache(path);
    expect([...read.keys()]).toEqual(['k-a', 'k-b']);
    expect(read.get('k-a')).toEqual({ ...entry('a'), live: undefined });
    expect(read.get('k-a')).not.toHaveProperty('live');
    expect(await readFile(path, 'utf8')).not.toContain('resourceVersion');
  });

  it('reads nothing from a missing or broken file, or one that other code wrote', async () => {
    expect((await readPlanCache(join(dir.path, 'none.json'))).size).toBe(0);
    const broken = join(dir.path, 'broken.json');
    await writeFile(broken, '{"stamp": ');
    expect((await readPlanCache(broken)).size).toBe(0);
    const foreign = join(dir.path, 'foreign.json');
    await writeFile(foreign, JSON.stringify({ stamp: 'another kimops', entries: [['k-a', entry('a')]] }));
    expect((await readPlanCache(foreign)).size).toBe(0);
    const odd = join(dir.path, 'odd.json');
    await writeFile(
      odd,
      JSON.stringify({
        stamp: await planCodeStamp(),
        entries: [
          ['k-a', entry('a')],
          ['k-b', 'no entry'],
          [3, entry('c')],
        ],
      }),
    );
    expect([...(await readPlanCache(odd)).keys()]).toEqual(['k-a']);
  });

  it('lives under XDG_CACHE_HOME, one file per repo, Garden, namespace and field manager', () => {
    process.env.XDG_CACHE_HOME = '/var/cache/me';
    const garden = 'https://api.garden.example';
    const path = defaultPlanCachePath('/repos/landscape-dev.git', garden, 'garden-kyma-dev', 'kimops');
    expect(path).toMatch(/^\/var\/cache\/me\/kimops\/plans\/[0-9a-f]{16}\.json$/);
    expect(defaultPlanCachePath('/repos/landscape-dev.git', garden, 'garden-kyma-dev', 'kim')).not.toBe(path);
    expect(defaultPlanCachePath('/repos/landscape-stage.git', garden, 'garden-kyma-dev', 'kimops')).not.toBe(path);
    expect(
      defaultPlanCachePath('/repos/landscape-dev.git', 'https://api.other-garden.example', 'garden-kyma-dev', 'kimops'),
    ).not.toBe(path);
  });
});
