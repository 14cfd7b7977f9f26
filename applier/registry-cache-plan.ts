// The registry caches' garden Secrets (docs/skr.md "Registry cache"): what a Shoot folder's `registry-cache/`
// stub may be, the garden Secret the applier creates from it and the SKR's data, the name of a replacement when
// the SKR's credentials changed, and which garden Secrets the cleanup deletes — KIM's rules
// (internal/registrycache/garden_secret_syncer.go, garden_secret_manager.go at f271b80a) with kimops's stable names.
// Pure: objects in, decisions out; registry-cache-sync.ts does the requests.
import { createHash } from 'node:crypto';
import {
  ANNOTATION_RUNTIME_ID,
  ANNOTATION_REGISTRY_CACHE_NAME,
  ANNOTATION_REGISTRY_CACHE_NAMESPACE,
  ANNOTATION_REGISTRY_CACHE_SOURCE,
  LABEL_APP_MANAGED_BY,
  LABEL_REGISTRY_CACHE_DIRTY,
  LABEL_REGISTRY_CACHE_ID,
  LABEL_RUNTIME_ID,
  MANAGED_BY_KIM,
  REGISTRY_CACHE_EXTENSION,
  REGISTRY_CACHE_ROTATED_ANNOTATION_PREFIX,
  REGISTRY_CACHE_SECRET_PREFIX,
  REGISTRY_CACHE_SYNCED_TREE_ANNOTATION,
} from '../model/contract.js';
import { isJsonObject } from '../model/json.js';
import type { KubeObject } from '../model/kube-object.js';
import { DNS_1123_LABEL } from '../model/names.js';
import type { Shoot } from '../model/shoot.js';

/** A stub of `shoots/<shoot>/registry-cache/`: the garden Secret's metadata, no data (registry-cache-stubs.ts). */
export interface RegistryCacheStub {
  path: string;
  object: KubeObject & { apiVersion: 'v1'; kind: 'Secret' };
}

/** What of a stub the sync reads, checked by registryCacheStubProblem. */
export interface StubFacts {
  /** The garden Secret. */
  name: string;
  namespace: string;
  runtimeId: string;
  cacheUid: string;
  /** KIM's name for the cache in its messages: the RegistryCacheConfig's name. */
  cacheName: string;
  /** The SKR Secret: `<cacheNamespace>/<source>`. */
  cacheNamespace: string;
  source: string;
}

/** A garden Secret as the sync and the cleanup read it. */
export interface GardenSecret {
  metadata: { name: string; labels?: Record<string, string> };
  data?: Record<string, string>;
}

const REQUIRED_LABELS = [LABEL_RUNTIME_ID, LABEL_REGISTRY_CACHE_ID, LABEL_APP_MANAGED_BY] as const;
const REQUIRED_ANNOTATIONS = [
  ANNOTATION_REGISTRY_CACHE_NAME,
  ANNOTATION_REGISTRY_CACHE_NAMESPACE,
  ANNOTATION_REGISTRY_CACHE_SOURCE,
] as const;

/**
 * Why `value` is no stub the applier can act on, or undefined: a v1 Secret with a name and namespace, KIM's labels
 * (managed-by infrastructure-manager), the cache's name and namespace and the SKR Secret's name, and no data —
 * credentials never live in Git.
 */
