// The backfiller's side of the dedicated audit log (docs/skr.md "Dedicated audit log"), on the real plane: KALM's
// AuditLog CRD on the KCP (installed by the plane's seeding), a Runtime with auditLogAccessEnabled in a namespace of
// this test's own, its AuditLog and read Secret there, its Shoot reconciled by the gardenlet simulator (which makes
// the plane's kube-apiserver every Shoot's cluster: the SKR), and `kimops backfill --once` with the landscape's
// switch on. The pool is written here as the generator and KALM would; the backfiller only reads it.
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { APPLIED_TREE_ANNOTATION, PIPELINE_ANNOTATION, SKR_APPLIED_TREE_ANNOTATION } from '../../model/contract.js';
import { describeFailure } from '../../model/kube-result.js';
import type { KubeObject } from '../../model/kube-object.js';
import { pipelineAnnotationValue } from '../../model/pipeline-facts.js';
import { RUNTIME_API_VERSION, type Runtime } from '../../model/runtime.js';
import type { RuntimeStatus } from '../../model/runtime-status.js';
import { SHOOT_API_VERSION, type Shoot } from '../../model/shoot.js';
import { kimops, startKimops } from '../helpers/cli.js';
import { CUSTOMER_TENANT, migratedToDedicatedAuditLog } from '../helpers/dedicated-audit-log.js';
import { GardenletSimulator } from '../helpers/gardenlet-simulator.js';
import { createTestNamespace, landscapeForProject, useTestProject } from '../helpers/projects.js';
import { createRendered, deleteShoot, exampleRuntime, getShoot, render } from '../helpers/shoots.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { connect, eventually, planeAsShootCluster } from '../helpers/testenv.js';

const env = connect(inject('testenvStateDir'));
const project = useTestProject(env, 'stage');
const dir = useTempDir('audit-log-backfill');
const simulator = new GardenletSimulator({
  garden: env.garden,
  intervalMs: 20,
  progressSteps: [50],
  runtimeCluster: planeAsShootCluster(env),
});
/** The plane's kube-apiserver, which every Shoot's adminkubeconfig points at: the SKR. */
const skr = env.kcp;
const RUNTIME = { apiVersion: RUNTIME_API_VERSION, kind: 'Runtime' } as const;
const AUDIT_LOG = { apiVersion: 'auditlogmanager.kyma-project.io/v1beta1', kind: 'AuditLog' } as const;
const SHOOT = { apiVersion: SHOOT_API_VERSION, kind: 'Shoot' } as const;
const READ_COPY = { apiVersion: 'v1', kind: 'Secret', namespace: 'kyma-system', name: 'auditlog-read-credentials' };
const shoots: string[] = [];

type LiveRuntime = Runtime & { status?: RuntimeStatus };

beforeAll(async () => {
  simulator.start();
  // kyma-system is everyone's on the plane (the applier's tests create it too): made when missing, never removed.
  const namespace = await skr.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kyma-system' } });
  if (!namespace.ok && namespace.status !== 409) throw new Error(`kyma-system: ${describeFailure(namespace)}`);
});
afterAll(async () => {
  for (const shoot of shoots) await deleteShoot(env.garden, project.namespace, shoot);
  await simulator.stop();
  await skr.delete(READ_COPY);
});

