// Plays KIM (kyma-infrastructure-manager's runtime controller) on the plane, for the Runtimes it leads: those
// labelled `kimops.kyma-project.io/leader=kim`, or unlabelled in a landscape whose `defaultLeader` is `kim` — the
// KIM build a landscape runs during a cut-over, which skips the Runtimes kimops leads (rules/leader.ts). It makes
// each Shoot as KIM does: kimops's own converter (the KIM-identical one) in create mode, then in update mode
// against the live Shoot when the Runtime's generation is past the Shoot's `runtime-generation` annotation,
// server-side applied with KIM's field manager `kim` and force, carrying only what the converter writes (KIM's
// labels and annotations, no kimops ownership label). It writes the Runtime's status in KIM's words
// (docs/contracts/runtime-status.md), computed by the backfiller's pure `runtimeStatus` — meant to be KIM-identical
// — with kimops's own conditions (Ready/Reconciling/Stalled and the GitOps trail) left as they were, since KIM
// never touches them; and it keeps KIM's finalizer, GardenerCluster and kubeconfig Secret (KIM's labels, from the
// Shoot's adminkubeconfig), so that a Runtime kimops takes over finds what KIM leaves behind.
//
// Where it differs from KIM on purpose: KIM creates a Shoot with a plain create (its client's own field manager) and
// applies as `kim` from its first patch on; the stand-in applies as `kim` from the start, the state of a Shoot KIM
// has patched once — the one a take-over meets on a landscape that has run KIM for a while.
//
// What it leaves out: deletion (a KIM-led Runtime is not deleted in the tests that use it), rotation of the
// kubeconfig, and the SKR itself — KIM configures the cluster inline after the kubeconfig; the stand-in reports
// those steps done (KIM's conditions) without writing to the plane, which is every test's SKR.
//
// Driven by explicit `reconcileOnce()` calls, no timers: a test decides when KIM acts, so nothing depends on timing.
import { CONTENT_TYPE, type KubeClient } from '../../adapters/kube/kube-client.js';
import { resourcePath } from '../../adapters/kube/resources.js';
import {
  adminKubeconfigRequest,
  gardenerClusterStatus,
  gardenerClusterFor,
  kubeconfigSecretFor,
  readAdminKubeconfigResponse,
} from '../../backfiller/kubeconfig.js';
import { runtimeStatus, statusChanged, type StatusShoot } from '../../backfiller/status.js';
import { convertRuntime } from '../../generator/convert/index.js';
import { setCondition } from '../../model/conditions.js';
import {
  ANNOTATION_FORCE_PATCH,
  ANNOTATION_RUNTIME_GENERATION,
  ANNOTATION_SUSPEND_PATCH,
  APPLIED_TREE_ANNOTATION,
  KIM_FIELD_MANAGER,
  KUBECONFIG_SECRET_KEY,
  RUNTIME_FINALIZER,
  SKR_APPLIED_TREE_ANNOTATION,
  gardenNamespaceOf,
} from '../../model/contract.js';
import { rfc3339Seconds } from '../../model/go-time.js';
import { describeFailure } from '../../model/kube-result.js';
import type { KubeObject } from '../../model/kube-object.js';
import { conversionSettingsOf, type Landscape } from '../../model/landscape.js';
import type { PipelineState } from '../../model/pipeline-facts.js';
import { RUNTIME_API_VERSION, type Runtime } from '../../model/runtime.js';
import {
  CONDITION_CHANGE_APPLIED,
  CONDITION_CHANGE_MERGED,
  CONDITION_CHANGE_PROPOSED,
  CONDITION_PROVISIONED,
  CONDITION_READY,
  CONDITION_RECONCILING,
  CONDITION_SHOOT_RECONCILED,
  CONDITION_STALLED,
  REASON_PROCESSING,
  readRuntimeStatus,
  type RuntimeCondition,
  type RuntimeStatus,
} from '../../model/runtime-status.js';
import { SHOOT_API_VERSION, type Shoot } from '../../model/shoot.js';
import { runtimeLeader } from '../../rules/leader.js';

/** KIM's field manager for every Shoot write (docs/contracts/runtime-status.md §3), as the applier's hand-back names it. */

const RUNTIME = { apiVersion: RUNTIME_API_VERSION, kind: 'Runtime' } as const;
const SHOOT = { apiVersion: SHOOT_API_VERSION, kind: 'Shoot' } as const;

/** kimops's own condition types: KIM neither sets nor removes them. */
const KIMOPS_CONDITION_TYPES: ReadonlySet<string> = new Set([
  CONDITION_READY,
  CONDITION_RECONCILING,
  CONDITION_STALLED,
  CONDITION_CHANGE_PROPOSED,
  CONDITION_CHANGE_MERGED,
  CONDITION_CHANGE_APPLIED,
  CONDITION_SHOOT_RECONCILED,
]);

