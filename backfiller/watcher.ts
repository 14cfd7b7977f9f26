// `--watch`: the caches' events turned into reconciles of the Runtimes they concern, through a work queue, and
// the full pass the command runs every interval.
import { stringify } from 'safe-stable-stringify';
import { LABEL_RESERVED_FOR_RUNTIME_ID, type AuditLog } from '../model/audit-log.js';
import { LABEL_CLUSTER_NAME, APPLY_REPORT_NAME } from '../model/contract.js';
import type { KubeObject } from '../model/kube-object.js';
import { readApplyReport, type ApplyFacts } from '../rules/apply-report.js';
import { cachedLookup, type KcpCaches } from './lookups.js';
import {
  RUNTIME_TYPE,
  type GardenerClusterObject,
  type RuntimeObject,
  type SecretObject,
  type ShootObject,
} from './objects.js';
import type { PassReport, RuntimeOutcome } from './outcome.js';
import type { BackfillContext } from './ports.js';
import { reconcileRuntime } from './reconcile-runtime.js';
import { RuntimeIndex } from './runtime-index.js';
import { WorkQueue } from './work-queue.js';

/** A cache of one kind that says what changed (adapters/kube/informer.ts's `Informer` fits). */
export interface WatchedKind<T> {
  /** Resolves once the first full list is in the cache; rejects when the cache is stopped before. */
  synced(): Promise<void>;
  items(): T[];
  get(namespace: string | undefined, name: string): T | undefined;
  onChange(listener: (change: { type: 'added' | 'modified' | 'deleted'; object: T }) => void): () => void;
}

/** Runtimes reconciled at once on events; this many at a time. */
const DEFAULT_CONCURRENCY = 8;

interface BackfillWatcher {
  /** Every Runtime in the cache (the periodic pass for rotation and anything missed); resolves when all are done. */
  fullPass(): Promise<PassReport>;
  /** Resolves when no Runtime is queued or running. */
  idle(): Promise<void>;
  /** Stops listening; queued work is dropped, running work finishes. */
  close(): void;
}

/**
 * Wires the caches to reconciles: a Runtime change reconciles that Runtime, a Shoot change the Runtime(s)
 * naming it — both ahead of a running full pass (KEB reads the status 4 s after its update), never two
 * reconciles of one Runtime at once (a change while it runs queues it once more). Nothing is reconciled
 * before both caches have synced: an empty Shoot cache would read as "no Shoot" (events meanwhile are queued).
 */
