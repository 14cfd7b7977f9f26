// The registry caches' credentials in the Garden (docs/skr.md "Registry cache"), as KIM's runtime controller keeps
// them: before a Shoot whose folder holds registry-cache/ stubs is written, each stub's garden Secret is created
// from the SKR Secret it names (or replaced when the SKR's data changed); after the Shoot reconciled the tree, the
// Runtime's garden Secrets no stub names any more are deleted (skr-sync.ts runs that as a step of the SKR phase).
// I/O only through the ports passed in; the decisions are registry-cache-plan.ts's.
import type { ListAllOptions, ListAllResult } from '../adapters/kube/kube-client.js';
import type { ObjectRef } from '../adapters/kube/resources.js';
import {
  ANNOTATION_RUNTIME_ID,
  LABEL_APP_MANAGED_BY,
  LABEL_REGISTRY_CACHE_DIRTY,
  LABEL_REGISTRY_CACHE_ID,
  MANAGED_BY_KIM,
  REGISTRY_CACHE_ROTATED_ANNOTATION_PREFIX,
  REGISTRY_CACHE_SYNCED_TREE_ANNOTATION,
} from '../model/contract.js';
import { mapInParallel } from '../model/in-parallel.js';
import type { KubeObject } from '../model/kube-object.js';
import { describeFailure, type KubeResult } from '../model/kube-result.js';
import type { RegistryCacheError } from '../model/pipeline-facts.js';
import { SHOOT_API_VERSION, type Shoot } from '../model/shoot.js';
import {
  REGISTRY_CACHE_SECRETS_SELECTOR,
  gardenSecretOf,
  goneRuntimeSecrets,
  isCacheSecret,
  keptSecrets,
  staleRotations,
  stubNamespaceProblem,
  referencedSecrets,
  rotatedSecretName,
  runtimeSecretsSelector,
  sameData,
  stubFacts,
  unusedSecrets,
  type GardenSecret,
  type RegistryCacheStub,
  type StubFacts,
} from './registry-cache-plan.js';
import type { SkrConnect } from './skr-connect.js';

/** What the sync needs of the Garden: KubeClient has it. */
interface RegistryCacheGarden {
  get<T extends KubeObject>(ref: ObjectRef): Promise<KubeResult<T>>;
  create<T extends KubeObject>(object: T): Promise<KubeResult<T>>;
  patch<T extends KubeObject>(ref: ObjectRef, patch: unknown): Promise<KubeResult<T>>;
}

/** A Shoot about to be written whose folder holds stubs. */
interface RegistryCacheCandidate {
  shoot: string;
  /** The folder's tree in the synced commit. */
  tree: string;
  live: Shoot;
  stubs: readonly RegistryCacheStub[];
}

export interface RegistryCacheSyncInput {
  candidates: readonly RegistryCacheCandidate[];
  garden: RegistryCacheGarden;
  /** garden-<project>. */
  namespace: string;
  connect: SkrConnect;
  concurrency: number;
}

interface RegistryCacheOutcome {
  shoot: string;
  /** What was created or replaced, for a human. */
  lines: string[];
}

export interface RegistryCacheSyncResult {
  synced: RegistryCacheOutcome[];
  /** `hold`: a garden Secret the Shoot names is missing, so Gardener would refuse the Shoot: it is not written. */
  failed: (RegistryCacheOutcome & { error: RegistryCacheError; hold: boolean })[];
}

class CacheFailed extends Error {}

/** The cleanup's failure, with KIM's message. */
export class CleanupFailed extends Error {}

const SECRET = { apiVersion: 'v1', kind: 'Secret' } as const;

