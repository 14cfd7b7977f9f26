// A test's Shoots in the plane's Garden, read and moved on as Gardener would: the Shoot as served, waiting for the
// gardenlet simulator to reconcile its newest generation, and binding it to a Seed as Gardener's scheduler does.
import type { KubeClient } from '../../adapters/kube/kube-client.js';
import type { KubeObject } from '../../model/kube-object.js';
import { SHOOT_API_VERSION, type Shoot } from '../../model/shoot.js';
import { getShoot } from './shoots.js';
import { eventually } from './testenv.js';

/** The Shoots of one Garden project (a test project's: its namespace is read when a function runs). */
export function liveShoots(garden: KubeClient, project: { readonly namespace: string }) {
  async function liveShoot(name: string): Promise<Shoot> {
    const shoot = await getShoot(garden, project.namespace, name);
    if (!shoot) throw new Error(`Shoot ${name} is not there`);
    return shoot;
  }

  /** Waits until Gardener (the simulator) has reconciled the Shoot's newest generation. */
  const reconciled = (name: string) =>
    eventually(`Shoot ${name} reconciled`, async () => {
      const shoot = await getShoot(garden, project.namespace, name);
      return shoot?.status?.lastOperation?.state === 'Succeeded' &&
        shoot.status.observedGeneration === shoot.metadata.generation
        ? shoot
        : undefined;
    });

  /** As Gardener's scheduler does: the Shoot bound to a Seed of its region (again after a conflict with the simulator). */
  async function schedule(name: string): Promise<void> {
    const seeds = await garden.list<KubeObject>({ apiVersion: SHOOT_API_VERSION, kind: 'Seed' });
    if (!seeds.ok) throw new Error(seeds.error.message ?? 'list Seeds');
    await eventually(`Shoot ${name} bound`, async () => {
      const shoot = await liveShoot(name);
      const seed = seeds.body.items.find((s) => {
        const provider = (s.spec as { provider: { type: string; region: string } }).provider;
        return provider.type === shoot.spec.provider.type && provider.region === shoot.spec.region;
      });
      if (!seed) throw new Error(`no Seed in ${shoot.spec.region}`);
      const bound = await garden.replace(
        { ...shoot, spec: { ...shoot.spec, seedName: seed.metadata.name } } as unknown as KubeObject,
        'binding',
      );
      if (bound.ok) return true;
      if (bound.status !== 409) throw new Error(`bind Shoot ${name}: ${bound.error.message ?? bound.status}`);
      return undefined;
    });
  }

  return { liveShoot, reconciled, schedule };
}
