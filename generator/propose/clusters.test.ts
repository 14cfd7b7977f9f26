import { describe, expect, it } from 'vitest';
import { clusterChanges, waves } from './clusters.js';
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
  it('groups Shoots with identical diffs, largest group first, with a count line', () => {
    const perShoot = [
      ...Array.from({ length: 1214 }, (_, i) => ({ shoot: `s-${String(i).padStart(4, '0')}`, changes: [bump] })),
      { shoot: 'x-1', changes: [otherBump] },
      { shoot: 'x-2', changes: [otherBump] },
      { shoot: 'y-1', changes: [bump, scale] },
    ];
    const clusters = clusterChanges(perShoot);
    expect(clusters.map((c) => c.line)).toEqual([
      '1,214 shoots: spec.kubernetes.version 1.32.5 → 1.33.3',
      '2 shoots: spec.kubernetes.version 1.32.4 → 1.33.3',
      '1 shoot: spec.kubernetes.version 1.32.5 → 1.33.3; spec.provider.workers[cpu-worker-0].maximum 3 → 5',
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