/** Each candidate's stubs in path order; a Shoot stops at its first failure, as KIM's syncer does. */
export async function syncRegistryCaches(input: RegistryCacheSyncInput): Promise<RegistryCacheSyncResult> {
  const result: RegistryCacheSyncResult = { synced: [], failed: [] };
  await mapInParallel(input.candidates, input.concurrency, async (candidate) => {
    const lines: string[] = [];
    const present = new Map<string, GardenSecret | undefined>();
    try {
      const misplaced = candidate.stubs.map((stub) => stubNamespaceProblem(stub, input.namespace)).find(Boolean);
      if (misplaced) throw new CacheFailed(misplaced);
      for (const stub of candidate.stubs) present.set(stub.object.metadata.name, await gardenSecret(input, stub));
      await copyAll(input, candidate, present, lines);
      // The tree whose stubs are all copied: until the Shoot records it, each sync copies again (registryCacheCopyDue).
      const recorded = await input.garden.patch(
        { apiVersion: SHOOT_API_VERSION, kind: 'Shoot', namespace: input.namespace, name: candidate.shoot },
        { metadata: { annotations: { [REGISTRY_CACHE_SYNCED_TREE_ANNOTATION]: candidate.tree } } },
      );
      if (recorded.ok)
        lines.push(
          `recorded ${REGISTRY_CACHE_SYNCED_TREE_ANNOTATION} ${candidate.tree.slice(0, 12)} on Shoot ${candidate.shoot}`,
        );
      else
        lines.push(
          `annotate Shoot ${candidate.shoot} with ${REGISTRY_CACHE_SYNCED_TREE_ANNOTATION}: ${errorOf(recorded)}; the next sync copies again`,
        );
      result.synced.push({ shoot: candidate.shoot, lines });
    } catch (error) {
      if (!(error instanceof CacheFailed)) throw error;
      const hold = candidate.stubs.some((stub) => present.get(stub.object.metadata.name) === undefined);
      result.failed.push({
        shoot: candidate.shoot,
        lines,
        hold,
        error: { message: error.message, tree: candidate.tree },
      });
    }
  });
  for (const list of [result.synced, result.failed])
    list.sort((a, b) => (a.shoot < b.shoot ? -1 : a.shoot > b.shoot ? 1 : 0));
  return result;
}

async function gardenSecret(input: RegistryCacheSyncInput, stub: RegistryCacheStub): Promise<GardenSecret | undefined> {
  const facts = stubFacts(stub.object);
  const read = await input.garden.get<KubeObject>({ ...SECRET, namespace: facts.namespace, name: facts.name });
  if (read.ok) return read.body as unknown as GardenSecret;
  if (read.status === 404) return undefined;
  throw new CacheFailed(`failed to copy secret for registry cache ${facts.cacheName}: ${errorOf(read)}`);
}

async function copyAll(
  input: RegistryCacheSyncInput,
  candidate: RegistryCacheCandidate,
  present: ReadonlyMap<string, GardenSecret | undefined>,
  lines: string[],
): Promise<void> {
  const connected = await input.connect(input.namespace, candidate.shoot);
  if (!connected.ok) throw new CacheFailed(connected.message);
  const client = connected.client;
  try {
    for (const stub of candidate.stubs) {
      const facts = stubFacts(stub.object);
      const existing = present.get(facts.name);
      const verb = existing === undefined ? 'copy' : 'replace';
      const fail = (error: string) =>
        new CacheFailed(`failed to ${verb} secret for registry cache ${facts.cacheName}: ${error}`);
      if (existing !== undefined && !isCacheSecret(existing, facts.cacheUid)) throw fail(notOwn(facts, facts.name));
      const source = await client.get<KubeObject>({ ...SECRET, namespace: facts.cacheNamespace, name: facts.source });
      if (!source.ok) throw fail(errorOf(source));
      const data = (source.body.data ?? {}) as Record<string, string>;
      if (existing === undefined) {
        const created = await input.garden.create(gardenSecretOf(stub.object, data));
        if (!created.ok && created.status !== 409) throw fail(errorOf(created));
        if (!created.ok) await adopt(input, facts, facts.name, data, fail);
        lines.push(
          `created Secret ${facts.namespace}/${facts.name} from the SKR's ${facts.cacheNamespace}/${facts.source}`,
        );
        continue;
      }
      if (sameData(existing.data, data)) {
        await undirty(input, facts, existing, fail);
        continue;
      }
      // Immutable, so new credentials need a new Secret; the Shoot names it once the generator renders it.
      const ref = { ...SECRET, namespace: facts.namespace, name: facts.name };
      const marked = await input.garden.patch(ref, { metadata: { labels: { [LABEL_REGISTRY_CACHE_DIRTY]: 'true' } } });
      if (!marked.ok && marked.status !== 404) throw fail(errorOf(marked));
      const name = rotatedSecretName(facts.cacheUid, data);
      const created = await input.garden.create(gardenSecretOf(stub.object, data, name));
      if (!created.ok && created.status !== 409) throw fail(errorOf(created));
      if (!created.ok) await adopt(input, facts, name, data, fail);
      const annotated = await input.garden.patch(
        { apiVersion: SHOOT_API_VERSION, kind: 'Shoot', namespace: input.namespace, name: candidate.shoot },
        { metadata: { annotations: { [`${REGISTRY_CACHE_ROTATED_ANNOTATION_PREFIX}${facts.cacheUid}`]: name } } },
      );
      if (!annotated.ok) throw fail(`annotate Shoot ${candidate.shoot}: ${errorOf(annotated)}`);
      lines.push(
        `replaced Secret ${facts.namespace}/${facts.name} (marked ${LABEL_REGISTRY_CACHE_DIRTY}) by ${name}: the SKR's ${facts.cacheNamespace}/${facts.source} changed`,
      );
    }
  } finally {
    client.close();
  }
}

