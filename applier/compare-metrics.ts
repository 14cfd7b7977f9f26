// `kimops compare --watch --metrics-port`'s Prometheus metrics, named kimops_compare_<name> (docs/observability.md).
// Gauges describe the last comparison, so a dashboard shows main against the Garden as last seen. Labels are bounded:
// the landscape, a fixed set of states, and at most MAX_FIELD_LABELS field paths — the fields most Shoots differ in;
// the rest are counted together under `field="other"`, so a landscape of customer-named worker pools cannot make a
// series per pool.
import { Counter, Gauge, type Registry } from 'prom-client';
import type { ComparisonReport } from './compare.js';

/** The field paths served as their own series; more are summed into OTHER_FIELD. */
export const MAX_FIELD_LABELS = 50;
export const OTHER_FIELD = 'other';

export interface CompareMetrics {
  compared(report: ComparisonReport): void;
  /** A comparison that ended in an error (the Garden or git unreachable, a configuration error). */
  failed(): void;
}

export function compareMetrics(registry: Registry, landscape: string): CompareMetrics {
  const registers = [registry];
  const differing = new Gauge({
    name: 'kimops_compare_shoots_differing',
    help: 'Shoots main holds and the Garden has that differ in at least one field main sets, in the last comparison',
    labelNames: ['landscape'],
    registers,
  });
  const shoots = new Gauge({
    name: 'kimops_compare_shoots',
    help: 'Shoots by how main and the Garden compare, in the last comparison (same, differing, only-in-main, only-live, unreadable)',
    labelNames: ['landscape', 'state'],
    registers,
  });
  const fields = new Gauge({
    name: 'kimops_compare_field_differences',
    help: `Shoots that differ at a field, in the last comparison; the ${MAX_FIELD_LABELS} fields most Shoots differ in, the others summed as field="${OTHER_FIELD}" (Shoots differing in any of them)`,
    labelNames: ['landscape', 'field'],
    registers,
  });
  const last = new Gauge({
    name: 'kimops_compare_last_timestamp_seconds',
    help: 'When the last comparison finished',
    labelNames: ['landscape'],
    registers,
  });
  const failures = new Counter({
    name: 'kimops_compare_failures_total',
    help: 'Comparisons that ended in an error (the Garden or the landscape repo unreachable, a configuration error)',
    labelNames: ['landscape'],
    registers,
  });
  failures.inc({ landscape }, 0);

  return {
    compared(report) {
      const s = report.summary;
      differing.set({ landscape }, s.differing);
      const states = {
        same: s.compared - s.differing,
        differing: s.differing,
        'only-in-main': s.onlyInMain,
        'only-live': s.onlyLive,
        unreadable: s.unreadable,
      };
      for (const [state, count] of Object.entries(states)) shoots.set({ landscape, state }, count);
      // A field that no longer differs must leave no stale series behind: the set is rebuilt whole, synchronously.
      fields.reset();
      for (const field of s.fields.slice(0, MAX_FIELD_LABELS))
        fields.set({ landscape, field: field.path }, field.count);
      const rest = new Set(s.fields.slice(MAX_FIELD_LABELS).map((f) => f.path));
      if (rest.size > 0) {
        const other = report.shoots.filter((shoot) => shoot.differences.some((d) => rest.has(d.path))).length;
        fields.set({ landscape, field: OTHER_FIELD }, other);
      }
      last.set({ landscape }, Date.now() / 1000);
    },
    failed() {
      failures.inc({ landscape });
    },
  };
}