export function backfillWatcher(
  context: BackfillContext,
  sources: {
    runtimes: WatchedKind<RuntimeObject>;
    shoots: WatchedKind<ShootObject>;
    kcpNamespace: string;
    applyReports?: WatchedKind<KubeObject>;
    /**
     * The namespace's GardenerClusters and kubeconfig Secrets (labelled, compactSecret): read from these instead
     * of by GET.
     */
    gardenerClusters?: WatchedKind<GardenerClusterObject>;
    secrets?: WatchedKind<SecretObject>;
    /** KALM's AuditLogs (the landscape's dedicated-audit-log switch on): the pool the status reads. */
    auditLogs?: WatchedKind<AuditLog>;
  },
  report: (outcome: RuntimeOutcome) => void,
  concurrency = DEFAULT_CONCURRENCY,
): BackfillWatcher {
  const { runtimes, shoots, kcpNamespace, applyReports, gardenerClusters, secrets, auditLogs } = sources;
  let synced = false;
  // The applier's report, read once per change of it (not once per reconcile).
  let applied: ReadonlyMap<string, ApplyFacts> = new Map();
  const readReport = () => readApplyReport(applyReports?.get(context.gardenNamespace, APPLY_REPORT_NAME));
  const kcpCaches: KcpCaches | undefined =
    gardenerClusters && secrets
      ? {
          kcpNamespace,
          gardenerCluster: (name) => gardenerClusters.get(kcpNamespace, name),
          secret: (name) => secrets.get(kcpNamespace, name),
        }
      : undefined;
  const lookup = cachedLookup(
    context,
    (name) => shoots.get(context.gardenNamespace, name),
    () => synced,
    () => applied,
    kcpCaches,
    auditLogs && (() => auditLogs.items()),
  );
  const index = new RuntimeIndex();
  for (const runtime of runtimes.items()) index.update(runtime, false);

  // A Runtime no longer in the cache has nothing to reconcile (undefined); a bug is reported as that Runtime's.
  const reconcile = async (name: string): Promise<RuntimeOutcome | undefined> => {
    try {
      const runtime = runtimes.get(kcpNamespace, name);
      if (!runtime) return undefined;
      const outcome = await reconcileRuntime(context, { ...runtime, ...RUNTIME_TYPE }, lookup);
      report(outcome);
      return outcome;
    } catch (error) {
      const outcome: RuntimeOutcome = {
        runtime: `${kcpNamespace}/${name}`,
        statusWritten: false,
        conflict: false,
        events: 0,
        errors: [`internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`],
        unreachable: false,
      };
      report(outcome);
      return outcome;
    }
  };
  const queue = new WorkQueue<string, RuntimeOutcome>({ process: reconcile, concurrency, ready: () => synced });

  const unsubscribeRuntimes = runtimes.onChange((change) => {
    index.update(change.object, change.type === 'deleted');
    if (change.type !== 'deleted') queue.add(change.object.metadata.name);
  });
  const unsubscribeShoots = shoots.onChange((change) => {
    for (const name of index.namingShoot(change.object.metadata.name)) queue.add(name);
  });
  // A changed report: the Runtimes of the Shoots whose facts it changed.
  const refreshReport = () => {
    const before = applied;
    applied = readReport();
    for (const shoot of new Set([...before.keys(), ...applied.keys()])) {
      if (stringify(before.get(shoot)) === stringify(applied.get(shoot))) continue;
      for (const name of index.namingShoot(shoot)) queue.add(name);
    }
  };
  const unsubscribeReports = applyReports?.onChange((change) => {
    if (change.object.metadata.name === APPLY_REPORT_NAME) refreshReport();
  });
  // A GardenerCluster or kubeconfig Secret someone deleted or changed: its Runtime at once (KIM's GardenerCluster
  // controller watches both), not at the next full pass — KEB hands the Secret to the customer.
  const reconcileRuntimeId = (runtimeId: string | undefined) => {
    const name = runtimeId === undefined ? undefined : index.withRuntimeId(runtimeId);
    if (name !== undefined) queue.add(name);
  };
  const unsubscribeClusters = gardenerClusters?.onChange((change) => {
    if (change.type !== 'added') reconcileRuntimeId(change.object.metadata.name);
  });
  const unsubscribeSecrets = secrets?.onChange((change) => {
    if (change.type !== 'added') reconcileRuntimeId(change.object.metadata.labels?.[LABEL_CLUSTER_NAME]);
  });
  // An AuditLog claimed or reserved (KALM fills in the read Secret's name later): its Runtime at once.
  const unsubscribeAuditLogs = auditLogs?.onChange((change) => {
    const spec = change.object.spec;
    for (const runtimeId of new Set([
      spec?.assignedToRuntimeID,
      change.object.metadata.labels?.[LABEL_RESERVED_FOR_RUNTIME_ID],
    ]))
      reconcileRuntimeId(runtimeId);
  });
  // A stopped cache rejects: then nothing runs any more (close() follows).
  // The report and the KCP caches only add facts or save GETs: an identity that may not read them (their informers
  // retry and log the fix) must not keep a bump from showing Pending.
  applyReports?.synced().then(refreshReport, () => {});
  // The pool too when read: an empty one would read as "nothing claimed" and drop Ready Runtimes to Pending.
  Promise.all([runtimes.synced(), shoots.synced(), auditLogs?.synced()]).then(
    () => {
      synced = true;
      queue.pump();
    },
    () => {},
  );

  return {
    async fullPass() {
      const names = runtimes.items().map((runtime) => runtime.metadata.name);
      // Routine: events that come meanwhile go first.
      const outcomes = await Promise.all(names.map((name) => queue.done(name, 'routine')));
      return { outcomes: outcomes.filter((o): o is RuntimeOutcome => o !== undefined) };
    },
    idle: () => queue.idle(),
    close() {
      unsubscribeRuntimes();
      unsubscribeShoots();
      unsubscribeReports?.();
      unsubscribeClusters?.();
      unsubscribeSecrets?.();
      unsubscribeAuditLogs?.();
      queue.close();
    },
  };
}
