// Issue 16's replicas: two processes of each loop (generate, apply, backfill) with --leader-elect on the real plane,
// the gardenlet simulator playing Gardener, and KEB's part played by the test. Each process talks to the KCP and
// the Garden through a proxy of its own that records every request, so the test can say who wrote what when.
// The leaders are killed with kill -9 right after KEB's update, in the middle of the passes that update starts:
// the standbys take over once the Lease expires, the update still reaches Ready and the deletion still goes
// through, no process ever writes without holding its Lease, no PR is opened twice, and on SIGTERM the new
// leaders finish, hand their Leases back and exit 0.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { localForge } from '../../adapters/forge/local.js';
import { LandscapeRepo } from '../../adapters/git/landscape-repo.js';
import { CONTENT_TYPE } from '../../adapters/kube/kube-client.js';
import type { KubeObject } from '../../model/kube-object.js';
import { describeFailure } from '../../model/kube-result.js';
import { RUNTIME_API_VERSION, type Runtime } from '../../model/runtime.js';
import type { RuntimeStatus } from '../../model/runtime-status.js';
import { kimops, startProcess, type RunningProcess } from '../helpers/cli.js';
import { startGardenProxy, type GardenProxy } from '../helpers/garden-proxy.js';
import { createTestNamespace, landscapeForProject } from '../helpers/projects.js';
import { exampleRuntime, getShoot } from '../helpers/shoots.js';
import { eventually } from '../helpers/testenv.js';
import { useKebPlane } from '../e2e/keb-lifecycle.js';

const { env, project, dir, simulator } = useKebPlane('failover');

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'cli', 'kimops-bin.js');
const RUNTIME = { apiVersion: RUNTIME_API_VERSION, kind: 'Runtime' } as const;
const LOOPS = ['generate', 'apply', 'backfill'] as const;
type Loop = (typeof LOOPS)[number];
/** client-go's timings, kimops's defaults: a standby waits at most the lease plus two jittered retries. */
const LEASE_MS = 15_000;
const MAX_JITTERED_RETRY_MS = 2_000 * 2.2;

type LiveRuntime = Runtime & { metadata: Runtime['metadata'] & { generation?: number }; status?: RuntimeStatus };

/** One process of one loop, with the proxies every request of it goes through. */
interface Replica {
  loop: Loop;
  name: string;
  child: RunningProcess;
  proxies: GardenProxy[];
}

const proxies: GardenProxy[] = [];
afterEach(async () => {
  await Promise.all(proxies.map((proxy) => proxy.close()));
  proxies.length = 0;
});

/** When the replica's log says it took the Lease (its JSON records' time), if it did. */
function leadingSince(replica: Replica): number | undefined {
  for (const line of replica.child.stdout.split('\n')) {
    if (!line.includes('holding the Lease')) continue;
    return Date.parse((JSON.parse(line) as { time: string }).time);
  }
  return undefined;
}

/** The replica's requests that changed something, other than its Lease. */
function writesOf(replica: Replica) {
  return replica.proxies
    .flatMap((proxy) => proxy.requests)
    .filter((r) => !['GET', 'HEAD'].includes(r.method) && !r.path.includes('/leases'));
}