/** The stage landscape of this test's project with the switch on; a Runtime asking for it in a namespace of its own. */
async function setup(prefix: string) {
  const file = await landscapeForProject(dir, `landscape-${prefix}`, 'stage', project);
  const shipped = readFileSync(file, 'utf8');
  const switched = shipped.replace(/^(\s+dedicatedAuditLogging:) false$/m, '$1 true');
  if (switched === shipped) throw new Error('landscapes/stage/landscape.yaml has no features.dedicatedAuditLogging');
  writeFileSync(file, switched);
  const namespace = await createTestNamespace(env.kcp, `kcp-${prefix}-`);
  const shoot = `a${randomBytes(4).toString('hex')}`;
  shoots.push(shoot);
  const example = exampleRuntime('aws.yaml', shoot);
  example.metadata = { ...example.metadata, namespace, name: `rt-${shoot}` };
  (example.spec as { auditLogAccessEnabled?: boolean }).auditLogAccessEnabled = true;
  const created = await env.kcp.create({ ...example, ...RUNTIME } as unknown as KubeObject);
  if (!created.ok) throw new Error(`Runtime ${shoot}: ${describeFailure(created)}`);
  const runtime = created.body as unknown as LiveRuntime;
  const runtimeID = runtime.metadata.labels?.['kyma-project.io/runtime-id'] ?? '';
  const backfill = [
    'backfill',
    ...['--landscape', file, '--kcp-namespace', namespace],
    ...['--kcp-kubeconfig', join(env.stateDir, 'kcp.kubeconfig')],
    ...['--garden-kubeconfig', join(env.stateDir, 'garden.kubeconfig')],
    '--once',
  ];
  return { namespace, shoot, runtime, runtimeID, name: runtime.metadata.name, backfill };
}

async function getRuntime(namespace: string, name: string): Promise<LiveRuntime> {
  const got = await env.kcp.get({ ...RUNTIME, namespace, name });
  if (!got.ok) throw new Error(describeFailure(got));
  return got.body as unknown as LiveRuntime;
}

/** `<state>/<reason>/<status> "<message>"` of the condition, or undefined when absent. */
function kim(runtime: LiveRuntime, type: string): string | undefined {
  const c = runtime.status?.conditions?.find((condition) => condition.type === type);
  return c && `${runtime.status?.state}/${c.reason}/${c.status} "${c.message}"`;
}

/** The Shoot as the applier leaves it once its SKR is configured, on the landscape's shared tenant; reconciled. */
async function reconciledShoot(runtime: LiveRuntime, shoot: string): Promise<void> {
  const rendered = render(runtime, project.settings);
  const annotations = {
    ...rendered.shoot.metadata.annotations,
    [APPLIED_TREE_ANNOTATION]: 'tree-1',
    [SKR_APPLIED_TREE_ANNOTATION]: 'tree-1',
  };
  await createRendered(env.garden, {
    ...rendered,
    shoot: { ...rendered.shoot, metadata: { ...rendered.shoot.metadata, annotations } },
  });
  await settled(shoot);
}

const settled = (shoot: string) =>
  eventually(`Shoot ${shoot} reconciled`, async () => {
    const live = await getShoot(env.garden, project.namespace, shoot);
    return live?.status?.lastOperation?.state === 'Succeeded' &&
      live.status.observedGeneration === live.metadata.generation
      ? live
      : undefined;
  });

/** KALM's AuditLog for the customer's tenant in `namespace`, reserved for `runtimeID` as the generator reserves it. */
async function reservedAuditLog(namespace: string, name: string, runtimeID: string): Promise<void> {
  const created = await env.kcp.create({
    ...AUDIT_LOG,
    metadata: {
      name,
      namespace,
      labels: { 'reserved-for-runtime-id': runtimeID, 'reserved-for-runtime-at': '1764648000' },
    },
    spec: {
      platformRegion: 'cf-eu10',
      regions: ['eu-central-1'],
      subaccountID: CUSTOMER_TENANT.tenantID,
      config: {
        serviceURL: CUSTOMER_TENANT.serviceURL,
        gardenerSecretName: CUSTOMER_TENANT.secretName,
        readCredsSecretName: `${name}-read`,
      },
    },
  } as KubeObject);
  if (!created.ok) throw new Error(`AuditLog ${name}: ${describeFailure(created)}`);
  const state = await env.kcp.patch(
    { ...AUDIT_LOG, namespace, name },
    { status: { state: 'RegistrationReady' } },
    undefined,
    'status',
  );
  if (!state.ok) throw new Error(`AuditLog ${name} status: ${describeFailure(state)}`);
}

/** The generator's claim, then KALM's state. */
async function claim(namespace: string, name: string, runtimeID: string): Promise<void> {
  const claimed = await env.kcp.patch({ ...AUDIT_LOG, namespace, name }, { spec: { assignedToRuntimeID: runtimeID } });
  if (!claimed.ok) throw new Error(`claim ${name}: ${describeFailure(claimed)}`);
  const state = await env.kcp.patch(
    { ...AUDIT_LOG, namespace, name },
    { status: { state: 'Assigned' } },
    undefined,
    'status',
  );
  if (!state.ok) throw new Error(`AuditLog ${name} status: ${describeFailure(state)}`);
}