// KIM's §3 rows after a successful patch (the backfiller has no patch step, so they are not in backfiller/status.ts).
const MSG_PATCHED_WITH_CHANGES = 'Shoot is pending for update after patch';
const MSG_PATCHED_WITHOUT_CHANGES = 'Shoot patched without changes';

/** A marker the stand-in puts on its view of the Shoot: KIM configured the SKR itself, in the same reconcile. */
const CONFIGURED_BY_KIM = 'configured-by-kim';

type LiveRuntimeObject = KubeObject & Runtime & { metadata: Runtime['metadata'] & { finalizers?: string[] } };
type LiveShoot = Shoot & { metadata: Shoot['metadata'] & { generation?: number; resourceVersion?: string } };

/** One write the stand-in made, for tests that assert what KIM did (or did not do). */
export interface KimWrite {
  runtime: string;
  what: 'finalizer' | 'shoot-create' | 'shoot-patch' | 'kubeconfig' | 'status';
  /** For `status`: the state written. */
  state?: string;
}

/** The calls KIM makes; a `KubeClient` fits (and a unit test's double). */
export type KimApi = Pick<KubeClient, 'listAll' | 'get' | 'apply' | 'patch' | 'request'>;

export interface KimStandInOptions {
  kcp: KimApi;
  garden: KimApi;
  /** The KCP namespace of the Runtimes KIM watches. */
  kcpNamespace: string;
  /** The landscape KIM's config amounts to (its converter settings, and `defaultLeader` for unlabelled Runtimes). */
  landscape: Landscape;
  now?: () => Date;
}

export class KimStandIn {
  /** Every write, in order. */
  readonly writes: KimWrite[] = [];
  private readonly now: () => Date;

  constructor(private readonly options: KimStandInOptions) {
    this.now = options.now ?? (() => new Date());
  }

  /**
   * One pass over the namespace's Runtimes, each led by KIM brought one step on (KIM's requeue): the Shoot created
   * or patched when the Runtime asks, then the status from the live Shoot. Returns the Runtimes it reconciled
   * (`<namespace>/<name>`); throws on a request the plane refused, naming the object.
   */
  async reconcileOnce(): Promise<string[]> {
    const listed = await this.options.kcp.listAll<LiveRuntimeObject>({
      ...RUNTIME,
      namespace: this.options.kcpNamespace,
    });
    if (!listed.ok) throw new Error(`KIM stand-in: ${listed.message}`);
    const reconciled: string[] = [];
    for (const runtime of listed.items) {
      if (runtimeLeader(runtime, this.options.landscape).leader !== 'kim') continue;
      if (runtime.metadata.deletionTimestamp) continue; // deletion is out of the stand-in's scope (see the header)
      await this.reconcile(runtime);
      reconciled.push(`${runtime.metadata.namespace ?? ''}/${runtime.metadata.name}`);
    }
    return reconciled;
  }

  private async reconcile(read: LiveRuntimeObject): Promise<void> {
    const name = `${read.metadata.namespace ?? ''}/${read.metadata.name}`;
    const runtime = await this.withFinalizer(read, name);
    const settings = conversionSettingsOf(this.options.landscape);
    const namespace = gardenNamespaceOf(this.options.landscape.gardener.project);
    const shootName = runtime.spec.shoot.name;
    let live = await this.liveShoot(namespace, shootName);
    let patched: 'changed' | 'unchanged' | undefined;
    let conversionError: string | undefined;
    if (!live || shouldPatch(runtime, live)) {
      const converted = convertRuntime({ runtime, settings, ...(live && { live }) });
      if (!converted.ok) conversionError = converted.error.message;
      else {
        for (const companion of converted.companions)
          await this.apply(companion as unknown as KubeObject, `companion of ${name}`);
        const before = live?.metadata.generation;
        const written = (await this.apply(converted.shoot as unknown as KubeObject, `Shoot of ${name}`)) as LiveShoot;
        this.writes.push({ runtime: name, what: live ? 'shoot-patch' : 'shoot-create' });
        if (live) patched = written.metadata.generation === before ? 'unchanged' : 'changed';
        if (live && runtime.metadata.annotations?.[ANNOTATION_FORCE_PATCH] === 'true')
          await this.dropForcePatch(runtime, name);
        live = written;
      }
    }
    const kubeconfigReady = live ? await this.kubeconfig(runtime, live, name) : false;
    const pipeline: PipelineState = conversionError === undefined ? {} : { conversionError };
    let next = runtimeStatus({
      runtime,
      shoot: live ? kimView(live) : undefined,
      kubeconfigReady,
      pipeline,
      now: this.now(),
    });
    if (patched) next = afterPatch(next, patched, runtime.metadata.generation, this.now());
    next = withKimopsConditionsAsBefore(next, runtime.status);
    if (!statusChanged(runtime.status, next)) return;
    const path = resourcePath(
      { ...RUNTIME, namespace: runtime.metadata.namespace, name: runtime.metadata.name },
      'status',
    );
    // KIM's Status().Update(): a full replace, checked against the resourceVersion its reconcile read; a conflict
    // (someone wrote in between) is left to the next reconcile, which computes from what is there then.
    const written = await this.options.kcp.request('PUT', path, {
      body: { ...runtime, ...RUNTIME, status: next },
      query: { fieldManager: KIM_FIELD_MANAGER },
    });
    if (!written.ok && written.status === 409) return;
    if (!written.ok) throw new Error(`KIM stand-in: status of Runtime ${name}: ${describeFailure(written)}`);
    this.writes.push({ runtime: name, what: 'status', state: next.state });
  }

