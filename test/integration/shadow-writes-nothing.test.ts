// Issue 20's shadow that writes nothing: on a landscape whose Runtimes KIM leads (`defaultLeader: kim`), with live
// Runtimes and Shoots that a stand-in for KIM made Ready, `kimops generate`, `apply` and `backfill` — `--once`, and one
// round of `--watch` each, stopped by its signal — write only the landscape repo. Every request they make to the KCP
// and to the Garden goes through a recording proxy (their kubeconfigs name nothing else), and none is a write: no
// Runtime annotation, no status, no Event, no Shoot, no `adminkubeconfig` (a POST, and the only way to the SKRs).
import { execFileSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { KubeObject } from '../../model/kube-object.js';
import { describeFailure } from '../../model/kube-result.js';
import { LABEL_RUNTIME_ID } from '../../model/contract.js';
import { parseLandscape } from '../../model/landscape-parse.js';
import { RUNTIME_API_VERSION, type Runtime } from '../../model/runtime.js';
import { readRuntimeStatus } from '../../model/runtime-status.js';
import { LEADER_ANNOTATION } from '../../rules/leader.js';
import { kimops, startKimops, expectOk } from '../helpers/cli.js';
import { startGardenProxy, writesSeen } from '../helpers/garden-proxy.js';
import { GardenletSimulator } from '../helpers/gardenlet-simulator.js';
import { KimStandIn } from '../helpers/kim-stand-in.js';
import { createTestNamespace, landscapeForProject, useTestProject } from '../helpers/projects.js';
import { exampleRuntime } from '../helpers/shoots.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { connect, eventually, planeAsShootCluster } from '../helpers/testenv.js';

const env = connect(inject('testenvStateDir'));
const project = useTestProject(env, 'stage');
const dir = useTempDir('shadow');
const simulator = new GardenletSimulator({
  garden: env.garden,
  intervalMs: 20,
  progressSteps: [50],
  runtimeCluster: planeAsShootCluster(env),
});
beforeAll(() => simulator.start());
afterAll(() => simulator.stop());

const RUNTIME = { apiVersion: RUNTIME_API_VERSION, kind: 'Runtime' } as const;
const mainOf = (gitdir: string) =>
  execFileSync('git', ['--git-dir', gitdir, 'rev-parse', 'main'], { encoding: 'utf8' }).trim();

describe('a shadow of KIM', () => {
  it('writes nothing to the KCP or the Garden, only the landscape repo, --once and --watch', async () => {
    const kcpProxy = await startGardenProxy({ kubeconfig: join(env.stateDir, 'kcp.kubeconfig'), dir: dir.path });
    const gardenProxy = await startGardenProxy({
      kubeconfig: join(env.stateDir, 'garden.kubeconfig'),
      dir: dir.path,
    });
    try {
      const shipped = await landscapeForProject(dir, 'landscape', 'stage', project);
      const text = readFileSync(shipped, 'utf8').replace(/^name: stage$/m, 'name: stage\ndefaultLeader: kim');
      expect(text).toContain('defaultLeader: kim');
      const landscapeFile = await dir.write('landscape/landscape.yaml', text);
      const gitdir = join(dir.path, 'landscape.git');
      expectOk(await kimops(['init', '--landscape', landscapeFile, gitdir]), 'init');
      const namespace = await createTestNamespace(env.kcp, 'kcp-shd-');
      const kim = new KimStandIn({
        kcp: env.kcp,
        garden: env.garden,
        kcpNamespace: namespace,
        landscape: parseLandscape(text, landscapeFile, 'stage'),
      });

      // The live landscape: two Runtimes KEB created, their Shoots made and their status written by KIM.
      const suffix = randomBytes(3).toString('hex');
      const names = ['aws.yaml', 'gcp.yaml'].map((file, i) => {
        const shoot = `s${suffix}${i}`;
        const runtime = exampleRuntime(file, shoot) as Runtime;
        runtime.metadata = {
          ...runtime.metadata,
          namespace,
          name: `rt-${shoot}`,
          labels: { ...runtime.metadata.labels, [LABEL_RUNTIME_ID]: randomUUID() },
        };
        return { runtime, shoot };
      });
      for (const { runtime } of names) {
        const created = await env.kcp.create({ ...runtime, ...RUNTIME } as unknown as KubeObject);
        expect(created.ok ? 'created' : describeFailure(created)).toBe('created');
      }
      await eventually(
        'KIM to bring both Runtimes to Ready',
        async () => {
          await kim.reconcileOnce();
          const listed = await env.kcp.listAll<KubeObject>({ ...RUNTIME, namespace });
          return listed.ok && listed.items.every((r) => readRuntimeStatus(r.status).state === 'Ready')
            ? true
            : undefined;
        },
        90_000,
        200,
      );

      const kcp = ['--kcp-kubeconfig', kcpProxy.kubeconfigPath, '--kcp-namespace', namespace];
      const garden = ['--garden-kubeconfig', gardenProxy.kubeconfigPath];
      const common = ['--landscape', landscapeFile];
      const generate = ['generate', ...common, ...kcp, ...garden, '--repo', gitdir];
      const apply = ['apply', ...common, ...garden, '--repo', gitdir];
      const backfill = ['backfill', ...common, ...kcp, ...garden];

      // --once: the repo gets the shadow; the clusters get reads only.
      const initial = mainOf(gitdir);
      expectOk(await kimops([...generate, '--once']), 'generate --once');
      expect(mainOf(gitdir), 'main moved').not.toBe(initial);
      for (const { shoot } of names) {
        const file = execFileSync('git', ['--git-dir', gitdir, 'show', `main:shoots/${shoot}/shoot.yaml`], {
          encoding: 'utf8',
        });
        expect(file, `main's ${shoot}`).toContain(`${LEADER_ANNOTATION}: kim`);
      }
      expectOk(await kimops([...apply, '--once']), 'apply --once');
      expectOk(await kimops([...backfill, '--once']), 'backfill --once');
      expect(kcpProxy.requests.length, 'the KCP was read through the proxy').toBeGreaterThan(0);
      expect(gardenProxy.requests.length, 'the Garden was read through the proxy').toBeGreaterThan(0);
      expect(writesSeen(kcpProxy), 'writes to the KCP (--once)').toEqual([]);
      expect(writesSeen(gardenProxy), 'writes to the Garden (--once)').toEqual([]);

      // --watch: one round of each, stopped by its signal once the round is done.
      // A quiet round logs its summary at debug: that line is the sign the round is done.
      const watch = ['--watch', '--interval', '3600', '--log-level', 'debug'];
      const rounds: [string[], RegExp][] = [
        [[...generate, ...watch], /\d+ proposed \(/],
        [[...apply, ...watch], /main at [0-9a-f]+/],
        [[...backfill, ...watch], /Runtime\(s\):/],
      ];
      for (const [argv, done] of rounds) {
        const controller = new AbortController();
        const kcpBefore = kcpProxy.requests.length;
        const gardenBefore = gardenProxy.requests.length;
        const running = startKimops(argv, controller.signal);
        try {
          await eventually(`a round of ${argv[0]} --watch`, async () => (done.test(running.stdout) ? true : undefined));
        } finally {
          controller.abort();
        }
        const result = await running.done;
        expectOk(result, `${argv[0]} --watch`);
        // The watches it held end with it: the proxies have recorded them once this returns.
        expect(kcpProxy.requests.length + gardenProxy.requests.length).toBeGreaterThan(kcpBefore + gardenBefore);
      }
      // Requests still in flight finish (and are recorded) before the proxies stop.
      await kcpProxy.stop();
      await gardenProxy.stop();
      expect(writesSeen(kcpProxy), 'writes to the KCP (--once and --watch)').toEqual([]);
      expect(writesSeen(gardenProxy), 'writes to the Garden (--once and --watch)').toEqual([]);
      // Nothing changed for KEB: the Runtimes as KIM left them.
      for (const { runtime } of names) {
        const live = await env.kcp.get<KubeObject>({ ...RUNTIME, namespace, name: runtime.metadata.name });
        expect(live.ok && readRuntimeStatus(live.body.status).state).toBe('Ready');
      }
    } finally {
      await kcpProxy.close();
      await gardenProxy.close();
    }
  }, 300_000);
});
