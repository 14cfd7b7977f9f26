// `kimops backfill` against the real KCP API server and gardener-apiserver, with the gardenlet simulator playing
// Gardener (and answering shoots/adminkubeconfig): a Runtime as KEB creates it, its Shoot created as the applier
// would, and the status, finalizer, GardenerCluster and kubeconfig Secret KEB then waits on.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { CONTENT_TYPE } from '../../adapters/kube/kube-client.js';
import { describeFailure } from '../../model/kube-result.js';
import type { KubeObject } from '../../model/kube-object.js';
import { applyReportConfigMap, type ApplyFacts } from '../../rules/apply-report.js';
import {
  APPLIED_TREE_ANNOTATION,
  APPLY_REPORT_NAME,
  RUNTIME_FINALIZER,
  ANNOTATION_RUNTIME_GENERATION,
  SKR_APPLIED_TREE_ANNOTATION,
} from '../../model/contract.js';
import { RUNTIME_API_VERSION, type Runtime } from '../../model/runtime.js';
import type { RuntimeStatus } from '../../model/runtime-status.js';
import type { Shoot } from '../../model/shoot.js';
import { kimops, startKimops } from '../helpers/cli.js';
import { GardenletSimulator } from '../helpers/gardenlet-simulator.js';
import { createTestNamespace, landscapeForProject, useTestProject } from '../helpers/projects.js';
import { createRendered, deleteShoot, exampleRuntime, getShoot, render } from '../helpers/shoots.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { connect, eventually, planeAsShootCluster } from '../helpers/testenv.js';

const env = connect(inject('testenvStateDir'));
const project = useTestProject(env, 'stage');
const dir = useTempDir('backfill');
const simulator = new GardenletSimulator({
  garden: env.garden,
  intervalMs: 20,
  progressSteps: [50],
  runtimeCluster: planeAsShootCluster(env),
});
let simulatorRunning = false;
const runSimulator = () => {
  if (!simulatorRunning) simulator.start();
  simulatorRunning = true;
};
afterAll(() => simulator.stop());

const kcpKubeconfig = () => join(env.stateDir, 'kcp.kubeconfig');
const gardenKubeconfig = () => join(env.stateDir, 'garden.kubeconfig');
const SHOOT = { apiVersion: 'core.gardener.cloud/v1beta1', kind: 'Shoot' } as const;
const RUNTIME = { apiVersion: RUNTIME_API_VERSION, kind: 'Runtime' } as const;

type LiveRuntime = Runtime & { metadata: Runtime['metadata'] & { finalizers?: string[] }; status?: RuntimeStatus };

/** KEB's AWS example Runtime in `namespace` under a unique Shoot name, as the API server stored it (generation 1). */
async function setup(prefix: string) {
  const landscape = await landscapeForProject(dir, `landscape-${prefix}`, 'stage', project);
  const namespace = await createTestNamespace(env.kcp, `kcp-${prefix}-`);
  const shoot = `b${randomBytes(4).toString('hex')}`;
  const example = exampleRuntime('aws.yaml', shoot);
  example.metadata = { ...example.metadata, namespace, name: `rt-${shoot}` };
  const created = await env.kcp.create({ ...example, ...RUNTIME } as unknown as KubeObject);
  if (!created.ok) throw new Error(`Runtime ${shoot}: ${describeFailure(created)}`);
  const runtime = created.body as unknown as LiveRuntime;
  const runtimeID = runtime.metadata.labels?.['kyma-project.io/runtime-id'] ?? '';
  const args = [
    'backfill',
    '--landscape',
    landscape,
    '--kcp-kubeconfig',
    kcpKubeconfig(),
    '--garden-kubeconfig',
    gardenKubeconfig(),
    '--kcp-namespace',
    namespace,
  ];
  return { namespace, shoot, runtime, runtimeID, name: runtime.metadata.name, args };
}

async function getRuntime(namespace: string, name: string): Promise<LiveRuntime | undefined> {
  const got = await env.kcp.get({ ...RUNTIME, namespace, name });
  if (!got.ok && got.status !== 404) throw new Error(describeFailure(got));
  return got.ok ? (got.body as unknown as LiveRuntime) : undefined;
}

