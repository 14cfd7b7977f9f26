// The backfiller's Prometheus metrics (`kimops backfill --watch --metrics-port`). KIM's own
// `infrastructure_manager_im_runtime_state` with KIM's labels, so existing dashboards and alerts keep working
// after the cut-over (docs/contracts/runtime-status.md §6: value 1, one series per Runtime, its old series removed
// when a label changes, removed when the finalizer goes), and kimops's own: how long a Runtime change takes
// to reach Ready as KEB sees it, and the passes.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { RuntimeStatus } from '../model/runtime-status.js';
import type { GardenerClusterSeries, KubeconfigExpirationSample } from './kubeconfig.js';
import { LABEL_RUNTIME_ID } from '../model/contract.js';

/** KIM's labels of `infrastructure_manager_im_runtime_state`. */
export interface RuntimeStateSeries {
  runtimeId: string;
  runtimeName: string;
  shoot: string;
  provider: string;
  state: string;
  /** The last condition's message, or KIM's "No value". */
  message: string;
}

/** What the metrics need to know of one reconcile. */
export interface RuntimeObservation {
  series: RuntimeStateSeries;
  /** Seconds from the Runtime's change (its Provisioned condition leaving True) to Ready, when this write made it Ready again. */
  readyAfterSeconds?: number;
  /** Where the Runtime's newest generation is in the pipeline, for the per-stage latencies (StageClock). */
  progress?: RuntimeProgress;
}

/** Where a Runtime's newest generation is in the pipeline, as one reconcile saw it. */
export interface RuntimeProgress {
  /** `<namespace>/<name>`. */
  runtime: string;
  generation: number;
  /** The Runtime had no status yet: KEB has just created it. */
  created: boolean;
  /** The generator reports a pull request for this generation's change (in any state). */
  proposed: boolean;
  /** The generator reports this generation's change merged (or main already held it). */
  merged: boolean;
  /** The Shoot carries this generation (KIM's runtime-generation annotation): the applier wrote it. */
  applied: boolean;
  /** The status says Ready for this generation. */
  ready: boolean;
}

export type Stage = 'propose' | 'merge' | 'apply' | 'ready';

/**
 * When each stage of a Runtime's change was first seen, from the change (a new generation, or a new Runtime) to
 * Ready: `propose` (change → its pull request: the generator's pass), `merge` (→ merged: checks and review),
 * `apply` (merged → on the Shoot: the applier's poll and write), `ready` (on the Shoot → Ready: Gardener and the
 * kubeconfig). Kept in memory by the watching backfiller; a change already under way when it started is not
 * measured (its start is unknown).
 */
export class StageClock {
  private readonly open = new Map<
    string,
    { generation: number; since: number; proposed?: number; merged?: number; applied?: number }
  >();
  private readonly seen = new Map<string, number>();

  /** The stages this reconcile completed, in seconds each. */
  observe(progress: RuntimeProgress, now: Date): { stage: Stage; seconds: number }[] {
    const at = now.getTime();
    const before = this.seen.get(progress.runtime);
    this.seen.set(progress.runtime, progress.generation);
    let entry = this.open.get(progress.runtime);
    const changed =
      (before !== undefined && progress.generation > before) || (before === undefined && progress.created);
    if (changed && !progress.ready) {
      entry = { generation: progress.generation, since: at };
      this.open.set(progress.runtime, entry);
    }
    if (!entry || entry.generation !== progress.generation) return [];
    const done: { stage: Stage; seconds: number }[] = [];
    // A stage seen done with the ones before it unseen (all in one reconcile) ends at the same moment as they do.
    if (entry.proposed === undefined && (progress.proposed || progress.merged || progress.applied || progress.ready)) {
      entry.proposed = at;
      done.push({ stage: 'propose', seconds: (at - entry.since) / 1000 });
    }
    if (entry.merged === undefined && (progress.merged || progress.applied || progress.ready)) {
      entry.merged = at;
      done.push({ stage: 'merge', seconds: (at - (entry.proposed ?? at)) / 1000 });
    }
    if (entry.applied === undefined && (progress.applied || progress.ready)) {
      entry.applied = at;
      done.push({ stage: 'apply', seconds: (at - (entry.merged ?? at)) / 1000 });
    }
    if (progress.ready) {
      done.push({ stage: 'ready', seconds: (at - (entry.applied ?? at)) / 1000 });
      this.open.delete(progress.runtime);
    }
    return done;
  }

  /** The Runtime is gone: nothing more to measure. */
  forget(runtime: string): void {
    this.open.delete(runtime);
    this.seen.delete(runtime);
  }
}

/** What KIM's GardenerCluster controller reports of one runtime: its GardenerCluster's state, its kubeconfig's expiry. */
export interface KubeconfigObservation {
  runtimeId: string;
  cluster: GardenerClusterSeries;
  /** Absent when the Secret has no readable last-sync: then KIM has no series either. */
  expiration?: KubeconfigExpirationSample;
}

export interface BackfillerMetrics {
  observed(observation: RuntimeObservation): void;
  observedKubeconfig(observation: KubeconfigObservation): void;
  /** The finalizer is released (or the Runtime is gone): its series go, as KIM removes them; `runtime` (`<ns>/<name>`) ends its stage clock. */
  released(runtimeId: string, runtime?: string): void;
  pass(seconds: number, failed: boolean): void;
}

const NO_VALUE = 'No value';

/** Seconds, for a change's way through the pipeline: a pass of seconds up to KEB's hour. */
const PIPELINE_BUCKETS = [1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600];

