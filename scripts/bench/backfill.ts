// Backfiller benchmark (issue 7): 10,000 Runtimes and their Shoots on the real test control plane, one
// `kimops backfill --watch` (compiled) as a child process, KEB's two waits measured from the outside:
// - a generation bump (KEB's spec update) until the status says Pending for it (KEB reads it 4 s later;
//   target: 1 s at p99), 100 Runtimes, one every 100 ms;
// - a Shoot's lastOperation turning Succeeded (Gardener) until the Runtime is Ready again, for the same 100;
// - the first pass over all of them (finalizers, GardenerClusters, statuses, Events), the requests of a quiet
//   full pass, and the process's peak RSS.
// Baseline in the same run: how long the API server takes to deliver a change to a watch (the bench's own watch
// of Runtimes and of Shoots): the floor of both waits, since the backfiller learns of every change by a watch.
//
// Setup as the apply benchmark's (scripts/bench/apply.ts `seededLandscape`): the synthetic Runtimes rendered,
// committed, their Shoots and companions written by the applier (on a reused project, only what differs); then
// each Shoot's status set Succeeded (as gardenlet would), its kubeconfig Secret written fresh (so no rotation
// asks Gardener's adminkubeconfig, which the plane serves only with the simulator), and the Runtimes created in a
// KCP namespace of the bench's own. KIMOPS_TESTENV, KIMOPS_BENCH_APPLY_PROJECT and KIMOPS_BENCH_APPLY_KEEP as for
// the apply benchmark; KIMOPS_BENCH_RUNTIMES the count.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONTENT_TYPE, type KubeClient } from '../../adapters/kube/kube-client.js';
import { describeFailure } from '../../model/kube-result.js';
import type { KubeObject } from '../../model/kube-object.js';
import { Informer } from '../../adapters/kube/informer.js';
import { gardenerClusterFor, kubeconfigSecretFor } from '../../backfiller/kubeconfig.js';
import { ANNOTATION_RUNTIME_GENERATION } from '../../model/contract.js';
import { mapInParallel } from '../../model/in-parallel.js';
import { RUNTIME_API_VERSION, type Runtime } from '../../model/runtime.js';
import type { RuntimeStatus } from '../../model/runtime-status.js';
import { SHOOT_API_VERSION } from '../../model/shoot.js';
import { startGardenProxy, type GardenProxy } from '../../test/helpers/garden-proxy.js';
import { createTestNamespace, createTestProject, type TestProject } from '../../test/helpers/projects.js';
import { existingProject, onStop, seededLandscape, startPlane, type Plane } from './apply.js';
import { removeSeeded } from './apply-seed.js';
import { freePort } from './apply-warm.js';
import { msSince } from './generate-common.js';
import { rfc3339Seconds } from '../../model/go-time.js';

const RUNTIMES = Number(process.env.KIMOPS_BENCH_RUNTIMES ?? 10_000);
const BUMPS = Math.min(100, RUNTIMES);
const BUMP_EVERY_MS = 100;
const LANES = 16;
const TARGET_PENDING_P99_MS = 1_000;
const TARGET_RSS_MIB = 500;
const KEEP_PROJECT = process.env.KIMOPS_BENCH_APPLY_KEEP === '1';
const REUSE_PROJECT = process.env.KIMOPS_BENCH_APPLY_PROJECT;
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const KIMOPS_BIN = join(ROOT, 'dist/cli/kimops.js');
const SHOOT = { apiVersion: SHOOT_API_VERSION, kind: 'Shoot' } as const;
const RUNTIME = { apiVersion: RUNTIME_API_VERSION, kind: 'Runtime' } as const;

const log = (text: string) => process.stderr.write(`bench backfill: ${text}\n`);
const ms = (value: number) => `${value.toFixed(0).padStart(7)} ms`;
type LiveRuntime = KubeObject & Runtime & { status?: RuntimeStatus };

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}
const spread = (values: readonly number[]) =>
  `p50 ${ms(percentile(values, 50))}, p99 ${ms(percentile(values, 99))}, max ${ms(Math.max(...values))} (${values.length})`;

function memoryOf(pid: number): { hwmKib: number; rssKib: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return {
    hwmKib: Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0),
    rssKib: Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0),
  };
}

