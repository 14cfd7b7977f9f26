import { describe, expect, it } from 'vitest';
import { clusterChanges, rolloutSubject, waves } from './clusters.js';
import type { FieldChange } from '../../rules/semantic-diff.js';

const bump: FieldChange = { path: 'spec.kubernetes.version', kind: 'changed', before: '1.32.5', after: '1.33.3' };
const otherBump: FieldChange = { path: 'spec.kubernetes.version', kind: 'changed', before: '1.32.4', after: '1.33.3' };
const scale: FieldChange = {
  path: 'spec.provider.workers[cpu-worker-0].maximum',
  kind: 'changed',
  before: 3,
  after: 5,
};

describe('clusterChanges', () => {
  it('groups Shoots with identical diffs, largest group first', () => {
    const perShoot = [
      ...Array.from({ length: 1214 }, (_, i) => ({ shoot: `s-${String(i).padStart(4, '0')}`, changes: [bump] })),
      { shoot: 'x-1', changes: [otherBump] },
      { shoot: 'x-2', changes: [otherBump] },
      { shoot: 'y-1', changes: [bump, scale] },
    ];
    const clusters = clusterChanges(perShoot);
    expect(clusters.map((c) => [c.shoots.length, c.changes])).toEqual([
      [1214, [bump]],
      [2, [otherBump]],
      [1, [bump, scale]],
    ]);
    expect(clusters[1]?.shoots).toEqual(['x-1', 'x-2']);
  });

  it('treats a different before value as a different diff, and equal values built apart as the same', () => {
    const clusters = clusterChanges([
      { shoot: 'a', changes: [{ path: 'p', kind: 'changed', before: { x: 1, y: 2 }, after: 3 }] },
      { shoot: 'b', changes: [{ path: 'p', kind: 'changed', before: { y: 2, x: 1 }, after: 3 }] },
      { shoot: 'c', changes: [{ path: 'p', kind: 'changed', before: { y: 2, x: 9 }, after: 3 }] },
    ]);
    expect(clusters.map((c) => c.shoots)).toEqual([['a', 'b'], ['c']]);
  });

  it('orders equal-sized groups by their first Shoot, whatever the input order', () => {
    const input = [
      { shoot: 'b', changes: [scale] },
      { shoot: 'a', changes: [bump] },
    ];
    expect(clusterChanges(input).map((c) => c.shoots[0])).toEqual(['a', 'b']);
    expect(clusterChanges([...input].reverse())).toEqual(clusterChanges(input));
  });
});

describe('rolloutSubject', () => {
  const of = (...perShoot: FieldChange[][]) =>
    rolloutSubject(perShoot.map((changes, i) => ({ shoot: `s-${i}`, changes })));
  const image = (worker: string, before: string): FieldChange => ({
    path: `spec.provider.workers[${worker}].machine.image.version`,
    kind: 'changed',
    before,
    after: '1877.5.0',
  });

  it.each<[string, string, FieldChange[][]]>([
    ['names a Kubernetes bump as people say it', 'kubernetes 1.32.5 → 1.33.3', [[bump], [bump]]],
    ['leaves out an old value the Shoots do not share', 'kubernetes → 1.33.3', [[bump], [otherBump]]],
    [
      'takes a pool of any name for the same field',
      'machine image 1877.4.0 → 1877.5.0',
      [[image('cpu-worker-0', '1877.4.0')], [image('"a.b"', '1877.4.0')]],
    ],
    [
      "names what every Shoot changes and counts one Shoot's extra change",
      'kubernetes 1.32.5 → 1.33.3 and 1 more change',
      [[bump], [bump, scale]],
    ],
    [
      'names two shared fields at most',
      'kubernetes 1.32.5 → 1.33.3, provider.workers[*].maximum 3 → 5 and 1 more change',
      [
        [bump, scale, { path: 'spec.purpose', kind: 'changed', before: 'evaluation', after: 'production' }],
        [bump, scale, { path: 'spec.purpose', kind: 'changed', before: 'evaluation', after: 'production' }],
      ],
    ],
    [
      'says added and removed',
      'kubernetes.kubeAPIServer.featureGates.G added: true, hibernation removed',
      [
        [
          { path: 'spec.kubernetes.kubeAPIServer.featureGates.G', kind: 'added', after: true },
          { path: 'spec.hibernation', kind: 'removed', before: { enabled: false } },
        ],
      ],
    ],
    [
      'falls back to the field most Shoots change',
      'kubernetes 1.32.5 → 1.33.3 and 1 more change',
      [[bump], [bump], [scale]],
    ],
    ['names companion files when the manifests are equal', 'companion files', [[], []]],
  ])('%s', (_what, expected, perShoot) => {
    expect(of(...perShoot)).toBe(expected);
  });

  it('shortens long values, as a title is read at a glance', () => {
    const long: FieldChange = { path: 'spec.x', kind: 'changed', before: 'a', after: 'v'.repeat(100) };
    expect(of([long])).toBe(`x a → ${'v'.repeat(39)}…`);
  });
});

describe('waves', () => {
  it.each<[string[], number, string[][]]>([
    [['c', 'a', 'b', 'e', 'd'], 2, [['a', 'b'], ['c', 'd'], ['e']]],
    [['b', 'a'], 5, [['a', 'b']]],
    [['a', 'a', 'b'], 1, [['a'], ['b']]],
    [[], 3, []],
  ])('splits %j into waves of %i', (shoots, size, expected) => {
    expect(waves(shoots, size)).toEqual(expected);
  });

  it.each([0, -1, 1.5, Number.NaN])('refuses a wave size of %s', (size) => {
    expect(() => waves(['a'], size)).toThrow(/wave size must be a whole number of at least 1/);
  });
});
