// No adopt PR for what gardener-apiserver defaults (ADR 0009), on the real plane: KEB's 15 example Runtimes
// created in the KCP, their 15 create PRs merged and applied to the plane's gardener-apiserver, which adds its
// defaults (`spec.networking.ipFamilies`, each worker's `updateStrategy`, …). A generator pass that reads the
// Garden then proposes nothing, and the applier sees no drift; a change Gardener's maintenance makes to a field
// main sets (a Kubernetes patch version, a machine image version) is still adopted, for that Shoot alone.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { CONTENT_TYPE } from '../../adapters/kube/kube-client.js';
import { describeFailure } from '../../model/kube-result.js';
import type { KubeObject } from '../../model/kube-object.js';
import { RUNTIME_API_VERSION } from '../../model/runtime.js';
import { SHOOT_API_VERSION, type Shoot } from '../../model/shoot.js';
import { parseYaml11 } from '../../model/yaml-input.js';
import { kimops } from '../helpers/cli.js';
import { createTestNamespace, landscapeForProject, useTestProject } from '../helpers/projects.js';
import { exampleRuntimes, getShoot } from '../helpers/shoots.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { connect } from '../helpers/testenv.js';

const env = connect(inject('testenvStateDir'));
const project = useTestProject(env, 'stage');
const dir = useTempDir('adopt-defaults');

/** Versions the plane's CloudProfiles offer: the landscape starts below them, so maintenance can raise both. */
const KUBERNETES = { landscape: '1.33.1', maintained: '1.33.3' };
const IMAGE = { landscape: '1592.1.0', maintained: '1877.4.0' };

/** The stage landscape for this file's project, at the lower versions. */
async function landscape(): Promise<string> {
  const path = await landscapeForProject(dir, 'landscape', 'stage', project);
  const shipped = await readFile(path, 'utf8');
  const lowered = shipped
    .replace(/defaultVersion: "[^"]+"/, `defaultVersion: "${KUBERNETES.landscape}"`)
    .replace(/(machineImage:\n {2}name: gardenlinux\n {2}version:) "[^"]+"/, `$1 "${IMAGE.landscape}"`);
  expect(lowered.match(new RegExp(`"(${KUBERNETES.landscape}|${IMAGE.landscape})"`, 'g'))).toHaveLength(2);
  await writeFile(path, lowered);
  return path;
}

const git = (gitdir: string, ...args: string[]) =>
  execFileSync('git', ['--git-dir', gitdir, ...args], { encoding: 'utf8' }).trim();
const mainShoot = (gitdir: string, shoot: string) =>
  parseYaml11(git(gitdir, 'show', `main:shoots/${shoot}/shoot.yaml`), shoot) as Shoot;
