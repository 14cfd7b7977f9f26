// Issue 18: `drift: correct` never reverts a dedicated audit-log tenant, on the real gardener-apiserver with the
// gardenlet simulator. kimops applies KEB's AWS example (the landscape's shared tenant), KIM's dedicated-audit-log
// migration then moves the live Shoot to the customer's tenant (a merge patch as KIM sends it), and main still says
// the shared tenant: the applier keeps the customer's tenant, alone and when it corrects other drift of that Shoot.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { APPLIED_TREE_ANNOTATION, SKR_APPLIED_TREE_ANNOTATION } from '../../model/contract.js';
import type { KubeObject } from '../../model/kube-object.js';
import { SHOOT_API_VERSION, type Shoot } from '../../model/shoot.js';
import { auditLogTenantOf } from '../../rules/audit-log.js';
import { kimops } from '../helpers/cli.js';
import { CUSTOMER_TENANT, migratedToDedicatedAuditLog } from '../helpers/dedicated-audit-log.js';
import { GardenletSimulator } from '../helpers/gardenlet-simulator.js';
import { landscapeForProject, useTestProject } from '../helpers/projects.js';
import { deleteShoot, getShoot } from '../helpers/shoots.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { connect, eventually, planeAsShootCluster } from '../helpers/testenv.js';

const env = connect(inject('testenvStateDir'));
const project = useTestProject(env, 'stage');
const dir = useTempDir('audit-log-dedicated');
const simulator = new GardenletSimulator({
  garden: env.garden,
  intervalMs: 20,
  progressSteps: [50],
  runtimeCluster: planeAsShootCluster(env),
});
/** The Shoot of KEB's AWS example Runtime. */
const AWS = 'c-78fcc25';
const SHOOT_REF = { apiVersion: SHOOT_API_VERSION, kind: 'Shoot' } as const;

beforeAll(() => simulator.start());
afterAll(() => simulator.stop());
afterEach(async () => {
  await deleteShoot(env.garden, project.namespace, AWS);
  await eventually(
    `${AWS} to be gone`,
    async () => ((await getShoot(env.garden, project.namespace, AWS)) ? undefined : true),
    30_000,
  );
});

const live = async () => {
  const shoot = await getShoot(env.garden, project.namespace, AWS);
  if (!shoot) throw new Error(`${AWS} is not live`);
  return shoot;
};
const settled = async () =>
  eventually(`${AWS} reconciled`, async () => {
    const shoot = await getShoot(env.garden, project.namespace, AWS);
    return shoot?.status?.lastOperation?.state === 'Succeeded' &&
      shoot.status.observedGeneration === shoot.metadata.generation
      ? shoot
      : undefined;
  });

/** A landscape repo under `drift: correct` with the AWS example generated onto main; the command that applies it. */
async function correctingRepo(): Promise<string[]> {
  const landscape = await landscapeForProject(dir, 'landscape', 'stage', project);
  const gitdir = join(dir.path, 'repo.git');
  expect((await kimops(['init', '--landscape', landscape, gitdir])).code).toBe(0);
  const generate = ['generate', '--landscape', landscape, '--runtimes', 'examples/runtimes/keb/aws.yaml'];
  expect((await kimops([...generate, '--repo', gitdir, '--once'])).code).toBe(0);
  const work = join(dir.path, 'work');
  execFileSync('git', ['clone', '--quiet', gitdir, work]);
  const config = join(work, 'kimops.yaml');
  writeFileSync(config, readFileSync(config, 'utf8').replace('drift: report', 'drift: correct'));
  const git = (...args: string[]) =>
    execFileSync('git', ['-C', work, '-c', 'user.name=sre', '-c', 'user.email=sre@example.com', ...args]);
  git('commit', '--quiet', '-am', 'correct drift');
  git('push', '--quiet', 'origin', 'main');
  const garden = join(env.stateDir, 'garden.kubeconfig');
  return ['apply', '--landscape', landscape, '--repo', gitdir, '--garden-kubeconfig', garden, '--once'];
}

/** KIM's migration: the customer's write Secret in the project, then a merge patch of the two lists it changes. */
async function migrateAsKim(): Promise<void> {
  const secret = await env.garden.apply(
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: CUSTOMER_TENANT.secretName, namespace: project.namespace },
      stringData: { clientId: 'customer', clientSecret: 'write' },
    } as KubeObject,
    'kalm',
    { force: true },
  );
  if (!secret.ok) throw new Error(`customer Secret: ${secret.error.message}`);
  const migrated = migratedToDedicatedAuditLog(await live());
  const patched = await env.garden.patch(
    { ...SHOOT_REF, namespace: project.namespace, name: AWS },
    { spec: { extensions: migrated.spec.extensions, resources: migrated.spec.resources } },
  );
  if (!patched.ok) throw new Error(`migration patch: ${patched.error.message}`);
}

describe('drift: correct and a dedicated audit log', () => {
  it("keeps the customer's tenant KIM moved the Shoot to, and corrects other drift around it", async () => {
    const apply = await correctingRepo();
    expect((await kimops(apply)).code).toBe(0);
    const shared = auditLogTenantOf(await settled());
    expect(shared?.tenantID).not.toBe(CUSTOMER_TENANT.tenantID);
    // Reconciled: the next sync configures the Shoot's cluster and records it on the Shoot, so that the sync after
    // the migration has nothing else to write.
    const configured = await kimops(apply);
    expect(configured.stderr).toBe('');
    const annotations = (await live()).metadata.annotations ?? {};
    expect(annotations[APPLIED_TREE_ANNOTATION]).toBeDefined();
    expect(annotations[SKR_APPLIED_TREE_ANNOTATION]).toBe(annotations[APPLIED_TREE_ANNOTATION]);

    await migrateAsKim();
    const { resourceVersion } = (await settled()).metadata;
    expect(auditLogTenantOf(await live())).toEqual(CUSTOMER_TENANT);

    const kept = await kimops(apply);
    expect(kept.stderr).toBe('');
    expect(kept.code).toBe(0);
    expect(kept.stdout).toContain('0 applied, 1 unchanged, 0 blocked, 0 failed');
    expect(kept.stdout).toContain(`${AWS}: spec.extensions[shoot-auditlog-service]`);
    expect((await live()).metadata.resourceVersion).toBe(resourceVersion);

    // Other drift of the same Shoot is corrected; what that write carries is the customer's tenant.
    const before = await live();
    const maximum = (before.spec.provider.workers[0]?.maximum ?? 0) + 7;
    const drifted = await env.garden.patch(
      { ...SHOOT_REF, namespace: project.namespace, name: AWS },
      {
        spec: { provider: { workers: before.spec.provider.workers.map((w, i) => (i === 0 ? { ...w, maximum } : w)) } },
      },
    );
    if (!drifted.ok) throw new Error(`drift patch: ${drifted.error.message}`);
    await settled();
    const corrected = await kimops(apply);
    expect(corrected.stderr).toBe('');
    expect(corrected.stdout).toMatch(new RegExp(`${AWS}: updated Shoot ${AWS}: drift corrected`));
    const after: Shoot = await live();
    expect(after.spec.provider.workers[0]?.maximum).toBe(before.spec.provider.workers[0]?.maximum);
    expect(auditLogTenantOf(after)).toEqual(CUSTOMER_TENANT);
  }, 90_000);
});
