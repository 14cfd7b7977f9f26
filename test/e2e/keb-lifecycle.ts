// Issue 7's end-to-end acceptance as a reusable scenario: the whole pipeline as KEB meets it. On the real KCP API
// server and gardener-apiserver, with the gardenlet simulator playing Gardener, three watching kimops processes —
// `generate` (Runtimes → PRs, auto-merged per kimops.yaml), `apply` (main → Shoots) and `backfill` (Shoots →
// Runtime status, kubeconfig Secret) — while the scenario does what KEB does: create a Runtime and wait for
// Ready and the kubeconfig Secret (and its cluster, the SKR, configured before), update it and read the status 4 s
// later, change its administrators and OIDC (one refused by the SKR), see Gardener fail (retryable and not), delete
// it and wait for it to be gone. keb-lifecycle.test.ts runs it in-process with the plane's admin
// identities; the deployment and package tests run it with the ServiceAccounts' tokens or the installed package.
import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, inject } from 'vitest';
import { CONTENT_TYPE } from '../../adapters/kube/kube-client.js';
import { describeFailure } from '../../model/kube-result.js';
import type { KubeObject } from '../../model/kube-object.js';
import { MSG_RETRYABLE_RECONCILE } from '../../backfiller/status.js';
import {
  ANNOTATION_RUNTIME_GENERATION,
  KYMA_SYSTEM_NAMESPACE,
  LABEL_OIDC_MANAGED_BY,
  LABEL_RECONCILER_MANAGED_BY,
  MANAGED_BY_KIM,
  PROVISIONING_INFO_CONFIG_MAP,
} from '../../model/contract.js';
import { RUNTIME_API_VERSION, type Runtime } from '../../model/runtime.js';
import type { RuntimeStatus } from '../../model/runtime-status.js';
import { kimops, startKimops, type CliRun, type RunningKimops } from '../helpers/cli.js';
import { GardenletSimulator } from '../helpers/gardenlet-simulator.js';
import { createTestNamespace, landscapeForProject, useTestProject, type TestProject } from '../helpers/projects.js';
import { exampleRuntime, getShoot } from '../helpers/shoots.js';
import { useTempDir, type TempDir } from '../helpers/temp-dir.js';
import { connect, eventually, planeAsShootCluster, type Testenv } from '../helpers/testenv.js';

const RUNTIME = { apiVersion: RUNTIME_API_VERSION, kind: 'Runtime' } as const;
const CRB = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding' } as const;
const OIDC = { apiVersion: 'authentication.gardener.cloud/v1alpha1', kind: 'OpenIDConnect' } as const;
/** KEB reads a Runtime's status this long after its own change to it. */
const KEB_READS_AFTER_MS = 4_000;

type LiveRuntime = Runtime & { metadata: Runtime['metadata'] & { generation?: number }; status?: RuntimeStatus };

/** The kubeconfig files each loop runs with: one identity per loop and cluster, as deployed. */
export interface PipelineIdentities {
  generator: { kcp: string; garden: string };
  applier: { garden: string };
  backfiller: { kcp: string; garden: string };
}

/** Starts the three watching commands (generate, apply, backfill — in this order) with these arguments. */
export type StartPipeline = (commands: string[][], signal: AbortSignal) => RunningKimops[];

export interface KebLifecycleOptions {
  env: Testenv;
  project: Pick<TestProject, 'settings' | 'namespace'>;
  dir: TempDir;
  simulator: GardenletSimulator;
  /** Default: the plane's admin kubeconfigs for every loop. */
  identities?: PipelineIdentities;
  /** Default: the commands in this process (test/helpers/cli.ts). */
  start?: StartPipeline;
  /** The KCP namespace of the Runtimes. Default: a new one; the deployment test passes the one its Roles grant. */
  kcpNamespace?: string;
  /** Appended to each of the three command lines (a log format, a log level). */
  extraArgs?: string[];
}

/**
 * What the scenario runs on, set up by the calling test file's hooks: the plane, a Project for the stage
 * landscape, a folder per test named after `prefix`, and the gardenlet simulator (playing Gardener, its Shoots'
 * clusters on the plane's kube-apiserver). Call it at the top of a test file or describe block.
 */
