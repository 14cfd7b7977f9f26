// The generator's Prometheus metrics (`kimops generate --watch --metrics-port`), named
// kimops_generator_<name>_<unit> like the applier's and the backfiller's, with bounded labels: the landscape,
// the proposal's action, the change class, the PR's state. Gauges describe the last pass (what waits for
// review now); the counters and the histogram describe passes over time. The alert rules and the dashboard
// in deploy/ read these names.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { GenerateResult, ShootOutcome } from './generate.js';

export interface GeneratorMetrics {
  /** A pass that got as far as its result, how long it took, and when it ended (ms since the epoch). */
  passed(result: GenerateResult, seconds: number, nowMs: number): void;
  /** A pass that ended in an error before its result (an unreachable forge, git server or API). */
  failed(seconds: number): void;
}

/** What an open PR waits for: a reviewer, the required checks (CI), or a fix (a failed check, a refused merge). */
type OpenState = 'awaiting-review' | 'awaiting-checks' | 'blocked';

const OPEN_STATE: Partial<Record<ShootOutcome['action'], OpenState>> = {
  'await-review': 'awaiting-review',
  'await-checks': 'awaiting-checks',
  'left-to-human': 'awaiting-review',
  blocked: 'blocked',
  'merge-refused': 'blocked',
};

export function generatorMetrics(registry: Registry, landscape: string): GeneratorMetrics {
  const registers = [registry];
  const passes = new Counter({
    name: 'kimops_generator_passes_total',
    help: 'Generator passes, finished or failed',
    labelNames: ['landscape'],
    registers,
  });
  const failures = new Counter({
    name: 'kimops_generator_pass_failures_total',
    help: 'Passes that ended in an error before proposing (a remote unreachable, a bad configuration)',
    labelNames: ['landscape'],
    registers,
  });
  const duration = new Histogram({
    name: 'kimops_generator_pass_duration_seconds',
    help: 'Duration of a generator pass',
    labelNames: ['landscape', 'outcome'],
    buckets: [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
    registers,
  });
  const last = new Gauge({
    name: 'kimops_generator_last_pass_timestamp_seconds',
    help: 'When the last pass that got as far as its result ended',
    labelNames: ['landscape'],
    registers,
  });
  const conversionFailures = new Gauge({
    name: 'kimops_generator_conversion_failures',
    help: 'Runtimes that failed to convert in the last pass (they get no PR; the reason is on the Runtime)',
    labelNames: ['landscape'],
    registers,
  });
  const proposals = new Counter({
    name: 'kimops_generator_proposals_total',
    help: 'Shoot changes proposed, by what the pass did with their PR and the change class',
    labelNames: ['landscape', 'action', 'class'],
    registers,
  });
  const open = new Gauge({
    name: 'kimops_generator_open_pull_requests',
    help: 'PRs left open by the last pass, by what they wait for and their change class',
    labelNames: ['landscape', 'state', 'class'],
    registers,
  });
  const oldest = new Gauge({
    name: 'kimops_generator_oldest_open_pull_request_seconds',
    help: 'How long the oldest PR left open has been open (0 when none)',
    labelNames: ['landscape'],
    registers,
  });
  const queue = new Gauge({
    name: 'kimops_generator_queue_depth',
    help: 'Shoots whose change waits for a later pass: later rollout waves and deprovisioning batches',
    labelNames: ['landscape'],
    registers,
  });
  // When each open PR was opened: the forge's time, or — for a PR the forge gives none (a local record from
  // before kimops recorded it) — when this process first saw it open, an underestimate after a restart.
  const openedAt = new Map<number, number>();

  return {
    passed(result, seconds, nowMs) {
      passes.inc({ landscape });
      duration.observe({ landscape, outcome: result.bugs.length > 0 ? 'failed' : 'ok' }, seconds);
      last.set({ landscape }, nowMs / 1000);
      conversionFailures.set({ landscape }, result.failures.length);
      queue.set({ landscape }, (result.rollout?.later ?? 0) + (result.deprovisioning?.later ?? 0));
      open.reset();
      const openNow = new Map<number, { state: OpenState; class: string }>();
      for (const outcome of result.proposed) {
        proposals.inc({ landscape, action: outcome.action, class: outcome.class });
        const state = OPEN_STATE[outcome.action];
        // A rollout's PR carries many Shoots: counted once, with its first Shoot's class.
        if (state && !openNow.has(outcome.pr)) openNow.set(outcome.pr, { state, class: outcome.class });
        const forgeTime = outcome.openedAt === undefined ? NaN : Date.parse(outcome.openedAt);
        if (state && !Number.isNaN(forgeTime)) openedAt.set(outcome.pr, forgeTime);
      }
      for (const { state, class: changeClass } of openNow.values()) open.inc({ landscape, state, class: changeClass });
      for (const pr of openedAt.keys()) if (!openNow.has(pr)) openedAt.delete(pr);
      for (const pr of openNow.keys()) if (!openedAt.has(pr)) openedAt.set(pr, nowMs);
      let earliest = nowMs;
      for (const opened of openedAt.values()) earliest = Math.min(earliest, opened);
      oldest.set({ landscape }, (nowMs - earliest) / 1000);
    },
    failed(seconds) {
      passes.inc({ landscape });
      failures.inc({ landscape });
      duration.observe({ landscape, outcome: 'failed' }, seconds);
    },
  };
}
