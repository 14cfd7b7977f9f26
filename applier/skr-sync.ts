// Configures the clusters (SKRs) of reconciled Shoots from their folders' skr/ objects, after a sync's Garden
// writes: per Shoot a short-lived admin kubeconfig from Gardener, then KIM's steps in KIM's order (skr-plan.ts) by
// server-side apply and label-selected pruning, then the Shoot's SKR_APPLIED_TREE annotation. A Shoot's failure
// stops at its failing step and becomes its `skrError` in the apply report; it never fails the Garden sync or
// another Shoot's SKR, and the next sync tries again. I/O only through the ports passed in.
import type { ListAllOptions, ListAllResult } from '../adapters/kube/kube-client.js';
import type { ObjectRef } from '../adapters/kube/resources.js';
import { SKR_APPLIED_TREE_ANNOTATION } from '../model/contract.js';
import { mapInParallel } from '../model/in-parallel.js';
import type { KubeObject } from '../model/kube-object.js';
import { describeFailure } from '../model/kube-result.js';
import type { SkrError } from '../model/pipeline-facts.js';
import type { Seed } from '../model/seed.js';
import { SHOOT_API_VERSION, type Shoot } from '../model/shoot.js';
import { ConfigError } from '../model/errors.js';
import type { LiveDetails } from '../rules/provisioning-info.js';
import type { GardenWriter } from './garden-writer.js';
import type { SkrApi, SkrConnect } from './skr-connect.js';
import { CleanupFailed, deleteUnusedSecrets, type RegistryCacheCleanupGarden } from './registry-cache-sync.js';
import type { RegistryCacheStub } from './registry-cache-plan.js';

import type { SyncPlan } from './plan.js';
import type { SyncResult } from './sync.js';
import {
  lastReconcileTime,
  skrDue,
  skrSteps,
  withLiveFields,
  type SkrCandidate,
  type SkrObject,
  type SkrStepPlan,
} from './skr-plan.js';

/** What reading the Seeds needs of the Garden: KubeClient has it. */
interface GardenApiReads {
  listAll<T extends KubeObject>(ref: Omit<ObjectRef, 'name'>, options?: ListAllOptions): Promise<ListAllResult<T>>;
}

export interface SkrSyncInput {
  candidates: readonly SkrCandidate[];
  /** The skr/ objects of the named Shoots' folders in the synced commit (a folder with problems: none). */
  read: (shoots: readonly string[]) => Promise<ReadonlyMap<string, readonly SkrObject[]>>;
  /** The Garden: the annotation written (paced and retried as the sync's other writes). */
  garden: Pick<GardenWriter, 'patch'>;
  /** The Garden's Seeds, listed once when an SKR's kyma-provisioning-info needs its Seed's region. */
  seeds: GardenApiReads;
  /** garden-<project>. */
  namespace: string;
  connect: SkrConnect;
  fieldManager: string;
  /** SKRs configured at once (kimops.yaml apply.concurrency). */
  concurrency: number;
  /**
   * KIM's cleanup of the registry caches' unused garden Secrets, run after the Namespace step
   * (registry-cache-sync.ts): the Garden's Secrets, and the registry-cache/ stubs of the named Shoots' folders.
   */
  registryCache?: {
    garden: RegistryCacheCleanupGarden;
    stubs: (shoots: readonly string[]) => Promise<ReadonlyMap<string, readonly RegistryCacheStub[]>>;
  };
}

interface SkrOutcome {
  shoot: string;
  /** What was applied and deleted, for a human. */
  lines: string[];
}

export interface SkrSyncResult {
  configured: SkrOutcome[];
  failed: (SkrOutcome & { error: SkrError })[];
  /** Configured, but the annotation could not be written: the next sync configures them again. */
  unrecorded: (SkrOutcome & { message: string })[];
}

/** The outcome of a sync that configured no SKR. */
function emptySkrResult(): SkrSyncResult {
  return { configured: [], failed: [], unrecorded: [] };
}

/** A step that failed: where, and why in one line. */
class StepFailed extends Error {
  constructor(
    readonly step: SkrError['step'],
    message: string,
  ) {
    super(message);
  }
}