export function useKebPlane(prefix: string): Pick<KebLifecycleOptions, 'env' | 'project' | 'dir' | 'simulator'> {
  const env = connect(inject('testenvStateDir'));
  const project = useTestProject(env, 'stage');
  const dir = useTempDir(prefix);
  const simulator = new GardenletSimulator({
    garden: env.garden,
    intervalMs: 20,
    progressSteps: [50],
    runtimeCluster: planeAsShootCluster(env),
  });
  beforeAll(() => simulator.start());
  afterAll(() => simulator.stop());
  return { env, project, dir, simulator };
}

/** The `kimops pr show <n>` of the Runtime's ChangeProposed condition (its message: `kimops pr show <n> --repo …`). */
function proposalOf(runtime: LiveRuntime): string {
  const message = runtime.status?.conditions?.find((c) => c.type === 'ChangeProposed')?.message ?? '';
  const number = /^kimops pr show (\d+) /.exec(message)?.[1];
  if (!number) throw new Error(`no pull request in ChangeProposed: ${JSON.stringify(message)}`);
  return number;
}

/** The newest pull request of the landscape repo (numbered from 1) and what `kimops pr show` prints of it. */
async function lastPullRequest(gitdir: string): Promise<[string, string]> {
  let last: [string, string] | undefined;
  for (let number = 1; ; number++) {
    const shown = await kimops(['pr', 'show', '--repo', gitdir, String(number)]);
    if (shown.code !== 0) break;
    last = [String(number), shown.stdout];
  }
  if (!last) throw new Error('no pull request in the landscape repo');
  return last;
}

/** KIM's (and the generator's) name of an administrator's binding: `admin-` and 10 hex digits of its SHA-256. */
function bindingName(user: string): string {
  return `admin-${createHash('sha256').update(user).digest('hex').slice(0, 10)}`;
}

/**
 * What the scenario reads on the SKR (the plane's kube-apiserver, as the gardenlet simulator's adminkubeconfig
 * says): the four kinds kimops puts there (docs/skr.md), and when kimops last applied each.
 */
function skrOf(env: Testenv) {
  const cluster = env.kcp;
  const read = async (ref: { apiVersion: string; kind: string; namespace?: string; name: string }) => {
    const got = await cluster.get<KubeObject>(ref);
    if (!got.ok && got.status !== 404) throw new Error(describeFailure(got));
    return got.ok ? got.body : undefined;
  };
  /**
   * When field manager kimops last applied the object (its managedFields entry); for the bare kyma-system Namespace,
   * in which an apply owns no field and so leaves no entry, when it was created. Undefined: not there.
   */
  const appliedAt = (object: KubeObject | undefined): number | undefined => {
    const fields = (object?.metadata.managedFields ?? []) as { manager?: string; operation?: string; time?: string }[];
    const entry = fields.find((f) => f.manager === 'kimops' && f.operation === 'Apply');
    const time = entry?.time ?? (object?.kind === 'Namespace' ? object.metadata.creationTimestamp : undefined);
    return typeof time === 'string' ? Date.parse(time) : undefined;
  };
  const binding = (user: string) => read({ ...CRB, name: bindingName(user) });
  return {
    binding,
    /** Each object there, carrying KIM's labels and this Runtime's content, applied by kimops no later than `before`. */
    async expectConfigured(expected: {
      admins: string[];
      clientID: string;
      runtimeID: string;
      /** The live Shoot has a Seed (the simulator schedules none): then kyma-provisioning-info names its region. */
      seeded: boolean;
      before: string;
    }) {
      const before = Date.parse(expected.before);
      if (Number.isNaN(before)) throw new Error(`no Ready time to compare with: ${JSON.stringify(expected.before)}`);
      const namespace = await read({ apiVersion: 'v1', kind: 'Namespace', name: KYMA_SYSTEM_NAMESPACE });
      const configMap = (await read({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        namespace: KYMA_SYSTEM_NAMESPACE,
        name: PROVISIONING_INFO_CONFIG_MAP,
      })) as (KubeObject & { data?: Record<string, string> }) | undefined;
      const oidc = (await read({ ...OIDC, name: 'kyma-oidc-0' })) as
        (KubeObject & { spec?: { clientID?: string } }) | undefined;
      const bindings = await Promise.all(expected.admins.map(binding));
      expect(namespace?.metadata.name).toBe(KYMA_SYSTEM_NAMESPACE);
      expect(configMap?.metadata.labels?.[LABEL_RECONCILER_MANAGED_BY]).toBe(MANAGED_BY_KIM);
      // Git's details, with the live fields the applier adds from the Garden.
      expect(configMap?.data?.details).toContain(expected.runtimeID);
      expect(configMap?.data?.details).toMatch(/^lastReconcileTime: /m);
      expect(/^seedRegion: /m.test(configMap?.data?.details ?? '')).toBe(expected.seeded);
      expect(oidc?.metadata.labels?.[LABEL_OIDC_MANAGED_BY]).toBe(MANAGED_BY_KIM);
      expect(oidc?.spec?.clientID).toBe(expected.clientID);
      bindings.forEach((found, i) =>
        expect(found).toMatchObject({
          metadata: { labels: { [LABEL_RECONCILER_MANAGED_BY]: MANAGED_BY_KIM } },
          roleRef: { kind: 'ClusterRole', name: 'cluster-admin' },
          subjects: [{ kind: 'User', name: expected.admins[i] }],
        }),
      );
      // managedFields times are whole seconds, as the condition's: "no later than" within the same second.
      for (const [what, object] of [
        ['Namespace', namespace],
        ['ConfigMap', configMap],
        ['OpenIDConnect', oidc],
        ...bindings.map((found, i) => [`binding of ${expected.admins[i] ?? ''}`, found] as const),
      ] as const) {
        const at = appliedAt(object);
        expect(at !== undefined && at <= before ? 'applied before Ready' : `${what} applied at ${at}`).toBe(
          'applied before Ready',
        );
      }
    },
    /** The plane is every test's SKR: what this scenario made there goes (kyma-system and its ConfigMap are everyone's). */
    async cleanUp(admins: string[], clientID: string) {
      for (const user of admins) await cluster.delete({ ...CRB, name: bindingName(user) });
      const oidc = (await read({ ...OIDC, name: 'kyma-oidc-0' })) as
        (KubeObject & { spec?: { clientID?: string } }) | undefined;
      if (oidc?.spec?.clientID === clientID) await cluster.delete({ ...OIDC, name: 'kyma-oidc-0' });
    },
  };
}

