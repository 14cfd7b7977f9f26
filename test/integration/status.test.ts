// `kimops status` on the real KCP API server and gardener-apiserver, the gardenlet simulator playing Gardener: a
// Runtime as KEB creates it, taken through the pipeline by one-shot commands (generate: its create PR auto-merged;
// apply: its Shoot and its cluster configured; backfill: Ready and the kubeconfig Secret). The status shows it Ready
// and in sync, its PR merged, each step of its timeline and its kubeconfig's expiry; after a live change to a field
// main sets, drifted with that field named; the text starts with the summary line.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CONTENT_TYPE } from '../../adapters/kube/kube-client.js';
import { describeFailure } from '../../model/kube-result.js';
import type { KubeObject } from '../../model/kube-object.js';
import { LABEL_RUNTIME_ID } from '../../model/contract.js';
import { RUNTIME_API_VERSION, type Runtime } from '../../model/runtime.js';
import type { RuntimeStatus } from '../../model/runtime-status.js';
import type { LandscapeStatus, RuntimeRow } from '../../status/landscape-status.js';
import { kimops, expectOk } from '../helpers/cli.js';
import { GardenletSimulator } from '../helpers/gardenlet-simulator.js';
import { createTestNamespace, landscapeForProject, useTestProject } from '../helpers/projects.js';
import { planeRuntime } from '../helpers/plane-runtime.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { connect, eventually, planeAsShootCluster } from '../helpers/testenv.js';

const env = connect(inject('testenvStateDir'));
const project = useTestProject(env, 'stage');
const dir = useTempDir('status');
const simulator = new GardenletSimulator({
  garden: env.garden,
  intervalMs: 20,
  progressSteps: [50],
  runtimeCluster: planeAsShootCluster(env),
});
beforeAll(() => simulator.start());
afterAll(() => simulator.stop());

const kcpKubeconfig = () => join(env.stateDir, 'kcp.kubeconfig');
const gardenKubeconfig = () => join(env.stateDir, 'garden.kubeconfig');
const RUNTIME = { apiVersion: RUNTIME_API_VERSION, kind: 'Runtime' } as const;
const SHOOT = { apiVersion: 'core.gardener.cloud/v1beta1', kind: 'Shoot' } as const;
const MAXIMUM = 'spec.provider.workers[cpu-worker-0].maximum';
const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;

type LiveRuntime = Runtime & { status?: RuntimeStatus };

