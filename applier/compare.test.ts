import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { OWNERSHIP_LABEL, OWNERSHIP_VALUE } from '../model/contract.js';
import type { Shoot } from '../model/shoot.js';
import { withLeader } from '../rules/leader.js';
import { withGardenerDefaults } from '../test/helpers/gardener-defaults.js';
import { testShoot, worker } from '../test/helpers/test-shoot.js';
import {
  CLUSTER_EXAMPLES,
  compareLandscape,
  foldersToRead,
  hasDifferences,
  type CompareInput,
  type MainFolder,
  type RememberedShoot,
} from './compare.js';
import { MAX_FIELD_LABELS, OTHER_FIELD, compareMetrics } from './compare-metrics.js';
import { comparisonText } from './compare-text.js';

/** main's Shoot of that name (the test Shoot renamed), edited. */
function mainShoot(name: string, edit: (shoot: Shoot) => void = () => {}): Shoot {
  const shoot = testShoot();
  shoot.metadata.name = name;
  edit(shoot);
  return shoot;
}

/** The live Shoot as the Garden serves `shoot` (defaults, resourceVersion), edited. */
function liveShoot(shoot: Shoot, edit: (live: Shoot) => void = () => {}): Shoot {
  const live = withGardenerDefaults(shoot);
  edit(live);
  return live;
}

const owned = (live: Shoot) => {
  live.metadata.labels = { ...live.metadata.labels, [OWNERSHIP_LABEL]: OWNERSHIP_VALUE };
};

function input(main: Record<string, MainFolder>, live: Shoot[], more: Partial<CompareInput> = {}): CompareInput {
  return {
    landscape: 'dev',
    namespace: 'garden-kyma-dev',
    commit: '0123456789abcdef0123456789abcdef01234567',
    comparedAt: '2026-12-02T07:00:00.000Z',
    main: new Map(Object.entries(main)),
    live,
    ...more,
  };
}

/** Three Shoots in main: c-1 the same, c-2 with a larger maximum and a newer live version (kept), c-3 not live; c-4 only live. */
function landscape() {
  const same = mainShoot('c-1');
  const larger = withLeader(
    mainShoot('c-2', (s) => {
      worker(s, 'a').maximum = 9;
    }),
    'kim',
  );
  const created = mainShoot('c-3');
  const main = { 'c-1': { tree: 't1', shoot: same }, 'c-2': { tree: 't2', shoot: larger }, 'c-3': { shoot: created } };
  const live = [
    liveShoot(mainShoot('c-1'), owned),
    liveShoot(mainShoot('c-2'), (s) => {
      s.spec.kubernetes.version = '1.33.0';
    }),
    liveShoot(mainShoot('c-4')),
  ];
  return { main, live };
}