/** The plane's two admin kubeconfigs for every loop. */
function adminIdentities(env: Testenv): PipelineIdentities {
  const kcp = join(env.stateDir, 'kcp.kubeconfig');
  const garden = join(env.stateDir, 'garden.kubeconfig');
  return { generator: { kcp, garden }, applier: { garden }, backfiller: { kcp, garden } };
}

const startInProcess: StartPipeline = (commands, signal) => commands.map((argv) => startKimops(argv, signal));

/** The command lines of the three watching loops (the backfiller serves metrics on a free port). */
function pipelineArguments({
  landscape,
  gitdir,
  namespace,
  identities,
}: {
  landscape: string;
  gitdir: string;
  namespace: string;
  identities: PipelineIdentities;
}): string[][] {
  const { generator, applier, backfiller } = identities;
  return [
    [
      'generate',
      ...['--landscape', landscape, '--kcp-kubeconfig', generator.kcp, '--kcp-namespace', namespace],
      ...['--garden-kubeconfig', generator.garden, '--repo', gitdir, '--watch', '--interval', '2'],
    ],
    [
      'apply',
      ...['--landscape', landscape, '--repo', gitdir, '--garden-kubeconfig', applier.garden],
      ...['--watch', '--interval', '1'],
    ],
    [
      'backfill',
      ...['--landscape', landscape, '--kcp-kubeconfig', backfiller.kcp, '--garden-kubeconfig', backfiller.garden],
      ...['--kcp-namespace', namespace, '--watch', '--interval', '3600', '--metrics-port', '0'],
    ],
  ];
}

/**
 * create → the SKR configured (docs/skr.md), then Ready with the kubeconfig Secret and the PR trail; an
 * unconvertible Runtime → Failed/ConversionErr; update → Pending within 4 s → Ready; administrators changed → an
 * `skr` PR, then the new binding on the SKR and the old one gone; an OIDC issuer the SKR refuses → Pending with
 * KIM's condition, fixed → Ready; retryable Failed stays Pending; non-retryable Failed; delete → Terminating →
 * gone. KEB's own calls use the plane's admin identity.
 */
