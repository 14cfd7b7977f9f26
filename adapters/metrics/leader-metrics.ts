// Leader election's metrics, served by every replica started with --leader-elect: whether this replica holds its
// loop's Lease, when it last renewed it, and how it took it. Summed over the replicas, the first says whether a loop
// has a leader at all. A leader that loses its Lease exits (exit code 75), so its own metrics cannot tell; the
// standby that takes the expired Lease over counts it (taken_from="expired"), which is what the lost-Lease alert
// reads. The counter's series exist at 0 from the start, so a standby's takeover is an increase Prometheus sees.
import { Counter, Gauge, type Registry } from 'prom-client';
import type { TakenFrom } from '../kube/leader-election.js';

export interface LeaderMetrics {
  leading(isLeader: boolean): void;
  renewed(atMs: number): void;
  acquired(takenFrom: TakenFrom): void;
}

const TAKEN_FROM: readonly TakenFrom[] = ['created', 'released', 'expired'];

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
  const takeovers = new Counter({
    name: 'kimops_leader_takeovers_total',
    help: "Times this replica took its loop's Lease, by what the Lease held: none yet, released, or an expired holder's record (a leader that died or could not renew)",
    labelNames: ['loop', 'landscape', 'taken_from'],
    registers,
  });
  isLeader.set(labels, 0);
  for (const takenFrom of TAKEN_FROM) takeovers.inc({ ...labels, taken_from: takenFrom }, 0);
  return {
    leading: (leader) => isLeader.set(labels, leader ? 1 : 0),
    renewed: (atMs) => lastRenew.set(labels, atMs / 1000),
    acquired: (takenFrom) => takeovers.inc({ ...labels, taken_from: takenFrom }),
  };
}
