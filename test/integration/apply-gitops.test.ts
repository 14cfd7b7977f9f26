// Issue 6's acceptance for what makes the applier a GitOps tool, against the real gardener-apiserver with the
// gardenlet simulator: updates (a new zone through a reviewed PR, an extension toggled), rollback by `git revert`
// (except what Gardener forbids, which is reported, not forced), another field manager changing a kimops-owned
// field under each drift mode, Gardener's own version update kept (and adopted through the generator's PR), a
// mass deletion approved by a commit trailer, KIM's seed check, a take-over of KIM's Shoot
// in shadow mode and then as field manager `kim`, a stuck deletion force-deleted where the landscape allows it,
// an operation past its timeout annotated, and the confirmation of an interrupted deletion removed once the
// Shoot is desired again.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { readApplyReport } from '../../rules/apply-report.js';
import {
  APPLIED_TREE_ANNOTATION,
  FORCE_DELETION_ANNOTATION,
  OWNERSHIP_LABEL,
  DELETION_CONFIRMATION_ANNOTATION,
  OPERATION_TIMED_OUT_ANNOTATION,
  SKR_APPLIED_TREE_ANNOTATION,
} from '../../model/contract.js';
import { DRIFT_REASON } from '../../applier/events.js';
import type { KubeObject } from '../../model/kube-object.js';
import { RUNTIME_API_VERSION } from '../../model/runtime.js';
import { SHOOT_API_VERSION, type Shoot } from '../../model/shoot.js';
import { kimops } from '../helpers/cli.js';
import { GardenletSimulator } from '../helpers/gardenlet-simulator.js';
import { createTestNamespace, landscapeForProject, useTestProject } from '../helpers/projects.js';
import { deleteShoot, exampleRuntime, getShoot } from '../helpers/shoots.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { connect, eventually, planeAsShootCluster } from '../helpers/testenv.js';

const env = connect(inject('testenvStateDir'));
const project = useTestProject(env, 'stage');
const dir = useTempDir('apply-gitops');
const simulator = new GardenletSimulator({
  garden: env.garden,
  intervalMs: 20,
  progressSteps: [50],
  runtimeCluster: planeAsShootCluster(env),
});
/** The Shoot of KEB's AWS example Runtime. */
const AWS = 'c-78fcc25';
const SHOOT_FILE = `shoots/${AWS}/shoot.yaml`;

beforeAll(() => simulator.start());
afterAll(() => simulator.stop());
afterEach(async () => {
  simulator.heal(project.namespace, AWS);
  await deleteShoot(env.garden, project.namespace, AWS);
  await eventually(
    `${AWS} to be gone`,
    async () => ((await getShoot(env.garden, project.namespace, AWS)) ? undefined : true),
    30_000,
  );
});

/** A clone of a landscape repo to commit to main with git itself, as an SRE would. */
interface Clone {
  work: string;
  git: (...args: string[]) => string;
  /** Changes one file (the change must change it), commits and pushes to main. */
  edit: (path: string, change: (text: string) => string, message: string) => void;
}

function clone(gitdir: string, name: string): Clone {
  const work = join(dir.path, name);
  execFileSync('git', ['clone', '--quiet', gitdir, work]);
  const git = (...args: string[]) =>
    execFileSync('git', ['-C', work, '-c', 'user.name=sre', '-c', 'user.email=sre@example.com', ...args], {
      encoding: 'utf8',
    });
  const edit = (path: string, change: (text: string) => string, message: string) => {
    const file = join(work, path);
    const before = readFileSync(file, 'utf8');
    const after = change(before);
    expect(after).not.toBe(before);
    writeFileSync(file, after);
    git('commit', '--quiet', '-am', message);
    git('push', '--quiet', 'origin', 'main');
  };
  return { work, git, edit };
}

let repos = 0;
/** A landscape repo with the AWS example generated onto main, and a clone of it. */
async function landscapeRepo(): Promise<Clone & { apply: string[] }> {
  const n = ++repos;
  const landscape = await landscapeForProject(dir, `landscape-${n}`, 'stage', project);
  const gitdir = join(dir.path, `repo-${n}.git`);
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
  return {
    apply: [
      'apply',
      '--landscape',
      landscape,
      '--repo',
      gitdir,
      '--garden-kubeconfig',
      join(env.stateDir, 'garden.kubeconfig'),
      '--once',
    ],
    ...clone(gitdir, `work-${n}`),
  };
}