export async function syncSkrs(input: SkrSyncInput): Promise<SkrSyncResult> {
  const result = emptySkrResult();
  const due = input.candidates.filter(skrDue);
  if (due.length === 0) return result;
  const objects = await input.read(due.map((candidate) => candidate.shoot));
  const stubs = await input.registryCache?.stubs(due.map((candidate) => candidate.shoot));
  const seeds = new SeedRegions(input.seeds);
  await mapInParallel(due, input.concurrency, async (candidate) => {
    const own = objects.get(candidate.shoot) ?? [];
    // Nothing readable: the folder's problems hold the Shoot back, and the plan reports them.
    if (own.length === 0) return;
    const shoot = candidate.shoot;
    const tree = candidate.tree as string;
    const lines: string[] = [];
    try {
      await configure(input, candidate.live as Shoot, own, seeds, lines, stubs?.get(shoot) ?? []);
    } catch (error) {
      if (!(error instanceof StepFailed)) throw error;
      result.failed.push({ shoot, lines, error: { step: error.step, message: error.message, tree } });
      return;
    }
    const ref = { apiVersion: SHOOT_API_VERSION, kind: 'Shoot', namespace: input.namespace, name: shoot };
    const recorded = await input.garden.patch(ref, {
      metadata: { annotations: { [SKR_APPLIED_TREE_ANNOTATION]: tree } },
    });
    if (!recorded.ok) {
      const message = `annotate Shoot ${shoot} with ${SKR_APPLIED_TREE_ANNOTATION}: ${describeFailure(recorded)}; the next sync configures its cluster again`;
      result.unrecorded.push({ shoot, lines, message });
      return;
    }
    lines.push(`recorded ${SKR_APPLIED_TREE_ANNOTATION} ${tree.slice(0, 12)} on Shoot ${shoot}`);
    result.configured.push({ shoot, lines });
  });
  for (const list of [result.configured, result.failed, result.unrecorded])
    list.sort((a, b) => (a.shoot < b.shoot ? -1 : a.shoot > b.shoot ? 1 : 0));
  return result;
}

/** KIM's steps on one SKR, through a client made for it and closed after. */
async function configure(
  input: SkrSyncInput,
  live: Shoot,
  objects: readonly SkrObject[],
  seeds: SeedRegions,
  lines: string[],
  stubs: readonly RegistryCacheStub[],
): Promise<void> {
  const shoot = live.metadata.name;
  const connected = await input.connect(input.namespace, shoot);
  if (!connected.ok) throw new StepFailed('client', connected.message);
  const client = connected.client;
  try {
    for (const step of skrSteps(objects)) {
      const apply = step.step === 'provisioning-info' ? filled(step.apply, await liveDetails(live, seeds)) : step.apply;
      await runStep(client, step, apply, input.fieldManager, lines);
      // KIM's order: the registry caches' unused garden Secrets go after the Namespace, before the SKR's configuration.
      if (step.step === 'namespace' && input.registryCache) {
        try {
          lines.push(...(await deleteUnusedSecrets(input.registryCache.garden, input.namespace, live, stubs)));
        } catch (error) {
          if (!(error instanceof CleanupFailed)) throw error;
          throw new StepFailed('registry-cache', error.message);
        }
      }
    }
  } finally {
    client.close();
  }
}

/**
 * An SKR whose API server gave no answer (status 0: unreachable, timed out) failed to give a client, whatever the
 * step: KIM's runtime client. Any answer is the step's own failure.
 */
function stepOrClient(step: SkrError['step'], status: number): SkrError['step'] {
  return status === 0 ? 'client' : step;
}

