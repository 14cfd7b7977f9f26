// The test garden's Seeds for tests of KIM's seed check (applier/seeds.ts). scripts/testenv/seed.ts makes every
// Seed ready; there is one per provider type and region of an example Runtime, named `<type>-<region>`
// (`aws-eu-central-1`). The plane is shared: a test that makes a Seed not ready makes it ready again
// (afterEach or finally); seeding the plane again does too.
import { CONTENT_TYPE, describeFailure, type KubeClient, type KubeObject } from '../../adapters/kube/kube-client.js';
import type { Seed } from '../../model/seed.js';
import { gardenletReadyCondition } from '../../scripts/testenv/garden-seed.js';

/** Sets the Seed's `GardenletReady` condition, as its gardenlet would; its other conditions stay. */
export async function setGardenletReady(garden: KubeClient, seedName: string, ready: boolean): Promise<void> {
  const ref = { apiVersion: 'core.gardener.cloud/v1beta1', kind: 'Seed', name: seedName };
  const current = await garden.get<Seed & KubeObject>(ref);
  if (!current.ok) throw new Error(`get Seed ${seedName}: ${describeFailure(current)}`);
  const others = (current.body.status?.conditions ?? []).filter((condition) => condition.type !== 'GardenletReady');
  const at = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const result = await garden.patch(
    ref,
    // resourceVersion: fail rather than drop a condition someone else wrote in between.
    {
      metadata: { resourceVersion: current.body.metadata.resourceVersion },
      status: { conditions: [...others, gardenletReadyCondition(ready, at)] },
    },
    CONTENT_TYPE.mergePatch,
    'status',
  );
  if (!result.ok) throw new Error(`set GardenletReady=${ready} on Seed ${seedName}: ${describeFailure(result)}`);
}