const live = async () => {
  const shoot = await getShoot(env.garden, project.namespace, AWS);
  if (!shoot) throw new Error(`${AWS} is not live`);
  return shoot;
};
const maximum = (shoot: Shoot) => shoot.spec.provider.workers[0]?.maximum;
const settled = async () =>
  eventually(`${AWS} reconciled`, async () => {
    const shoot = await getShoot(env.garden, project.namespace, AWS);
    return shoot?.status?.lastOperation?.state === 'Succeeded' &&
      shoot.status.observedGeneration === shoot.metadata.generation
      ? shoot
      : undefined;
  });
/**
 * The sync after Gardener reconciled the created Shoot: nothing of the Shoot to write, but its cluster is configured
 * from skr/ and the folder tree recorded on it. A test that expects a sync to write nothing runs this first.
 */
async function configureSkr(apply: string[]): Promise<void> {
  await settled();
  const result = await kimops(apply);
  expect(result.stderr).toBe('');
  expect(result.stdout).toContain('0 applied, 1 unchanged, 0 blocked, 0 failed');
  const annotations = (await live()).metadata.annotations ?? {};
  const tree = annotations[APPLIED_TREE_ANNOTATION] ?? '';
  expect(tree).not.toBe('');
  expect(annotations[SKR_APPLIED_TREE_ANNOTATION]).toBe(tree);
  expect(result.stdout).toContain(
    `${AWS}: SKR: recorded ${SKR_APPLIED_TREE_ANNOTATION} ${tree.slice(0, 12)} on Shoot ${AWS}\n`,
  );
}
/** What another field manager does: a server-side apply of one field, as `kubectl apply --server-side` would. */
async function applyAs(manager: string, spec: Record<string, unknown>): Promise<void> {
  const result = await env.garden.apply(
    {
      apiVersion: SHOOT_API_VERSION,
      kind: 'Shoot',
      metadata: { name: AWS, namespace: project.namespace },
      spec,
    } as KubeObject,
    manager,
    { force: true },
  );
  if (!result.ok) throw new Error(`apply as ${manager}: ${result.error.message}`);
}
const workers = (shoot: Shoot, change: Record<string, unknown>) => ({
  provider: { workers: shoot.spec.provider.workers.map((w) => ({ name: w.name, ...change })) },
});

describe('updates', () => {
  it('adds a zone a Runtime gained (infrastructure config regenerated, zones appended) and toggles an extension', async () => {
    const landscape = await landscapeForProject(dir, 'landscape-zones', 'stage', project);
    const gitdir = join(dir.path, 'repo-zones.git');
    const runtime = await dir.write(
      'runtimes-zones/aws.yaml',
      readFileSync('examples/runtimes/keb/aws.yaml', 'utf8').replace(
        '        - eu-central-1b\n        - eu-central-1c\n',
        '',
      ),
    );
    expect((await kimops(['init', '--landscape', landscape, gitdir])).code).toBe(0);
    const generate = ['generate', '--landscape', landscape, '--runtimes', runtime, '--repo', gitdir, '--once'];
    expect((await kimops(generate)).code).toBe(0);
    const apply = [
      'apply',
      '--landscape',
      landscape,
      '--repo',
      gitdir,
      '--garden-kubeconfig',
      join(env.stateDir, 'garden.kubeconfig'),
      '--once',
    ];
    expect((await kimops(apply)).code).toBe(0);
    const before = await settled();
    expect(before.spec.provider.workers[0]?.zones).toEqual(['eu-central-1a']);

    writeFileSync(
      runtime,
      readFileSync(runtime, 'utf8').replace(
        '        - eu-central-1a\n',
        '        - eu-central-1a\n        - eu-central-1b\n',
      ),
    );
    expect((await kimops(generate)).code).toBe(0);
    // A new zone is disruptive: its pull request waits for a reviewer, who approves and merges it.
    const open = (await kimops(['pr', 'list', '--repo', gitdir])).stdout
      .split('\n')
      .filter((line) => line.includes(AWS));
    expect(open).toHaveLength(1);
    const number = (open[0] ?? '').split('\t')[0] ?? '';
    expect((await kimops(['pr', 'approve', number, '--repo', gitdir, '--as', 'sre'])).code).toBe(0);
    expect((await kimops(['pr', 'merge', number, '--repo', gitdir, '--as', 'sre'])).code).toBe(0);
    const zoned = await kimops(apply);
    expect(zoned.stderr).toBe('');
    expect(zoned.code).toBe(0);
    const after = await live();
    expect(after.spec.provider.workers[0]?.zones).toEqual(['eu-central-1a', 'eu-central-1b']);
    const infraZones = (
      after.spec.provider.infrastructureConfig as { networks: { zones: { name: string }[] } }
    ).networks.zones.map((z) => z.name);
    expect(infraZones).toEqual(['eu-central-1a', 'eu-central-1b']);
    await settled();

    clone(gitdir, 'work-zones').edit(
      SHOOT_FILE,
      (t) =>
        t.replace(
          '  - type: shoot-networking-filter\n    disabled: false\n',
          '  - type: shoot-networking-filter\n    disabled: true\n',
        ),
      'networking filter off',
    );
    const extension = await kimops(apply);
    expect(extension.stderr).toBe('');
    expect(extension.stdout).toContain('spec.extensions[shoot-networking-filter].disabled');
    expect((await live()).spec.extensions?.find((e) => e.type === 'shoot-networking-filter')?.disabled).toBe(true);
  }, 90_000);
});

