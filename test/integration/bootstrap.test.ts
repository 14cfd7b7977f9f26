// `kimops bootstrap` on the real plane (issue 20): a landscape KIM runs — Shoots made as KIM makes them (kimops's
// converter in create mode, server-side applied with KIM's field manager `kim`), one of them edited live in a known
// field, one live Shoot without a Runtime, one Runtime without a live Shoot — put into an empty landscape repo.
// One PR, one commit, every Runtime's live Shoot in it, KIM-led (`defaultLeader: kim`); the report names exactly the
// edited field, the Runtime-less Shoot and the Shoot-less Runtime; nothing is written to the KCP or the Garden; a
// second run changes nothing; merged, an applier plan over main (apply --dry-run) changes nothing but that field.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { convertRuntime } from '../../generator/convert/index.js';
import type { BootstrapReport } from '../../generator/bootstrap-report.js';
import { describeFailure } from '../../model/kube-result.js';
import type { KubeObject } from '../../model/kube-object.js';
import { conversionSettingsOf } from '../../model/landscape.js';
import { parseLandscape } from '../../model/landscape-parse.js';
import { RUNTIME_API_VERSION, type Runtime } from '../../model/runtime.js';
import { SHOOT_API_VERSION } from '../../model/shoot.js';
import { kimops } from '../helpers/cli.js';
import { createTestNamespace, landscapeForProject, useTestProject } from '../helpers/projects.js';
import { exampleRuntime } from '../helpers/shoots.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { connect } from '../helpers/testenv.js';
import { KIM_FIELD_MANAGER } from '../../model/contract.js';

const env = connect(inject('testenvStateDir'));
const project = useTestProject(env, 'dev');
const dir = useTempDir('bootstrap');

const git = (gitdir: string, ...args: string[]) =>
  execFileSync('git', ['--git-dir', gitdir, ...args], { encoding: 'utf8' }).trim();
const SHOOT = { apiVersion: SHOOT_API_VERSION, kind: 'Shoot' } as const;

