// The plan cache around a sync: read into the memo once per process, written back only when the memo's keys
// changed, and given up for the process once it cannot be written.
import { describe, expect, it } from 'vitest';
import { LandscapeRepo } from '../adapters/git/landscape-repo.js';
import { testShoot } from '../test/helpers/test-shoot.js';
import { APPLIED_TREE_ANNOTATION, OWNERSHIP_LABEL, OWNERSHIP_VALUE } from '../model/contract.js';
import type { KubeObject } from '../model/kube-object.js';
import { parseKimopsConfig } from '../model/kimops-config.js';
import { toCanonicalYaml } from '../rules/canonical-yaml.js';
import { useTempDir } from '../test/helpers/temp-dir.js';
import type { PlanEntry } from './plan.js';
import { syncMemo, type GardenApi } from './sync-commit.js';
import { syncWithPlanCache, type PlanCacheFiles, type PlanCacheState } from './sync-with-plan-cache.js';

const dir = useTempDir('sync-with-plan-cache');
const NAMESPACE = 'garden-kyma-dev';
const AUTHOR = { name: 'test', email: 'test@example.com', timestamp: 1_700_000_000, timezoneOffset: 0 };
const CONFIG = parseKimopsConfig(
  'apiVersion: kimops.kyma-project.io/v1alpha1\nkind: KimopsConfig\nlandscape: dev\ngardener:\n  project: kyma-dev\n',
);

/** A Garden that lists `shoots` (no companions) and refuses every write: the syncs here only plan. */
function gardenWith(shoots: KubeObject[]): GardenApi {
  const refuse = async () => ({ ok: false as const, status: 500, error: { message: 'no writes in this test' } });
  return {
    listAll: async (ref) => ({
      ok: true,
      items: (ref.kind === 'Shoot' ? shoots : []) as never[],
      resourceVersion: '1',
    }),
    get: async () => ({ ok: false, status: 404, error: { message: 'not found' } }),
    apply: refuse,
    create: refuse,
    patch: refuse,
    delete: refuse,
  };
}

/** A commit of Shoot folders, and a Garden whose Shoots kimops applied from them: the plan of each is remembered. */
async function inSync(names: string[]): Promise<{ repo: LandscapeRepo; commit: string; garden: GardenApi }> {
  const repo = await LandscapeRepo.open(`${dir.path}/repo.git`);
  const files = new Map<string, string>([['kimops.yaml', 'landscape: dev\ngardener:\n  project: kyma-dev\n']]);
  for (const name of names) {
    const shoot = testShoot();
    shoot.metadata.name = name;
    files.set(`shoots/${name}/shoot.yaml`, toCanonicalYaml(shoot));
  }
  const commit = (await repo.commitFiles({ branch: 'main', files, message: 'shoots', author: AUTHOR })).oid as string;
  const trees = await repo.listFolder(commit, 'shoots');
  const live = names.map((name, i) => {
    const shoot = testShoot();
    shoot.metadata = {
      ...shoot.metadata,
      name,
      namespace: NAMESPACE,
      resourceVersion: String(10 + i),
      labels: { ...shoot.metadata.labels, [OWNERSHIP_LABEL]: OWNERSHIP_VALUE },
      annotations: { ...shoot.metadata.annotations, [APPLIED_TREE_ANNOTATION]: trees.get(name)?.oid ?? '' },
    };
    return shoot as unknown as KubeObject;
  });
  return { repo, commit, garden: gardenWith(live) };
}

/** Files that remember what was written and count the reads; `failWrites` makes every write throw. */
function cacheFiles(failWrites = false) {
  const stored = new Map<string, Map<string, PlanEntry>>();
  const calls = { reads: 0, writes: 0 };
  const files: PlanCacheFiles = {
    read: async (path) => {
      calls.reads++;
      return new Map(stored.get(path));
    },
    write: async (path, entries) => {
      calls.writes++;
      if (failWrites) throw new Error('EROFS: read-only file system');
      stored.set(path, new Map(entries));
    },
  };
  return { files, calls, stored };
}

describe('syncWithPlanCache', () => {
  it('reads the file once per process and writes it only when the memo changed', async () => {
    const { repo, commit, garden } = await inSync(['a', 'b']);
    const { files, calls, stored } = cacheFiles();
    const memo = syncMemo();
    const state: PlanCacheState = {};
    const sync = () =>
      syncWithPlanCache(
        { repo, commit, garden, namespace: NAMESPACE, config: CONFIG, write: false, memo },
        { path: 'plans.json', files, warn: () => {}, state },
      );
    await sync();
    expect(calls).toEqual({ reads: 1, writes: 1 });
    expect(stored.get('plans.json')?.size).toBe(2);
    await sync();
    expect(calls).toEqual({ reads: 1, writes: 1 });
  });

  it('reads the file into a run without a state, and writes nothing that is already there', async () => {
    const { repo, commit, garden } = await inSync(['a']);
    const { files, calls } = cacheFiles();
    const once = () =>
      syncWithPlanCache(
        { repo, commit, garden, namespace: NAMESPACE, config: CONFIG, write: false, memo: syncMemo() },
        { path: 'plans.json', files, warn: () => {} },
      );
    await once();
    await once();
    expect(calls).toEqual({ reads: 2, writes: 1 });
  });

  it('says once that the file cannot be written, then keeps the memo in memory only', async () => {
    const { repo, commit, garden } = await inSync(['a']);
    const { files, calls } = cacheFiles(true);
    const warnings: string[] = [];
    const state: PlanCacheState = {};
    const memo = syncMemo();
    const sync = () =>
      syncWithPlanCache(
        { repo, commit, garden, namespace: NAMESPACE, config: CONFIG, write: false, memo },
        { path: 'plans.json', files, warn: (line) => warnings.push(line), state },
      );
    await sync();
    await sync();
    expect(calls).toEqual({ reads: 1, writes: 1 });
    expect(state.mark).toBeNull();
    expect(warnings).toEqual([
      'plan cache plans.json not written (EROFS: read-only file system): the next process plans every Shoot in full; pass --plan-cache <file> somewhere writable, or --no-plan-cache',
    ]);
  });
});