const condition = (runtime: LiveRuntime | undefined, type: string) =>
  runtime?.status?.conditions?.find((c) => c.type === type);

async function backfillOnce(args: string[]) {
  const result = await kimops([...args, '--once']);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return result;
}

/** KIM's condition types: the only ones kimops records Events for. */
const KIM_REASONS = new Set([
  'Initialised',
  'Pending',
  'Processing',
  'ShootCreationCompleted',
  'ConfigurationCompleted',
  'CreationErr',
  'ProcessingErr',
  'GardenerClusterCRCreated',
  'GardenerClusterCRReady',
  'KymaSystemNSReady',
  'OidcAndConfigMapsConfigured',
  'AdministratorsConfigured',
  'GardenerShootDeleted',
  'DeletionErr',
  'ConversionErr',
  'GardenerErr',
  'SeedNotFound',
]);

async function runtimeEvents(namespace: string, name: string) {
  const listed = await env.kcp.listAll<
    KubeObject & { involvedObject?: { name?: string }; reason?: string; firstTimestamp?: string }
  >({ apiVersion: 'v1', kind: 'Event', namespace });
  if (!listed.ok) throw new Error(listed.message);
  return listed.items.filter((event) => event.involvedObject?.name === name);
}

const succeeded = (shoot: Shoot | undefined) =>
  shoot?.status?.lastOperation?.state === 'Succeeded' && shoot.status.observedGeneration === shoot.metadata.generation;

/**
 * The rendered Shoot as the applier leaves it once it has also configured its cluster (docs/skr.md): the SKR of the
 * tree it was applied from is applied, so the Runtime can be Ready.
 */
function configured(rendered: ReturnType<typeof render>): ReturnType<typeof render> {
  const annotations = {
    ...rendered.shoot.metadata.annotations,
    [APPLIED_TREE_ANNOTATION]: 'tree-1',
    [SKR_APPLIED_TREE_ANNOTATION]: 'tree-1',
  };
  return { ...rendered, shoot: { ...rendered.shoot, metadata: { ...rendered.shoot.metadata, annotations } } };
}

/** Deletes a test's Shoot and waits for the simulator to finish the deletion: no test leaves a Shoot on the plane. */
async function removeShoot(shoot: string): Promise<void> {
  await deleteShoot(env.garden, project.namespace, shoot);
  await eventually('the Shoot to be gone', async () =>
    (await getShoot(env.garden, project.namespace, shoot)) ? undefined : true,
  );
}

