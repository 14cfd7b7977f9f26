// `--once`: one pass over every Runtime from one LIST each.
import { TransportError } from '../model/errors.js';
import { listWithRetry, PAGE, snapshotLookup } from './lookups.js';
import { RUNTIME_TYPE, type RuntimeObject } from './objects.js';
import type { PassReport, RuntimeOutcome } from './outcome.js';
import type { BackfillContext } from './ports.js';
import { reconcileRuntime } from './reconcile-runtime.js';

/** --once: one LIST each of Runtimes, Shoots, GardenerClusters and kubeconfig Secrets, then every Runtime. */
export async function backfillPass(context: BackfillContext, kcpNamespace: string): Promise<PassReport> {
  const runtimes = await listWithRetry(() =>
    context.kcp.listAll<RuntimeObject>({ ...RUNTIME_TYPE, namespace: kcpNamespace }, { limit: PAGE }),
  );
  if (!runtimes.ok) throw new TransportError(`kubeconfig ${context.kcp.label}`, runtimes.message);
  const lookup = await snapshotLookup(context, kcpNamespace);
  const outcomes: RuntimeOutcome[] = [];
  for (const runtime of runtimes.items)
    outcomes.push(await reconcileRuntime(context, { ...runtime, ...RUNTIME_TYPE }, lookup));
  return { outcomes, ...(lookup.warnings && lookup.warnings.length > 0 && { warnings: lookup.warnings }) };
}
