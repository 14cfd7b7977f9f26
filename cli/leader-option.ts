// `--leader-elect` of the watching loops: with replicas, one of each loop per landscape writes. The Lease
// `kimops-<loop>-<landscape>` lives on the KCP, in --leader-election-namespace (default: the pod's own namespace,
// else kcp-system), with client-go's timings (adapters/kube/leader-election.ts). A replica without the Lease
// waits as a standby; one that loses it exits at once (cli/until-stopped.ts), so it writes nothing more.
import type { Registry } from 'prom-client';
import { podNamespace } from '../adapters/kube/kubeconfig-source.js';
import type { KubeClient } from '../adapters/kube/kube-client.js';
import { acquireLeadership, defaultIdentity, type Leadership } from '../adapters/kube/leader-election.js';
import { leaderMetrics } from '../adapters/metrics/leader-metrics.js';
import { DEFAULT_KCP_NAMESPACE } from '../model/contract.js';
import { ConfigError } from '../model/errors.js';
import type { LogLine } from '../model/log.js';
import type { LeaderOptions } from './service-options.js';

/** How a loop gets its Lease; until-stopped.ts holds it while the loop runs. */
export interface LeaderElection {
  /** `<namespace>/<name>` of the Lease, for log lines. */
  lease: string;
  acquire(signal: AbortSignal): Promise<Leadership>;
}

/** The Lease name: one per loop and landscape, a DNS subdomain as Kubernetes requires. */
export function leaseName(loop: 'generate' | 'apply' | 'backfill', landscape: string): string {
  const name = `kimops-${loop}-${landscape}`;
  if (name.length > 253 || !/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(name))
    throw new ConfigError(
      '--landscape',
      '',
      `"${landscape}" cannot name a Lease (${name}): use lower-case letters, digits and dashes to lead-elect`,
    );
  return name;
}

/** The Lease `--leader-elect` asks for, on the KCP (made only then), its state served as metrics in `registry`; or none. */
export function leaderElectionOf(
  options: LeaderOptions,
  target: { loop: 'generate' | 'apply' | 'backfill'; landscape: string; kcp: () => KubeClient; registry: Registry },
  log: LogLine,
): LeaderElection | undefined {
  if (!options.leaderElect) return undefined;
  const namespace = options.leaderElectionNamespace ?? podNamespace() ?? DEFAULT_KCP_NAMESPACE;
  const name = leaseName(target.loop, target.landscape);
  const metrics = leaderMetrics(target.registry, { loop: target.loop, landscape: target.landscape });
  const identity = defaultIdentity();
  const client = target.kcp();
  return {
    lease: `${namespace}/${name}`,
    acquire: async (signal) => {
      const leadership = await acquireLeadership(
        {
          client,
          namespace,
          name,
          identity,
          log: (line) => log(line),
          onRenewed: (atMs) => metrics.renewed(atMs),
        },
        signal,
      );
      metrics.acquired(leadership.takenFrom);
      metrics.leading(true);
      metrics.renewed(Date.now());
      leadership.signal.addEventListener('abort', () => metrics.leading(false), { once: true });
      return leadership;
    },
  };
}
