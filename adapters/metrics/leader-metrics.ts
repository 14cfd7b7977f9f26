// Leader election's two gauges, served by every replica started with --leader-elect: whether this replica
// holds its loop's Lease, and when it last renewed it. Summed over the replicas, the first says whether a
// loop has a leader at all; the second goes stale when the leader can no longer renew.
import { Gauge, type Registry } from 'prom-client';

export interface LeaderMetrics {
  leading(isLeader: boolean): void;
  renewed(atMs: number): void;
}

export function leaderMetrics(registry: Registry, labels: { loop: string; landscape: string }): LeaderMetrics {
  const registers = [registry];
  const isLeader = new Gauge({
    name: 'kimops_leader_is_leader',
    help: "1 while this replica holds its loop's Lease for the landscape, else 0",
    labelNames: ['loop', 'landscape'],
    registers,
  });
  const lastRenew = new Gauge({
    name: 'kimops_leader_last_renew_timestamp_seconds',
    help: "When this replica last acquired or renewed its loop's Lease",
    labelNames: ['loop', 'landscape'],
    registers,
  });
  isLeader.set(labels, 0);
  return {
    leading: (leader) => isLeader.set(labels, leader ? 1 : 0),
    renewed: (atMs) => lastRenew.set(labels, atMs / 1000),
  };
}
