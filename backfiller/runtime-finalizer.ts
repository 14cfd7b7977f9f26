// KIM's finalizer on a Runtime: added to every Runtime, released once its Shoot is gone (status.ts's
// `finalizerAction` decides which).
import { RUNTIME_FINALIZER } from '../model/contract.js';
import { RUNTIME_TYPE, type RuntimeObject } from './objects.js';
import type { BackfillContext } from './ports.js';
import { failure } from './step-error.js';
import { finalizersOf } from './status.js';

export async function addFinalizer(context: BackfillContext, runtime: RuntimeObject): Promise<RuntimeObject> {
  return (await patchFinalizers(
    context,
    runtime,
    (finalizers) => (finalizers.includes(RUNTIME_FINALIZER) ? finalizers : [...finalizers, RUNTIME_FINALIZER]),
    `add finalizer ${RUNTIME_FINALIZER}`,
  )) as RuntimeObject;
}

/** A Runtime already gone (another reconcile released it first, and the API server removed it) is what was wanted. */
export async function releaseFinalizer(context: BackfillContext, runtime: RuntimeObject): Promise<void> {
  await patchFinalizers(
    context,
    runtime,
    (finalizers) => finalizers.filter((f) => f !== RUNTIME_FINALIZER),
    `release finalizer ${RUNTIME_FINALIZER}`,
    true,
  );
}

/**
 * A merge patch of `metadata.finalizers` with the resourceVersion read: a concurrent change is a 409, retried
 * once on a fresh read.
 */
async function patchFinalizers(
  context: BackfillContext,
  read: RuntimeObject,
  change: (finalizers: string[]) => string[],
  what: string,
  goneIsDone = false,
): Promise<RuntimeObject | undefined> {
  let runtime = read;
  for (let attempt = 0; ; attempt++) {
    const finalizers = change(finalizersOf(runtime));
    const ref = { ...RUNTIME_TYPE, namespace: runtime.metadata.namespace, name: runtime.metadata.name };
    const patched = await context.kcp.patch<RuntimeObject>(ref, {
      metadata: { finalizers, resourceVersion: runtime.metadata.resourceVersion },
    });
    if (patched.ok) return { ...patched.body, ...RUNTIME_TYPE };
    if (goneIsDone && patched.status === 404) return undefined;
    if (patched.status !== 409 || attempt > 0)
      throw failure(`${what} of Runtime ${runtime.metadata.namespace}/${runtime.metadata.name}`, context.kcp, patched);
    const again = await context.kcp.get<RuntimeObject>(ref);
    if (goneIsDone && !again.ok && again.status === 404) return undefined;
    if (!again.ok)
      throw failure(`read Runtime ${runtime.metadata.namespace}/${runtime.metadata.name}`, context.kcp, again);
    runtime = { ...again.body, ...RUNTIME_TYPE };
  }
}
