// `kimops validate --garden-kubeconfig`: each changed Shoot (and its companions) applied with dryRun=All
// against the real gardener-apiserver, whose verdict is reported beside the policies; nothing written.
import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import type { KubeObject } from '../../model/kube-object.js';
import { parseYaml11 } from '../../model/yaml-input.js';
import { kimops } from '../helpers/cli.js';
import { landscapeForProject, useTestProject } from '../helpers/projects.js';
import { getShoot } from '../helpers/shoots.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { connect } from '../helpers/testenv.js';

const env = connect(inject('testenvStateDir'));
const project = useTestProject(env, 'stage');
const dir = useTempDir('validate-dry-run');

/** A stage landscape repo for this file's project, the aws example merged, checked out. */
async function checkout(): Promise<{ work: string; landscape: string }> {
  const landscape = await landscapeForProject(dir, 'landscape', 'stage', project);
  const gitdir = join(dir.path, 'landscape.git');
  expect((await kimops(['init', '--landscape', landscape, gitdir])).code).toBe(0);
  expect(
    (
      await kimops([
        'generate',
        '--landscape',
        landscape,
        '--runtimes',
        'examples/runtimes/keb/aws.yaml',
        '--repo',
        gitdir,
        '--once',
      ])
    ).code,
  ).toBe(0);
  const work = join(dir.path, 'work');
  execFileSync('git', ['clone', '--quiet', gitdir, work]);
  return { work, landscape };
}

const SHOOT = 'shoots/c-78fcc25/shoot.yaml';

async function edit(path: string, change: (text: string) => string): Promise<void> {
  await writeFile(path, change(await readFile(path, 'utf8')));
}

describe('kimops validate --garden-kubeconfig', () => {
  it("passes a change the Garden accepts, and reports the Garden's refusal of one it does not, writing nothing", async () => {
    const { work, landscape } = await checkout();
    const args = [
      'validate',
      work,
      '--landscape',
      landscape,
      '--base',
      'origin/main',
      '--garden-kubeconfig',
      join(env.stateDir, 'garden.kubeconfig'),
    ];
    await edit(join(work, SHOOT), (text) => text.replace('maximum: 20', 'maximum: 24'));
    // The structured-auth ConfigMap is not in the Garden yet: the Shoot cannot be dry-run, and that is said.
    const unchecked = await kimops(args);
    expect(unchecked.code).toBe(0);
    expect(unchecked.stdout).toContain(
      '! shoots/c-78fcc25/shoot.yaml: dry-run: not checked by the Garden: it refers to ConfigMap structured-auth-config-c-78fcc25',
    );

    const companion = parseYaml11(
      await readFile(join(work, 'shoots/c-78fcc25/configmap-structured-auth-config-c-78fcc25.yaml'), 'utf8'),
      'companion',
    ) as KubeObject;
    expect((await env.garden.apply(companion, 'kimops-test', { force: true })).ok).toBe(true);
    const accepted = await kimops(args);
    expect(accepted.stderr).toBe('');
    expect(accepted.stdout).toBe(
      '1 Shoots checked changed against origin/main (0 unchanged): 0 create, 1 update, 0 delete; 0 denied, 0 warnings\n',
    );
    expect(accepted.code).toBe(0);

    // A machine type the CloudProfile does not offer: no policy knows, gardener-apiserver's admission does.
    await edit(join(work, SHOOT), (text) =>
      text.replace(/machine:\n(\s+)image:/, 'machine:\n$1image:').replace(/type: m6i\.large/, 'type: m6i.nonexistent'),
    );
    const refused = await kimops(args);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(
      /✗ shoots\/c-78fcc25\/shoot\.yaml: dry-run: the Garden refuses it: 4\d\d \w+: .*m6i\.nonexistent/,
    );
    expect(await getShoot(env.garden, project.namespace, 'c-78fcc25')).toBeUndefined();
  });
});