  /** KIM's first step for a Runtime not being deleted: its finalizer (docs/contracts/runtime-status.md §1). */
  private async withFinalizer(runtime: LiveRuntimeObject, name: string): Promise<LiveRuntimeObject> {
    const finalizers = runtime.metadata.finalizers ?? [];
    if (finalizers.includes(RUNTIME_FINALIZER)) return runtime;
    const path = resourcePath({ ...RUNTIME, namespace: runtime.metadata.namespace, name: runtime.metadata.name });
    const patched = await this.options.kcp.request<LiveRuntimeObject>('PATCH', path, {
      body: {
        metadata: { finalizers: [...finalizers, RUNTIME_FINALIZER], resourceVersion: runtime.metadata.resourceVersion },
      },
      contentType: CONTENT_TYPE.mergePatch,
      query: { fieldManager: KIM_FIELD_MANAGER },
    });
    if (!patched.ok) throw new Error(`KIM stand-in: finalizer of Runtime ${name}: ${describeFailure(patched)}`);
    this.writes.push({ runtime: name, what: 'finalizer' });
    return patched.body;
  }

  /** KIM removes `force-patch-reconciliation` after a successful patch (§3). */
  private async dropForcePatch(runtime: LiveRuntimeObject, name: string): Promise<void> {
    const ref = { ...RUNTIME, namespace: runtime.metadata.namespace, name: runtime.metadata.name };
    const dropped = await this.options.kcp.patch(ref, {
      metadata: { annotations: { [ANNOTATION_FORCE_PATCH]: null } },
    });
    if (!dropped.ok)
      throw new Error(`KIM stand-in: force-patch annotation of Runtime ${name}: ${describeFailure(dropped)}`);
  }

  private async liveShoot(namespace: string, name: string): Promise<LiveShoot | undefined> {
    const got = await this.options.garden.get<KubeObject>({ ...SHOOT, namespace, name });
    if (!got.ok && got.status === 404) return undefined;
    if (!got.ok) throw new Error(`KIM stand-in: read Shoot ${namespace}/${name}: ${describeFailure(got)}`);
    return got.body as unknown as LiveShoot;
  }

  private async apply(object: KubeObject, what: string): Promise<KubeObject> {
    const applied = await this.options.garden.apply(object, KIM_FIELD_MANAGER, { force: true });
    if (!applied.ok) throw new Error(`KIM stand-in: apply ${what}: ${describeFailure(applied)}`);
    return applied.body;
  }

