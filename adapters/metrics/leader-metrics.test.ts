import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { leaderMetrics } from './leader-metrics.js';

describe('leaderMetrics', () => {
  it('says 0 until the Lease is held, then 1 and when it was renewed', async () => {
    const registry = new Registry();
    const metrics = leaderMetrics(registry, { loop: 'apply', landscape: 'dev' });
    expect(await registry.metrics()).toContain('kimops_leader_is_leader{loop="apply",landscape="dev"} 0');
    expect(await registry.metrics()).toContain(
      'kimops_leader_takeovers_total{loop="apply",landscape="dev",taken_from="expired"} 0',
    );
    metrics.leading(true);
    metrics.renewed(12_000);
    metrics.acquired('expired');
    const text = await registry.metrics();
    expect(text).toContain('kimops_leader_takeovers_total{loop="apply",landscape="dev",taken_from="expired"} 1');
    expect(text).toContain('kimops_leader_takeovers_total{loop="apply",landscape="dev",taken_from="released"} 0');
    expect(text).toContain('kimops_leader_is_leader{loop="apply",landscape="dev"} 1');
    expect(text).toContain('kimops_leader_last_renew_timestamp_seconds{loop="apply",landscape="dev"} 12');
  });
});
