import { describe, expect, it } from 'vitest';
import type { Shoot } from '../model/shoot.js';
import { withGardenerDefaults } from '../test/helpers/gardener-defaults.js';
import { landscapeSettings, exampleRuntimes, render } from '../test/helpers/shoots.js';
import { changed, extension, testShoot, worker } from '../test/helpers/test-shoot.js';
import { clusterByField, compareWithLive, differingFields } from './field-differences.js';
import { LEADER_ANNOTATION, withLeader } from './leader.js';

/** The live Shoot as the Garden serves main's Shoot after `edit`: defaults, server metadata, status. */
function liveOf(main: Shoot, edit: (live: Shoot) => void = () => {}): Shoot {
  const live = withGardenerDefaults(main);
  edit(live);
  return live;
}

describe('differingFields', () => {
  it("finds nothing where the live Shoot is main's plus Gardener's defaults, for every example Runtime", () => {
    const settings = landscapeSettings('dev');
    for (const { file, runtime } of exampleRuntimes()) {
      const { shoot } = render(runtime, settings);
      expect(compareWithLive(shoot, liveOf(shoot)), file).toEqual({ differences: [], kept: [] });
    }
  });

  it('names each field main sets that differs, list items by their key, with both values', () => {
    const main = testShoot();
    const live = liveOf(main, (s) => {
      worker(s, 'a').machine.type = 'm5.large';
      worker(s, 'b').maximum = 2;
      extension(s, 'shoot-auditlog-service').providerConfig = { tenantID: 't-live' };
      s.spec.region = 'eu-west-1';
    });
    expect(differingFields(main, live)).toEqual([
      {
        path: 'spec.extensions[shoot-auditlog-service].providerConfig.tenantID',
        main: 't-1',
        live: 't-live',
      },
      { path: 'spec.provider.workers[a].machine.type', main: 'm6i.large', live: 'm5.large' },
      { path: 'spec.provider.workers[b].maximum', main: 5, live: 2 },
      { path: 'spec.region', main: 'eu-central-1', live: 'eu-west-1' },
    ]);
  });

  it('gives only the side that sets a field, whole where the other lacks it: one main adds, an extension only live', () => {
    const main = changed((s) => {
      s.spec.hibernation = { enabled: false };
    });
    const live = liveOf(testShoot(), (s) => {
      s.spec.extensions = [...(s.spec.extensions ?? []), { type: 'shoot-networking-filter' }];
    });
    expect(differingFields(main, live)).toEqual([
      { path: 'spec.extensions[shoot-networking-filter]', live: { type: 'shoot-networking-filter' } },
      { path: 'spec.hibernation', main: { enabled: false } },
    ]);
  });

  it("ignores the live Shoot's fields main does not set: another manager's label, a default, the status", () => {
    const main = testShoot();
    const live = liveOf(main, (s) => {
      s.metadata.labels = { ...s.metadata.labels, 'kim.example/only-live': 'x' };
      s.spec.purpose = 'production';
    });
    expect(differingFields(main, live)).toEqual([]);
  });

  it("takes a LIST item's missing apiVersion and kind for main's, and still sees one that differs", () => {
    const main = testShoot();
    const listed: Partial<Shoot> = liveOf(main);
    delete listed.apiVersion;
    delete listed.kind;
    expect(differingFields(main, listed as Shoot)).toEqual([]);
    expect(
      differingFields(main, { ...listed, kind: 'Shoot', apiVersion: 'core.gardener.cloud/v2' } as unknown as Shoot),
    ).toEqual([{ path: 'apiVersion', main: main.apiVersion, live: 'core.gardener.cloud/v2' }]);
  });

  it("does not count main's leader annotation, which the applier never writes", () => {
    const main = withLeader(testShoot(), 'kim');
    expect(main.metadata.annotations?.[LEADER_ANNOTATION]).toBe('kim');
    expect(differingFields(main, liveOf(testShoot()))).toEqual([]);
  });

  it('lists what the applier keeps from the live Shoot as kept, with the reason, not as a difference', () => {
    const main = changed((s) => {
      worker(s, 'b').zones = ['z3'];
      worker(s, 'a').maximum = 4;
    });
    const live = liveOf(testShoot(), (s) => {
      s.spec.kubernetes.version = '1.33.1';
      s.spec.networking.ipFamilies = ['IPv6'];
    });
    main.spec.networking.ipFamilies = ['IPv4'];
    const { differences, kept } = compareWithLive(main, live);
    expect(differences).toEqual([
      { path: 'spec.provider.workers[a].maximum', main: 4, live: 3 },
      { path: 'spec.provider.workers[b].zones[z3]', main: 'z3' },
    ]);
    expect(kept.map(({ path, main: m, live: l }) => ({ path, main: m, live: l }))).toEqual([
      { path: 'spec.kubernetes.version', main: '1.32.5', live: '1.33.1' },
      { path: 'spec.networking.ipFamilies[0]', main: 'IPv4', live: 'IPv6' },
      { path: 'spec.provider.workers[b].zones[z1]', live: 'z1' },
    ]);
    expect(kept.map((k) => k.why)).toEqual([
      expect.stringContaining('never downgrades'),
      'set at creation only: the live value is kept',
      expect.stringContaining('never removes a zone'),
    ]);
  });

  it('says the worker order is kept, though live-rules notes no reason for it', () => {
    const main = changed((s) => {
      s.spec.provider.workers.reverse();
    });
    const { differences, kept } = compareWithLive(main, liveOf(testShoot()));
    expect(differences).toEqual([]);
    expect(kept).toEqual([
      {
        path: 'spec.provider.workers (order)',
        main: ['b', 'a'],
        live: ['a', 'b'],
        why: 'the applier keeps the live value (rules/live-rules.ts)',
      },
    ]);
  });

  it("throws keepLive's error for a main Shoot too incomplete to hold against the live one", () => {
    const main = changed((s) => {
      delete (s.spec as Partial<Shoot['spec']>).provider;
    });
    expect(() => differingFields(main, liveOf(testShoot()))).toThrow();
  });
});

describe('clusterByField', () => {
  it('groups Shoots by path, most Shoots first, then by path; names sorted', () => {
    const clusters = clusterByField(
      new Map([
        ['c-3', [{ path: 'spec.region' }, { path: 'spec.kubernetes.version' }]],
        ['c-1', [{ path: 'spec.region' }]],
        ['c-2', [{ path: 'spec.hibernation.enabled' }, { path: 'spec.region' }]],
        ['c-4', []],
      ]),
    );
    expect(clusters).toEqual([
      { path: 'spec.region', count: 3, shoots: ['c-1', 'c-2', 'c-3'] },
      { path: 'spec.hibernation.enabled', count: 1, shoots: ['c-2'] },
      { path: 'spec.kubernetes.version', count: 1, shoots: ['c-3'] },
    ]);
  });

  it('counts a Shoot once per path and nothing for no Shoots', () => {
    expect(clusterByField([['c-1', [{ path: 'p' }, { path: 'p' }]]])).toEqual([
      { path: 'p', count: 1, shoots: ['c-1'] },
    ]);
    expect(clusterByField([])).toEqual([]);
  });
});