export function registryCacheStubProblem(value: unknown): { field: string; detail: string } | undefined {
  if (!isJsonObject(value) || value.apiVersion !== 'v1' || value.kind !== 'Secret')
    return { field: 'kind', detail: 'must be a v1 Secret stub: the generator writes nothing else there' };
  if ('data' in value || 'stringData' in value)
    return { field: 'data', detail: 'must not be in Git: the applier copies the data from the SKR' };
  const metadata = isJsonObject(value.metadata) ? value.metadata : {};
  if (typeof metadata.name !== 'string' || !DNS_1123_LABEL.test(metadata.name))
    return { field: 'metadata.name', detail: 'must be a Kubernetes name (the garden Secret the Shoot names)' };
  if (typeof metadata.namespace !== 'string' || metadata.namespace === '')
    return { field: 'metadata.namespace', detail: 'is missing: the garden namespace of the Shoot' };
  const labels = isJsonObject(metadata.labels) ? metadata.labels : {};
  const annotations = isJsonObject(metadata.annotations) ? metadata.annotations : {};
  const label = REQUIRED_LABELS.find((key) => typeof labels[key] !== 'string' || labels[key] === '');
  if (label) return { field: `metadata.labels.${label}`, detail: 'is missing' };
  if (labels[LABEL_APP_MANAGED_BY] !== MANAGED_BY_KIM)
    return { field: `metadata.labels.${LABEL_APP_MANAGED_BY}`, detail: `must be ${MANAGED_BY_KIM}` };
  const annotation = REQUIRED_ANNOTATIONS.find(
    (key) => typeof annotations[key] !== 'string' || annotations[key] === '',
  );
  if (annotation) return { field: `metadata.annotations.${annotation}`, detail: 'is missing' };
  if (value.immutable !== true)
    return { field: 'immutable', detail: "must be true: Gardener's registry-cache admission refuses mutable Secrets" };
  return undefined;
}

/**
 * A stub outside the synced namespace is a problem of its folder: the Shoot names a Secret of its own namespace,
 * and a copy elsewhere would neither serve it nor be cleaned up with it.
 */
export function stubNamespaceProblem(stub: RegistryCacheStub, namespace: string): string | undefined {
  const found = stub.object.metadata.namespace;
  if (found === namespace) return undefined;
  return `${stub.path}: metadata.namespace ${found ?? '(none)'} is not the Shoot's namespace ${namespace}: fix the file or remove it`;
}

/** The facts of a stub registryCacheStubProblem accepted. */
export function stubFacts(stub: RegistryCacheStub['object']): StubFacts {
  const labels = stub.metadata.labels ?? {};
  const annotations = stub.metadata.annotations ?? {};
  return {
    name: stub.metadata.name,
    namespace: stub.metadata.namespace ?? '',
    runtimeId: labels[LABEL_RUNTIME_ID] ?? '',
    cacheUid: labels[LABEL_REGISTRY_CACHE_ID] ?? '',
    cacheName: annotations[ANNOTATION_REGISTRY_CACHE_NAME] ?? '',
    cacheNamespace: annotations[ANNOTATION_REGISTRY_CACHE_NAMESPACE] ?? '',
    source: annotations[ANNOTATION_REGISTRY_CACHE_SOURCE] ?? '',
  };
}

/**
 * The garden Secret KIM creates: the stub's labels and KIM's two annotations (kimops's source annotation too:
 * harmless, and it says where the data came from), immutable, the SKR Secret's data verbatim, no type (Opaque).
 */
export function gardenSecretOf(
  stub: RegistryCacheStub['object'],
  data: Readonly<Record<string, string>>,
  name: string = stub.metadata.name,
): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name,
      namespace: stub.metadata.namespace ?? '',
      labels: { ...stub.metadata.labels },
      annotations: { ...stub.metadata.annotations },
    },
    immutable: true,
    data: { ...data },
  };
}

/** KIM's comparison: the same keys, each with the same bytes (base64 text compares as its bytes do). */
export function sameData(
  a: Readonly<Record<string, string>> | undefined,
  b: Readonly<Record<string, string>> | undefined,
): boolean {
  const left = a ?? {};
  const right = b ?? {};
  const keys = Object.keys(left);
  return (
    keys.length === Object.keys(right).length &&
    keys.every((key) => Object.hasOwn(right, key) && left[key] === right[key])
  );
}

/**
 * The replacement's name when the SKR's credentials changed: `reg-cache-<cache uid>-<first 10 hex of the data's
 * sha256>`. The same data always gives the same name, so a sync that stopped between the steps repeats them
 * without a second copy (KIM takes a random name; a garden Secret is immutable, so a new one needs a new name).
 * A uid too long for that to fit a DNS-1123 label (63; a UUID fits) is cut to fit, and then the uid is hashed with
 * the data, so that two uids alike in their first characters still give two names.
 */