/** The tenant written into the Shoot (what the applier writes from the generator's PR), with its write Secret. */
async function moveShootToCustomer(shoot: string): Promise<void> {
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
  if (!secret.ok) throw new Error(`customer Secret: ${describeFailure(secret)}`);
  const live = (await getShoot(env.garden, project.namespace, shoot)) as Shoot;
  const migrated = migratedToDedicatedAuditLog(live);
  const patched = await env.garden.patch(
    { ...SHOOT, namespace: project.namespace, name: shoot },
    { spec: { extensions: migrated.spec.extensions, resources: migrated.spec.resources } },
  );
  if (!patched.ok) throw new Error(`tenant patch: ${describeFailure(patched)}`);
  await eventually(`Shoot ${shoot} on the new generation`, async () => {
    const now = await getShoot(env.garden, project.namespace, shoot);
    return (now?.metadata.generation ?? 0) > (live.metadata.generation ?? 0) ? true : undefined;
  });
  await settled(shoot);
}

/** KALM's read credentials for `pool` in `namespace`; returns their data. */
async function readSecret(namespace: string, pool: string): Promise<Record<string, string>> {
  const data = {
    clientid: Buffer.from('reader').toString('base64'),
    clientsecret: randomBytes(8).toString('base64'),
  };
  const source = await env.kcp.create({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `${pool}-read`, namespace },
    type: 'Opaque',
    data,
  } as KubeObject);
  if (!source.ok) throw new Error(`read Secret: ${describeFailure(source)}`);
  return data;
}

async function skrCopy() {
  const onSkr = await skr.get<KubeObject & { type?: string; data?: Record<string, string> }>(READ_COPY);
  return onSkr.ok ? onSkr.body : undefined;
}

async function backfillOnce(args: string[], code = 0) {
  const result = await kimops(args);
  expect(result.code, result.stderr + result.stdout).toBe(code);
  return result;
}

