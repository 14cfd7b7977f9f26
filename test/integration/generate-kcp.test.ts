// `kimops generate` reading Runtimes from the real KCP API server (listed with --once, watched with
// --watch) and live Shoots from the real Garden: the sources a production generator uses.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { describeFailure } from '../../model/kube-result.js';
import type { KubeObject } from '../../model/kube-object.js';
import { readPipelineAnnotation } from '../../model/pipeline-facts.js';
import { RUNTIME_API_VERSION, type Runtime } from '../../model/runtime.js';
import type { Shoot } from '../../model/shoot.js';
import { parseYaml11 } from '../../model/yaml-input.js';
import { kimops } from '../helpers/cli.js';
import { createTestNamespace, landscapeForProject, useTestProject } from '../helpers/projects.js';
import { createRendered, exampleRuntime, getShoot } from '../helpers/shoots.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { connect, eventually } from '../helpers/testenv.js';

const env = connect(inject('testenvStateDir'));
const project = useTestProject(env, 'stage');
const dir = useTempDir('generate-kcp');
const kcpKubeconfig = () => join(env.stateDir, 'kcp.kubeconfig');
const gardenKubeconfig = () => join(env.stateDir, 'garden.kubeconfig');

/** The stage landscape (credentials bindings, which Kubernetes 1.34 requires) pointed at this file's Gardener project, a landscape repo for it, and a KCP namespace. */
async function setup() {
  const landscape = await landscapeForProject(dir, 'landscape', 'stage', project);
  const gitdir = join(dir.path, 'repo.git');
  expect((await kimops(['init', '--landscape', landscape, gitdir])).code).toBe(0);
  const namespace = await createTestNamespace(env.kcp, 'kcp-gen-');
  const args = [
    'generate',
    '--landscape',
    landscape,
    '--kcp-kubeconfig',
    kcpKubeconfig(),
    '--kcp-namespace',
    namespace,
    '--repo',
    gitdir,
  ];
  return { gitdir, namespace, args };
}

/** A KEB example Runtime created in `namespace` under a Shoot name unique to this run. */
async function createRuntime(namespace: string, file: string): Promise<string> {
  const shoot = `g${randomBytes(4).toString('hex')}`;
  const runtime = exampleRuntime(file, shoot);
  runtime.metadata = { ...runtime.metadata, namespace, name: `rt-${shoot}` };
  const created = await env.kcp.create({
    ...runtime,
    apiVersion: RUNTIME_API_VERSION,
    kind: 'Runtime',
  } as unknown as KubeObject);
  if (!created.ok) throw new Error(`Runtime ${shoot}: ${describeFailure(created)}`);
  return shoot;
}

const shootsOnMain = (gitdir: string) =>
  execFileSync('git', ['--git-dir', gitdir, 'ls-tree', '--name-only', 'main', 'shoots/'], { encoding: 'utf8' })
    .split('\n')
    .filter((p) => p.startsWith('shoots/') && p !== 'shoots/.gitkeep')
    .map((p) => p.slice('shoots/'.length));
const shootFile = (gitdir: string, shoot: string) =>
  parseYaml11(
    execFileSync('git', ['--git-dir', gitdir, 'show', `main:shoots/${shoot}/shoot.yaml`], { encoding: 'utf8' }),
    shoot,
  ) as Shoot;