describe('rollback by git revert', () => {
  it('returns the live Shoot to the previous spec, keeping (and reporting) the Kubernetes version Gardener will not downgrade', async () => {
    const repo = await landscapeRepo();
    const first = await kimops(repo.apply);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const before = await settled();
    expect(before.spec.kubernetes.version).toBe('1.33.3');

    repo.edit(
      SHOOT_FILE,
      (t) => t.replace('maximum: 20', 'maximum: 25').replace('version: 1.33.3', 'version: 1.34.1'),
      'scale out and upgrade',
    );
    const changed = await kimops(repo.apply);
    expect(changed.stderr).toBe('');
    expect(changed.code).toBe(0);
    const upgraded = await live();
    expect([maximum(upgraded), upgraded.spec.kubernetes.version]).toEqual([25, '1.34.1']);
    await settled();

    repo.git('revert', '--no-edit', 'HEAD');
    repo.git('push', '--quiet', 'origin', 'main');
    const reverted = await kimops(repo.apply);
    expect(reverted.stderr).toBe('');
    expect(reverted.code).toBe(0);
    expect(reverted.stdout).toContain(
      `${AWS}: kept spec.kubernetes.version: live 1.34.1 kept over 1.33.3: Gardener never downgrades a Kubernetes version`,
    );
    const back = await live();
    expect([maximum(back), back.spec.kubernetes.version]).toEqual([20, '1.34.1']);
    // Everything else is the previous spec again.
    expect({ ...back.spec, kubernetes: { ...back.spec.kubernetes, version: '1.33.3' } }).toEqual(before.spec);
  }, 90_000);
});

describe('rollback of a change main made to a companion only', () => {
  it('applies the revert as a Git change (not drift), because the markers followed the change', async () => {
    const repo = await landscapeRepo();
    expect((await kimops(repo.apply)).code).toBe(0);
    const companion = `shoots/${AWS}/configmap-structured-auth-config-${AWS}.yaml`;
    const config = async () => {
      const got = await env.garden.get<KubeObject & { data: Record<string, string> }>({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        namespace: project.namespace,
        name: `structured-auth-config-${AWS}`,
      });
      if (!got.ok) throw new Error(got.error.message);
      return got.body.data['config.yaml'] ?? '';
    };
    const edited = (t: string) => {
      // KIM's quoting (sigs.k8s.io/yaml): single quotes around a prefix ending in a colon.
      expect(t).toContain("prefix: 'stage-op:'");
      return t.replace("prefix: 'stage-op:'", "prefix: 'stage-sre:'");
    };
    repo.edit(companion, edited, 'another username prefix');
    const changed = await kimops(repo.apply);
    expect(changed.stderr).toBe('');
    expect(changed.stdout).toContain(`${AWS}: updated ConfigMap structured-auth-config-${AWS}`);
    expect(changed.stdout).toContain(`on Shoot ${AWS}: main changed its folder, nothing of the Shoot to write`);
    expect(await config()).toContain('stage-sre:');

    repo.git('revert', '--no-edit', 'HEAD');
    repo.git('push', '--quiet', 'origin', 'main');
    const reverted = await kimops(repo.apply);
    expect(reverted.stderr).toBe('');
    expect(reverted.stdout).not.toContain('drifted');
    expect(await config()).toContain('stage-op:');
    // In place now: the next sync writes nothing.
    expect((await kimops(repo.apply)).stdout).toContain('0 applied, 1 unchanged, 0 blocked, 0 failed');
  }, 60_000);
});

