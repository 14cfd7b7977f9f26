// The applier's Prometheus metrics (`kimops apply --watch --metrics-port`), named kimops_applier_<name>_<unit>
// (docs/design.md §4) with bounded labels: the landscape, the plan action, the drift mode, the health state. Gauges
// describe the last sync, so a dashboard shows the fleet as the applier last saw it; the histogram and the
// counter describe syncs over time. Drift under `report` and `adopt` is visible here and as an Event.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { PlanAction } from './plan.js';
import type { SyncReport } from './sync-commit.js';

export interface ApplierMetrics {
  /** A sync that got as far as a report (written or not), and how long it took. */
  synced(report: SyncReport, seconds: number): void;
  /** A sync that ended in an error before its report (the Garden or git unreachable at the start, a configuration error). */
  failed(seconds: number): void;
}

export function applierMetrics(registry: Registry, landscape: string): ApplierMetrics {
  const registers = [registry];
  const shoots = new Gauge({
    name: 'kimops_applier_shoots',
    help: 'Shoots per plan action in the last sync',
    labelNames: ['landscape', 'action'],
    registers,
  });
  const drifted = new Gauge({
    name: 'kimops_applier_drifted_shoots',
    help: 'Shoots whose live fields kimops applies differ from the files they were applied from, in the last sync: corrected (drift: correct) or left (drift: report, adopt)',
    labelNames: ['landscape', 'handling'],
    registers,
  });
  const health = new Gauge({
    name: 'kimops_applier_inventory_shoots',
    help: "kimops's Shoots by health (Gardener's rules) in the last sync",
    labelNames: ['landscape', 'state'],
    registers,
  });
  const timedOut = new Gauge({
    name: 'kimops_applier_operation_timeouts',
    help: 'Shoot operations found past their timeout in the last sync',
    labelNames: ['landscape'],
    registers,
  });
  const duration = new Histogram({
    name: 'kimops_applier_sync_duration_seconds',
    help: 'Duration of a sync of main to the Garden',
    labelNames: ['landscape', 'outcome'],
    buckets: [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
    registers,
  });
  const failures = new Counter({
    name: 'kimops_applier_sync_failures_total',
    help: 'Syncs that ended in an error or were cut short by an unreachable Garden',
    labelNames: ['landscape'],
    registers,
  });
  const last = new Gauge({
    name: 'kimops_applier_last_sync_timestamp_seconds',
    help: 'When the last sync finished (with or without writes)',
    labelNames: ['landscape'],
    registers,
  });

  return {
    synced(report, seconds) {
      for (const [action, count] of Object.entries(report.plan.counts) as [PlanAction, number][])
        shoots.set({ landscape, action }, count);
      for (const handling of ['corrected', 'left']) drifted.set({ landscape, handling }, 0);
      for (const entry of report.plan.entries)
        if (entry.drift) drifted.inc({ landscape, handling: entry.action === 'drifted' ? 'left' : 'corrected' });
      for (const [state, count] of Object.entries(report.health)) health.set({ landscape, state }, count);
      timedOut.set({ landscape }, report.overdue.length);
      const outcome = report.result?.unreachable
        ? 'unreachable'
        : report.result && report.result.failed.length > 0
          ? 'failed'
          : 'ok';
      duration.observe({ landscape, outcome }, seconds);
      if (outcome === 'unreachable') failures.inc({ landscape });
      last.set({ landscape }, Date.now() / 1000);
    },
    failed(seconds) {
      failures.inc({ landscape });
      duration.observe({ landscape, outcome: 'error' }, seconds);
    },
  };
}
