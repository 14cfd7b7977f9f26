import { describe, expect, it } from 'vitest';
import type { InformerOptions } from '../adapters/kube/informer.js';
import type { KubeObject } from '../model/kube-object.js';
import { backfillCaches, type CachedKind, type StartCache } from './compacted-caches.js';

/** Caches that only say how they were made, started and stopped. */
function recording(cluster: string, made: unknown[][], events: string[]): StartCache {
  return <T extends KubeObject>(type: { apiVersion: string; kind: string }, options: InformerOptions) => {
    made.push([cluster, type.kind, options.namespace, options.labelSelector, options.transform?.name]);
    const cache: CachedKind<T> = {
      start: () => void events.push(`start ${type.kind}`),
      stop: async () => void events.push(`stop ${type.kind}`),
      synced: async () => {},
      items: () => [],
      get: () => undefined,
      onChange: () => () => {},
    };
    return cache;
  };
}

describe('backfillCaches', () => {
  it('caches each kind in its namespace, compacted to what a reconcile reads, and starts and stops them all', async () => {
    const made: unknown[][] = [];
    const events: string[] = [];
    const caches = backfillCaches(
      { kcp: recording('kcp', made, events), garden: recording('garden', made, events) },
      { kcp: 'kcp-system', garden: 'garden-kyma-dev' },
      () => {},
    );
    expect(made).toEqual([
      ['kcp', 'Runtime', 'kcp-system', undefined, 'withoutManagedFields'],
      ['garden', 'Shoot', 'garden-kyma-dev', undefined, 'compactShootForStatus'],
      ['garden', 'ConfigMap', 'garden-kyma-dev', 'kimops.kyma-project.io/report=apply', undefined],
      ['kcp', 'GardenerCluster', 'kcp-system', undefined, 'withoutManagedFields'],
      ['kcp', 'Secret', 'kcp-system', 'operator.kyma-project.io/cluster-name', 'compactSecret'],
    ]);
    expect(events).toEqual([]);
    caches.start();
    await caches.stop();
    expect(events).toEqual([
      'start Runtime',
      'start Shoot',
      'start ConfigMap',
      'start GardenerCluster',
      'start Secret',
      'stop Runtime',
      'stop Shoot',
      'stop ConfigMap',
      'stop GardenerCluster',
      'stop Secret',
    ]);
  });
});