/** Returns what the three commands printed and their exit codes (generate, apply, backfill). */
export async function kebLifecycle(options: KebLifecycleOptions): Promise<CliRun[]> {
  const { env, project, dir, simulator } = options;
  const landscape = await landscapeForProject(dir, 'landscape', 'stage', project);
  const gitdir = join(dir.path, 'landscape.git');
  expect((await kimops(['init', '--landscape', landscape, gitdir])).code).toBe(0);
  const namespace = options.kcpNamespace ?? (await createTestNamespace(env.kcp, 'kcp-keb-'));
  const shoot = `k${randomBytes(4).toString('hex')}`;
  const example = exampleRuntime('aws.yaml', shoot);
  example.metadata = { ...example.metadata, namespace, name: `rt-${shoot}` };
  // The plane's kube-apiserver is every Shoot's cluster (planeAsShootCluster), every test's SKR: this Runtime's
  // administrators and OIDC client are its own, so what the scenario finds there is this Runtime's.
  const admin = (who: string) => `${who}@${shoot}.example.com`;
  const clientID = `${shoot}-client`;
  example.spec.security.administrators = [admin('first')];
  const oidcConfig = example.spec.shoot.kubernetes?.kubeAPIServer?.additionalOidcConfig?.[0];
  if (!oidcConfig) throw new Error('the aws example has no additionalOidcConfig');
  oidcConfig.clientID = clientID;
  const issuerURL = oidcConfig.issuerURL;
  const name = example.metadata.name;
  const runtimeID = example.metadata.labels?.['kyma-project.io/runtime-id'] ?? '';
  const ref = { ...RUNTIME, namespace, name };

  const get = async (): Promise<LiveRuntime | undefined> => {
    const got = await env.kcp.get(ref);
    if (!got.ok && got.status !== 404) throw new Error(describeFailure(got));
    return got.ok ? (got.body as unknown as LiveRuntime) : undefined;
  };
  const provisioned = (runtime: LiveRuntime | undefined) =>
    runtime?.status?.conditions?.find((c) => c.type === 'Provisioned');
  /** KEB's change of one field of the Runtime; the new generation. */
  const kebPatch = async (path: string, value: unknown): Promise<number> => {
    const patched = await env.kcp.patch(ref, [{ op: 'replace', path, value }], CONTENT_TYPE.jsonPatch);
    if (!patched.ok) throw new Error(describeFailure(patched));
    return Number((patched.body as unknown as LiveRuntime).metadata.generation);
  };
  const kebUpdate = (maximum: number) => kebPatch('/spec/shoot/provider/workers/0/maximum', maximum);
  const skr = skrOf(env);
  /** KEB's read 4 s after its update: the status must already say Pending for the new generation. */
  const pendingWithinFourSeconds = async (generation: number) => {
    const started = Date.now();
    await eventually(
      `Pending for generation ${generation}`,
      async () => {
        const live = await get();
        return live?.status?.state === 'Pending' && provisioned(live)?.observedGeneration === generation
          ? true
          : undefined;
      },
      KEB_READS_AFTER_MS,
      20,
    );
    return Date.now() - started;
  };
  const ready = (generation: number) =>
    eventually(
      `Ready at generation ${generation}`,
      async () => {
        const live = await get();
        return live?.status?.state === 'Ready' && provisioned(live)?.observedGeneration === generation
          ? live
          : undefined;
      },
      60_000,
    );

  // KEB creates the Runtime; the pipeline runs as three watching processes.
  const created = await env.kcp.create({ ...example, ...RUNTIME } as unknown as KubeObject);
  expect(created.ok ? 'created' : describeFailure(created)).toBe('created');
  // And one it should not have: without the region label the converter refuses it (KIM's ConversionErr).
  const unconvertible = exampleRuntime('gcp.yaml', `${shoot}x`);
  delete unconvertible.metadata.labels?.['kyma-project.io/region'];
  unconvertible.metadata = { ...unconvertible.metadata, namespace, name: `rt-${shoot}x` };
  const unconvertibleRef = { ...RUNTIME, namespace, name: unconvertible.metadata.name };
  const createdUnconvertible = await env.kcp.create({ ...unconvertible, ...RUNTIME } as unknown as KubeObject);
  expect(createdUnconvertible.ok ? 'created' : describeFailure(createdUnconvertible)).toBe('created');
  const controller = new AbortController();
  const processes = (options.start ?? startInProcess)(
    pipelineArguments({ landscape, gitdir, namespace, identities: options.identities ?? adminIdentities(env) }).map(
      (argv) => [...argv, ...(options.extraArgs ?? [])],
    ),
    controller.signal,
  );
  /** KIM's runtime-state series of this Runtime, as the backfiller serves it (`state="…",…} 1`). */
  const stateSeries = async (metric = 'infrastructure_manager_im_runtime_state'): Promise<string[]> => {
    const url = /metrics at (http:\/\/[^\s"]+)/.exec(processes[2]?.stdout ?? '')?.[1];
    if (!url) return [];
    const text = await (await fetch(url)).text();
    return text
      .split('\n')
      .filter((line) => line.startsWith(`${metric}{`) && line.includes(`runtimeId="${runtimeID}"`));
  };
  try {
    // Create → Ready, with the kubeconfig Secret KEB hands to the customer, and the GitOps trail beside KIM's conditions.
    const first = await ready(1);
    expect(first.status?.provisioningCompleted).toBe(true);
    const condition = (type: string) => first.status?.conditions?.find((c) => c.type === type);
    // Its cluster was configured before it was Ready: the objects were there by the time Ready was written (the
    // backfiller writes it only once the applier recorded the SKR of the Shoot's tree), and KIM's conditions say so.
    const readySince = condition('Ready')?.lastTransitionTime ?? '';
    expect(condition('Ready')?.status).toBe('True');
    const seeded = typeof (await getShoot(env.garden, project.namespace, shoot))?.spec.seedName === 'string';
    await skr.expectConfigured({ admins: [admin('first')], clientID, runtimeID, seeded, before: readySince });
    expect(condition('KymaSystemNSCreated')).toMatchObject({ status: 'True', reason: 'KymaSystemNSReady' });
    expect(condition('OidcAndConfigMapConfigured')).toMatchObject({
      status: 'True',
      reason: 'OidcAndConfigMapsConfigured',
      message: 'OIDC and kyma-provisioning-info configuration completed',
    });
    expect(condition('Configured')).toMatchObject({ status: 'True', reason: 'AdministratorsConfigured' });
    expect(condition('ChangeProposed')).toMatchObject({
      status: 'True',
      reason: 'PullRequestMerged',
      message: expect.stringMatching(new RegExp(`^kimops pr show \\d+ --repo ${gitdir}$`)),
    });
    expect(condition('ChangeMerged')).toMatchObject({
      status: 'True',
      reason: 'Merged',
      message: expect.stringMatching(/^[0-9a-f]{40}$/),
    });

    // The unconvertible Runtime: Failed with KIM's reason, the converter's words, and no Shoot.
    const refused = await eventually(
      'the conversion error on the Runtime',
      async () => {
        const got = await env.kcp.get(unconvertibleRef);
        const live = got.ok ? (got.body as unknown as LiveRuntime) : undefined;
        return live?.status?.state === 'Failed' ? live : undefined;
      },
      30_000,
    );
    expect(provisioned(refused)).toMatchObject({
      status: 'False',
      reason: 'ConversionErr',
      message: expect.stringMatching(/^Runtime conversion error .*kyma-project\.io\/region/),
    });
    expect(await getShoot(env.garden, project.namespace, `${shoot}x`)).toBeUndefined();
    // KEB gives up on it (its 60 min) and deletes it: nothing to wait for, it is gone.
    expect((await env.kcp.delete(unconvertibleRef)).ok).toBe(true);
    await eventually(
      'the unconvertible Runtime gone',
      async () => ((await env.kcp.get(unconvertibleRef)).status === 404 ? true : undefined),
      30_000,
    );
    const secret = await env.kcp.get<KubeObject & { data?: Record<string, string> }>({
      apiVersion: 'v1',
      kind: 'Secret',
      namespace,
      name: `kubeconfig-${runtimeID}`,
    });
    expect(
      secret.ok ? Buffer.from(secret.body.data?.config ?? '', 'base64').toString('utf8') : describeFailure(secret),
    ).toContain(`server: ${env.plane.kubeApiserverUrl}`);
    // KIM's metric, same labels: one series for the Runtime, Ready.
    const series = await eventually('the Ready series', async () =>
      (await stateSeries()).some((l) => l.includes('state="Ready"')) ? stateSeries() : undefined,
    );
    expect(series).toEqual([
      expect.stringMatching(
        new RegExp(
          `^infrastructure_manager_im_runtime_state\\{runtimeId="${runtimeID}",runtimeName="${name}",shoot="${shoot}",provider="aws",state="Ready",message="[^"]+"\\} 1$`,
        ),
      ),
    ]);
    // KIM's other two: the GardenerCluster's state, and when the kubeconfig expires (last-sync + 24 h).
    expect(await stateSeries('infrastructure_manager_im_gardener_clusters_state')).toEqual([
      `infrastructure_manager_im_gardener_clusters_state{runtimeId="${runtimeID}",shoot="${shoot}",state="Ready",reason="KubeconfigSecretCreated"} 1`,
    ]);
    const [expiry] = await stateSeries('infrastructure_manager_im_kubeconfig_expiration');
    const expires = Number(/expires="(\d+)"/.exec(expiry ?? '')?.[1]);
    expect(expiry).toBe(
      `infrastructure_manager_im_kubeconfig_expiration{runtimeId="${runtimeID}",shoot="${shoot}",expires="${expires}",rotationDuration="51840",expirationDuration="86400"} ${expires}`,
    );
    expect(Math.abs(expires - (Date.now() / 1000 + 86_400))).toBeLessThan(120);

    // Update → Pending by the time KEB looks (4 s), then Ready with the change on the live Shoot.
    const second = await kebUpdate(25);
    expect(await pendingWithinFourSeconds(second)).toBeLessThan(KEB_READS_AFTER_MS);
    await ready(second);
    const scaled = await getShoot(env.garden, project.namespace, shoot);
    expect(scaled?.spec.provider.workers[0]?.maximum).toBe(25);
    // The change's stages, measured for the create and this update: its PR, merged, applied, Ready.
    const metricsUrl = /metrics at (http:\/\/[^\s"]+)/.exec(processes[2]?.stdout ?? '')?.[1] ?? '';
    const stageCounts = (await (await fetch(metricsUrl)).text())
      .split('\n')
      .filter((line) => line.startsWith('kimops_backfiller_stage_seconds_count{'));
    for (const stage of ['propose', 'merge', 'apply', 'ready'])
      expect(stageCounts.find((line) => line.includes(`stage="${stage}"`))).toMatch(/ [12]$/);
    expect(scaled?.metadata.annotations?.[ANNOTATION_RUNTIME_GENERATION]).toBe(String(second));

    // KEB changes the administrators: a pull request of the Runtime's own SKR change (class skr, auto-merged), then
    // the cluster: the new administrator's binding before Ready, the removed one's gone.
    const admins = await kebPatch('/spec/security/administrators', [admin('second')]);
    expect(await pendingWithinFourSeconds(admins)).toBeLessThan(KEB_READS_AFTER_MS);
    const adminsReady = await ready(admins);
    const [adminsPr, shown] = await lastPullRequest(gitdir);
    expect(shown).toMatch(/^labels: (.*, )?kimops:skr(,|$)/m);
    expect(shown).toContain(`+ ${admin('second')}`);
    // The trail names it, as for any change KEB made.
    expect(proposalOf(adminsReady)).toBe(adminsPr);
    await skr.expectConfigured({
      admins: [admin('second')],
      clientID,
      runtimeID,
      seeded,
      before: adminsReady.status?.conditions?.find((c) => c.type === 'Ready')?.lastTransitionTime ?? '',
    });
    expect(await skr.binding(admin('first'))).toBeUndefined();

    // An OIDC issuer the SKR refuses (Gardener's OpenIDConnect takes https only): Pending with KIM's condition of
    // the step and the SKR's answer, never Ready; KEB's fix brings it back.
    const issuerPath = '/spec/shoot/kubernetes/kubeAPIServer/additionalOidcConfig/0/issuerURL';
    const refusedIssuer = await kebPatch(issuerPath, 'http://insecure.example.com');
    const oidcFailed = await eventually(
      'the SKR failure on the Runtime',
      async () => {
        const live = await get();
        const oidc = live?.status?.conditions?.find((c) => c.type === 'OidcAndConfigMapConfigured');
        return oidc?.reason === 'OidcConfigurationErr' && oidc.observedGeneration === refusedIssuer ? live : undefined;
      },
      60_000,
    );
    const oidcCondition = (type: string) => oidcFailed.status?.conditions?.find((c) => c.type === type);
    expect(oidcFailed.status?.state).toBe('Pending');
    expect(oidcCondition('OidcAndConfigMapConfigured')).toMatchObject({
      status: 'Unknown',
      message: 'Failed to create OpenIDConnect resource. Scheduling for retry',
    });
    expect(oidcCondition('Reconciling')).toMatchObject({ status: 'True', reason: 'OidcConfigurationErr' });
    expect(oidcCondition('Reconciling')?.message).toContain('the applier retries on every sync');
    // The applier retries; the Runtime stays Pending until the cause is gone.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect((await get())?.status?.state).toBe('Pending');
    await ready(await kebPatch(issuerPath, issuerURL));

    // Gardener fails the next reconcile with a retryable code: KEB keeps seeing Pending.
    simulator.inject(project.namespace, shoot, {
      state: 'Failed',
      codes: ['ERR_INFRA_RATE_LIMITS_EXCEEDED'],
      description: 'rate limited by the provider',
    });
    const third = await kebUpdate(26);
    expect(await pendingWithinFourSeconds(third)).toBeLessThan(KEB_READS_AFTER_MS);
    await eventually(
      'the retryable failure on the Runtime',
      async () => {
        const live = await get();
        return live?.status?.shootLastOperation?.state === 'Failed' &&
          provisioned(live)?.message === MSG_RETRYABLE_RECONCILE
          ? live
          : undefined;
      },
      60_000,
    );
    expect((await get())?.status?.state).toBe('Pending');

    // A non-retryable code: Failed, with KIM's reason and the code as its message.
    simulator.inject(project.namespace, shoot, {
      state: 'Failed',
      codes: ['ERR_INFRA_UNAUTHORIZED'],
      description: 'credentials rejected',
    });
    const fourth = await kebUpdate(27);
    const failed = await eventually(
      'Failed',
      async () => {
        const live = await get();
        return live?.status?.state === 'Failed' && provisioned(live)?.observedGeneration === fourth ? live : undefined;
      },
      60_000,
    );
    expect(provisioned(failed)).toMatchObject({
      status: 'False',
      reason: 'ProcessingErr',
      message: 'ERR_INFRA_UNAUTHORIZED',
    });

    // Fixed on Gardener's side, KEB's next update brings it back to Ready.
    simulator.heal(project.namespace, shoot);
    await ready(await kebUpdate(28));

    // KEB deletes the Runtime: Terminating (the finalizer holds it), the Shoot deleted through Git, then gone.
    expect((await env.kcp.delete(ref)).ok).toBe(true);
    await eventually(
      'Terminating',
      async () => ((await get())?.status?.state === 'Terminating' ? true : undefined),
      10_000,
    );
    await eventually('the Runtime gone', async () => ((await get()) ? undefined : true), 90_000);
    expect(await getShoot(env.garden, project.namespace, shoot)).toBeUndefined();
    await eventually(
      'the series removed with the finalizer',
      async () => ((await stateSeries()).length === 0 ? true : undefined),
      5_000,
    );
    expect(await stateSeries('infrastructure_manager_im_gardener_clusters_state')).toEqual([]);
    expect(await stateSeries('infrastructure_manager_im_kubeconfig_expiration')).toEqual([]);
    expect(
      (await env.kcp.get({ apiVersion: 'v1', kind: 'Secret', namespace, name: `kubeconfig-${runtimeID}` })).status,
    ).toBe(404);
  } catch (error) {
    // What the three processes said is the first thing to read when this fails.
    const tails = processes.map(
      (p, i) =>
        `--- ${['generate', 'apply', 'backfill'][i]} stdout:\n${p.stdout.slice(-3000)}\n--- stderr:\n${p.stderr.slice(-3000)}`,
    );
    const open = (await kimops(['pr', 'list', '--repo', gitdir])).stdout;
    const first = /#(\d+)/.exec(open)?.[1];
    const shown = first ? (await kimops(['pr', 'show', '--repo', gitdir, first])).stdout : '';
    throw new Error(
      `${error instanceof Error ? error.message : String(error)}\n${tails.join('\n')}\n--- open PRs:\n${open}\n${shown}`,
      { cause: error },
    );
  } finally {
    controller.abort();
    await skr.cleanUp([admin('first'), admin('second')], clientID);
  }
  const results = await Promise.all(processes.map((p) => p.done));
  expect(results.map((r) => r.code)).toEqual([0, 0, 0]);
  expect(simulator.problems).toEqual([]);
  return results;
}
