// syncCommit reads and plans a first sync's folders batch by batch: the plan must be the one of the whole
// commit, whatever the batch size — each Shoot once, the inventory's deletions once, the guard on the total.
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../model/kube-object.js';
import { LandscapeRepo } from '../adapters/git/landscape-repo.js';
import { testShoot } from '../test/helpers/test-shoot.js';
import { toCanonicalYaml } from '../rules/canonical-yaml.js';
import { parseKimopsConfig } from '../model/kimops-config.js';
import { useTempDir } from '../test/helpers/temp-dir.js';
import { OWNERSHIP_LABEL, OWNERSHIP_VALUE, APPLIED_TREE_ANNOTATION } from '../model/contract.js';
import { syncCommit, syncMemo, type GardenApi } from './sync-commit.js';

const dir = useTempDir('sync-batches');
const NAMESPACE = 'garden-kyma-dev';
const AUTHOR = { name: 'test', email: 'test@example.com', timestamp: 1_700_000_000, timezoneOffset: 0 };

/** A Garden that lists `shoots` (no companions) and refuses every write: the syncs here only plan. */
function garden(shoots: KubeObject[]): GardenApi {
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

async function commitWith(names: string[]): Promise<{ repo: LandscapeRepo; commit: string }> {
  const repo = await LandscapeRepo.open(`${dir.path}/repo-${names.length}.git`);
  const files = new Map<string, string>([['kimops.yaml', 'landscape: dev\ngardener:\n  project: kyma-dev\n']]);
  for (const name of names) {
    const shoot = testShoot();
    shoot.metadata.name = name;
    files.set(`shoots/${name}/shoot.yaml`, toCanonicalYaml(shoot));
  }
  const result = await repo.commitFiles({ branch: 'main', files, message: 'shoots', author: AUTHOR });
  return { repo, commit: result.oid as string };
}

describe('syncCommit in batches', () => {
  it("plans every folder once and the inventory's deletions once, in batches of any size", async () => {
    const names = ['a', 'b', 'c', 'd', 'e'];
    const { repo, commit } = await commitWith(names);
    const gone = {
      apiVersion: 'core.gardener.cloud/v1beta1',
      kind: 'Shoot',
      metadata: {
        name: 'z',
        namespace: NAMESPACE,
        labels: { [OWNERSHIP_LABEL]: OWNERSHIP_VALUE },
        resourceVersion: '7',
      },
      spec: {},
    } as KubeObject;
    const config = parseKimopsConfig(
      'apiVersion: kimops.kyma-project.io/v1alpha1\nkind: KimopsConfig\nlandscape: dev\ngardener:\n  project: kyma-dev\nmassDeletion: {maxShoots: 5, maxPercent: 100}\n',
    );
    const plans = [];
    for (const planBatch of [2, 100]) {
      let collections = 0;
      const report = await syncCommit({
        repo,
        commit,
        garden: garden([gone]),
        namespace: NAMESPACE,
        config,
        write: false,
        planBatch,
        betweenBatches: () => collections++,
      });
      plans.push(report.plan);
      // After the LIST, then after each batch.
      expect(collections).toBe(1 + Math.ceil(names.length / planBatch));
    }
    const [batched, whole] = plans;
    expect(batched?.entries.map((e) => [e.shoot, e.action])).toEqual([
      ...names.map((n) => [n, 'create']),
      ['z', 'delete'],
    ]);
    expect(batched?.counts).toEqual(whole?.counts);
    expect(batched?.entries).toEqual(whole?.entries);
  });
});

describe('syncCommit with a memo from the plan cache', () => {
  it('reads no folder whose entry the memo remembers for the same inputs, and links the listed live Shoot to it', async () => {
    const names = ['a', 'b', 'c'];
    const { repo, commit } = await commitWith(names);
    // Live as kimops applied them from these folders: the ownership label, the applied tree, a resourceVersion.
    const trees = await repo.listFolder(commit, 'shoots');
    const live = names.map((name, i) => {
      const shoot = testShoot();
      const annotations = { ...shoot.metadata.annotations, [APPLIED_TREE_ANNOTATION]: trees.get(name)?.oid ?? '' };
      shoot.metadata = {
        ...shoot.metadata,
        name,
        namespace: NAMESPACE,
        resourceVersion: String(10 + i),
        labels: { ...shoot.metadata.labels, [OWNERSHIP_LABEL]: OWNERSHIP_VALUE },
        annotations,
      };
      return shoot as unknown as KubeObject;
    });
    const config = parseKimopsConfig(
      'apiVersion: kimops.kyma-project.io/v1alpha1\nkind: KimopsConfig\nlandscape: dev\ngardener:\n  project: kyma-dev\n',
    );
    const first = syncMemo();
    const cold = await syncCommit({
      repo,
      commit,
      garden: garden(live),
      namespace: NAMESPACE,
      config,
      write: false,
      memo: first,
    });
    expect(cold.plan.counts.unchanged).toBe(3);
    expect(cold.foldersRead).toBe(3);

    // What the plan cache keeps: the entries without their live Shoot.
    const fromDisk = syncMemo();
    for (const [key, entry] of first.plan) fromDisk.plan.set(key, structuredClone({ ...entry, live: undefined }));
    const warm = await syncCommit({
      repo,
      commit,
      garden: garden(live),
      namespace: NAMESPACE,
      config,
      write: false,
      memo: fromDisk,
    });
    expect(warm.foldersRead).toBe(0);
    expect(warm.plan.entries.map((e) => [e.shoot, e.action, e.live?.metadata.resourceVersion])).toEqual([
      ['a', 'unchanged', '10'],
      ['b', 'unchanged', '11'],
      ['c', 'unchanged', '12'],
    ]);

    // A live Shoot that moved (another resourceVersion) is read and planned again.
    const moved = live.map((shoot, i) =>
      i === 1 ? { ...shoot, metadata: { ...shoot.metadata, resourceVersion: '99' } } : shoot,
    );
    const again = await syncCommit({
      repo,
      commit,
      garden: garden(moved),
      namespace: NAMESPACE,
      config,
      write: false,
      memo: fromDisk,
    });
    expect(again.foldersRead).toBe(1);
    expect(again.plan.counts.unchanged).toBe(3);
  });
});
