import { describe, expect, it } from 'vitest';
import type { KubeconfigObservation, RuntimeObservation, BackfillerMetrics } from './metrics.js';
import type { RuntimeObject } from './objects.js';
import { recordOutcome, releaseDeletedRuntimes } from './outcome-metrics.js';
import type { RuntimeOutcome } from './outcome.js';

function recorded(): { metrics: BackfillerMetrics; calls: unknown[][] } {
  const calls: unknown[][] = [];
  return {
    calls,
    metrics: {
      observed: (observation) => void calls.push(['observed', observation]),
      observedKubeconfig: (observation) => void calls.push(['observedKubeconfig', observation]),
      released: (runtimeId, runtime) => void calls.push(['released', runtimeId, runtime]),
      pass: (seconds, failed) => void calls.push(['pass', seconds, failed]),
    },
  };
}

const outcome = (extra: Partial<RuntimeOutcome>): RuntimeOutcome => ({
  runtime: 'kcp-system/rt-1',
  statusWritten: true,
  conflict: false,
  events: 0,
  errors: [],
  unreachable: false,
  ...extra,
});

describe('recordOutcome', () => {
  const observation = { series: {} } as unknown as RuntimeObservation;
  const kubeconfigMetrics = { runtimeId: 'id-1' } as unknown as KubeconfigObservation;

  it("records the Runtime's series and its kubeconfig's", () => {
    const { metrics, calls } = recorded();
    recordOutcome(metrics, outcome({ observation, kubeconfigMetrics }));
    expect(calls).toEqual([
      ['observed', observation],
      ['observedKubeconfig', kubeconfigMetrics],
    ]);
  });

  it('drops the series of a Runtime whose finalizer it released, and records nothing else of it', () => {
    const { metrics, calls } = recorded();
    recordOutcome(metrics, outcome({ finalizer: 'released', runtimeId: 'id-1', observation, kubeconfigMetrics }));
    expect(calls).toEqual([['released', 'id-1', 'kcp-system/rt-1']]);
  });
});

describe('releaseDeletedRuntimes', () => {
  it("drops a deleted Runtime's series by its runtime-id label, else by its name", () => {
    const { metrics, calls } = recorded();
    let listener: ((change: { type: 'added' | 'modified' | 'deleted'; object: RuntimeObject }) => void) | undefined;
    releaseDeletedRuntimes({ onChange: (l) => ((listener = l), () => {}) }, metrics);
    const runtime = (name: string, labels?: Record<string, string>) =>
      ({ metadata: { name, namespace: 'kcp-system', ...(labels && { labels }) } }) as RuntimeObject;
    listener?.({ type: 'modified', object: runtime('rt-1') });
    listener?.({ type: 'deleted', object: runtime('rt-1', { 'kyma-project.io/runtime-id': 'id-1' }) });
    listener?.({ type: 'deleted', object: runtime('rt-2') });
    expect(calls).toEqual([
      ['released', 'id-1', 'kcp-system/rt-1'],
      ['released', 'rt-2', 'kcp-system/rt-2'],
    ]);
  });
});