describe('mass deletion', () => {
  it('is refused until a commit on main carries the approval trailer', async () => {
    const GCP = 'c-56a4813';
    const landscape = await landscapeForProject(dir, 'landscape-mass', 'stage', project);
    const gitdir = join(dir.path, 'repo-mass.git');
    expect((await kimops(['init', '--landscape', landscape, gitdir])).code).toBe(0);
    for (const file of ['aws.yaml', 'gcp.yaml'])
      await dir.write(`runtimes-mass/${file}`, readFileSync(`examples/runtimes/keb/${file}`, 'utf8'));
    expect(
      (
        await kimops([
          'generate',
          '--landscape',
          landscape,
          '--runtimes',
          join(dir.path, 'runtimes-mass'),
          '--repo',
          gitdir,
          '--once',
        ])
      ).code,
    ).toBe(0);
    const apply = [
      'apply',
      '--landscape',
      landscape,
      '--repo',
      gitdir,
      '--garden-kubeconfig',
      join(env.stateDir, 'garden.kubeconfig'),
      '--once',
    ];
    try {
      expect((await kimops(apply)).code).toBe(0);
      const { git } = clone(gitdir, 'work-mass');
      git('rm', '--quiet', '-r', `shoots/${AWS}`, `shoots/${GCP}`);
      git('commit', '--quiet', '-m', 'deprovision both');
      git('push', '--quiet', 'origin', 'main');
      const refused = await kimops(apply);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('refusing to delete 2 of 2 shoots (100 %) at once');
      expect(refused.stderr).toContain('"Kimops-Allow-Mass-Deletion: 2"');
      expect(await getShoot(env.garden, project.namespace, GCP)).toBeDefined();

      git(
        'commit',
        '--quiet',
        '--allow-empty',
        '-m',
        'Approve deleting both Shoots',
        '--trailer',
        'Kimops-Allow-Mass-Deletion: 2',
      );
      git('push', '--quiet', 'origin', 'main');
      const approved = await kimops(apply);
      expect(approved.stderr).toBe('');
      expect(approved.stdout).toContain(`${GCP}: deletion of Shoot ${GCP} confirmed and requested`);
      expect(approved.stdout).toContain(`${AWS}: deletion of Shoot ${AWS} confirmed and requested`);
    } finally {
      await deleteShoot(env.garden, project.namespace, GCP);
      await eventually(
        `${GCP} to be gone`,
        async () => ((await getShoot(env.garden, project.namespace, GCP)) ? undefined : true),
        30_000,
      );
    }
  }, 90_000);
});

describe('an interrupted deletion', () => {
  it('loses its confirmation when the Shoot is desired again, so no plain DELETE can remove it', async () => {
    const repo = await landscapeRepo();
    expect((await kimops(repo.apply)).code).toBe(0);
    // What a sync killed between its confirmation PATCH and its DELETE leaves behind.
    const confirmed = await env.garden.patch(
      { apiVersion: SHOOT_API_VERSION, kind: 'Shoot', namespace: project.namespace, name: AWS },
      { metadata: { annotations: { [DELETION_CONFIRMATION_ANNOTATION]: 'true' } } },
    );
    expect(confirmed.ok).toBe(true);
    const result = await kimops(repo.apply);
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain(
      `${AWS}: removed ${DELETION_CONFIRMATION_ANNOTATION}, left by an interrupted deletion`,
    );
    expect((await live()).metadata.annotations?.[DELETION_CONFIRMATION_ANNOTATION]).toBeUndefined();
    const refused = await env.garden.delete({
      apiVersion: SHOOT_API_VERSION,
      kind: 'Shoot',
      namespace: project.namespace,
      name: AWS,
    });
    expect(refused.ok).toBe(false);
  }, 60_000);
});