describe('kimops bootstrap', () => {
  it('puts every live Shoot into one reviewed commit, reports exactly what differs, and writes nothing else', async () => {
    const landscapeFile = await landscapeForProject(dir, 'landscape', 'dev', project);
    const text = `${await readFile(landscapeFile, 'utf8')}defaultLeader: kim\n`;
    await dir.write('landscape/landscape.yaml', text);
    const settings = conversionSettingsOf(parseLandscape(text, landscapeFile));
    const gitdir = join(dir.path, 'landscape.git');
    expect((await kimops(['init', '--landscape', landscapeFile, gitdir])).code).toBe(0);
    const kcpNamespace = await createTestNamespace(env.kcp, 'kcp-boot-');
    const id = randomBytes(2).toString('hex');
    const [aws, gcp, fresh, orphan] = ['aws', 'gcp', 'new', 'orph'].map((n) => `b${n.slice(0, 2)}${id}`) as [
      string,
      string,
      string,
      string,
    ];

    const runtimes: Runtime[] = [];
    for (const [file, shoot] of [
      ['aws.yaml', aws],
      ['gcp.yaml', gcp],
      ['azure.yaml', fresh],
    ] as const) {
      const runtime = exampleRuntime(file, shoot);
      runtime.metadata = { ...runtime.metadata, namespace: kcpNamespace, name: `rt-${shoot}` };
      const created = await env.kcp.create({ ...runtime, apiVersion: RUNTIME_API_VERSION, kind: 'Runtime' } as never);
      if (!created.ok) throw new Error(`Runtime ${shoot}: ${describeFailure(created)}`);
      // As KIM renders: the Runtime the KCP holds (its generation set by the API server).
      runtimes.push(created.body as unknown as Runtime);
    }
    // The live Shoots, as KIM writes them; gcp's first worker edited by hand, and one Shoot whose Runtime is gone.
    const kimWrites = async (
      runtime: Runtime,
      edit: (shoot: KubeObject & { spec: never }) => void = () => undefined,
    ) => {
      const converted = convertRuntime({ runtime, settings });
      if (!converted.ok) throw converted.error;
      for (const companion of converted.companions) await applyAsKim(companion as unknown as KubeObject);
      const shoot = structuredClone(converted.shoot) as unknown as KubeObject & { spec: never };
      edit(shoot);
      await applyAsKim(shoot);
    };
    const [awsRuntime, gcpRuntime] = runtimes as [Runtime, Runtime];
    await kimWrites(awsRuntime);
    let worker = '';
    let maximum = 0;
    await kimWrites(gcpRuntime, (shoot) => {
      const first = (shoot.spec as { provider: { workers: { name: string; maximum: number }[] } }).provider.workers[0];
      if (!first) throw new Error('gcp has no worker');
      worker = first.name;
      maximum = first.maximum;
      first.maximum += 3;
    });
    await kimWrites(exampleRuntime('gcp.yaml', orphan));

    const written = await resourceVersions(kcpNamespace);
    const bootstrap = [
      ...['bootstrap', '--landscape', landscapeFile, '--repo', gitdir],
      ...['--kcp-kubeconfig', join(env.stateDir, 'kcp.kubeconfig'), '--kcp-namespace', kcpNamespace],
      ...['--garden-kubeconfig', join(env.stateDir, 'garden.kubeconfig')],
      ...['--report', join(dir.path, 'report.json')],
    ];
    const first = await kimops(bootstrap);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);

    // One PR, one commit over main, every Runtime's live Shoot in it, marked as KIM's.
    const branch = 'kimops/dev-bootstrap';
    expect(git(gitdir, 'rev-list', '--count', `main..${branch}`)).toBe('1');
    expect(git(gitdir, 'ls-tree', '--name-only', `${branch}:shoots`).split('\n').sort()).toEqual(
      ['.gitkeep', aws, gcp].sort(),
    );
    expect(git(gitdir, 'show', `${branch}:shoots/${aws}/shoot.yaml`)).toContain('kimops.kyma-project.io/leader: kim');
    const list = await kimops(['pr', 'list', '--repo', gitdir]);
    const pulls = list.stdout.split('\n').filter((line) => /^#\d+/.test(line));
    expect(pulls).toHaveLength(1);

    // The report: exactly the edited field, the Runtime-less Shoot, the Shoot-less Runtime.
    const report = JSON.parse(await readFile(join(dir.path, 'report.json'), 'utf8')) as BootstrapReport;
    expect(report.clusters).toEqual([{ path: `spec.provider.workers[${worker}].maximum`, count: 1, shoots: [gcp] }]);
    expect(report.withoutRuntime).toEqual([orphan]);
    expect(report.withoutShoot).toEqual([{ runtime: `${kcpNamespace}/rt-${fresh}`, shoot: fresh }]);
    expect(report.written.map((w) => [w.shoot, w.leader])).toEqual([aws, gcp].sort().map((shoot) => [shoot, 'kim']));
    // Nothing written to the KCP or the Garden.
    expect(await resourceVersions(kcpNamespace)).toEqual(written);

    // Again: nothing changes.
    const head = git(gitdir, 'rev-parse', branch);
    const second = await kimops(bootstrap);
    expect(second.stderr).toBe('');
    expect(second.code).toBe(0);
    expect(git(gitdir, 'rev-parse', branch)).toBe(head);
    expect((await kimops(['pr', 'list', '--repo', gitdir])).stdout).toBe(list.stdout);

    // Reviewed and merged: the applier's plan over main changes nothing but the field the report named.
    const number = /^#(\d+)/.exec(pulls[0] ?? '')?.[1] ?? '';
    expect((await kimops(['pr', 'approve', number, '--repo', gitdir, '--as', 'sre'])).code).toBe(0);
    const merged = await kimops(['pr', 'merge', number, '--repo', gitdir]);
    expect(merged.stderr).toBe('');
    expect(merged.code).toBe(0);
    const plan = await kimops([
      ...['apply', '--landscape', landscapeFile, '--repo', gitdir, '--once', '--dry-run'],
      ...['--garden-kubeconfig', join(env.stateDir, 'garden.kubeconfig')],
    ]);
    expect(plan.stderr).toBe('');
    expect(plan.code).toBe(0);
    // Each Shoot's planned field changes (the plan's lines `    spec.… a → b`): only the one the report named.
    const blocks = plan.stdout.split('► ').slice(1);
    const specChanges = (shoot: string) =>
      (blocks.find((b) => b.startsWith(`Shoot/${project.namespace}/${shoot} `)) ?? '')
        .split('\n')
        .filter((line) => /^\s+spec\./.test(line))
        .map((line) => line.trim());
    expect(specChanges(gcp)).toEqual([`spec.provider.workers[${worker}].maximum ${maximum + 3} → ${maximum}`]);
    expect(specChanges(aws)).toEqual([]);
    expect(await resourceVersions(kcpNamespace)).toEqual(written);
  });
});

async function applyAsKim(object: KubeObject): Promise<void> {
  const applied = await env.garden.apply(
    { ...object, metadata: { ...object.metadata, namespace: project.namespace } },
    KIM_FIELD_MANAGER,
    {
      force: true,
    },
  );
  if (!applied.ok) throw new Error(`${object.kind} ${object.metadata.name}: ${describeFailure(applied)}`);
}

/**
 * Every Runtime of the namespace (by resourceVersion) and every Shoot of the project (its spec, labels and annotations:
 * a gardenlet simulator of another test may write any Shoot's status meanwhile): what a write by kimops would move.
 */
async function resourceVersions(kcpNamespace: string): Promise<Record<string, string>> {
  const versions: Record<string, string> = {};
  const runtimes = await env.kcp.listAll({ apiVersion: RUNTIME_API_VERSION, kind: 'Runtime', namespace: kcpNamespace });
  const shoots = await env.garden.listAll<KubeObject & { spec: unknown }>({ ...SHOOT, namespace: project.namespace });
  if (!runtimes.ok || !shoots.ok) throw new Error('cannot list the Runtimes or Shoots');
  for (const runtime of runtimes.items)
    versions[`Runtime/${runtime.metadata.name}`] = runtime.metadata.resourceVersion ?? '';
  for (const { metadata, spec } of shoots.items)
    versions[`Shoot/${metadata.name}`] = JSON.stringify([metadata.labels, metadata.annotations, spec]);
  return versions;
}