export function rotatedSecretName(cacheUid: string, data: Readonly<Record<string, string>>): string {
  const canonical = JSON.stringify(
    Object.keys(data)
      .sort()
      .map((key) => [key, data[key]]),
  );
  const digest = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, DIGEST_LENGTH);
  const name = `${REGISTRY_CACHE_SECRET_PREFIX}${cacheUid}-${digest(canonical)}`;
  if (name.length <= MAX_LABEL) return name;
  const room = MAX_LABEL - REGISTRY_CACHE_SECRET_PREFIX.length - DIGEST_LENGTH - 1;
  return `${REGISTRY_CACHE_SECRET_PREFIX}${cacheUid.slice(0, room)}-${digest(`${cacheUid}\n${canonical}`)}`;
}

const DIGEST_LENGTH = 10;
const MAX_LABEL = 63;

/**
 * Whether a Shoot about to be written (or left as it is) may need its caches' credentials copied first: its folder
 * changed since it was applied, or the copy has not succeeded for its folder's tree (a copy that failed while every
 * Secret existed let the Shoot be written: the next syncs try again, until the Shoot records the tree). Without a
 * changed folder only a live Shoot with the registry-cache extension and a Secret among its resources can have stubs,
 * so a sync reads no other folder for them.
 */
export function registryCacheCopyDue(entry: {
  action: string;
  tree?: string;
  appliedTree?: string;
  live?: Shoot;
}): boolean {
  const { live, tree } = entry;
  if (!live || tree === undefined || !['update', 'take-over', 'unchanged'].includes(entry.action)) return false;
  if (tree !== entry.appliedTree) return true;
  return (
    live.metadata.annotations?.[REGISTRY_CACHE_SYNCED_TREE_ANNOTATION] !== tree &&
    (live.spec.extensions ?? []).some((extension) => extension.type === REGISTRY_CACHE_EXTENSION) &&
    referencedSecrets(live).size > 0
  );
}

/**
 * Whether a garden Secret is this cache's own (KIM's managed-by label and the stub's cache uid): only such a one is
 * compared, replaced or marked dirty; another one of the name is not kimops's to change.
 */
export function isCacheSecret(secret: GardenSecret, cacheUid: string): boolean {
  const labels = secret.metadata.labels ?? {};
  return labels[LABEL_APP_MANAGED_BY] === MANAGED_BY_KIM && labels[LABEL_REGISTRY_CACHE_ID] === cacheUid;
}

/** The Secrets a Shoot's spec.resources names: a garden Secret one of them is, is never deleted. */
export function referencedSecrets(shoot: Shoot | undefined): Set<string> {
  return new Set(
    (shoot?.spec.resources ?? []).flatMap((resource) =>
      resource.resourceRef.kind === 'Secret' ? [resource.resourceRef.name] : [],
    ),
  );
}

/** The label selector of a Runtime's garden Secrets (KIM's DeleteUnused and DeleteAll). */
export function runtimeSecretsSelector(runtimeId: string): string {
  return `${LABEL_RUNTIME_ID}=${runtimeId},${LABEL_APP_MANAGED_BY}=${MANAGED_BY_KIM}`;
}

/**
 * The garden Secrets each cache of the applied folder keeps, by cache uid: its stub's, and the replacement the
 * applier recorded on the live Shoot (a rotation the generator has not rendered yet: the Shoot names it next).
 */
export function keptSecrets(stubs: readonly StubFacts[], live: Shoot | undefined): Map<string, Set<string>> {
  const annotations = live?.metadata.annotations ?? {};
  const kept = new Map<string, Set<string>>();
  for (const facts of stubs) {
    const names = kept.get(facts.cacheUid) ?? new Set<string>();
    names.add(facts.name);
    const rotated = annotations[`${REGISTRY_CACHE_ROTATED_ANNOTATION_PREFIX}${facts.cacheUid}`];
    if (rotated) names.add(rotated);
    kept.set(facts.cacheUid, names);
  }
  return kept;
}

/**
 * KIM's DeleteUnused, with kimops's safety: of the Runtime's garden Secrets (listed by runtimeSecretsSelector),
 * those marked dirty (replaced), whose cache uid is not one of the applied folder's stubs (a cache removed, or now
 * without credentials), or whose name is none its cache keeps (keptSecrets: a second Secret of the cache, left when
 * the name the Shoot uses changed) — but never one the live Shoot's spec.resources still names (Gardener would
 * refuse the Shoot's next change, and its reference controller holds it anyway).
 */