/** Waits until `check` holds, looking every 20 ms; throws after `timeoutMs`. */
async function until(what: string, check: () => boolean, timeoutMs: number): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Every Shoot of the namespace Succeeded at its generation, as gardenlet leaves a reconciled Shoot, and carrying
 * Runtime generation 1 (what the API server gives the bench's new Runtimes; the synthetic ones say 1–20).
 */
async function succeedAll(garden: KubeClient, namespace: string): Promise<number> {
  const shoots = await garden.listAll<KubeObject>({ ...SHOOT, namespace }, { limit: 500 });
  if (!shoots.ok) throw new Error(shoots.message);
  await mapInParallel(shoots.items, LANES, async (shoot) => {
    const name = shoot.metadata.name;
    if ((shoot.metadata.annotations as Record<string, string> | undefined)?.[ANNOTATION_RUNTIME_GENERATION] !== '1') {
      const annotated = await garden.patch(
        { ...SHOOT, namespace, name },
        { metadata: { annotations: { [ANNOTATION_RUNTIME_GENERATION]: '1' } } },
      );
      if (!annotated.ok) throw new Error(`annotate Shoot ${name}: ${describeFailure(annotated)}`);
    }
    await succeed(garden, namespace, name, Number(shoot.metadata.generation ?? 1), 'Create');
  });
  return shoots.items.length;
}

async function succeed(
  garden: KubeClient,
  namespace: string,
  name: string,
  generation: number,
  type: string,
  state = 'Succeeded',
): Promise<void> {
  const status = {
    observedGeneration: generation,
    lastOperation: {
      type,
      state,
      progress: state === 'Succeeded' ? 100 : 50,
      description: `bench: ${state}`,
      lastUpdateTime: rfc3339Seconds(new Date()),
    },
  };
  const patched = await garden.patch({ ...SHOOT, namespace, name }, { status }, CONTENT_TYPE.mergePatch, 'status');
  if (!patched.ok) throw new Error(`status of Shoot ${name}: ${describeFailure(patched)}`);
}

export async function benchBackfill(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'kimops-bench-backfill-'));
  onStop(() => rmSync(work, { recursive: true, force: true }));
  let plane: Plane | undefined;
  let project: TestProject | undefined;
  let proxies: GardenProxy[] = [];
  const problems: string[] = [];
  try {
    console.log('bench backfill: npm run build (kimops compiled, as production runs it)');
    const built = spawnSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'inherit' });
    if (built.status !== 0) throw new Error(`npm run build failed (exit ${built.status ?? built.signal})`);
    plane = startPlane();
    const env = plane.env;
    project = REUSE_PROJECT ? await existingProject(env, REUSE_PROJECT) : await createTestProject(env, 'dev');
    const { landscape, runtimes } = await seededLandscape(env, project, work, RUNTIMES, log);
    const started = process.hrtime.bigint();
    const shootCount = await succeedAll(env.garden, project.namespace);
    log(`${shootCount} Shoots Succeeded in ${(msSince(started) / 1000).toFixed(1)} s`);

    // KEB's Runtimes (and the Secrets a KIM before would have left), in a namespace of their own.
    const kcpNamespace = await createTestNamespace(env.kcp, 'kcp-bench-');
    const creating = process.hrtime.bigint();
    await mapInParallel(runtimes, LANES, async (runtime) => {
      const body = {
        ...structuredClone(runtime),
        ...RUNTIME,
        metadata: { ...runtime.metadata, namespace: kcpNamespace, generation: undefined, resourceVersion: undefined },
      };
      const created = await env.kcp.create(body as unknown as KubeObject);
      if (!created.ok) throw new Error(`Runtime ${runtime.metadata.name}: ${describeFailure(created)}`);
      const cluster = gardenerClusterFor({ ...body, metadata: { ...body.metadata, namespace: kcpNamespace } } as never);
      if (cluster) {
        const secret = kubeconfigSecretFor(cluster, 'apiVersion: v1\nkind: Config\n', new Date());
        const written = await env.kcp.apply(secret as unknown as KubeObject, 'bench', { force: true });
        if (!written.ok) throw new Error(`Secret of ${runtime.metadata.name}: ${describeFailure(written)}`);
      }
    });
    log(`${runtimes.length} Runtimes and kubeconfig Secrets created in ${(msSince(creating) / 1000).toFixed(1)} s`);

    // The bench's own watches: when each status change reaches a watcher (and the baseline of watch delivery).
    const kcpProxy = await startGardenProxy({ kubeconfig: join(env.stateDir, 'kcp.kubeconfig'), dir: work });
    const gardenProxy = await startGardenProxy({ kubeconfig: join(env.stateDir, 'garden.kubeconfig'), dir: work });
    proxies = [kcpProxy, gardenProxy];
    const watched = new Informer<LiveRuntime>(env.kcp, RUNTIME, { namespace: kcpNamespace });
    const shootsWatched = new Informer<KubeObject>(env.garden, SHOOT, { namespace: project.namespace });
    const seen = new Map<string, { at: number; generation: number; state?: string; observed?: number }[]>();
    const shootSeen = new Map<string, number>();
    watched.onChange(({ object }) => {
      const provisioned = object.status?.conditions?.find((c) => c.type === 'Provisioned');
      const list = seen.get(object.metadata.name) ?? [];
      list.push({
        at: performance.now(),
        generation: Number(object.metadata.generation),
        ...(object.status?.state && { state: object.status.state }),
        ...(provisioned?.observedGeneration !== undefined && { observed: provisioned.observedGeneration }),
      });
      seen.set(object.metadata.name, list);
    });
    shootsWatched.onChange(({ object }) => shootSeen.set(object.metadata.name, performance.now()));
    watched.start();
    shootsWatched.start();
    await Promise.all([watched.synced(), shootsWatched.synced()]);
    const readyCount = () => watched.items().filter((r) => r.status?.state === 'Ready').length;

    // The backfiller, compiled, as one watching process through the proxies.
    const port = await freePort();
    const args = [
      'backfill',
      '--landscape',
      landscape,
      '--kcp-kubeconfig',
      kcpProxy.kubeconfigPath,
      '--garden-kubeconfig',
      gardenProxy.kubeconfigPath,
      '--kcp-namespace',
      kcpNamespace,
      '--watch',
      '--interval',
      '30',
      '--metrics-port',
      String(port),
    ];
    const child = spawn(process.execPath, [KIMOPS_BIN, ...args], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-20_000)));
    const pid = child.pid ?? 0;
    const exited = new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? -1)));
    let peakKib = 0;
    const sampler = setInterval(() => {
      try {
        peakKib = Math.max(peakKib, memoryOf(pid).hwmKib);
      } catch {
        // gone
      }
    }, 200);
    try {
      const first = process.hrtime.bigint();
      await until(`all ${runtimes.length} Runtimes Ready`, () => readyCount() === runtimes.length, 30 * 60_000);
      const firstMs = msSince(first);
      const firstRequests = { kcp: kcpProxy.requests.length, garden: gardenProxy.requests.length };
      log(
        `first pass: all ${runtimes.length} Ready after ${(firstMs / 1000).toFixed(1)} s (${firstRequests.kcp} KCP and ${firstRequests.garden} Garden requests)`,
      );

      // A quiet full pass (every --interval): what it asks of the APIs when nothing changed.
      await new Promise((resolve) => setTimeout(resolve, 35_000));
      kcpProxy.reset();
      gardenProxy.reset();
      await new Promise((resolve) => setTimeout(resolve, 31_000));
      const quiet = {
        kcp: kcpProxy.requests.filter((r) => !r.path.includes('watch=')).length,
        garden: gardenProxy.requests.filter((r) => !r.path.includes('watch=')).length,
      };

      // KEB's updates: a generation bump each, one every 100 ms; the time until Pending for that generation.
      const bumped = runtimes
        .filter((_, i) => i % Math.max(1, Math.floor(runtimes.length / BUMPS)) === 0)
        .slice(0, BUMPS);
      const pendingMs: number[] = [];
      const deliveryMs: number[] = [];
      const generations = new Map<string, number>();
      await Promise.all(
        bumped.map(async (runtime, i) => {
          await new Promise((resolve) => setTimeout(resolve, i * BUMP_EVERY_MS));
          const name = runtime.metadata.name;
          const sent = performance.now();
          const maximum = (runtime.spec.shoot.provider.workers[0]?.maximum ?? 3) + 1;
          const patched = await env.kcp.patch(
            { ...RUNTIME, namespace: kcpNamespace, name },
            [{ op: 'replace', path: '/spec/shoot/provider/workers/0/maximum', value: maximum }],
            CONTENT_TYPE.jsonPatch,
          );
          if (!patched.ok) throw new Error(`bump ${name}: ${describeFailure(patched)}`);
          const generation = Number(patched.body.metadata.generation);
          generations.set(name, generation);
          await until(
            `${name} Pending for generation ${generation}`,
            () =>
              (seen.get(name) ?? []).some((s) => s.at >= sent && s.state === 'Pending' && s.observed === generation),
            60_000,
          );
          const events = (seen.get(name) ?? []).filter((s) => s.at >= sent);
          deliveryMs.push((events.find((s) => s.generation === generation)?.at ?? sent) - sent);
          pendingMs.push((events.find((s) => s.state === 'Pending' && s.observed === generation)?.at ?? sent) - sent);
        }),
      );

      // Gardener reconciles them: Processing with the new generation on the Shoot (the applier's write), then Succeeded.
      const readyMs: number[] = [];
      const shootDeliveryMs: number[] = [];
      await mapInParallel(bumped, 4, async (runtime) => {
        const name = runtime.metadata.name;
        const shootName = runtime.spec.shoot.name;
        const generation = generations.get(name) ?? 0;
        const ref = { ...SHOOT, namespace: project?.namespace, name: shootName };
        const live = await env.garden.get<KubeObject>(ref);
        if (!live.ok) throw new Error(`Shoot ${shootName}: ${describeFailure(live)}`);
        const shootGeneration = Number(live.body.metadata.generation ?? 1);
        await succeed(env.garden, project?.namespace ?? '', shootName, shootGeneration, 'Reconcile', 'Processing');
        const annotated = await env.garden.patch(ref, {
          metadata: { annotations: { [ANNOTATION_RUNTIME_GENERATION]: String(generation) } },
        });
        if (!annotated.ok) throw new Error(`annotate ${shootName}: ${describeFailure(annotated)}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
        const sent = performance.now();
        await succeed(env.garden, project?.namespace ?? '', shootName, shootGeneration, 'Reconcile');
        await until(
          `${name} Ready again`,
          () => (seen.get(name) ?? []).some((s) => s.at >= sent && s.state === 'Ready' && s.observed === generation),
          60_000,
        );
        readyMs.push(((seen.get(name) ?? []).find((s) => s.at >= sent && s.state === 'Ready')?.at ?? sent) - sent);
        shootDeliveryMs.push((shootSeen.get(shootName) ?? sent) - sent);
      });
      const memory = memoryOf(pid);
      peakKib = Math.max(peakKib, memory.hwmKib);

      console.log(
        `\nbench backfill: ${runtimes.length} Runtimes and Shoots, kimops backfill --watch compiled (pid ${pid})`,
      );
      console.log(
        `  first pass (finalizers, GardenerClusters, statuses)   ${ms(firstMs)}   ${firstRequests.kcp} KCP + ${firstRequests.garden} Garden requests`,
      );
      console.log(`  quiet full pass: requests besides watches             ${quiet.kcp} KCP + ${quiet.garden} Garden`);
      console.log(`  baseline: a Runtime change reaching a watch           ${spread(deliveryMs)}`);
      console.log(`  generation bump → Pending for it                      ${spread(pendingMs)}`);
      console.log(`  baseline: a Shoot status change reaching a watch      ${spread(shootDeliveryMs)}`);
      console.log(`  Shoot Succeeded → Runtime Ready                       ${spread(readyMs)}`);
      console.log(
        `  peak RSS ${(peakKib / 1024).toFixed(0)} MiB, resident at the end ${(memory.rssKib / 1024).toFixed(0)} MiB`,
      );
      const p99 = percentile(pendingMs, 99);
      console.log(
        `  target: Pending within 1 s at p99: ${p99 <= TARGET_PENDING_P99_MS ? 'met' : 'MISSED'} (${p99.toFixed(0)} ms); peak RSS < ${TARGET_RSS_MIB} MiB: ${peakKib / 1024 < TARGET_RSS_MIB ? 'met' : 'MISSED'}`,
      );
    } finally {
      clearInterval(sampler);
      child.kill('SIGTERM');
      const code = await exited;
      if (code !== 0) problems.push(`kimops backfill exited ${code}:\n${stderr.slice(-2_000)}`);
      await Promise.all([watched.stop(), shootsWatched.stop()]);
      // The bench's KCP objects (the plane runs no namespace controller to delete them with their namespace);
      // the Runtimes' finalizers first, nobody holds them any more.
      for (const type of [
        RUNTIME,
        { apiVersion: 'infrastructuremanager.kyma-project.io/v1', kind: 'GardenerCluster' },
        { apiVersion: 'v1', kind: 'Secret' },
      ]) {
        const left = await env.kcp.listAll<KubeObject>({ ...type, namespace: kcpNamespace });
        await mapInParallel(left.ok ? left.items : [], LANES, async (object) => {
          const ref = { ...type, namespace: kcpNamespace, name: object.metadata.name };
          if (type === RUNTIME) await env.kcp.patch(ref, { metadata: { finalizers: null } });
          await env.kcp.delete(ref);
        });
      }
    }
  } catch (error) {
    problems.push(error instanceof Error ? (error.stack ?? error.message) : String(error));
  } finally {
    for (const proxy of proxies) await proxy.close();
    if (plane && !plane.own && project && !KEEP_PROJECT && !REUSE_PROJECT) {
      await removeSeeded({ garden: plane.env.garden, namespace: project.namespace, lanes: LANES, log }).catch(
        (e: unknown) => problems.push(`cleanup: ${String(e)}`),
      );
      await project.remove().catch((e: unknown) => problems.push(`cleanup: ${String(e)}`));
    }
    plane?.release();
    rmSync(work, { recursive: true, force: true });
  }
  if (problems.length > 0) {
    for (const problem of problems) console.error(`  ${problem}`);
    process.exitCode = 1;
  }
}