describe('compareLandscape', () => {
  it('reports per Shoot the differing fields, the kept ones, the leader, the Shoots only one side has, and clusters', () => {
    const { main, live } = landscape();
    const report = compareLandscape(input(main, live));
    expect(report).toEqual({
      apiVersion: 'kimops.kyma-project.io/v1alpha1',
      kind: 'ComparisonReport',
      landscape: 'dev',
      namespace: 'garden-kyma-dev',
      commit: '0123456789abcdef0123456789abcdef01234567',
      comparedAt: '2026-12-02T07:00:00.000Z',
      summary: {
        inMain: 3,
        live: 3,
        compared: 2,
        differing: 1,
        onlyInMain: 1,
        onlyLive: 1,
        unreadable: 0,
        fields: [{ path: 'spec.provider.workers[a].maximum', count: 1, examples: ['c-2'] }],
        kept: [{ path: 'spec.kubernetes.version', count: 1, examples: ['c-2'] }],
      },
      shoots: [
        { name: 'c-1', leader: 'kimops', managedByKimops: true, differences: [], kept: [] },
        {
          name: 'c-2',
          leader: 'kim',
          managedByKimops: false,
          differences: [{ path: 'spec.provider.workers[a].maximum', main: 9, live: 3 }],
          kept: [
            {
              path: 'spec.kubernetes.version',
              main: '1.32.5',
              live: '1.33.0',
              why: 'live 1.33.0 kept over 1.32.5: Gardener never downgrades a Kubernetes version',
            },
          ],
        },
      ],
      onlyInMain: [{ name: 'c-3', leader: 'kimops' }],
      onlyLive: [{ name: 'c-4', managedByKimops: false }],
      unreadable: [],
    });
    expect(hasDifferences(report)).toBe(true);
  });

  it('has no differences where main and the Garden agree, kept values aside', () => {
    const kept = mainShoot('c-1');
    const report = compareLandscape(
      input({ 'c-1': { shoot: kept } }, [
        liveShoot(kept, (s) => {
          s.spec.kubernetes.version = '1.33.0';
        }),
      ]),
    );
    expect(report.summary.kept).toHaveLength(1);
    expect(hasDifferences(report)).toBe(false);
  });

  it('names a folder it could not read, or not hold against the live Shoot, and compares the others', () => {
    const incomplete = mainShoot('c-2', (s) => {
      delete (s.spec as Partial<Shoot['spec']>).provider;
    });
    const report = compareLandscape(
      input(
        {
          'c-1': { problem: 'shoots/c-1/shoot.yaml on main: kind: must be a core.gardener.cloud/v1beta1 Shoot' },
          'c-2': { shoot: incomplete },
        },
        [liveShoot(mainShoot('c-1')), liveShoot(mainShoot('c-2'))],
      ),
    );
    expect(report.unreadable).toEqual([
      { name: 'c-1', problem: 'shoots/c-1/shoot.yaml on main: kind: must be a core.gardener.cloud/v1beta1 Shoot' },
      { name: 'c-2', problem: expect.stringMatching(/^cannot be held against the live Shoot .*run kimops validate/) },
    ]);
    expect(report.summary.compared).toBe(0);
    expect(hasDifferences(report)).toBe(true);
  });

  it('compares only the Shoots asked for, naming those neither side has', () => {
    const { main, live } = landscape();
    const report = compareLandscape(input(main, live, { only: ['c-2', 'c-4', 'c-9'] }));
    expect(report.shoots.map((s) => s.name)).toEqual(['c-2']);
    expect(report.onlyInMain).toEqual([]);
    expect(report.onlyLive).toEqual([{ name: 'c-4', managedByKimops: false }]);
    expect(report.notFound).toEqual(['c-9']);
    expect(report.summary).toMatchObject({ inMain: 1, live: 2 });
  });

  it('names at most a few example Shoots per field, counting them all', () => {
    const names = Array.from({ length: CLUSTER_EXAMPLES + 2 }, (_, i) => `c-${i}`);
    const main = Object.fromEntries(names.map((name) => [name, { shoot: mainShoot(name) }]));
    const live = names.map((name) =>
      liveShoot(mainShoot(name), (s) => {
        s.spec.region = 'eu-west-1';
      }),
    );
    const [field] = compareLandscape(input(main, live)).summary.fields;
    expect(field).toEqual({ path: 'spec.region', count: names.length, examples: names.slice(0, CLUSTER_EXAMPLES) });
  });

  it('takes a remembered Shoot from the memo without its file, and forgets what moved', () => {
    const { main, live } = landscape();
    const memo = new Map<string, RememberedShoot>();
    compareLandscape(input(main, live, { memo }));
    // c-1 and c-2 have a tree and a live resourceVersion: remembered; c-3 (no tree) is not.
    expect(memo.size).toBe(2);
    const folders = new Map([
      ['c-1', 't1'],
      ['c-2', 't2-new'],
      ['c-3', 't3'],
    ]);
    expect(foldersToRead(folders, live, memo)).toEqual(['c-2', 'c-3']);
    expect(foldersToRead(folders, live, memo, ['c-1', 'c-3'])).toEqual(['c-3']);
    const again = compareLandscape(input({ ...main, 'c-1': { tree: 't1' } }, live, { memo }));
    expect(again.shoots[0]).toEqual({
      name: 'c-1',
      leader: 'kimops',
      managedByKimops: true,
      differences: [],
      kept: [],
    });
    expect(again.unreadable).toEqual([]);
  });

  it('remembers a Shoot only main has by its folder, until the folder moves or the Shoot goes live', () => {
    const created = withLeader(mainShoot('c-3'), 'kim');
    const memo = new Map<string, RememberedShoot>();
    const first = compareLandscape(input({ 'c-3': { tree: 't3', shoot: created } }, [], { memo }));
    expect(first.onlyInMain).toEqual([{ name: 'c-3', leader: 'kim' }]);
    expect(foldersToRead(new Map([['c-3', 't3']]), [], memo)).toEqual([]);
    expect(foldersToRead(new Map([['c-3', 't3-new']]), [], memo)).toEqual(['c-3']);
    expect(foldersToRead(new Map([['c-3', 't3']]), [liveShoot(created)], memo)).toEqual(['c-3']);
    const again = compareLandscape(input({ 'c-3': { tree: 't3' } }, [], { memo }));
    expect(again.onlyInMain).toEqual([{ name: 'c-3', leader: 'kim' }]);
    expect(again.unreadable).toEqual([]);
  });
});

