// syncCommit reads and plans a first sync's folders batch by batch: the plan must be the one of the whole
// commit, whatever the batch size — each Shoot once, the inventory's deletions once, the guard on the total.
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../adapters/kube/kube-client.js';
import { LandscapeRepo } from '../adapters/git/landscape-repo.js';
import { testShoot } from '../generator/propose/test-shoot.js';
import { toCanonicalYaml } from '../generator/render/canonical-yaml.js';
import { parseKimopsConfig } from '../model/kimops-config.js';
import { useTempDir } from '../test/helpers/temp-dir.js';
import { OWNERSHIP_LABEL, OWNERSHIP_VALUE } from './plan.js';
import { syncCommit, type GardenApi } from './sync-commit.js';

const dir = useTempDir('sync-batches');
const NAMESPACE = 'garden-kyma-dev';
const AUTHOR = { name: 'test', email: 'test@example.com', timestamp: 1_700_000_000, timezoneOffset: 0 };

/** A Garden that lists `shoots` (no companions) and refuses every write: the syncs here only plan. */
function garden(shoots: KubeObject[]): GardenApi {
  const refuse = async () => ({ ok: false as const, status: 500, error: { message: 'no writes in this test' } });
  return {
    listAll: async (ref) => ({ ok: true, items: (ref.kind === 'Shoot' ? shoots : []) as never[], resourceVersion: '1' }),
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
  it('plans every folder once and the inventory\'s deletions once, in batches of any size', async () => {
    const names = ['a', 'b', 'c', 'd', 'e'];
    const { repo, commit } = await commitWith(names);
    const gone = { apiVersion: 'core.gardener.cloud/v1beta1', kind: 'Shoot', metadata: { name: 'z', namespace: NAMESPACE, labels: { [OWNERSHIP_LABEL]: OWNERSHIP_VALUE }, resourceVersion: '7' }, spec: {} } as KubeObject;
    const config = parseKimopsConfig('apiVersion: kimops.kyma-project.io/v1alpha1\nkind: KimopsConfig\nlandscape: dev\ngardener:\n  project: kyma-dev\nmassDeletion: {maxShoots: 5, maxPercent: 100}\n');
    const plans = [];
    for (const planBatch of [2, 100]) {
      let collections = 0;
      const report = await syncCommit({ repo, commit, garden: garden([gone]), namespace: NAMESPACE, config, write: false, planBatch, betweenBatches: () => collections++ });
      plans.push(report.plan);
      // After the LIST, then after each batch.
      expect(collections).toBe(1 + Math.ceil(names.length / planBatch));
    }
    const [batched, whole] = plans;
    expect(batched?.entries.map((e) => [e.shoot, e.action])).toEqual([...names.map((n) => [n, 'create']), ['z', 'delete']]);
    expect(batched?.counts).toEqual(whole?.counts);
    expect(batched?.entries).toEqual(whole?.entries);
  });
});