describe('kimops status', () => {
  it('shows a Runtime Ready and in sync with its timeline, then drifted with the field named', async () => {
    const landscape = await landscapeForProject(dir, 'landscape', 'stage', project);
    const gitdir = join(dir.path, 'landscape.git');
    expectOk(await kimops(['init', '--landscape', landscape, gitdir]), 'init');
    const namespace = await createTestNamespace(env.kcp, 'kcp-status-');
    const planned = planeRuntime(env, namespace);
    const { shoot, runtime: example } = planned;
    await planned.create();
    const kcp = ['--kcp-kubeconfig', kcpKubeconfig(), '--kcp-namespace', namespace];
    const garden = ['--garden-kubeconfig', gardenKubeconfig()];
    try {
      expectOk(await kimops(['generate', '--landscape', landscape, ...kcp, '--repo', gitdir, '--once']), 'generate');
      const apply = ['apply', '--landscape', landscape, '--repo', gitdir, ...garden, '--once'];
      const backfill = ['backfill', '--landscape', landscape, ...kcp, ...garden, '--once'];
      // The applier configures the cluster once Gardener reconciled the Shoot; the backfiller then reports Ready.
      await eventually(
        'the Runtime Ready',
        async () => {
          expectOk(await kimops(apply), 'apply');
          expectOk(await kimops(backfill), 'backfill');
          const got = await env.kcp.get<KubeObject & LiveRuntime>({ ...RUNTIME, namespace, name: `rt-${shoot}` });
          return got.ok && got.body.status?.state === 'Ready' ? true : undefined;
        },
        120_000,
        500,
      );

      const args = ['status', '--repo', gitdir, ...kcp, ...garden];
      const json = await kimops([...args, '-o', 'json']);
      expectOk(json, 'status');
      const status = JSON.parse(json.stdout) as LandscapeStatus;
      expect(status.sources.every((source) => source.state === 'read')).toBe(true);
      const row = status.rows.find((r) => r.shoot === shoot) as RuntimeRow;
      const runtimeID = example.metadata.labels?.[LABEL_RUNTIME_ID];
      expect(row).toMatchObject({
        key: `${namespace}/rt-${shoot}`,
        runtime: { namespace, name: `rt-${shoot}`, id: runtimeID, generation: 1, state: 'Ready', leader: 'kimops' },
        stage: 'ready',
        sync: 'in-sync',
        pr: { number: 1, state: 'merged' },
        lastOperation: { state: 'Succeeded', progress: 100 },
      });
      expect(row.applied?.tree).toBe(row.mainTree);
      expect(row.failure).toBeUndefined();
      // Every step recorded, in the order they happened.
      const steps = [
        row.timeline.changed,
        row.timeline.proposed,
        row.timeline.merged,
        row.timeline.applied,
        row.timeline.ready,
      ];
      for (const step of steps) expect(step).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
      // In whole seconds: git and managedFields keep no more, the local forge keeps milliseconds.
      const times = steps.map((step) => Math.floor(Date.parse(step ?? '') / 1000));
      expect([...times].sort((a, b) => a - b)).toEqual(times);
      expect(row.kubeconfig?.syncedAt).toMatch(RFC3339);
      expect(Date.parse(row.kubeconfig?.expiresAt ?? '') - Date.parse(row.kubeconfig?.syncedAt ?? '')).toBe(86_400_000);
      expect(status.summary).toMatchObject({ runtimes: 1, byState: { Ready: 1 }, drifted: 0, outOfSync: 0, failed: 0 });
      expect(status.latency.find((h) => h.stage === 'total')?.count).toBe(1);

      // A live change to a field main sets, by someone else: the Shoot is drifted, the field named.
      const patched = await env.garden.patch(
        { ...SHOOT, namespace: project.namespace, name: shoot },
        [{ op: 'replace', path: '/spec/provider/workers/0/maximum', value: 7 }],
        CONTENT_TYPE.jsonPatch,
      );
      if (!patched.ok) throw new Error(`patch Shoot ${shoot}: ${describeFailure(patched)}`);
      const drifted = JSON.parse((await kimops([...args, '-o', 'json'])).stdout) as LandscapeStatus;
      expect(drifted.rows.find((r) => r.shoot === shoot)).toMatchObject({ sync: 'drifted', drift: [MAXIMUM] });
      expect(drifted.summary.drifted).toBe(1);

      const text = await kimops([...args, '--state', 'drifted']);
      expectOk(text, 'status');
      const lines = text.stdout.split('\n');
      expect(lines[0]).toMatch(
        /^landscape stage: 1 Runtime: 1 Ready; \d+ PRs? open.*; main [0-9a-f]{12}; 0 out of sync, 1 drifted, 0 failed; 0 kubeconfigs expiring$/,
      );
      expect(lines[1]).toBe('');
      expect(lines[2]).toMatch(/^NAME +STATE +STAGE +PR +APPLIED +LAST OPERATION +MESSAGE$/);
      expect(lines[3]).toContain(`${namespace}/rt-${shoot}`);
      expect(lines[3]).toContain(`live Shoot differs from main in ${MAXIMUM}`);
      // Filtered out: no row is Failed.
      const none = await kimops([...args, '--state', 'Failed']);
      expect(none.stdout.trim().split('\n')).toHaveLength(3);
    } finally {
      // The plane's kube-apiserver is every test's SKR: what the applier put there for this Runtime goes.
      await planned.cleanSkr();
    }
  });
});
