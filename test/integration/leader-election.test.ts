// Leader election on the plane's real Lease API, with short real durations: the API server accepts every Lease
// the elector writes (MicroTime, an empty holder on release), one candidate leads while the other waits, a
// crashed leader is replaced once its Lease expires, and a released one at once. Timings are asserted as order
// and generous upper bounds only; the exact windows are measured in fake time by
// adapters/kube/leader-election.test.ts.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  acquireLeadership,
  defaultIdentity,
  type Lease,
  type LeaseClient,
  type LeaderElectionOptions,
  type Leadership,
} from '../../adapters/kube/leader-election.js';
import { describeFailure, type KubeResult } from '../../model/kube-result.js';
import { createTestNamespace } from '../helpers/projects.js';
import { connect, eventually } from '../helpers/testenv.js';

const env = connect(inject('testenvStateDir'));
const MICRO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;
/** Short real durations: a 3 s Lease, renewed every 0.5 s, given up after 2 s without a renewal. */
const SHORT = { leaseDurationMs: 3_000, renewDeadlineMs: 2_000, retryPeriodMs: 500 };
/** The longest wait between two acquire attempts: retryPeriod × (1 + 1.2). */
const MAX_RETRY_WAIT_MS = SHORT.retryPeriodMs * 2.2;
/** What a busy 2-core machine may add to any bound here. */
const SLACK_MS = 5_000;

let namespace: string;
const stop = new AbortController();
const held: Leadership[] = [];

beforeAll(async () => {
  namespace = await createTestNamespace(env.kcp, 'kcp-lease-');
});

afterAll(async () => {
  stop.abort(new Error('test over'));
  await Promise.all(held.map((l) => l.release()));
  await env.kcp.delete({ apiVersion: 'v1', kind: 'Namespace', name: namespace });
});

/** The plane's client, until `crash()`: then no request is answered, as if the process had died. */
function crashable(): LeaseClient & { crash(): void } {
  let crashed = false;
  return {
    crash: () => (crashed = true),
    request: <T>(...args: Parameters<LeaseClient['request']>) =>
      crashed ? new Promise<KubeResult<T>>(() => {}) : env.kcp.request<T>(...args),
  };
}

function candidate(name: string, client: LeaseClient = env.kcp, extra: Partial<LeaderElectionOptions> = {}) {
  const logs: string[] = [];
  const options: LeaderElectionOptions = {
    client,
    namespace,
    name,
    identity: defaultIdentity(),
    ...SHORT,
    log: (line) => logs.push(line),
    ...extra,
  };
  const state: { leadership?: Leadership; at?: number } = {};
  const acquired = acquireLeadership(options, stop.signal).then((leadership) => {
    held.push(leadership);
    state.leadership = leadership;
    state.at = Date.now();
    return leadership;
  });
  return { identity: options.identity, logs, state, acquired };
}

async function readLease(name: string): Promise<Lease> {
  const result = await env.kcp.request<Lease>(
    'GET',
    `/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases/${name}`,
  );
  if (!result.ok) throw new Error(`lease ${namespace}/${name}: ${describeFailure(result)}`);
  return result.body;
}

describe('leader election on the real Lease API', () => {
  it('keeps a standby waiting while the leader renews and hands over after the leader crashes', async () => {
    const client = crashable();
    let lastRenewal = Date.now();
    const a = candidate('generate-dev', client, { onRenewed: (at) => (lastRenewal = at) });
    const leaderA = await a.acquired;
    const created = await readLease('generate-dev');
    expect(created.spec).toMatchObject({ holderIdentity: a.identity, leaseDurationSeconds: 3, leaseTransitions: 0 });
    expect(created.spec?.acquireTime).toMatch(MICRO_TIME);
    expect(created.spec?.renewTime).toMatch(MICRO_TIME);

    const b = candidate('generate-dev');
    // Longer than leaseDuration: only the renewals keep b out.
    await new Promise((resolve) => setTimeout(resolve, 2 * SHORT.leaseDurationMs));
    expect(b.state.leadership).toBeUndefined();
    expect(leaderA.isLeader()).toBe(true);
    const renewed = await readLease('generate-dev');
    expect(renewed.spec?.renewTime).not.toBe(created.spec?.renewTime);
    expect(renewed.spec?.acquireTime).toBe(created.spec?.acquireTime);

    let aLostAt: number | undefined;
    leaderA.signal.addEventListener('abort', () => (aLostAt = Date.now()));
    client.crash();
    await eventually(
      'b to lead',
      async () => b.state.leadership,
      SHORT.leaseDurationMs + 2 * MAX_RETRY_WAIT_MS + SLACK_MS,
    );
    // a gave up (renewDeadline) before b took over (leaseDuration after it last saw a's renewal).
    expect(aLostAt).toBeDefined();
    expect(aLostAt as number).toBeLessThanOrEqual(b.state.at as number);
    expect((b.state.at as number) - lastRenewal).toBeLessThanOrEqual(
      SHORT.leaseDurationMs + 2 * MAX_RETRY_WAIT_MS + SLACK_MS,
    );
    const takenOver = await readLease('generate-dev');
    expect(takenOver.spec).toMatchObject({ holderIdentity: b.identity, leaseDurationSeconds: 3, leaseTransitions: 1 });

    // Released with nobody waiting: the API server takes the empty holder.
    await b.state.leadership?.release();
    const released = await readLease('generate-dev');
    expect(released.spec).toMatchObject({ leaseDurationSeconds: 1, leaseTransitions: 1 });
    expect(released.spec?.holderIdentity ?? '').toBe('');
    expect(released.spec?.renewTime).toMatch(MICRO_TIME);
  });

  it('hands over at once on release, long before the Lease would expire', async () => {
    // A long Lease, so that a takeover by expiry could not pass for one by release.
    const long = { leaseDurationMs: 30_000, renewDeadlineMs: 20_000 };
    const c = candidate('apply-dev', env.kcp, long);
    const leaderC = await c.acquired;
    const d = candidate('apply-dev', env.kcp, long);
    await new Promise((resolve) => setTimeout(resolve, 3 * SHORT.retryPeriodMs));
    expect(d.state.leadership).toBeUndefined();
    const releasedAt = Date.now();
    await leaderC.release();
    expect(leaderC.signal.aborted).toBe(true);
    await eventually('d to lead', async () => d.state.leadership, MAX_RETRY_WAIT_MS + SLACK_MS);
    expect((d.state.at as number) - releasedAt).toBeLessThan(long.leaseDurationMs / 2);
    const lease = await readLease('apply-dev');
    expect(lease.spec).toMatchObject({ holderIdentity: d.identity, leaseDurationSeconds: 30, leaseTransitions: 1 });
    await d.state.leadership?.release();
  });
});