/**
 * A create that found the Secret there (a sync that stopped between its steps, or credentials changed back to what
 * an earlier replacement holds): it is the one to name only when it is this cache's and holds the SKR's data; then
 * a dirty mark from an earlier rotation is taken off, so the cleanup keeps it.
 */
async function adopt(
  input: RegistryCacheSyncInput,
  facts: StubFacts,
  name: string,
  data: Readonly<Record<string, string>>,
  fail: (error: string) => CacheFailed,
): Promise<void> {
  const read = await input.garden.get<KubeObject>({ ...SECRET, namespace: facts.namespace, name });
  if (!read.ok) throw fail(errorOf(read));
  const found = read.body as unknown as GardenSecret;
  if (!isCacheSecret(found, facts.cacheUid)) throw fail(notOwn(facts, name));
  if (!sameData(found.data, data))
    throw fail(
      `Secret ${facts.namespace}/${name} exists with other data than the SKR's ${facts.cacheNamespace}/${facts.source}: delete it, the next sync copies it again`,
    );
  await undirty(input, facts, found, fail);
}

/** Takes KIM's dirty mark off a Secret the Shoot names (again), so that the cleanup does not delete it. */
async function undirty(
  input: RegistryCacheSyncInput,
  facts: StubFacts,
  secret: GardenSecret,
  fail: (error: string) => CacheFailed,
): Promise<void> {
  if (secret.metadata.labels?.[LABEL_REGISTRY_CACHE_DIRTY] === undefined) return;
  const ref = { ...SECRET, namespace: facts.namespace, name: secret.metadata.name };
  const cleared = await input.garden.patch(ref, { metadata: { labels: { [LABEL_REGISTRY_CACHE_DIRTY]: null } } });
  if (!cleared.ok) throw fail(errorOf(cleared));
}

function notOwn(facts: StubFacts, name: string): string {
  return `Secret ${facts.namespace}/${name} exists but is not this cache's (labels ${LABEL_APP_MANAGED_BY}=${MANAGED_BY_KIM}, ${LABEL_REGISTRY_CACHE_ID}=${facts.cacheUid}): rename or remove it`;
}

/** The API server's own words (`secrets "x" not found`, as KIM's messages carry them), else the failure described. */
function errorOf(result: { status: number; error: { message?: string; reason?: string } }): string {
  return result.status !== 0 && result.error.message ? result.error.message : describeFailure(result);
}

/** What the cleanup needs of the Garden: KubeClient has it. */
interface GardenSecretsDeleter {
  listAll<T extends KubeObject>(ref: Omit<ObjectRef, 'name'>, options?: ListAllOptions): Promise<ListAllResult<T>>;
  delete(ref: ObjectRef): Promise<KubeResult<unknown>>;
}

/** What the cleanup after a Shoot's reconcile needs: the Secrets, and the Shoot's stale rotation records. */
export interface RegistryCacheCleanupGarden extends GardenSecretsDeleter {
  patch<T extends KubeObject>(ref: ObjectRef, patch: unknown): Promise<KubeResult<T>>;
}

