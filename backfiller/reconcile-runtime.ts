// One Runtime brought up to date: finalizer, status and Events, the kubeconfig, and on deletion the release.
// Every decision is status.ts's or kubeconfig.ts's; every failure lands in the outcome, never stops the others.
// A Runtime KIM leads is KIM's to write: its status, finalizer, GardenerCluster and kubeconfig Secret (ADR 0011).
import { LABEL_RUNTIME_ID } from '../model/contract.js';
import { createSucceeded, ensureKubeconfig, readKubeconfigSecret, removeKubeconfig } from './kubeconfig-sync.js';
import { getOrUndefined, type Lookup } from './lookups.js';
import { SHOOT_TYPE, type RuntimeObject, type ShootObject } from './objects.js';
import type { RuntimeOutcome } from './outcome.js';
import type { BackfillContext } from './ports.js';
import { addFinalizer, releaseFinalizer } from './runtime-finalizer.js';
import { finalizerAction } from './status.js';
import { StepError } from './step-error.js';
import { writeStatus } from './write-status.js';
import { runtimeLeader } from '../rules/leader.js';

/**
 * One Runtime brought up to date: finalizer, status and Events (from the Secret as read), then the kubeconfig
 * (after the Shoot's Create succeeded; its errors are reported and never keep the status from being written;
 * the status is written again when the Secret appeared); during deletion, once the Shoot is gone (confirmed by
 * a GET), the GardenerCluster and Secret are removed and the finalizer released. Never throws for API failures:
 * they are in the outcome.
 */
export async function reconcileRuntime(
  context: BackfillContext,
  read: RuntimeObject,
  lookup: Lookup,
): Promise<RuntimeOutcome> {
  const namespace = read.metadata.namespace ?? '';
  const outcome: RuntimeOutcome = {
    runtime: `${namespace}/${read.metadata.name}`,
    statusWritten: false,
    conflict: false,
    events: 0,
    errors: [],
    unreachable: false,
  };
  // An unreadable label counts as KIM's too: the generator reports it, and doing nothing is the safe side.
  if (runtimeLeader(read, context).leader === 'kim') return { ...outcome, ledByKim: true };
  const now = context.now ?? (() => new Date());
  let runtime = read;
  try {
    const shootName = runtime.spec?.shoot?.name;
    let shoot = shootName ? await lookup.shoot(shootName) : undefined;
    const deleting = Boolean(runtime.metadata.deletionTimestamp);

    // The Shoot is gone: make sure (a cache or snapshot may be behind) before anything final happens.
    if (deleting && !shoot && shootName)
      shoot = await getOrUndefined<ShootObject>(context.garden, {
        ...SHOOT_TYPE,
        namespace: context.gardenNamespace,
        name: shootName,
      });

    if (finalizerAction(runtime, shoot) === 'add') {
      runtime = await addFinalizer(context, runtime);
      outcome.finalizer = 'added';
    }

    // The status first, from what was read: no kubeconfig step can keep a generation bump from showing Pending.
    const read = deleting ? { ready: false } : await readKubeconfigSecret(runtime, lookup, outcome);
    const applied = shootName ? lookup.applyFacts(shootName) : undefined;
    // The pool as read for this pass; a copy of the read credentials made by the first write is kept here.
    const auditLog = lookup.auditLogs && { pool: lookup.auditLogs() };
    runtime = await writeStatus(context, runtime, shoot, read.ready, applied, now, outcome, auditLog);

    if (!deleting && shoot && createSucceeded(shoot)) {
      let ready = read.ready;
      try {
        const ensured = await ensureKubeconfig(context, runtime, shoot, lookup, now, read);
        ready = ensured.ready;
        if (ensured.written) outcome.kubeconfig = ensured.written;
        if (ensured.metrics) outcome.kubeconfigMetrics = ensured.metrics;
        if (ensured.error) outcome.errors.push(ensured.error);
      } catch (error) {
        if (!(error instanceof StepError)) throw error;
        // Reported; the status stays as written (a failed step never makes the Secret exist).
        outcome.errors.push(`${error.message}; the status was written without it, the next pass tries again`);
        outcome.unreachable ||= error.unreachable;
      }
      // The Secret appeared (or went) in this pass: the status follows at once.
      if (ready !== read.ready)
        runtime = await writeStatus(context, runtime, shoot, ready, applied, now, outcome, auditLog);
    }

    if (finalizerAction(runtime, shoot) === 'release') {
      await removeKubeconfig(context, runtime, lookup);
      await releaseFinalizer(context, runtime);
      outcome.finalizer = 'released';
      outcome.runtimeId = runtime.metadata.labels?.[LABEL_RUNTIME_ID] ?? runtime.metadata.name;
    }
  } catch (error) {
    if (error instanceof StepError) {
      outcome.errors.push(error.message);
      outcome.unreachable ||= error.unreachable;
    } else throw error;
  }
  return outcome;
}
