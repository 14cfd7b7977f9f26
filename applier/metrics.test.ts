import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { applierMetrics } from './metrics.js';
import type { PlanEntry } from './plan.js';
import type { SyncReport } from './sync-commit.js';

const entry = (shoot: string, action: PlanEntry['action'], drift = false): PlanEntry => ({
  shoot,
  action,
  reasons: [],
  object: { kind: 'Shoot', name: shoot, action: 'unchanged', changes: [] },
  companions: [],
  ...(drift && { drift }),
});

const report: SyncReport = {
  foldersRead: 3,
  plan: {
    commit: 'c1',
    fieldManager: 'kimops',
    entries: [entry('a', 'drifted', true), entry('b', 'update', true), entry('c', 'unchanged')],
    counts: {
      create: 0,
      update: 1,
      'take-over': 0,
      delete: 0,
      unchanged: 1,
      blocked: 0,
      drifted: 1,
      shadow: 0,
      'hand-back': 0,
    },
    problems: [],
  },
  orphans: [],
  annotations: [],
  stuckDeletions: [],
  health: { healthy: 2, progressing: 1, failed: 0, unknown: 0 },
  overdue: ['b'],
};

describe('applierMetrics', () => {
  it('exposes the last sync: actions, drift by how it was handled, health, timeouts', async () => {
    const registry = new Registry();
    const metrics = applierMetrics(registry, 'dev');
    metrics.synced(report, 0.3);
    const text = await registry.metrics();
    expect(text).toContain('kimops_applier_shoots{landscape="dev",action="drifted"} 1');
    expect(text).toContain('kimops_applier_shoots{landscape="dev",action="create"} 0');
    expect(text).toContain('kimops_applier_drifted_shoots{landscape="dev",handling="left"} 1');
    expect(text).toContain('kimops_applier_drifted_shoots{landscape="dev",handling="corrected"} 1');
    expect(text).toContain('kimops_applier_inventory_shoots{landscape="dev",state="progressing"} 1');
    expect(text).toContain('kimops_applier_operation_timeouts{landscape="dev"} 1');
    expect(text).toContain('kimops_applier_sync_duration_seconds_count{landscape="dev",outcome="ok"} 1');
  });

  it('sets drift back to zero when a later sync finds none, and counts failed syncs', async () => {
    const registry = new Registry();
    const metrics = applierMetrics(registry, 'dev');
    metrics.synced(report, 0.3);
    metrics.synced({ ...report, plan: { ...report.plan, entries: [entry('c', 'unchanged')] } }, 0.2);
    metrics.failed(1);
    const text = await registry.metrics();
    expect(text).toContain('kimops_applier_drifted_shoots{landscape="dev",handling="left"} 0');
    expect(text).toContain('kimops_applier_sync_failures_total{landscape="dev"} 1');
    expect(text).toContain('kimops_applier_sync_duration_seconds_count{landscape="dev",outcome="error"} 1');
  });
});