describe('drift: another field manager changes a field kimops applies', () => {
  it('is reported with an Event and left alone under report, corrected under correct', async () => {
    const repo = await landscapeRepo();
    expect((await kimops(repo.apply)).code).toBe(0);
    await settled();
    await applyAs('sre-by-hand', workers(await live(), { maximum: 30 }));

    const reported = await kimops(repo.apply);
    expect(reported.stderr).toBe('');
    expect(reported.code).toBe(0);
    expect(reported.stdout).toMatch(
      new RegExp(`${AWS}: drifted: drifted from Git, left as it is \\(kimops.yaml drift: report.*maximum`),
    );
    expect(reported.stdout).toContain(
      '0 applied, 0 unchanged, 1 drifted, 0 blocked, 0 failed; 1 drift Event(s) recorded',
    );
    expect(maximum(await live())).toBe(30);
    const events = await env.garden.list<KubeObject & { reason: string; involvedObject: { name: string } }>({
      apiVersion: 'v1',
      kind: 'Event',
      namespace: project.namespace,
    });
    if (!events.ok) throw new Error(events.error.message);
    expect(events.body.items.filter((e) => e.reason === DRIFT_REASON && e.involvedObject.name === AWS)).toHaveLength(1);
    // The same drift again: no second Event.
    expect((await kimops(repo.apply)).stdout).not.toContain('Event(s) recorded');

    // kimops.yaml's drift mode changes on main: the Shoot's folder did not, so it is still drift, now corrected.
    repo.edit('kimops.yaml', (t) => t.replace('drift: report', 'drift: correct'), 'correct drift');
    const corrected = await kimops(repo.apply);
    expect(corrected.stderr).toBe('');
    expect(corrected.stdout).toMatch(
      new RegExp(`${AWS}: updated Shoot ${AWS}: drift corrected \\(kimops.yaml drift: correct\\)`),
    );
    const after = await live();
    expect(maximum(after)).toBe(20);
    // kimops owns the field again; the other manager no longer does.
    const owners = (after.metadata.managedFields as { manager: string; fieldsV1: unknown }[])
      .filter((m) => JSON.stringify(m.fieldsV1).includes('"f:maximum"'))
      .map((m) => m.manager);
    expect(owners).toEqual(['kimops']);
  }, 90_000);

  it('keeps a version Gardener raised (maintenance) under every mode: no write, and it is said', async () => {
    const repo = await landscapeRepo();
    repo.edit('kimops.yaml', (t) => t.replace('drift: report', 'drift: correct'), 'correct drift');
    expect((await kimops(repo.apply)).code).toBe(0);
    await configureSkr(repo.apply);
    await applyAs('gardener-maintenance', { kubernetes: { version: '1.34.1' } });
    const { resourceVersion } = (await settled()).metadata;
    const result = await kimops(repo.apply);
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain('0 applied, 1 unchanged, 0 blocked, 0 failed');
    expect(result.stdout).toContain(`1 Shoot(s) keep live values over main's (e.g. ${AWS}: spec.kubernetes.version;`);
    expect((await live()).metadata.resourceVersion).toBe(resourceVersion);
  }, 60_000);
});

describe('drift: adopt', () => {
  it('leaves a version Gardener raised to the generator, whose adopt PR brings main up; the applier then only records it', async () => {
    // Runtimes from the KCP API, as in production: their generation tells the generator who changed what.
    const landscape = await landscapeForProject(dir, 'landscape-adopt', 'stage', project);
    const gitdir = join(dir.path, 'repo-adopt.git');
    expect((await kimops(['init', '--landscape', landscape, gitdir])).code).toBe(0);
    clone(gitdir, 'work-adopt').edit('kimops.yaml', (t) => t.replace('drift: report', 'drift: adopt'), 'adopt drift');
    const namespace = await createTestNamespace(env.kcp, 'kcp-adopt-');
    const runtime = exampleRuntime('aws.yaml');
    const created = await env.kcp.create({
      ...runtime,
      metadata: { ...runtime.metadata, namespace },
      apiVersion: RUNTIME_API_VERSION,
      kind: 'Runtime',
    } as unknown as KubeObject);
    expect(created.ok).toBe(true);
    const garden = join(env.stateDir, 'garden.kubeconfig');
    const generate = [
      'generate',
      '--landscape',
      landscape,
      '--kcp-kubeconfig',
      join(env.stateDir, 'kcp.kubeconfig'),
      '--kcp-namespace',
      namespace,
      '--repo',
      gitdir,
      '--once',
    ];
    const apply = ['apply', '--landscape', landscape, '--repo', gitdir, '--garden-kubeconfig', garden, '--once'];
    expect((await kimops(generate)).code).toBe(0);
    expect((await kimops(apply)).code).toBe(0);
    await configureSkr(apply);

    await applyAs('gardener-maintenance', { kubernetes: { version: '1.34.1' } });
    const { resourceVersion } = (await settled()).metadata;
    expect((await kimops(apply)).stdout).toContain('0 applied, 1 unchanged, 0 blocked, 0 failed');
    expect((await live()).metadata.resourceVersion).toBe(resourceVersion);

    const adopted = await kimops([...generate, '--garden-kubeconfig', garden]);
    expect(adopted.stderr).toBe('');
    expect(adopted.stdout).toMatch(new RegExp(`adopt +${AWS}: #\\d+ opened, merged`));
    const recorded = await kimops(apply);
    expect(recorded.stderr).toBe('');
    expect(recorded.stdout).toContain(`on Shoot ${AWS}: main changed its folder, nothing of the Shoot to write`);
    // The folder's tree changed, so its cluster is configured again from it.
    expect(recorded.stdout).toContain(`${AWS}: SKR: recorded ${SKR_APPLIED_TREE_ANNOTATION}`);
    expect((await live()).spec.kubernetes.version).toBe('1.34.1');
    const quiet = await kimops(apply);
    expect(quiet.stdout).toMatch(
      /^main at [0-9a-f]{12}: 0 applied, 1 unchanged, 0 blocked, 0 failed\ninventory health: 1 healthy, 0 progressing, 0 failed, 0 unknown\n$/,
    );
  }, 90_000);
});