describe('two replicas of each loop with --leader-elect', () => {
  it('the standbys take over after kill -9 of the leaders mid-pass: KEB sees Ready and the deletion, no write without the Lease, no duplicate PR; SIGTERM hands the Leases back', async () => {
    const landscape = await landscapeForProject(dir, 'landscape', 'stage', project);
    const gitdir = join(dir.path, 'landscape.git');
    expect((await kimops(['init', '--landscape', landscape, gitdir])).code).toBe(0);
    const namespace = await createTestNamespace(env.kcp, 'kcp-ha-');
    const stop = new AbortController();

    const proxied = async (cluster: 'kcp' | 'garden') => {
      const proxy = await startGardenProxy({ kubeconfig: join(env.stateDir, `${cluster}.kubeconfig`), dir: dir.path });
      proxies.push(proxy);
      return proxy;
    };
    const start = async (loop: Loop, name: string): Promise<Replica> => {
      const [kcp, garden] = [await proxied('kcp'), await proxied('garden')];
      const service = ['--watch', '--leader-elect', '--leader-election-namespace', namespace, '--log-format', 'json'];
      const clusters = ['--kcp-kubeconfig', kcp.kubeconfigPath, '--garden-kubeconfig', garden.kubeconfigPath];
      const args: Record<Loop, string[]> = {
        generate: ['--kcp-namespace', namespace, '--repo', gitdir, '--interval', '2'],
        apply: ['--repo', gitdir, '--interval', '1', '--plan-cache', join(dir.path, `plans-${name}.json`)],
        backfill: ['--kcp-namespace', namespace, '--interval', '3600'],
      };
      const argv = [BIN, loop, '--landscape', landscape, ...clusters, ...args[loop], ...service];
      const child = startProcess(process.execPath, argv, stop.signal, {
        cwd: ROOT,
        env: { ...process.env, NODE_OPTIONS: '' },
      });
      return { loop, name, child, proxies: [kcp, garden] };
    };

    // The first replica of each loop starts alone and leads; the second waits as its standby.
    const first = await Promise.all(LOOPS.map((loop) => start(loop, `${loop}-a`)));
    for (const replica of first)
      await eventually(`${replica.name} leading`, async () => (leadingSince(replica) ? true : undefined), 30_000);
    const second = await Promise.all(LOOPS.map((loop) => start(loop, `${loop}-b`)));
    for (const replica of second)
      await eventually(
        `${replica.name} waiting as a standby`,
        async () => (replica.child.stdout.includes('as a standby') ? true : undefined),
        30_000,
      );
    const all = [...first, ...second];

    const shoot = `h${randomBytes(4).toString('hex')}`;
    const example = exampleRuntime('aws.yaml', shoot);
    example.metadata = { ...example.metadata, namespace, name: `rt-${shoot}` };
    const ref = { ...RUNTIME, namespace, name: example.metadata.name };
    const get = async (): Promise<LiveRuntime | undefined> => {
      const got = await env.kcp.get(ref);
      if (!got.ok && got.status !== 404) throw new Error(describeFailure(got));
      return got.ok ? (got.body as unknown as LiveRuntime) : undefined;
    };
    const ready = (generation: number) =>
      eventually(
        `Ready at generation ${generation}`,
        async () => {
          const live = await get();
          const provisioned = live?.status?.conditions?.find((c) => c.type === 'Provisioned');
          return live?.status?.state === 'Ready' && provisioned?.observedGeneration === generation ? live : undefined;
        },
        90_000,
      );

    try {
      const created = await env.kcp.create({ ...example, ...RUNTIME } as unknown as KubeObject);
      expect(created.ok ? 'created' : describeFailure(created)).toBe('created');
      await ready(1);

      // KEB's update, and the leaders killed while their passes take it up.
      const patched = await env.kcp.patch(
        ref,
        [{ op: 'replace', path: '/spec/shoot/provider/workers/0/maximum', value: 25 }],
        CONTENT_TYPE.jsonPatch,
      );
      if (!patched.ok) throw new Error(describeFailure(patched));
      const generation = Number((patched.body as unknown as LiveRuntime).metadata.generation);
      const killedAt = Date.now();
      for (const replica of first) process.kill(replica.child.pid, 'SIGKILL');
      expect((await Promise.all(first.map((r) => r.child.done))).map((r) => r.code)).toEqual([137, 137, 137]);

      await ready(generation);
      expect((await getShoot(env.garden, project.namespace, shoot))?.spec.provider.workers[0]?.maximum).toBe(25);
      for (const replica of second) {
        const since = leadingSince(replica);
        expect(since, `${replica.name} took over`).toBeGreaterThan(killedAt);
        // From the kill, not from the killed leader's last renewal (at most a retry earlier): client-go's bound.
        expect((since ?? Infinity) - killedAt, replica.name).toBeLessThan(LEASE_MS + 2 * MAX_JITTERED_RETRY_MS);
      }

      // KEB deletes the Runtime: the new leaders carry the deletion through Git to the Garden.
      expect((await env.kcp.delete(ref)).ok).toBe(true);
      await eventually('the Runtime gone', async () => ((await get()) ? undefined : true), 90_000);
      expect(await getShoot(env.garden, project.namespace, shoot)).toBeUndefined();

      // Nobody wrote without the Lease: each process only once it led. (A killed leader's last requests may reach
      // its proxy, in this busy process, after the kill: arrival times say nothing about the end of leadership; a
      // leader that loses its Lease exiting at once is cli/until-stopped.test.ts's.)
      for (const replica of all) {
        const since = leadingSince(replica) ?? Infinity;
        const outside = writesOf(replica).filter((w) => w.at < since);
        expect(outside, `${replica.name}'s writes without the Lease`).toEqual([]);
      }
      // Every backfiller and applier leader wrote (the generators write to git, not through the proxies).
      for (const replica of all.filter((r) => r.loop !== 'generate'))
        expect(writesOf(replica).length, `${replica.name} wrote`).toBeGreaterThan(0);

      // One PR per change: no branch and head proposed twice.
      const forge = localForge(await LandscapeRepo.open(gitdir));
      const pulls = [];
      for (let number = 1; ; number++) {
        const pull = await forge.getPullRequest(number);
        if (!pull.ok) break;
        pulls.push(`${pull.value.branch}@${pull.value.headSha}`);
      }
      expect(pulls.length).toBeGreaterThanOrEqual(3); // create, update, delete
      expect(new Set(pulls).size).toBe(pulls.length);
    } catch (error) {
      const tails = all.map(
        (r) => `--- ${r.name} stdout:\n${r.child.stdout.slice(-3000)}\n--- stderr:\n${r.child.stderr.slice(-2000)}`,
      );
      throw new Error(`${error instanceof Error ? error.message : String(error)}\n${tails.join('\n')}`, {
        cause: error,
      });
    } finally {
      stop.abort();
    }

    // SIGTERM: each new leader finishes its pass, releases its Lease and exits 0.
    expect((await Promise.all(second.map((r) => r.child.done))).map((r) => r.code)).toEqual([0, 0, 0]);
    for (const loop of LOOPS) {
      const lease = await env.kcp.request<{ spec?: { holderIdentity?: string } }>(
        'GET',
        `/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases/kimops-${loop}-stage`,
      );
      expect(lease.ok ? (lease.body.spec?.holderIdentity ?? '') : describeFailure(lease), loop).toBe('');
    }
    expect(simulator.problems).toEqual([]);
  }, 300_000);
});