describe('kimops generate --kcp-kubeconfig', () => {
  it("--once lists the namespace's Runtimes and proposes their Shoots, recording the Runtime generation", async () => {
    const { gitdir, namespace, args } = await setup();
    const shoots = [await createRuntime(namespace, 'aws.yaml'), await createRuntime(namespace, 'gcp.yaml')];
    const result = await kimops([...args, '--once']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('2 proposed (2 merged');
    expect(shootsOnMain(gitdir).sort()).toEqual(shoots.sort());
    // The API server set generation 1: KIM's applied-generation marker carries it.
    expect(
      shootFile(gitdir, shoots[0] as string).metadata.annotations?.[
        'infrastructuremanager.kyma-project.io/runtime-generation'
      ],
    ).toBe('1');
  });

  it('--once writes what it learned onto each Runtime for the backfiller: the merged PR of its change, or why it could not be converted; a second pass writes nothing', async () => {
    const { gitdir, namespace, args } = await setup();
    const good = await createRuntime(namespace, 'aws.yaml');
    const bad = await createRuntime(namespace, 'gcp.yaml');
    const badRef = { apiVersion: RUNTIME_API_VERSION, kind: 'Runtime', namespace, name: `rt-${bad}` };
    const unlabelled = await env.kcp.patch(badRef, { metadata: { labels: { 'kyma-project.io/region': null } } });
    expect(unlabelled.ok ? 'patched' : describeFailure(unlabelled)).toBe('patched');

    const result = await kimops([...args, '--once']);
    expect(result.code).toBe(1); // one Runtime failed to convert
    expect(result.stderr).toContain(`runtime ${namespace}/rt-${bad}: `);
    const facts = async (shoot: string) => {
      const read = await env.kcp.get<KubeObject & Runtime>({
        apiVersion: RUNTIME_API_VERSION,
        kind: 'Runtime',
        namespace,
        name: `rt-${shoot}`,
      });
      if (!read.ok) throw new Error(describeFailure(read));
      return {
        value: readPipelineAnnotation(read.body.metadata.annotations),
        resourceVersion: read.body.metadata.resourceVersion,
      };
    };
    const main = execFileSync('git', ['--git-dir', gitdir, 'rev-parse', 'main'], { encoding: 'utf8' }).trim();
    const goodFacts = await facts(good);
    expect(goodFacts.value).toEqual({
      generation: 1,
      proposal: {
        url: expect.stringMatching(new RegExp(`^kimops pr show \\d+ --repo ${gitdir}$`)),
        state: 'merged',
        commit: main,
      },
    });
    const badFacts = await facts(bad);
    expect(badFacts.value).toEqual({
      generation: 1,
      conversionError: expect.stringContaining('kyma-project.io/region'),
    });

    const again = await kimops([...args, '--once']);
    expect(again.code).toBe(1);
    expect((await facts(good)).resourceVersion).toBe(goodFacts.resourceVersion);
    expect((await facts(bad)).resourceVersion).toBe(badFacts.resourceVersion);
  });

  it('--garden-kubeconfig adopts what Gardener changed on the live Shoot (a Kubernetes update)', async () => {
    const { gitdir, namespace, args } = await setup();
    const shoot = await createRuntime(namespace, 'aws.yaml');
    expect((await kimops([...args, '--once'])).code).toBe(0);
    // The Shoot as the applier would create it, then updated by Gardener's maintenance to a newer version.
    const desired = shootFile(gitdir, shoot);
    const companions = execFileSync(
      'git',
      ['--git-dir', gitdir, 'ls-tree', '--name-only', 'main', `shoots/${shoot}/`],
      { encoding: 'utf8' },
    )
      .split('\n')
      .filter((p) => p.endsWith('.yaml') && !p.endsWith('/shoot.yaml'))
      .map((p) =>
        parseYaml11(execFileSync('git', ['--git-dir', gitdir, 'show', `main:${p}`], { encoding: 'utf8' }), p),
      );
    await createRendered(env.garden, { shoot: desired, companions: companions as never });
    const updated = await env.garden.patch(
      { apiVersion: 'core.gardener.cloud/v1beta1', kind: 'Shoot', namespace: project.namespace, name: shoot },
      { spec: { kubernetes: { version: '1.34.1' } } },
    );
    expect(updated.ok ? 'patched' : describeFailure(updated)).toBe('patched');

    const result = await kimops([...args, '--garden-kubeconfig', gardenKubeconfig(), '--once']);
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(new RegExp(`adopt +${shoot}: #\\d+ opened, merged`));
    expect(shootFile(gitdir, shoot).spec.kubernetes.version).toBe('1.34.1');
    expect((await getShoot(env.garden, project.namespace, shoot))?.spec.kubernetes.version).toBe('1.34.1');
  });

  it('--watch proposes a new Runtime when the KCP API announces it, and stops on the signal', async () => {
    const { gitdir, namespace, args } = await setup();
    const first = await createRuntime(namespace, 'azure.yaml');
    const controller = new AbortController();
    // An interval far beyond the test: only the watch event can bring the second Runtime in.
    const running = kimops([...args, '--watch', '--interval', '3600'], '', controller.signal);
    try {
      await eventually('the first Shoot on main', async () =>
        shootsOnMain(gitdir).includes(first) ? true : undefined,
      );
      const second = await createRuntime(namespace, 'gcp.yaml');
      await eventually('the second Shoot on main', async () =>
        shootsOnMain(gitdir).includes(second) ? true : undefined,
      );
    } finally {
      controller.abort();
    }
    const result = await running;
    expect(result.code).toBe(0);
    expect(result.stdout.match(/1 proposed \(1 merged/g)).toHaveLength(2);
  });

  it('--once against an unreachable KCP API exits 69 naming the kubeconfig and the fix', async () => {
    const { args } = await setup();
    const broken = await dir.write(
      'broken.kubeconfig',
      readFileSync(kcpKubeconfig(), 'utf8').replace(
        /server: https:\/\/127\.0\.0\.1:\d+/,
        'server: https://127.0.0.1:9',
      ),
    );
    const result = await kimops([...args.map((a) => (a === kcpKubeconfig() ? broken : a)), '--once']);
    expect(result.code).toBe(69);
    expect(result.stderr).toContain(`kubeconfig ${broken}`);
    expect(result.stderr).toContain("check that the API server runs and the kubeconfig's server address");
  });

  it('--watch against a KCP API that never answers stops on the signal, having said why it waits', async () => {
    const { args } = await setup();
    const broken = await dir.write(
      'broken.kubeconfig',
      readFileSync(kcpKubeconfig(), 'utf8').replace(
        /server: https:\/\/127\.0\.0\.1:\d+/,
        'server: https://127.0.0.1:9',
      ),
    );
    const controller = new AbortController();
    const running = kimops(
      [...args.map((a) => (a === kcpKubeconfig() ? broken : a)), '--watch'],
      '',
      controller.signal,
    );
    await new Promise((resolve) => setTimeout(resolve, 1500));
    controller.abort();
    const result = await running;
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('https://127.0.0.1:9');
    expect(result.stderr).not.toContain('internal error');
  });
});
