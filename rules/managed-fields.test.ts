import { describe, expect, it } from 'vitest';
import { landscapeSettings, exampleRuntimes, render } from '../test/helpers/shoots.js';
import { withGardenerDefaults } from '../test/helpers/gardener-defaults.js';
import { testShoot, worker } from '../test/helpers/test-shoot.js';
import type { Shoot } from '../model/shoot.js';
import { managedPart, managedShoot } from './managed-fields.js';
import { semanticDiff } from './semantic-diff.js';

const paths = (before: Shoot, after: Shoot) => semanticDiff(before, after).map((c) => `${c.kind} ${c.path}`);

describe('managedShoot', () => {
  it('gives back the created Shoot of every example Runtime as gardener-apiserver serves it: its defaults are not kimops fields', () => {
    const settings = landscapeSettings('dev');
    for (const { file, runtime } of exampleRuntimes()) {
      const { shoot } = render(runtime, settings);
      const served = withGardenerDefaults(shoot);
      expect(paths(shoot, served), file).toContain('added spec.networking.ipFamilies');
      expect(managedShoot(served, shoot), file).toEqual(shoot);
    }
  });

  it('keeps what Gardener changed at a field main sets: a maintenance version, a machine image, a zone added', () => {
    const main = testShoot();
    const live = withGardenerDefaults(main);
    live.spec.kubernetes.version = '1.32.9';
    worker(live, 'a').machine.image = { name: 'gardenlinux', version: '1877.9.0' };
    worker(live, 'b').zones = ['z1', 'z2'];
    expect(paths(main, managedShoot(live, main))).toEqual([
      'changed spec.kubernetes.version',
      'changed spec.provider.workers[a].machine.image.version',
      'added spec.provider.workers[b].zones[z2]',
    ]);
  });

  it("keeps a value main sets even where it equals a default (it is main's then)", () => {
    const main = testShoot();
    main.spec.networking.ipFamilies = ['IPv4'];
    worker(main, 'a').updateStrategy = 'AutoRollingUpdate';
    const live = withGardenerDefaults(main);
    live.spec.networking.ipFamilies = ['IPv4', 'IPv6'];
    expect(paths(main, managedShoot(live, main))).toEqual(['added spec.networking.ipFamilies[1]']);
    expect(worker(managedShoot(live, main), 'a').updateStrategy).toBe('AutoRollingUpdate');
  });

  it('leaves out a worker and a toleration only the live Shoot has (merge-keyed lists), keeps an extra extension (atomic)', () => {
    const main = testShoot();
    const live = withGardenerDefaults(main);
    live.spec.provider.workers.push({ ...worker(live, 'a'), name: 'c' });
    live.spec.tolerations = [...(live.spec.tolerations ?? []), { key: 'other' }];
    live.spec.extensions = [...(live.spec.extensions ?? []), { type: 'shoot-cert-service' }];
    expect(paths(main, managedShoot(live, main))).toEqual(['added spec.extensions[shoot-cert-service]']);
  });
});

describe('managedPart with the fields a manager owns (managedFields)', () => {
  it('keeps a field the manifest no longer sets when the manager applied it, and only then', () => {
    const live = { spec: { hibernation: { enabled: true }, region: 'r' } };
    const wanted = { spec: { region: 'r' } };
    expect(managedPart(live, wanted)).toEqual({ spec: { region: 'r' } });
    expect(managedPart(live, wanted, { 'f:spec': { 'f:hibernation': { 'f:enabled': {} } } })).toEqual(live);
  });

  it('keeps a merge-keyed list item the manager applied before, by its key', () => {
    const live = { spec: { provider: { workers: [{ name: 'a', maximum: 3 }, { name: 'b' }] } } };
    const wanted = { spec: { provider: { workers: [{ name: 'a', maximum: 3 }] } } };
    const owned = { 'f:spec': { 'f:provider': { 'f:workers': { 'k:{"name":"b"}': { '.': {} } } } } };
    expect(managedPart(live, wanted)).toEqual(wanted);
    expect(managedPart(live, wanted, owned)).toEqual(live);
  });

  it('matches a list by position when its items have no unique key, keeping extra live items', () => {
    expect(managedPart({ a: [{ x: 1, d: 0 }, { x: 2 }] }, { a: [{ x: 1 }] })).toEqual({ a: [{ x: 1 }, { x: 2 }] });
  });
});
