// Issue 17's "merges are seen at once", end to end with the DEFAULT intervals (60 s for both loops): KEB creates
// a Runtime; `kimops generate --watch` hears it through its watch of the KCP, proposes the create and merges it
// into the local landscape repo; `kimops apply --watch` hears main move through its watch of the ref and sends the
// Shoot to the Garden. Both loops run as processes of their own, the applier behind a proxy that records when each
// request arrived. No timing is asserted, only the causality: every create request reaches the Garden before either
// loop's interval could have fired since its last pass, so events, not polling, carried it. The measured latency
// (Runtime created → create request at the Garden, and its two halves, split where main moved) is printed for
// docs/performance.md. The applier also reports back to the local forge: the merge commit's kimops/apply status.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { localForge } from '../../adapters/forge/local.js';
import { LandscapeRepo } from '../../adapters/git/landscape-repo.js';
import { watchRef } from '../../adapters/git/ref-watch.js';
import { DEFAULT_INTERVAL_SECONDS } from '../../cli/options.js';
import { SHOOT_API_VERSION } from '../../model/shoot.js';
import type { KubeObject } from '../../model/kube-object.js';
import { describeFailure } from '../../model/kube-result.js';
import { RUNTIME_API_VERSION } from '../../model/runtime.js';
import { kimops, startProcess, type CliRun, type RunningProcess } from '../helpers/cli.js';
import { startGardenProxy, type GardenProxy } from '../helpers/garden-proxy.js';
import { createTestNamespace, landscapeForProject } from '../helpers/projects.js';
import { deleteShoot, exampleRuntime, getShoot } from '../helpers/shoots.js';
import { eventually } from '../helpers/testenv.js';
import { useKebPlane } from './keb-lifecycle.js';

const { env, project, dir } = useKebPlane('latency');

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'cli', 'kimops-bin.js');
const INTERVAL_MS = DEFAULT_INTERVAL_SECONDS * 1000;
/** Runtimes created one after another, each measured. */
const SAMPLES = 5;

let proxy: GardenProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
});

/** When each of the process's JSON log records matching `pattern` was written. */
function timesOf(child: RunningProcess, pattern: RegExp): number[] {
  return child.stdout
    .split('\n')
    .filter((line) => line.startsWith('{') && pattern.test(line))
    .map((line) => Date.parse((JSON.parse(line) as { time: string }).time));
}

