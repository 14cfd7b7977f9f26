import { describe, expect, it } from 'vitest';
import { testShoot } from '../test/helpers/test-shoot.js';
import { pendingRotations } from './registry-cache-rotation.js';

describe('pendingRotations', () => {
  it('names the rotated Secrets the live Shoot records and main’s Shoot does not name yet', () => {
    const live = testShoot();
    live.metadata.annotations = {
      'registry-cache.kimops.kyma-project.io/u-1': 'reg-cache-u-1-aaaa',
      'registry-cache.kimops.kyma-project.io/u-2': 'reg-cache-u-2-bbbb',
      other: 'reg-cache-x',
    };
    const main = testShoot();
    main.spec.resources = [
      { name: 'reg-cache-u-2-bbbb', resourceRef: { apiVersion: 'v1', kind: 'Secret', name: 'reg-cache-u-2-bbbb' } },
    ];
    const caches = [
      { uid: 'u-1', config: { secretReferenceName: 'creds' } },
      { uid: 'u-2', config: { secretReferenceName: 'creds' } },
    ];
    expect(pendingRotations(live, main, caches)).toEqual(['reg-cache-u-1-aaaa']);
    expect(pendingRotations(undefined, main, caches)).toEqual([]);
    expect(pendingRotations(live, undefined, caches)).toEqual(['reg-cache-u-1-aaaa', 'reg-cache-u-2-bbbb']);
  });

  it('ignores a record left over from a cache the Runtime no longer has, or no longer with credentials', () => {
    const live = testShoot();
    live.metadata.annotations = { 'registry-cache.kimops.kyma-project.io/u-1': 'reg-cache-u-1-aaaa' };
    expect(pendingRotations(live, testShoot(), [])).toEqual([]);
    expect(pendingRotations(live, testShoot(), undefined)).toEqual([]);
    expect(pendingRotations(live, testShoot(), [{ uid: 'u-1', config: {} }])).toEqual([]);
    expect(pendingRotations(live, testShoot(), [{ uid: 'u-2', config: { secretReferenceName: 'c' } }])).toEqual([]);
  });
});