/** The step's applies (server-side, forced: kimops's objects win over anyone's fields in them), then its pruning. */
async function runStep(
  client: SkrApi,
  step: SkrStepPlan,
  apply: readonly KubeObject[],
  fieldManager: string,
  lines: string[],
): Promise<void> {
  for (const object of apply) {
    const applied = await client.apply(object, fieldManager, { force: true });
    if (!applied.ok)
      throw new StepFailed(
        stepOrClient(step.step, applied.status),
        `apply ${nameOf(object)}: ${describeFailure(applied)}`,
      );
    lines.push(`applied ${nameOf(object)}`);
  }
  const prune = step.prune;
  if (!prune) return;
  const listed = await client.listAll<KubeObject>(prune.type, { labelSelector: prune.labelSelector });
  if (!listed.ok) {
    // No OpenIDConnect API (the Shoot's OIDC extension is off): there is nothing of KIM's to prune.
    if (listed.status === 404 && apply.length === 0) return;
    throw new StepFailed(stepOrClient(step.step, listed.status), listed.message);
  }
  for (const removed of prune.removed(listed.items)) {
    const object = { ...removed, ...prune.type };
    const deleted = await client.delete({ ...prune.type, name: removed.metadata.name });
    if (!deleted.ok && deleted.status !== 404)
      throw new StepFailed(step.step, `delete ${nameOf(object)}: ${describeFailure(deleted)}`);
    lines.push(`deleted ${nameOf(object)}: not in Git`);
  }
}

function filled(configMaps: readonly KubeObject[], details: LiveDetails): KubeObject[] {
  try {
    return withLiveFields(configMaps, details);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    throw new StepFailed('provisioning-info', `${error.message}: fix it in the landscape repo`);
  }
}

/** The live fields of kyma-provisioning-info: the Seed's region (as KIM, a Seed that cannot be read fails the step). */
async function liveDetails(live: Shoot, seeds: SeedRegions): Promise<LiveDetails> {
  const seedName = typeof live.spec.seedName === 'string' ? live.spec.seedName : undefined;
  const reconciled = lastReconcileTime(live);
  const seedRegion = seedName === undefined ? undefined : await seeds.regionOf(seedName);
  return {
    ...(seedRegion !== undefined && { seedRegion }),
    ...(reconciled !== undefined && { lastReconcileTime: reconciled }),
  };
}

/**
 * The Seeds' regions, from one LIST of Seeds per sync, made when the first SKR needs one: the identity the applier
 * has for KIM's seed check (`list` on seeds) is all it takes.
 */
class SeedRegions {
  private regions: Promise<Map<string, string> | StepFailed> | undefined;

  constructor(private readonly garden: Pick<GardenApiReads, 'listAll'>) {}

  async regionOf(name: string): Promise<string> {
    this.regions ??= this.garden
      .listAll<KubeObject>({ apiVersion: SHOOT_API_VERSION, kind: 'Seed' })
      .then((listed) =>
        listed.ok
          ? new Map(listed.items.map((seed) => [seed.metadata.name, (seed as unknown as Seed).spec.provider.region]))
          : new StepFailed('provisioning-info', `read Seed ${name}: ${listed.message}`),
      );
    const regions = await this.regions;
    if (regions instanceof StepFailed) throw regions;
    const region = regions.get(name);
    // KIM reads the Seed by name and fails the step when it is not there.
    if (region === undefined) throw new StepFailed('provisioning-info', `read Seed ${name}: not found`);
    return region;
  }
}

function nameOf(object: KubeObject): string {
  const namespace = object.metadata.namespace;
  return `${object.kind} ${namespace ? `${namespace}/` : ''}${object.metadata.name}`;
}

/**
 * What the sync knows of each planned Shoot for skrDue: its tree, the live Shoot, whether its folder holds skr/,
 * and what this sync wrote to it (a Shoot written for its spec is reconciled by Gardener before its SKR is due).
 */
export function skrCandidates(
  plan: SyncPlan,
  result: SyncResult,
  live: ReadonlyMap<string, Shoot>,
  trees: ReadonlyMap<string, string>,
): SkrCandidate[] {
  const applied = new Set(result.applied.map((outcome) => outcome.shoot));
  return plan.entries.map((entry) => {
    const wroteShoot =
      entry.action === 'create' ||
      entry.action === 'take-over' ||
      (entry.action === 'update' && entry.object.action !== 'unchanged');
    const written = !applied.has(entry.shoot)
      ? 'nothing'
      : wroteShoot
        ? 'shoot'
        : entry.moveMarkers
          ? 'markers'
          : 'nothing';
    return {
      shoot: entry.shoot,
      tree: trees.get(entry.shoot),
      live: live.get(entry.shoot),
      hasSkr: entry.skr === true,
      written,
    };
  });
}