export function unusedSecrets(
  listed: readonly GardenSecret[],
  kept: ReadonlyMap<string, ReadonlySet<string>>,
  referenced: ReadonlySet<string>,
): GardenSecret[] {
  return listed.filter((secret) => {
    const labels = secret.metadata.labels ?? {};
    const uid = labels[LABEL_REGISTRY_CACHE_ID] ?? '';
    const names = kept.get(uid);
    const unused =
      labels[LABEL_REGISTRY_CACHE_DIRTY] === 'true' ||
      (uid !== '' && (names === undefined || !names.has(secret.metadata.name)));
    return unused && !referenced.has(secret.metadata.name);
  });
}

/**
 * The live Shoot's records of rotated credentials (REGISTRY_CACHE_ROTATED_ANNOTATION_PREFIX + uid) of caches no stub
 * of the applied folder has: as a merge patch's annotations (null removes), or undefined when there are none.
 */
export function staleRotations(live: Shoot, stubUids: ReadonlySet<string>): Record<string, null> | undefined {
  const stale = Object.keys(live.metadata.annotations ?? {}).filter(
    (key) =>
      key.startsWith(REGISTRY_CACHE_ROTATED_ANNOTATION_PREFIX) &&
      !stubUids.has(key.slice(REGISTRY_CACHE_ROTATED_ANNOTATION_PREFIX.length)),
  );
  return stale.length === 0 ? undefined : Object.fromEntries(stale.map((key) => [key, null]));
}

/**
 * KIM's DeleteAll once a Runtime's Shoot is gone: of the registry caches' garden Secrets (KIM's, with a cache uid),
 * those whose runtime-id is no live Shoot's (its runtime-id annotation) — never one a live Shoot names.
 */
export function goneRuntimeSecrets(listed: readonly GardenSecret[], live: readonly Shoot[]): GardenSecret[] {
  const runtimes = new Set(live.map((shoot) => shoot.metadata.annotations?.[ANNOTATION_RUNTIME_ID]));
  const referenced = new Set(live.flatMap((shoot) => [...referencedSecrets(shoot)]));
  return listed.filter((secret) => {
    const runtimeId = secret.metadata.labels?.[LABEL_RUNTIME_ID];
    return runtimeId !== undefined && !runtimes.has(runtimeId) && !referenced.has(secret.metadata.name);
  });
}

/** All registry caches' garden Secrets of KIM's (and kimops's): the selector of goneRuntimeSecrets' LIST. */
export const REGISTRY_CACHE_SECRETS_SELECTOR = `${LABEL_APP_MANAGED_BY}=${MANAGED_BY_KIM},${LABEL_REGISTRY_CACHE_ID},${LABEL_RUNTIME_ID}`;

/**
 * Which garden Secrets of gone Runtimes a sync lists: all the registry caches' (`all`) for a listing sync, and for a
 * watching applier's first that listed them without a failure (Shoots may have gone while no applier ran, and the
 * memo of Shoots seen being deleted is the process's); later, only those of the Runtimes whose Shoots it saw go
 * (none: no LIST).
 */
export function goneSecretsQuery(
  watching: boolean,
  listedBefore: boolean,
  goneRuntimeIds: readonly string[],
): 'all' | readonly string[] | undefined {
  if (!watching || !listedBefore) return 'all';
  return goneRuntimeIds.length === 0 ? undefined : goneRuntimeIds;
}

/**
 * The runtime ids of the Shoots on their way out (being deleted, or deleted by this sync's plan), by Shoot: a
 * watching applier remembers them, and cleans their Runtimes' garden Secrets once their Shoots are gone.
 */
export function deletingRuntimes(
  entries: readonly { shoot: string; action: string; live?: Shoot }[],
  live: readonly Shoot[],
): Map<string, string> {
  const leaving = [
    ...live.filter((shoot) => shoot.metadata.deletionTimestamp),
    ...entries.flatMap((entry) => (entry.action === 'delete' && entry.live ? [entry.live] : [])),
  ];
  return new Map(
    leaving.flatMap((shoot) => {
      const runtimeId = shoot.metadata.annotations?.[ANNOTATION_RUNTIME_ID];
      return runtimeId ? [[shoot.metadata.name, runtimeId] as const] : [];
    }),
  );
}
