// Acceptance: the Shoots kimops renders are what the real gardener-apiserver, admission plugins on,
// accepts — for every KEB example Runtime in every shipped landscape, on create and on update.
import { afterAll, describe, expect, inject, it } from 'vitest';
import type { KubeObject } from '../../model/kube-object.js';
import { connect } from '../helpers/testenv.js';
import {
  createRendered,
  deleteShoot,
  exampleRuntimes,
  getShoot,
  LANDSCAPES,
  landscapeSettings,
  render,
} from '../helpers/shoots.js';

const env = connect(inject('testenvStateDir'));
const created: { namespace: string; name: string }[] = [];

afterAll(async () => {
  for (const { namespace, name } of created) await deleteShoot(env.garden, namespace, name);
});

describe.each(LANDSCAPES)('landscape %s', (landscape) => {
  const settings = landscapeSettings(landscape);

  it.each(exampleRuntimes().map((e) => [e.file, e.runtime] as const))(
    '%s: created, then updated after a Runtime change',
    async (_file, runtime) => {
      const first = render(runtime, settings);
      const shoot = await createRendered(env.garden, first);
      created.push({ namespace: shoot.metadata.namespace ?? '', name: shoot.metadata.name });
      expect(shoot.metadata.namespace).toBe(`garden-${settings.config.gardener?.projectName}`);

      // KEB changes the Runtime: more nodes and a second worker pool; kimops renders against the live Shoot.
      const changed = structuredClone(runtime);
      changed.metadata.generation = 2;
      const main = changed.spec.shoot.provider.workers[0];
      if (!main) throw new Error('KEB Runtimes have a main worker');
      main.maximum += 5;
      changed.spec.shoot.provider.additionalWorkers = [
        { ...structuredClone(main), name: 'extra', minimum: 1, maximum: 2 },
      ];
      const live = await getShoot(env.garden, shoot.metadata.namespace ?? '', shoot.metadata.name);
      if (!live) throw new Error('the created Shoot is readable');
      const second = render(changed, settings, live);

      const updated = await env.garden.apply(second.shoot as unknown as KubeObject, 'kimops', { force: true });
      expect(updated.ok ? 'accepted' : updated.error.message).toBe('accepted');
      const after = await getShoot(env.garden, shoot.metadata.namespace ?? '', shoot.metadata.name);
      expect(after?.spec.provider.workers.map((w) => [w.name, w.maximum])).toEqual([
        [main.name, main.maximum],
        ['extra', 2],
      ]);
      expect(after?.metadata.annotations?.['infrastructuremanager.kyma-project.io/runtime-generation']).toBe('2');
    },
  );
});