  /**
   * KIM's HandleKubeconfig (§1, §5), once the Shoot's Create succeeded and its domain is known: the GardenerCluster
   * and the Secret `kubeconfig-<runtimeID>` from the Shoot's adminkubeconfig. Whether the Secret holds a kubeconfig.
   */
  private async kubeconfig(runtime: LiveRuntimeObject, live: LiveShoot, name: string): Promise<boolean> {
    const cluster = gardenerClusterFor(runtime, live.spec.dns?.domain);
    if (!cluster) return false;
    const secretRef = {
      apiVersion: 'v1',
      kind: 'Secret',
      namespace: cluster.metadata.namespace,
      name: cluster.spec.kubeconfig.secret.name,
    };
    const existing = await this.options.kcp.get<KubeObject & { data?: Record<string, string> }>(secretRef);
    if (existing.ok && existing.body.data?.[KUBECONFIG_SECRET_KEY]) return true;
    if (!existing.ok && existing.status !== 404)
      throw new Error(`KIM stand-in: read kubeconfig Secret of ${name}: ${describeFailure(existing)}`);
    const created = live.status?.lastOperation;
    const createSucceeded = created !== undefined && !(created.type === 'Create' && created.state !== 'Succeeded');
    if (!createSucceeded || !live.spec.dns?.domain) return false;
    const applied = await this.options.kcp.apply(cluster as unknown as KubeObject, KIM_FIELD_MANAGER, { force: true });
    if (!applied.ok) throw new Error(`KIM stand-in: GardenerCluster of ${name}: ${describeFailure(applied)}`);
    const path = resourcePath(
      { ...SHOOT, namespace: live.metadata.namespace, name: live.metadata.name },
      'adminkubeconfig',
    );
    const answer = await this.options.garden.request('POST', path, { body: adminKubeconfigRequest() });
    if (!answer.ok) throw new Error(`KIM stand-in: adminkubeconfig of ${name}: ${describeFailure(answer)}`);
    const kubeconfig = readAdminKubeconfigResponse(answer.body);
    if (!kubeconfig.ok) throw new Error(`KIM stand-in: adminkubeconfig of ${name}: ${kubeconfig.error}`);
    const secret = kubeconfigSecretFor(cluster, kubeconfig.kubeconfig, this.now());
    const written = await this.options.kcp.apply(secret as unknown as KubeObject, KIM_FIELD_MANAGER, { force: true });
    if (!written.ok) throw new Error(`KIM stand-in: kubeconfig Secret of ${name}: ${describeFailure(written)}`);
    // KIM's kubeconfig controller reports the Secret on the GardenerCluster's status.
    const status = await this.options.kcp.patch(
      {
        apiVersion: cluster.apiVersion,
        kind: cluster.kind,
        namespace: cluster.metadata.namespace,
        name: cluster.metadata.name,
      },
      { status: gardenerClusterStatus({ result: 'created' }, this.now()) },
      CONTENT_TYPE.mergePatch,
      'status',
    );
    if (!status.ok) throw new Error(`KIM stand-in: GardenerCluster status of ${name}: ${describeFailure(status)}`);
    this.writes.push({ runtime: name, what: 'kubeconfig' });
    return true;
  }
}

/** KIM's `shouldPatchShoot` (§3). */
function shouldPatch(runtime: LiveRuntimeObject, live: LiveShoot): boolean {
  const annotations = runtime.metadata.annotations ?? {};
  if (annotations[ANNOTATION_SUSPEND_PATCH] === 'true') return false;
  if (annotations[ANNOTATION_FORCE_PATCH] === 'true') return true;
  const applied = live.metadata.annotations?.[ANNOTATION_RUNTIME_GENERATION];
  if (applied === undefined) return true;
  return Number(applied) < Number(runtime.metadata.generation ?? 0);
}

/**
 * The Shoot as the backfiller's status function should see it for KIM: the SKR configured for the tree applied
 * (KIM configures it in the same reconcile, right after the kubeconfig), so the chain ends Ready as KIM's does.
 */
function kimView(live: LiveShoot): StatusShoot {
  const annotations = {
    ...live.metadata.annotations,
    [APPLIED_TREE_ANNOTATION]: CONFIGURED_BY_KIM,
    [SKR_APPLIED_TREE_ANNOTATION]: CONFIGURED_BY_KIM,
  };
  return { ...live, metadata: { ...live.metadata, annotations } } as unknown as StatusShoot;
}

/** KIM's status right after its patch (§3): Pending/Processing, Unknown when the Shoot changed, True when not. */
function afterPatch(
  status: RuntimeStatus,
  patched: 'changed' | 'unchanged',
  generation: number | undefined,
  now: Date,
): RuntimeStatus {
  const conditions = (status.conditions ?? []).map((condition) => ({ ...condition }));
  setCondition(conditions, {
    type: CONDITION_PROVISIONED,
    status: patched === 'changed' ? 'Unknown' : 'True',
    reason: REASON_PROCESSING,
    message: patched === 'changed' ? MSG_PATCHED_WITH_CHANGES : MSG_PATCHED_WITHOUT_CHANGES,
    lastTransitionTime: rfc3339Seconds(now),
    ...(generation !== undefined && { observedGeneration: generation }),
  });
  return { ...status, state: 'Pending', conditions };
}

/** `next` with kimops's own conditions exactly as the Runtime had them (present or absent): KIM does not know them. */
function withKimopsConditionsAsBefore(next: RuntimeStatus, previous: unknown): RuntimeStatus {
  const before = (readRuntimeStatus(previous).conditions ?? []).filter((c) => KIMOPS_CONDITION_TYPES.has(c.type));
  const kims = (next.conditions ?? []).filter((c) => !KIMOPS_CONDITION_TYPES.has(c.type));
  const conditions: RuntimeCondition[] = [...kims, ...before.map((c) => ({ ...c }))];
  return { ...next, conditions };
}