describe('kimops backfill and the dedicated audit log', () => {
  it('Pending until claimed and in the Shoot, copies the read credentials to the SKR, then Ready', async () => {
    const { namespace, shoot, runtime, runtimeID, name, backfill } = await setup('al');
    const pool = `al-${shoot}`;
    await reconciledShoot(runtime, shoot);
    await reservedAuditLog(namespace, pool, runtimeID);

    // The SKR is configured, but the AuditLog is only reserved: KIM's Configured True, yet Pending.
    await backfillOnce(backfill);
    let live = await getRuntime(namespace, name);
    expect(kim(live, 'Configured')).toBe(
      'Pending/AdministratorsConfigured/True "Cluster admin configuration completed"',
    );
    expect(kim(live, 'CustomAuditLogConfigured')).toBeUndefined();
    expect(live.status?.conditions?.find((c) => c.type === 'Reconciling')?.message).toContain(
      `the generator claims the reserved AuditLog ${pool} on its next pass`,
    );

    // Claimed; the Shoot still sends to the shared tenant.
    await claim(namespace, pool, runtimeID);
    await backfillOnce(backfill);
    live = await getRuntime(namespace, name);
    expect(kim(live, 'CustomAuditLogConfigured')).toBe(
      'Pending/CustomAuditLogConfigured/Unknown "Dedicated audit logging claimed, configuring shoot"',
    );

    // The tenant in the reconciled Shoot; KALM's read Secret does not exist yet: the copy fails in KIM's words.
    await moveShootToCustomer(shoot);
    const failed = await backfillOnce(backfill, 1);
    expect(failed.stdout + failed.stderr).toContain(
      `copy the dedicated audit log's read credentials ${namespace}/${pool}-read`,
    );
    live = await getRuntime(namespace, name);
    expect(kim(live, 'CustomAuditLogConfigured')).toBe(
      'Pending/CustomAuditLogConfigured/True "Custom AuditLog shoot configuration completed"',
    );
    expect(kim(live, 'AuditLogCredentialsCopied')).toMatch(
      new RegExp(
        `^Pending/CredentialsCopyErr/False "Failed to copy read credentials: failed to get source secret ${namespace}/${pool}-read: 404`,
      ),
    );
    expect(live.status?.provisioningCompleted).not.toBe(true);

    // KALM's read Secret: copied to the SKR's kyma-system with KIM's label, type and data; Ready.
    const data = await readSecret(namespace, pool);
    const copied = await backfillOnce(backfill);
    expect(copied.stdout).toContain(`${namespace}/${name}: status Ready written`);
    expect(copied.stdout).toContain('audit-log read credentials copied to the SKR');
    live = await getRuntime(namespace, name);
    expect(kim(live, 'AuditLogCredentialsCopied')).toBe(
      'Ready/CredentialsCopied/True "Audit log read credentials copied to runtime"',
    );
    expect(live.status?.provisioningCompleted).toBe(true);
    const onSkr = await skrCopy();
    expect(onSkr?.metadata.labels?.['operator.kyma-project.io/managed-by']).toBe('infrastructure-manager');
    expect(onSkr?.type).toBe('Opaque');
    expect(onSkr?.data).toEqual(data);

    // A later pass of the same generation copies nothing again and writes nothing.
    const quiet = await backfillOnce(backfill);
    expect(quiet.stdout).not.toContain('copied');
    expect(quiet.stdout).not.toContain(`${namespace}/${name}: status`);
  });

  it("the generator's empty pool fails the Runtime with KIM's message", async () => {
    const { namespace, name, backfill } = await setup('alf');
    const annotated = await env.kcp.patch(
      { ...RUNTIME, namespace, name },
      {
        metadata: {
          annotations: {
            [PIPELINE_ANNOTATION]: pipelineAnnotationValue({
              generation: 1,
              auditLogError: {
                step: 'reserve',
                message: 'no available AuditLogCR in the pool for region eu-central-1',
              },
            }),
          },
        },
      },
    );
    if (!annotated.ok) throw new Error(describeFailure(annotated));
    await backfillOnce(backfill);
    const live = await getRuntime(namespace, name);
    expect(kim(live, 'Provisioned')).toBe(
      'Failed/CustomAuditLogErr/False "Dedicated audit logging requested but no available configuration found: no available AuditLogCR in the pool for region eu-central-1"',
    );
  });

  it('--watch: the claim is an AuditLog event; the Runtime is Ready with the copy without a periodic pass', async () => {
    const { namespace, shoot, runtime, runtimeID, name, backfill } = await setup('alw');
    const pool = `al-${shoot}`;
    await reconciledShoot(runtime, shoot);
    await moveShootToCustomer(shoot);
    await reservedAuditLog(namespace, pool, runtimeID);
    const data = await readSecret(namespace, pool);
    const controller = new AbortController();
    // An interval far beyond the test: only watch events can bring the claim in.
    const args = backfill.filter((arg) => arg !== '--once');
    const running = startKimops([...args, '--watch', '--interval', '3600'], controller.signal);
    try {
      await eventually(
        'Configured, waiting for the claim',
        async () => {
          const live = await getRuntime(namespace, name);
          return kim(live, 'Configured')?.startsWith('Pending/AdministratorsConfigured/True') ? true : undefined;
        },
        30_000,
      );
      await claim(namespace, pool, runtimeID);
      await eventually(
        'Ready with the read credentials copied',
        async () => ((await getRuntime(namespace, name)).status?.state === 'Ready' ? true : undefined),
        30_000,
      );
      const live = await getRuntime(namespace, name);
      expect(kim(live, 'CustomAuditLogConfigured')).toBe(
        'Ready/CustomAuditLogConfigured/True "Custom AuditLog shoot configuration completed"',
      );
      expect(kim(live, 'AuditLogCredentialsCopied')).toBe(
        'Ready/CredentialsCopied/True "Audit log read credentials copied to runtime"',
      );
      expect((await skrCopy())?.data).toEqual(data);
    } finally {
      controller.abort();
    }
    const result = await running.done;
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  }, 120_000);
});