/**
 * KIM's DeleteUnused after the Shoot reconciled the folder's tree: the Runtime's garden Secrets that are dirty or of
 * a cache no stub names, never one the live Shoot still names. The Runtime is the stubs' runtime-id, else the
 * Shoot's. Returns the lines of what was deleted; throws CleanupFailed with KIM's message on a failure.
 */
export async function deleteUnusedSecrets(
  garden: RegistryCacheCleanupGarden,
  namespace: string,
  live: Shoot,
  stubs: readonly RegistryCacheStub[],
): Promise<string[]> {
  const facts = stubs.map((stub) => stubFacts(stub.object));
  const runtimeId = facts[0]?.runtimeId ?? live.metadata.annotations?.[ANNOTATION_RUNTIME_ID];
  if (!runtimeId) return [];
  const listed = await garden.listAll<KubeObject>(
    { ...SECRET, namespace },
    { labelSelector: runtimeSecretsSelector(runtimeId) },
  );
  if (!listed.ok) throw new CleanupFailed(`failed to list garden secrets: ${listed.message}`);
  const lines: string[] = [];
  const unused = unusedSecrets(
    listed.items as unknown as GardenSecret[],
    keptSecrets(facts, live),
    referencedSecrets(live),
  );
  for (const secret of unused) {
    const name = secret.metadata.name;
    const deleted = await garden.delete({ ...SECRET, namespace, name });
    if (!deleted.ok && deleted.status !== 404)
      throw new CleanupFailed(`failed to delete unused garden secret ${name}: ${errorOf(deleted)}`);
    lines.push(`deleted Secret ${namespace}/${name}: no registry cache of the Shoot uses it`);
  }
  // A record of a rotation of a cache the Runtime no longer has: it names nothing the Shoot will use.
  const stale = staleRotations(live, new Set(facts.map((f) => f.cacheUid)));
  if (stale) {
    const ref = { apiVersion: SHOOT_API_VERSION, kind: 'Shoot', namespace, name: live.metadata.name };
    const patched = await garden.patch(ref, { metadata: { annotations: stale } });
    if (!patched.ok)
      throw new CleanupFailed(`failed to remove the rotation records of removed registry caches: ${errorOf(patched)}`);
    lines.push(`removed ${Object.keys(stale).join(', ')} from Shoot ${live.metadata.name}: no registry cache of it`);
  }
  return lines;
}

/**
 * After the Garden's writes: the garden Secrets of Runtimes whose Shoot is gone (KIM deletes them before it releases
 * the Runtime's finalizer). `live` is every Shoot of the namespace the sync planned against. `runtimeIds`: one LIST
 * per given Runtime (a watching applier's, for the Shoots it saw being deleted); without them one LIST of all the
 * registry caches' Secrets. Returns the lines of what was deleted and the failures (the caller tries again).
 */
export async function deleteGoneRuntimesSecrets(
  garden: GardenSecretsDeleter,
  namespace: string,
  live: readonly Shoot[],
  runtimeIds?: readonly string[],
): Promise<{ lines: string[]; failures: string[] }> {
  const lines: string[] = [];
  const failures: string[] = [];
  const items: KubeObject[] = [];
  for (const labelSelector of runtimeIds?.map(runtimeSecretsSelector) ?? [REGISTRY_CACHE_SECRETS_SELECTOR]) {
    const listed = await garden.listAll<KubeObject>({ ...SECRET, namespace }, { labelSelector });
    if (listed.ok) items.push(...listed.items);
    else failures.push(`failed to list garden secrets: ${listed.message}`);
  }
  for (const secret of goneRuntimeSecrets(items as unknown as GardenSecret[], live)) {
    const name = secret.metadata.name;
    const deleted = await garden.delete({ ...SECRET, namespace, name });
    if (!deleted.ok && deleted.status !== 404)
      failures.push(`failed to delete garden secret ${name}: ${errorOf(deleted)}`);
    else lines.push(`deleted Secret ${namespace}/${name}: the Shoot of its Runtime is gone`);
  }
  return { lines, failures };
}
