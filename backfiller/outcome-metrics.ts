// What the watching backfiller's reconciles and Runtime deletions tell its metrics (metrics.ts).
import { LABEL_RUNTIME_ID } from '../model/contract.js';
import type { RuntimeObject } from './objects.js';
import type { RuntimeOutcome } from './outcome.js';
import type { WatchedKind } from './watcher.js';
import type { BackfillerMetrics } from './metrics.js';

/** The Runtime's series as the reconcile left them, or their removal once its finalizer is released. */
export function recordOutcome(metrics: BackfillerMetrics, outcome: RuntimeOutcome): void {
  if (outcome.finalizer === 'released' && outcome.runtimeId !== undefined) {
    metrics.released(outcome.runtimeId, outcome.runtime);
    return;
  }
  if (outcome.observation) metrics.observed(outcome.observation);
  if (outcome.kubeconfigMetrics) metrics.observedKubeconfig(outcome.kubeconfigMetrics);
}

/** A Runtime gone by any way (also a finalizer someone else released) takes its series with it. */
export function releaseDeletedRuntimes(
  runtimes: Pick<WatchedKind<RuntimeObject>, 'onChange'>,
  metrics: BackfillerMetrics,
): void {
  runtimes.onChange((change) => {
    if (change.type === 'deleted')
      metrics.released(
        change.object.metadata.labels?.[LABEL_RUNTIME_ID] ?? change.object.metadata.name,
        `${change.object.metadata.namespace ?? ''}/${change.object.metadata.name}`,
      );
  });
}