describe('a merge is seen at once', () => {
  it("a new Runtime's Shoot create reaches the Garden on events alone, before any default interval could fire", async () => {
    const landscape = await landscapeForProject(dir, 'landscape', 'stage', project);
    const gitdir = join(dir.path, 'landscape.git');
    expect((await kimops(['init', '--landscape', landscape, gitdir])).code).toBe(0);
    const namespace = await createTestNamespace(env.kcp, 'kcp-lat-');
    proxy = await startGardenProxy({ kubeconfig: join(env.stateDir, 'garden.kubeconfig'), dir: dir.path });
    const recorded = proxy;
    const kcp = join(env.stateDir, 'kcp.kubeconfig');
    const garden = join(env.stateDir, 'garden.kubeconfig');
    const service = ['--watch', '--log-format', 'json', '--log-level', 'debug'];
    const stop = new AbortController();
    const start = (argv: string[]) =>
      startProcess(process.execPath, [BIN, ...argv, ...service], stop.signal, {
        cwd: ROOT,
        env: { ...process.env, NODE_OPTIONS: '' },
      });
    // No --interval: the defaults.
    const generator = start([
      ...['generate', '--landscape', landscape, '--kcp-kubeconfig', kcp, '--kcp-namespace', namespace],
      ...['--garden-kubeconfig', garden, '--repo', gitdir],
    ]);
    const applier = start([
      ...['apply', '--landscape', landscape, '--repo', gitdir, '--garden-kubeconfig', recorded.kubeconfigPath],
      ...['--forge', 'local', '--plan-cache', join(dir.path, 'plans.json')],
    ]);
    const passesOf = {
      generator: () => timesOf(generator, /proposed \(/),
      applier: () => timesOf(applier, /"main at [0-9a-f]{12}: /),
    };
    // main's moves, as the test hears them (the same watch the applier runs, in this process).
    const moves: { at: number; oid: string | undefined }[] = [];
    const mainWatch = await watchRef({
      gitdir,
      ref: 'refs/heads/main',
      onChange: (oid) => moves.push({ at: Date.now(), oid }),
    });
    const samples: { shoot: string; created: number; merged: number; applied: number }[] = [];
    const shoots: string[] = [];
    let ended: CliRun[] | undefined;
    try {
      await eventually(
        'both loops through their first pass',
        async () => (passesOf.generator().length > 0 && passesOf.applier().length > 0 ? true : undefined),
        60_000,
      );
      for (let i = 0; i < SAMPLES; i++) {
        const shoot = `l${randomBytes(4).toString('hex')}`;
        const runtime = exampleRuntime('aws.yaml', shoot);
        runtime.metadata = { ...runtime.metadata, namespace, name: `rt-${shoot}` };
        shoots.push(shoot);
        const movesBefore = moves.length;
        const created = Date.now();
        const made = await env.kcp.create({
          ...runtime,
          apiVersion: RUNTIME_API_VERSION,
          kind: 'Runtime',
        } as unknown as KubeObject);
        expect(made.ok ? 'created' : describeFailure(made)).toBe('created');
        const path = `/apis/${SHOOT_API_VERSION}/namespaces/${project.namespace}/shoots/${shoot}`;
        const request = await eventually(
          `the create of ${shoot} at the Garden`,
          async () =>
            recorded.requests.find((r) => r.method === 'PATCH' && r.path.split('?')[0] === path && r.status < 300),
          30_000,
          5,
        );
        const merged = moves.slice(movesBefore)[0]?.at ?? NaN;
        samples.push({ shoot, created, merged, applied: request.at });
        // Causality: both loops' last pass before the create request ended less than an interval before it, so the
        // request cannot have come from a poll — the Runtime watch and the ref watch started those passes.
        for (const [loop, passes] of Object.entries(passesOf)) {
          const before = passes().filter((at) => at <= created);
          expect(
            request.at - (before.at(-1) ?? -Infinity),
            `${loop}: time since its last pass before the Runtime`,
          ).toBeLessThan(INTERVAL_MS);
        }
        expect(merged, 'main moved between the Runtime and the create').toBeGreaterThanOrEqual(created);
        expect(merged).toBeLessThanOrEqual(request.at);
        // A pause, so that each sample starts from idle loops, as a Runtime on a quiet landscape does.
        await new Promise((resolve) => setTimeout(resolve, 1_500));
      }

      // The applier reported back to the local forge: the last merge commit carries its kimops/apply status.
      const head = moves.at(-1)?.oid ?? '';
      const forge = localForge(await LandscapeRepo.open(gitdir));
      await eventually(
        'kimops/apply on the last merge commit',
        async () => {
          const statuses = await forge.statuses(head);
          return statuses.ok && statuses.value.some((s) => s.context === 'kimops/apply') ? true : undefined;
        },
        30_000,
      );
    } catch (error) {
      const tails = [generator, applier].map(
        (p, i) =>
          `--- ${['generate', 'apply'][i]} stdout:\n${p.stdout.slice(-4000)}\n--- stderr:\n${p.stderr.slice(-2000)}`,
      );
      throw new Error(`${error instanceof Error ? error.message : String(error)}\n${tails.join('\n')}`, {
        cause: error,
      });
    } finally {
      mainWatch.close();
      stop.abort();
      ended = await Promise.all([generator.done, applier.done]);
      // Gone before the Project goes (a Shoot left in a removed Project stays on the plane for good); the loops have
      // stopped, so nothing brings them back.
      for (const shoot of shoots) await deleteShoot(env.garden, project.namespace, shoot);
      for (const shoot of shoots)
        await eventually(`${shoot} gone`, async () =>
          (await getShoot(env.garden, project.namespace, shoot)) ? undefined : true,
        );
    }
    expect(ended?.map((r) => r.code)).toEqual([0, 0]);

    const ms = (values: number[]) => values.map((v) => Math.round(v));
    const total = samples.map((s) => s.applied - s.created);
    console.log(
      [
        `merge latency over ${samples.length} Runtimes (default intervals, loops as processes):`,
        `  Runtime created → create request at the Garden: ${ms(total).join(', ')} ms (median ${median(total)} ms)`,
        `  Runtime created → main moved (generator):        ${ms(samples.map((s) => s.merged - s.created)).join(', ')} ms`,
        `  main moved → create request (applier):           ${ms(samples.map((s) => s.applied - s.merged)).join(', ')} ms`,
      ].join('\n'),
    );
  }, 300_000);
});

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.floor(sorted.length / 2)] ?? NaN);
}