/** The PRs a generator run printed, as `<class> <shoot>`. */
const proposals = (stdout: string) =>
  [...stdout.matchAll(/^([a-z-]+) +(\S+): #\d+ opened/gm)].map(([, kind, shoot]) => `${kind} ${shoot}`).sort();

describe('adopting only what Gardener changed, never what gardener-apiserver defaulted', () => {
  it('15 creates → 15 PRs, applied; then 0 adopts; a maintenance update on two Shoots → exactly those two adopted', async () => {
    const landscapeFile = await landscape();
    const gitdir = join(dir.path, 'landscape.git');
    expect((await kimops(['init', '--landscape', landscapeFile, gitdir])).code).toBe(0);
    const namespace = await createTestNamespace(env.kcp, 'kcp-adopt-');
    const shoots: string[] = [];
    for (const { file, runtime } of exampleRuntimes()) {
      const shoot = `a${randomBytes(3).toString('hex')}`;
      runtime.spec.shoot.name = shoot;
      runtime.metadata = { ...runtime.metadata, namespace, name: `rt-${shoot}` };
      const created = await env.kcp.create({ ...runtime, apiVersion: RUNTIME_API_VERSION, kind: 'Runtime' } as never);
      expect(created.ok ? 'created' : `${file}: ${describeFailure(created)}`).toBe('created');
      shoots.push(shoot);
    }
    expect(shoots).toHaveLength(15);
    const garden = join(env.stateDir, 'garden.kubeconfig');
    const generate = [
      ...['generate', '--landscape', landscapeFile, '--repo', gitdir, '--once'],
      ...['--kcp-kubeconfig', join(env.stateDir, 'kcp.kubeconfig'), '--kcp-namespace', namespace],
    ];
    const withGarden = [...generate, '--garden-kubeconfig', garden];
    const apply = ['apply', '--landscape', landscapeFile, '--repo', gitdir, '--garden-kubeconfig', garden, '--once'];

    // 15 creates, merged, applied to gardener-apiserver.
    const creates = await kimops(generate);
    expect(creates.stderr).toBe('');
    expect(proposals(creates.stdout)).toEqual(shoots.map((shoot) => `create ${shoot}`).sort());
    expect(creates.stdout).toContain('15 proposed (15 merged');
    const applied = await kimops(apply);
    expect(applied.stderr).toBe('');
    expect(applied.stdout).toContain('15 applied, 0 unchanged, 0 blocked, 0 failed');

    // The premise: the Garden's Shoots carry defaults main's manifests do not state.
    const served = await getShoot(env.garden, project.namespace, shoots[0] as string);
    expect(served?.spec.networking.ipFamilies).toEqual(['IPv4']);
    expect(served?.spec.provider.workers[0]?.updateStrategy).toBe('AutoRollingUpdate');
    expect(mainShoot(gitdir, shoots[0] as string).spec.networking.ipFamilies).toBeUndefined();

    // The generator with the Garden proposes nothing; the applier has nothing to write and sees no drift.
    const main = git(gitdir, 'rev-parse', 'main');
    const quiet = await kimops(withGarden);
    expect(quiet.stderr).toBe('');
    expect(quiet.code).toBe(0);
    expect(proposals(quiet.stdout)).toEqual([]);
    expect(quiet.stdout).toContain('0 proposed');
    expect(git(gitdir, 'rev-parse', 'main')).toBe(main);
    expect((await kimops(apply)).stdout).toContain('0 applied, 15 unchanged, 0 blocked, 0 failed');

    // Gardener's maintenance: a Kubernetes patch version on one Shoot, a machine image version on another.
    const [patched, imaged] = shoots as [string, string];
    const maintain = async (shoot: string, path: string, value: string) => {
      const ref = { apiVersion: SHOOT_API_VERSION, kind: 'Shoot', namespace: project.namespace, name: shoot };
      const result = await env.garden.patch(ref, [{ op: 'replace', path, value }], CONTENT_TYPE.jsonPatch);
      expect(result.ok ? 'patched' : describeFailure(result)).toBe('patched');
    };
    await maintain(patched, '/spec/kubernetes/version', KUBERNETES.maintained);
    await maintain(imaged, '/spec/provider/workers/0/machine/image/version', IMAGE.maintained);

    const adopted = await kimops(withGarden);
    expect(adopted.stderr).toBe('');
    expect(proposals(adopted.stdout)).toEqual([`adopt ${patched}`, `adopt ${imaged}`].sort());
    expect(adopted.stdout).toContain('2 proposed (2 merged');
    expect(mainShoot(gitdir, patched).spec.kubernetes.version).toBe(KUBERNETES.maintained);
    expect(mainShoot(gitdir, imaged).spec.provider.workers[0]?.machine.image?.version).toBe(IMAGE.maintained);
    // What main adopted is the maintenance change alone, no default with it.
    for (const shoot of [patched, imaged]) {
      expect(mainShoot(gitdir, shoot).spec.networking.ipFamilies).toBeUndefined();
      expect(mainShoot(gitdir, shoot).spec.provider.workers[0]?.updateStrategy).toBeUndefined();
    }

    // main caught up: the applier only records the commit on the two Shoots, the next pass proposes nothing.
    const recorded = await kimops(apply);
    expect(recorded.stderr).toBe('');
    for (const shoot of [patched, imaged])
      expect(recorded.stdout).toContain(`on Shoot ${shoot}: main changed its folder, nothing of the Shoot to write`);
    expect(recorded.stdout).toContain('2 applied, 13 unchanged, 0 blocked, 0 failed');
    expect((await kimops(apply)).stdout).toContain('0 applied, 15 unchanged, 0 blocked, 0 failed');
    const after = await kimops(withGarden);
    expect(proposals(after.stdout)).toEqual([]);
    expect(after.stdout).toContain('0 proposed');
    const live = await env.garden.listAll<KubeObject & Shoot>({
      apiVersion: SHOOT_API_VERSION,
      kind: 'Shoot',
      namespace: project.namespace,
    });
    expect(live.ok ? live.items.length : live.message).toBe(15);
  }, 240_000);
});
