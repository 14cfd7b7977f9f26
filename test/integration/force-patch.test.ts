// force-patch-reconciliation on the plane, as KIM does it: the Runtime in the real KCP asks for it, `kimops generate`
// merges one commit raising the Shoot's force-patch counter and takes the annotation off the Runtime (a JSON patch
// that tests it first), and `kimops apply` re-applies the whole Shoot to the real gardener-apiserver by server-side
// apply with force — a field another manager had changed (drift left alone under `drift: report`) is main's again.
// The next generator pass proposes nothing.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ANNOTATION_FORCE_PATCH, FORCE_PATCH_ANNOTATION } from '../../model/contract.js';
import type { KubeObject } from '../../model/kube-object.js';
import { describeFailure } from '../../model/kube-result.js';
import { RUNTIME_API_VERSION, type Runtime } from '../../model/runtime.js';
import { SHOOT_API_VERSION, type Shoot } from '../../model/shoot.js';
import { kimops } from '../helpers/cli.js';
import { GardenletSimulator } from '../helpers/gardenlet-simulator.js';
import { createTestNamespace, landscapeForProject, useTestProject } from '../helpers/projects.js';
import { deleteShoot, exampleRuntime, getShoot } from '../helpers/shoots.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { connect, eventually } from '../helpers/testenv.js';

const env = connect(inject('testenvStateDir'));
const project = useTestProject(env, 'stage');
const dir = useTempDir('force-patch');
const simulator = new GardenletSimulator({ garden: env.garden, intervalMs: 20, progressSteps: [50] });

beforeAll(() => simulator.start());
afterAll(() => simulator.stop());

describe('force-patch-reconciliation through generate and apply', () => {
  it('re-applies the whole Shoot from one merged commit, takes the annotation off the Runtime, then proposes nothing', async () => {
    const landscape = await landscapeForProject(dir, 'landscape', 'stage', project);
    const gitdir = join(dir.path, 'repo.git');
    expect((await kimops(['init', '--landscape', landscape, gitdir])).code).toBe(0);
    const namespace = await createTestNamespace(env.kcp, 'kcp-force-');
    const shoot = `f${randomBytes(4).toString('hex')}`;
    const runtime = exampleRuntime('aws.yaml', shoot);
    runtime.metadata = { ...runtime.metadata, namespace, name: `rt-${shoot}` };
    const ref = { apiVersion: RUNTIME_API_VERSION, kind: 'Runtime', namespace, name: `rt-${shoot}` };
    const created = await env.kcp.create({ ...runtime, ...ref } as unknown as KubeObject);
    expect(created.ok ? 'created' : describeFailure(created)).toBe('created');
    const generate = [...['generate', '--landscape', landscape, '--repo', gitdir], '--once'];
    const kcp = ['--kcp-kubeconfig', join(env.stateDir, 'kcp.kubeconfig'), '--kcp-namespace', namespace];
    const apply = [
      ...['apply', '--landscape', landscape, '--repo', gitdir],
      ...['--garden-kubeconfig', join(env.stateDir, 'garden.kubeconfig'), '--once'],
    ];
    const live = async () => (await getShoot(env.garden, project.namespace, shoot)) as Shoot;
    const maximum = async () => (await live()).spec.provider.workers[0]?.maximum;
    const runtimeAnnotations = async () => {
      const read = await env.kcp.get<KubeObject & Runtime>(ref);
      if (!read.ok) throw new Error(describeFailure(read));
      return read.body.metadata.annotations ?? {};
    };
    const commits = () =>
      Number(
        execFileSync('git', ['--git-dir', gitdir, 'rev-list', '--count', '--no-merges', 'main'], {
          encoding: 'utf8',
        }).trim(),
      );

    try {
      expect((await kimops([...generate, ...kcp])).code).toBe(0);
      expect((await kimops(apply)).code).toBe(0);
      await eventually(`${shoot} reconciled`, async () =>
        (await live())?.status?.lastOperation?.state === 'Succeeded' ? true : undefined,
      );
      const wanted = await maximum();
      // Another field manager changes a field main sets: drift, which `drift: report` leaves alone.
      const byHand = await env.garden.apply(
        {
          apiVersion: SHOOT_API_VERSION,
          kind: 'Shoot',
          metadata: { name: shoot, namespace: project.namespace },
          spec: {
            provider: { workers: (await live()).spec.provider.workers.map((w) => ({ name: w.name, maximum: 30 })) },
          },
        } as KubeObject,
        'sre-by-hand',
        { force: true },
      );
      expect(byHand.ok ? 'applied' : describeFailure(byHand)).toBe('applied');
      expect((await kimops(apply)).stdout).toContain(`${shoot}: drifted`);
      expect(await maximum()).toBe(30);

      // KIM's ConfigReloadWatcher (or an SRE) asks for a forced patch.
      const forced = await env.kcp.patch(ref, { metadata: { annotations: { [ANNOTATION_FORCE_PATCH]: 'true' } } });
      expect(forced.ok ? 'patched' : describeFailure(forced)).toBe('patched');
      const before = commits();
      const proposed = await kimops([...generate, ...kcp]);
      expect(proposed.stderr).toBe('');
      expect(proposed.stdout).toMatch(
        new RegExp(`force-patch +${shoot}: ${namespace}/rt-${shoot}: main holds its re-apply`),
      );
      expect(commits()).toBe(before + 1);
      expect(await runtimeAnnotations()).not.toHaveProperty([ANNOTATION_FORCE_PATCH]);

      const applied = await kimops(apply);
      expect(applied.stderr).toBe('');
      expect(applied.stdout).toMatch(new RegExp(`${shoot}: updated`));
      expect((await live()).metadata.annotations?.[FORCE_PATCH_ANNOTATION]).toBe('1');
      expect(await maximum()).toBe(wanted);

      const quiet = await kimops([...generate, ...kcp]);
      expect(quiet.code).toBe(0);
      expect(quiet.stdout).toContain('0 proposed (0 merged, 0 awaiting review, 0 blocked), 1 unchanged');
      expect(commits()).toBe(before + 1);
    } finally {
      await deleteShoot(env.garden, project.namespace, shoot);
    }
  }, 120_000);
});