describe('seeds', () => {
  it("creates nothing for a Runtime that enforces its seed location where no Seed is ready, with KIM's SeedNotFound", async () => {
    const repo = await landscapeRepo();
    const selector = (region: string) => (t: string) =>
      t.replace('spec:\n', `spec:\n  seedSelector:\n    matchLabels:\n      seed.gardener.cloud/region: ${region}\n`);
    repo.edit(SHOOT_FILE, selector('sa-east-1'), 'enforce a seed location without a seed');
    const refused = await kimops(repo.apply);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(
      /c-78fcc25: blocked: not created: SeedNotFound: Cannot find available seed for the region sa-east-1\. The followig regions have seeds ready: \[[a-z0-9 -]*eu-central-1[a-z0-9 -]*\]\./,
    );
    expect(await getShoot(env.garden, project.namespace, AWS)).toBeUndefined();
    // The backfiller learns it from the applier's report: KIM's message, and the Runtime generation it is about.
    expect(refused.stdout).toContain(
      `apply report ${project.namespace}/kimops-apply-report written for the backfiller: 1 Shoot(s) with failures`,
    );
    const report = await env.garden.get<KubeObject>({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: project.namespace,
      name: 'kimops-apply-report',
    });
    expect(readApplyReport(report.ok ? report.body : undefined).get(AWS)).toEqual({
      generation: expect.any(Number),
      seedNotFound: expect.stringMatching(/^Cannot find available seed for the region sa-east-1\./),
    });
    expect((await kimops(repo.apply)).stdout).not.toContain('apply report'); // said once

    repo.git('revert', '--no-edit', 'HEAD');
    repo.edit(SHOOT_FILE, selector('eu-central-1'), 'enforce a seed location with a seed');
    const created = await kimops(repo.apply);
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    expect((await live()).spec.seedSelector).toEqual({ matchLabels: { 'seed.gardener.cloud/region': 'eu-central-1' } });
    const cleared = await env.garden.get<KubeObject>({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: project.namespace,
      name: 'kimops-apply-report',
    });
    expect(readApplyReport(cleared.ok ? cleared.body : undefined).size).toBe(0);
  }, 60_000);
});