describe('comparisonText', () => {
  it('shows each Shoot to look at with its fields, the clusters and a summary line', () => {
    const { main, live } = landscape();
    expect(comparisonText(compareLandscape(input(main, live)))).toBe(
      [
        '► Shoot/garden-kyma-dev/c-2 (led by kim, not applied by kimops): a cut-over to kimops would change 1 field(s), 1 kept live',
        '    spec.provider.workers[a].maximum: main 9, live 3',
        '    kept spec.kubernetes.version: main 1.32.5, live 1.33.0: live 1.33.0 kept over 1.32.5: Gardener never downgrades a Kubernetes version',
        '► Shoot/garden-kyma-dev/c-3 (led by kimops): only in main, not live: the next apply creates it',
        '► Shoot/garden-kyma-dev/c-4: only live, not in main (not applied by kimops: never touched)',
        'Fields that differ (Shoots of 1):',
        '  1  spec.provider.workers[a].maximum (c-2)',
        'Fields where the live value is kept (Shoots of 2):',
        '  1  spec.kubernetes.version (c-2)',
        'compare of main at 0123456789ab with garden-kyma-dev: 3 in main, 3 live; 1 differ, 1 same, 1 only in main, 1 only live, 0 not compared; nothing written',
        '',
      ].join('\n'),
    );
  });

  it('reads (unset) for the side that does not set a field, and names what it could not compare', () => {
    const report = compareLandscape(
      input({ 'c-1': { shoot: mainShoot('c-1', (s) => (s.spec.purpose = 'production')) }, 'c-2': { problem: 'x' } }, [
        liveShoot(mainShoot('c-1')),
      ]),
    );
    const text = comparisonText(report);
    expect(text).toContain(
      '► Shoot/garden-kyma-dev/c-1 (led by kimops, not applied by kimops): the next apply changes 1 field(s)\n',
    );
    expect(text).toContain('    spec.purpose: main production, live (unset)\n');
    expect(text).toContain('► Shoot/garden-kyma-dev/c-2: not compared: x\n');
  });

  it('says that only a cut-over would create a Shoot KIM leads that is not live', () => {
    const report = compareLandscape(input({ 'c-5': { shoot: withLeader(mainShoot('c-5'), 'kim') } }, []));
    expect(comparisonText(report)).toContain(
      '► Shoot/garden-kyma-dev/c-5 (led by kim): only in main, not live: nothing creates it while KIM leads, a cut-over to kimops would\n',
    );
  });
});

describe('compareMetrics', () => {
  it('serves the Shoots differing, by state, by field, and the time of the last comparison', async () => {
    const registry = new Registry();
    const metrics = compareMetrics(registry, 'dev');
    const { main, live } = landscape();
    metrics.compared(compareLandscape(input(main, live)));
    const text = await registry.metrics();
    expect(text).toContain('kimops_compare_shoots_differing{landscape="dev"} 1\n');
    expect(text).toContain('kimops_compare_shoots{landscape="dev",state="same"} 1\n');
    expect(text).toContain('kimops_compare_shoots{landscape="dev",state="only-live"} 1\n');
    expect(text).toContain(
      'kimops_compare_field_differences{landscape="dev",field="spec.provider.workers[a].maximum"} 1\n',
    );
    expect(text).toMatch(/kimops_compare_last_timestamp_seconds\{landscape="dev"\} \d/);
    expect(text).toContain('kimops_compare_failures_total{landscape="dev"} 0\n');
    metrics.failed();
    expect(await registry.metrics()).toContain('kimops_compare_failures_total{landscape="dev"} 1\n');
  });

  it('drops a field that no longer differs, and caps the field series, summing the rest as other', async () => {
    const registry = new Registry();
    const metrics = compareMetrics(registry, 'dev');
    const { main, live } = landscape();
    metrics.compared(compareLandscape(input(main, live)));
    // Each Shoot differs in a label of its own: two fields more than the cap, one Shoot each.
    const names = Array.from({ length: MAX_FIELD_LABELS + 2 }, (_, i) => `c-${String(i).padStart(3, '0')}`);
    const differing = compareLandscape(
      input(
        Object.fromEntries(
          names.map((name, i) => [
            name,
            { shoot: mainShoot(name, (s) => (s.metadata.labels = { ...s.metadata.labels, [`l${i}`]: 'main' })) },
          ]),
        ),
        names.map((name, i) =>
          liveShoot(mainShoot(name), (s) => {
            s.metadata.labels = { ...s.metadata.labels, [`l${i}`]: 'live' };
          }),
        ),
      ),
    );
    expect(differing.summary.fields).toHaveLength(MAX_FIELD_LABELS + 2);
    metrics.compared(differing);
    const text = await registry.metrics();
    const series = text.split('\n').filter((line) => line.startsWith('kimops_compare_field_differences{'));
    expect(series).toHaveLength(MAX_FIELD_LABELS + 1);
    expect(series).toContain(`kimops_compare_field_differences{landscape="dev",field="${OTHER_FIELD}"} 2`);
    expect(text).not.toContain('spec.provider.workers[a].maximum');
  });
});