describe('kimops backfill --once', () => {
  it('Pending while the Shoot is created, Ready with the kubeconfig Secret, Pending on a new generation, Failed on a non-retryable error, Terminating until the Shoot is gone', async () => {
    const { namespace, shoot, runtime, runtimeID, name, args } = await setup('bf');
    const shootRef = { ...SHOOT, namespace: project.namespace, name: shoot };

    // No Shoot yet: KIM's finalizer and "Runtime initialized".
    const first = await backfillOnce(args);
    expect(first.stdout).toContain(`${namespace}/${name}: status Pending written`);
    expect(first.stdout).toContain('finalizer added');
    let live = await getRuntime(namespace, name);
    expect(live?.metadata.finalizers).toContain(RUNTIME_FINALIZER);
    expect(live?.status?.state).toBe('Pending');
    expect(condition(live, 'Provisioned')).toMatchObject({
      status: 'Unknown',
      reason: 'Initialised',
      message: 'Runtime initialized',
      observedGeneration: 1,
    });

    // The Shoot as the applier creates it (Runtime generation 1 on it); Gardener has reported nothing yet.
    await createRendered(env.garden, configured(render(runtime, project.settings)));
    await backfillOnce(args);
    live = await getRuntime(namespace, name);
    expect(live?.status?.state).toBe('Pending');
    expect(condition(live, 'Provisioned')).toMatchObject({ reason: 'Pending', message: 'Shoot is pending' });

    // Gardener starts the Create (two simulator steps: its finalizer, then Create Pending).
    await simulator.tick();
    await simulator.tick();
    expect((await getShoot(env.garden, project.namespace, shoot))?.status?.lastOperation).toMatchObject({
      type: 'Create',
      state: 'Pending',
    });
    await backfillOnce(args);
    live = await getRuntime(namespace, name);
    expect(live?.status?.state).toBe('Pending');
    expect(condition(live, 'Provisioned')).toMatchObject({ reason: 'Pending', message: 'Shoot creation in progress' });
    expect(live?.status?.shootLastOperation).toMatchObject({ type: 'Create', state: 'Pending' });

    // Succeeded: the GardenerCluster and the Secret from adminkubeconfig, then Ready in the same pass.
    runSimulator();
    await eventually('the Shoot to be created', async () =>
      succeeded(await getShoot(env.garden, project.namespace, shoot)) ? true : undefined,
    );
    const ready = await backfillOnce(args);
    expect(ready.stdout).toContain(`${namespace}/${name}: status Ready written`);
    expect(ready.stdout).toContain('kubeconfig Secret created');
    live = await getRuntime(namespace, name);
    expect(live?.status?.state).toBe('Ready');
    expect(live?.status?.provisioningCompleted).toBe(true);
    expect(condition(live, 'Provisioned')).toMatchObject({ status: 'True', reason: 'ShootCreationCompleted' });
    expect(condition(live, 'KubeconfigReady')).toMatchObject({ status: 'True', reason: 'GardenerClusterCRReady' });
    expect(condition(live, 'Configured')).toMatchObject({ status: 'True', reason: 'AdministratorsConfigured' });
    const secret = await env.kcp.get<KubeObject & { data?: Record<string, string> }>({
      apiVersion: 'v1',
      kind: 'Secret',
      namespace,
      name: `kubeconfig-${runtimeID}`,
    });
    expect(secret.ok ? 'found' : describeFailure(secret)).toBe('found');
    if (!secret.ok) return;
    const kubeconfig = Buffer.from(secret.body.data?.config ?? '', 'base64').toString('utf8');
    expect(kubeconfig).toContain(`server: ${env.plane.kubeApiserverUrl}`);
    expect((secret.body.metadata.labels as Record<string, string>)['operator.kyma-project.io/cluster-name']).toBe(
      runtimeID,
    );
    const cluster = await env.kcp.get<KubeObject & { spec?: unknown; status?: { state?: string } }>({
      apiVersion: 'infrastructuremanager.kyma-project.io/v1',
      kind: 'GardenerCluster',
      namespace,
      name: runtimeID,
    });
    expect(cluster.ok ? cluster.body.status?.state : describeFailure(cluster)).toBe('Ready');
    expect(cluster.ok && cluster.body.spec).toMatchObject({
      shoot: { name: shoot },
      kubeconfig: { secret: { name: `kubeconfig-${runtimeID}`, namespace, key: 'config' } },
    });
    // KIM's Events, one per changed condition, on the Runtime.
    const events = await env.kcp.list<KubeObject & { involvedObject: { name: string }; reason: string }>({
      apiVersion: 'v1',
      kind: 'Event',
      namespace,
    });
    const reasons = events.ok
      ? events.body.items.filter((e) => e.involvedObject.name === name).map((e) => e.reason)
      : [];
    expect(reasons).toEqual(
      expect.arrayContaining([
        'Initialised',
        'ShootCreationCompleted',
        'GardenerClusterCRReady',
        'AdministratorsConfigured',
      ]),
    );

    // A quiet pass writes nothing.
    const quiet = await backfillOnce(args);
    expect(quiet.stdout).toBe('1 Runtime(s): 0 status written, 1 unchanged, 0 failed\n');

    // KEB updates the Runtime: generation 2 is not on the Shoot yet → Pending at once.
    const bumped = await env.kcp.patch(
      { ...RUNTIME, namespace, name },
      [{ op: 'replace', path: '/spec/shoot/provider/workers/0/maximum', value: 25 }],
      CONTENT_TYPE.jsonPatch,
    );
    expect(bumped.ok ? 'patched' : describeFailure(bumped)).toBe('patched');
    await backfillOnce(args);
    live = await getRuntime(namespace, name);
    expect(live?.metadata.generation).toBe(2);
    expect(live?.status?.state).toBe('Pending');
    expect(condition(live, 'Provisioned')).toMatchObject({
      status: 'Unknown',
      reason: 'Processing',
      message: 'Shoot update is in progress',
      observedGeneration: 2,
    });
    // The applier writes generation 2 to the Shoot → Ready again.
    expect(
      (await env.garden.patch(shootRef, { metadata: { annotations: { [ANNOTATION_RUNTIME_GENERATION]: '2' } } })).ok,
    ).toBe(true);
    await backfillOnce(args);
    expect((await getRuntime(namespace, name))?.status?.state).toBe('Ready');

    // A reconcile that fails with a non-retryable code → Failed with KIM's reason.
    simulator.inject(project.namespace, shoot, {
      state: 'Failed',
      codes: ['ERR_INFRA_UNAUTHORIZED'],
      description: 'credentials rejected',
    });
    const changed = await env.garden.patch(
      shootRef,
      [{ op: 'replace', path: '/spec/provider/workers/0/maximum', value: 21 }],
      CONTENT_TYPE.jsonPatch,
    );
    expect(changed.ok ? 'patched' : describeFailure(changed)).toBe('patched');
    await eventually('the Shoot reconcile to fail', async () =>
      (await getShoot(env.garden, project.namespace, shoot))?.status?.lastOperation?.state === 'Failed'
        ? true
        : undefined,
    );
    await backfillOnce(args);
    live = await getRuntime(namespace, name);
    expect(live?.status?.state).toBe('Failed');
    expect(condition(live, 'Provisioned')).toMatchObject({
      status: 'False',
      reason: 'ProcessingErr',
      message: 'ERR_INFRA_UNAUTHORIZED',
    });
    expect(live?.status?.shootLastErrors).toEqual([
      expect.objectContaining({ description: 'credentials rejected', codes: ['ERR_INFRA_UNAUTHORIZED'] }),
    ]);
    simulator.heal(project.namespace, shoot);

    // KEB deletes the Runtime: Terminating, the finalizer held while the Shoot exists.
    const deleted = await env.kcp.delete({ ...RUNTIME, namespace, name });
    expect(deleted.ok ? 'deleted' : describeFailure(deleted)).toBe('deleted');
    await backfillOnce(args);
    live = await getRuntime(namespace, name);
    expect(live?.status?.state).toBe('Terminating');
    expect(condition(live, 'Deprovisioned')).toMatchObject({
      status: 'Unknown',
      reason: 'GardenerShootDeleted',
      message: 'Runtime shoot deletion started',
    });
    expect(live?.metadata.finalizers).toContain(RUNTIME_FINALIZER);

    // The applier deletes the Shoot; once Gardener has removed it, the finalizer goes and the Runtime with it.
    await deleteShoot(env.garden, project.namespace, shoot);
    const whileDeleting = await backfillOnce(args);
    if (await getShoot(env.garden, project.namespace, shoot))
      expect(whileDeleting.stdout).not.toContain('finalizer released');
    await eventually('the Shoot to be gone', async () =>
      (await getShoot(env.garden, project.namespace, shoot)) ? undefined : true,
    );
    const released = await backfillOnce(args);
    expect(released.stdout + whileDeleting.stdout).toContain(`${namespace}/${name}: `);
    expect(released.stdout + whileDeleting.stdout).toContain('finalizer released');
    expect(await getRuntime(namespace, name)).toBeUndefined();
    expect(
      (await env.kcp.get({ apiVersion: 'v1', kind: 'Secret', namespace, name: `kubeconfig-${runtimeID}` })).status,
    ).toBe(404);
    expect(
      (
        await env.kcp.get({
          apiVersion: 'infrastructuremanager.kyma-project.io/v1',
          kind: 'GardenerCluster',
          namespace,
          name: runtimeID,
        })
      ).status,
    ).toBe(404);
    expect(simulator.problems).toEqual([]);
  }, 120_000);

  it('refuses a landscape whose Garden namespace does not exist (exit 2) and touches no Runtime', async () => {
    const { namespace, name, args } = await setup('bfp');
    const wrong = await landscapeForProject(dir, 'landscape-bfp-wrong', 'stage', { namespace: 'garden-nosuchprj' });
    const result = await kimops([...args.map((a, i) => (args[i - 1] === '--landscape' ? wrong : a)), '--once']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'error: landscape stage: gardener.project: namespace garden-nosuchprj (project nosuchprj) does not exist',
    );
    expect(result.stderr).toContain('Set gardener.project');
    expect(result.stdout).toBe('');
    const live = await getRuntime(namespace, name);
    expect(live?.status?.state).toBeUndefined();
    expect(live?.metadata.finalizers ?? []).not.toContain(RUNTIME_FINALIZER);
  });

  it('takes over the fields it sets on a GardenerCluster another manager (KIM) created: Ready, not a 409', async () => {
    const { namespace, shoot, runtime, runtimeID, name, args } = await setup('bfg');
    const gc = {
      apiVersion: 'infrastructuremanager.kyma-project.io/v1',
      kind: 'GardenerCluster',
      namespace,
      name: runtimeID,
    } as const;
    // As KIM left it: its manager owns the labels and spec, one label with a value kimops would change.
    const kimsCluster = {
      apiVersion: gc.apiVersion,
      kind: gc.kind,
      metadata: {
        name: runtimeID,
        namespace,
        labels: {
          'kyma-project.io/shoot-name': 'previous-name',
          'operator.kyma-project.io/managed-by': 'infrastructure-manager',
        },
      },
      spec: {
        shoot: { name: shoot },
        kubeconfig: { secret: { name: `kubeconfig-${runtimeID}`, namespace, key: 'config' } },
      },
    };
    const created = await env.kcp.apply(kimsCluster as unknown as KubeObject, 'infrastructure-manager');
    expect(created.ok ? 'applied' : describeFailure(created)).toBe('applied');
    runSimulator();
    try {
      await createRendered(env.garden, configured(render(runtime, project.settings)));
      await eventually('the Shoot to be created', async () =>
        succeeded(await getShoot(env.garden, project.namespace, shoot)) ? true : undefined,
      );
      await backfillOnce(args);
      expect((await getRuntime(namespace, name))?.status?.state).toBe('Ready');
      const live = await env.kcp.get(gc);
      expect(
        live.ok
          ? (live.body.metadata.labels as Record<string, string>)['kyma-project.io/shoot-name']
          : describeFailure(live),
      ).toBe(shoot);
    } finally {
      await removeShoot(shoot);
    }
  }, 60_000);

  it('against an unreachable KCP API exits 69 naming the kubeconfig and the fix', async () => {
    const { args } = await setup('bfu');
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
});

describe('kimops backfill --watch', () => {
  it("a restart keeps a Ready Runtime Ready (no reconcile before the Shoot cache is filled), and Events only for KIM's conditions", async () => {
    const { namespace, shoot, runtime, name, args } = await setup('bfr');
    runSimulator();
    try {
      await createRendered(env.garden, configured(render(runtime, project.settings)));
      await eventually('the Shoot to be created', async () =>
        succeeded(await getShoot(env.garden, project.namespace, shoot)) ? true : undefined,
      );
      await backfillOnce(args);
      const before = await getRuntime(namespace, name);
      expect(before?.status?.state).toBe('Ready');
      const eventsBefore = await runtimeEvents(namespace, name);
      expect(eventsBefore.map((e) => e.reason).filter((reason) => !KIM_REASONS.has(reason ?? ''))).toEqual([]);

      const controller = new AbortController();
      // A pass that writes nothing logs its summary at debug.
      const running = startKimops(
        [...args, '--watch', '--interval', '3600', '--log-level', 'debug'],
        controller.signal,
      );
      try {
        await eventually(
          'the first pass',
          async () => (running.stdout.includes('Runtime(s):') ? true : undefined),
          30_000,
        );
      } finally {
        controller.abort();
      }
      const result = await running.done;
      expect(result.stderr).toBe('');
      // Nothing to write: the status was already what the Shoot says.
      expect(result.stdout).not.toContain(`${namespace}/${name}: status`);
      const after = await getRuntime(namespace, name);
      expect(after?.status?.state).toBe('Ready');
      expect(after?.metadata.resourceVersion).toBe(before?.metadata.resourceVersion);
      expect((await runtimeEvents(namespace, name)).length).toBe(eventsBefore.length);
    } finally {
      await removeShoot(shoot);
    }
  }, 60_000);

  it("follows the applier's report as it changes: SeedNotFound while the applier cannot create the Shoot, Pending again once it can", async () => {
    const { namespace, shoot, name, args } = await setup('bfr');
    const reportRef = { apiVersion: 'v1', kind: 'ConfigMap', namespace: project.namespace, name: APPLY_REPORT_NAME };
    const facts = (entries: Map<string, ApplyFacts>) => applyReportConfigMap(project.namespace, 'c0ffee', entries);
    const controller = new AbortController();
    const running = startKimops([...args, '--watch', '--interval', '3600'], controller.signal);
    try {
      await eventually(
        'Pending without a Shoot',
        async () => ((await getRuntime(namespace, name))?.status?.state === 'Pending' ? true : undefined),
        20_000,
      );
      const message =
        'Cannot find available seed for the region sa-east-1. The followig regions have seeds ready: [eu-central-1].';
      const written = await env.garden.apply(
        facts(new Map([[shoot, { generation: 1, seedNotFound: message }]])),
        'kimops',
        { force: true },
      );
      expect(written.ok ? 'applied' : describeFailure(written)).toBe('applied');
      const failed = await eventually(
        "Failed with KIM's SeedNotFound",
        async () => {
          const live = await getRuntime(namespace, name);
          return live?.status?.state === 'Failed' ? live : undefined;
        },
        10_000,
      );
      expect(condition(failed, 'Provisioned')).toMatchObject({ status: 'False', reason: 'SeedNotFound', message });
      expect((await env.garden.apply(facts(new Map()), 'kimops', { force: true })).ok).toBe(true);
      await eventually(
        'Pending again',
        async () => ((await getRuntime(namespace, name))?.status?.state === 'Pending' ? true : undefined),
        10_000,
      );
    } finally {
      controller.abort();
      await env.garden.delete(reportRef);
    }
    const result = await running.done;
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
  }, 60_000);

  it('turns a Ready Runtime Pending on a generation bump, Ready again on the Shoot event, and releases it once the Shoot is gone', async () => {
    const { namespace, shoot, runtime, name, args } = await setup('bfw');
    runSimulator();
    await createRendered(env.garden, configured(render(runtime, project.settings)));
    const controller = new AbortController();
    // An interval far beyond the test: only watch events can bring the changes in.
    const running = startKimops([...args, '--watch', '--interval', '3600'], controller.signal);
    try {
      await eventually(
        'the Runtime to be Ready',
        async () => ((await getRuntime(namespace, name))?.status?.state === 'Ready' ? true : undefined),
        60_000,
      );
      const bumped = await env.kcp.patch(
        { ...RUNTIME, namespace, name },
        [{ op: 'replace', path: '/spec/shoot/provider/workers/0/maximum', value: 25 }],
        CONTENT_TYPE.jsonPatch,
      );
      expect(bumped.ok ? 'patched' : describeFailure(bumped)).toBe('patched');
      await eventually(
        'the bumped Runtime to be Pending',
        async () => {
          const live = await getRuntime(namespace, name);
          return live?.status?.state === 'Pending' && condition(live, 'Provisioned')?.observedGeneration === 2
            ? true
            : undefined;
        },
        10_000,
        20,
      );
      // The applier's write of generation 2 is a Shoot event: Ready again without a periodic pass.
      expect(
        (
          await env.garden.patch(
            { ...SHOOT, namespace: project.namespace, name: shoot },
            { metadata: { annotations: { [ANNOTATION_RUNTIME_GENERATION]: '2' } } },
          )
        ).ok,
      ).toBe(true);
      await eventually(
        'the Runtime to be Ready again',
        async () => ((await getRuntime(namespace, name))?.status?.state === 'Ready' ? true : undefined),
        10_000,
      );
      // Deletion: the Shoot's DELETED event releases the finalizer.
      expect((await env.kcp.delete({ ...RUNTIME, namespace, name })).ok).toBe(true);
      await eventually(
        'the Runtime to be Terminating',
        async () => ((await getRuntime(namespace, name))?.status?.state === 'Terminating' ? true : undefined),
        10_000,
      );
      await deleteShoot(env.garden, project.namespace, shoot);
      await eventually(
        'the Runtime to be gone',
        async () => ((await getRuntime(namespace, name)) ? undefined : true),
        30_000,
      );
    } finally {
      controller.abort();
    }
    const result = await running.done;
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
  }, 120_000);
});