/** KIM's series for a Runtime and the status it now has. */
export function runtimeStateSeries(
  runtime: {
    metadata: { name: string; labels?: Record<string, string> };
    spec?: { shoot?: { name?: string; provider?: { type?: string } } };
  },
  status: RuntimeStatus,
): RuntimeStateSeries {
  const last = status.conditions?.at(-1)?.message;
  return {
    runtimeId: runtime.metadata.labels?.[LABEL_RUNTIME_ID] ?? '',
    runtimeName: runtime.metadata.name,
    shoot: runtime.spec?.shoot?.name ?? '',
    provider: runtime.spec?.shoot?.provider?.type ?? '',
    state: status.state,
    message: last === undefined || last === '' ? NO_VALUE : last,
  };
}

/**
 * Seconds a change took to be Ready: from the moment the previous status's Provisioned condition left True
 * (the backfiller writes Pending within a second of KEB's change) to `now`; undefined unless `next` is the
 * write that made a non-Ready Runtime Ready.
 */
export function readyAfterSeconds(
  previous: Partial<RuntimeStatus> | undefined,
  next: RuntimeStatus,
  now: Date,
): number | undefined {
  if (next.state !== 'Ready' || !previous?.state || previous.state === 'Ready') return undefined;
  const since = previous.conditions?.find(
    (condition) => condition.type === 'Provisioned' && condition.status !== 'True',
  )?.lastTransitionTime;
  const started = since === undefined ? Number.NaN : Date.parse(since);
  return Number.isNaN(started) ? undefined : Math.max(0, (now.getTime() - started) / 1000);
}

export function backfillerMetrics(registry: Registry, landscape: string): BackfillerMetrics {
  const registers = [registry];
  const state = new Gauge({
    name: 'infrastructure_manager_im_runtime_state',
    help: "The Runtime's state (KIM's metric, same labels): 1 for its current series",
    labelNames: ['runtimeId', 'runtimeName', 'shoot', 'provider', 'state', 'message'],
    registers,
  });
  const toReady = new Histogram({
    name: 'kimops_backfiller_change_to_ready_seconds',
    help: 'From a Runtime change (its Provisioned condition leaving True) until the Runtime is Ready again',
    labelNames: ['landscape'],
    buckets: PIPELINE_BUCKETS,
    registers,
  });
  const stages = new Histogram({
    name: 'kimops_backfiller_stage_seconds',
    help: 'How long each stage of a Runtime change took: propose (change to its pull request), merge (to merged), apply (to on the Shoot), ready (to Ready)',
    labelNames: ['landscape', 'stage'],
    buckets: PIPELINE_BUCKETS,
    registers,
  });
  const clock = new StageClock();
  const passes = new Histogram({
    name: 'kimops_backfiller_pass_duration_seconds',
    help: 'Duration of a pass over the Runtimes',
    labelNames: ['landscape', 'outcome'],
    buckets: [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
    registers,
  });
  const failures = new Counter({
    name: 'kimops_backfiller_pass_failures_total',
    help: 'Passes with a Runtime that could not be reconciled',
    labelNames: ['landscape'],
    registers,
  });
  const current = new Map<string, RuntimeStateSeries>();
  const clusters = new Gauge({
    name: 'infrastructure_manager_im_gardener_clusters_state',
    help: "The GardenerCluster's state (KIM's metric, same labels): 1 for its current series",
    labelNames: ['runtimeId', 'shoot', 'state', 'reason'],
    registers,
  });
  const expirations = new Gauge({
    name: 'infrastructure_manager_im_kubeconfig_expiration',
    help: "When the runtime's kubeconfig expires, Unix seconds (KIM's metric, same labels)",
    labelNames: ['runtimeId', 'shoot', 'expires', 'rotationDuration', 'expirationDuration'],
    registers,
  });
  const currentCluster = new Map<string, GardenerClusterSeries>();
  const currentExpiration = new Map<string, KubeconfigExpirationSample['labels']>();
  /** One series per runtime: a changed label set replaces the old series, as KIM deletes it first. */
  const replace = <L extends Record<string, string>>(
    gauge: Gauge,
    seen: Map<string, L>,
    key: string,
    labels: L | undefined,
    value: number,
  ) => {
    const before = seen.get(key);
    if (before && (labels === undefined || JSON.stringify(before) !== JSON.stringify(labels)))
      gauge.remove({ ...before });
    if (labels === undefined) seen.delete(key);
    else {
      gauge.set({ ...labels }, value);
      seen.set(key, labels);
    }
  };

  return {
    observed({ series, readyAfterSeconds: seconds, progress }) {
      if (progress)
        for (const done of clock.observe(progress, new Date()))
          stages.observe({ landscape, stage: done.stage }, done.seconds);
      const key = series.runtimeId || series.runtimeName;
      const before = current.get(key);
      if (before && JSON.stringify(before) !== JSON.stringify(series)) state.remove({ ...before });
      state.set({ ...series }, 1);
      current.set(key, series);
      if (seconds !== undefined) toReady.observe({ landscape }, seconds);
    },
    observedKubeconfig({ runtimeId, cluster, expiration }) {
      replace(clusters, currentCluster, runtimeId, { ...cluster }, 1);
      replace(expirations, currentExpiration, runtimeId, expiration?.labels, expiration?.value ?? 0);
    },
    released(runtimeId, runtime) {
      if (runtime !== undefined) clock.forget(runtime);
      const before = current.get(runtimeId);
      if (before) state.remove({ ...before });
      current.delete(runtimeId);
      replace(clusters, currentCluster, runtimeId, undefined, 0);
      replace(expirations, currentExpiration, runtimeId, undefined, 0);
    },
    pass(seconds, failed) {
      passes.observe({ landscape, outcome: failed ? 'failed' : 'ok' }, seconds);
      if (failed) failures.inc({ landscape });
    },
  };
}