describe('migration from KIM', () => {
  it('reports a take-over in shadow mode without writing, then takes the Shoot over as field manager kim', async () => {
    const repo = await landscapeRepo();
    // KIM's Shoot: the same manifest applied by KIM's field manager, without kimops's label.
    const manifest = (await import('yaml')).parse(readFileSync(join(repo.work, SHOOT_FILE), 'utf8')) as Shoot;
    const byKim = await env.garden.apply(
      { ...manifest, metadata: { ...manifest.metadata, namespace: project.namespace } } as unknown as KubeObject,
      'kim',
      { force: true },
    );
    expect(byKim.ok).toBe(true);
    await settled();
    const { resourceVersion } = (await live()).metadata;

    const shadow = await kimops([...repo.apply, '--shadow']);
    expect(shadow.stderr).toBe('');
    expect(shadow.code).toBe(0);
    expect(shadow.stdout).toContain(`► Shoot/${project.namespace}/${AWS} taken over`);
    expect(shadow.stdout).toContain('shadow of main');
    expect((await live()).metadata.resourceVersion).toBe(resourceVersion);

    repo.edit('kimops.yaml', (t) => t.replace('fieldManager: kimops', 'fieldManager: kim'), 'take over as kim');
    const taken = await kimops(repo.apply);
    expect(taken.stderr).toBe('');
    expect(taken.stdout).toContain(`${AWS}: took over Shoot ${AWS}`);
    const after = await live();
    expect(after.metadata.labels?.[OWNERSHIP_LABEL]).toBe('kimops');
    const appliers = (after.metadata.managedFields as { manager: string; operation: string }[])
      .filter((m) => m.operation === 'Apply')
      .map((m) => m.manager);
    expect(appliers).toEqual(['kim']);
  }, 60_000);
});

describe("what Gardener's state asks of the applier", () => {
  it('force-deletes a deletion stuck on ERR_CLEANUP_CLUSTER_RESOURCES only where kimops.yaml allows it', async () => {
    const repo = await landscapeRepo();
    expect((await kimops(repo.apply)).code).toBe(0);
    await settled();
    simulator.inject(project.namespace, AWS, {
      state: 'Failed',
      codes: ['ERR_CLEANUP_CLUSTER_RESOURCES'],
      description: 'cannot clean up',
    });
    repo.git('rm', '--quiet', '-r', `shoots/${AWS}`);
    repo.git('commit', '--quiet', '-m', 'deprovision');
    repo.git('push', '--quiet', 'origin', 'main');
    expect((await kimops(repo.apply)).code).toBe(0);
    await eventually('the deletion to be stuck', async () =>
      (await live()).status?.lastErrors?.[0]?.codes?.includes('ERR_CLEANUP_CLUSTER_RESOURCES') ? true : undefined,
    );

    const reported = await kimops(repo.apply);
    expect(reported.stderr).toContain(`is stuck in deletion (ERR_CLEANUP_CLUSTER_RESOURCES)`);
    expect((await live()).metadata.annotations?.[FORCE_DELETION_ANNOTATION]).toBeUndefined();

    repo.edit('kimops.yaml', (t) => t.replace('forceDeletion: false', 'forceDeletion: true'), 'allow force-deletion');
    const forced = await kimops(repo.apply);
    expect(forced.stderr).toBe('');
    expect(forced.stdout).toContain(`kimops annotates it ${FORCE_DELETION_ANNOTATION}=true`);
    // gardener-apiserver accepted it: it checks the deletion timestamp and the error code itself.
    expect((await live()).metadata.annotations?.[FORCE_DELETION_ANNOTATION]).toBe('true');
  }, 90_000);

  it('annotates an operation running past its timeout and removes the mark once it is done', async () => {
    const repo = await landscapeRepo();
    repo.edit(
      'kimops.yaml',
      (t) => t.replace(/timeouts: \{[^}]*\}/, 'timeouts: {create: 1s, update: 1s, delete: 1s}'),
      'short timeouts',
    );
    simulator.inject(project.namespace, AWS, {
      state: 'Error',
      codes: ['ERR_INFRA_RATE_LIMITS_EXCEEDED'],
      description: 'throttled',
    });
    expect((await kimops(repo.apply)).code).toBe(0);
    await eventually('Gardener to be retrying', async () =>
      (await live()).status?.lastOperation?.state === 'Error' ? true : undefined,
    );
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const late = await kimops(repo.apply);
    expect(late.stderr).toBe('');
    expect(late.stdout).toContain(`${AWS}: operation timed out: Create started`);
    expect((await live()).metadata.annotations?.[OPERATION_TIMED_OUT_ANNOTATION]).toMatch(
      /^Create started .* has no result after 1s/,
    );

    simulator.heal(project.namespace, AWS);
    await settled();
    const done = await kimops(repo.apply);
    expect(done.stdout).toContain(`${AWS}: operation no longer timed out: annotation removed`);
    expect((await live()).metadata.annotations?.[OPERATION_TIMED_OUT_ANNOTATION]).toBeUndefined();
  }, 60_000);
});
