// Where a rendered Shoot, its companions and the objects of its cluster (skr/) live in the landscape repo
// (docs/design.md §1.4), and what of them is written: the desired state only — nothing the API server sets.
import { ConfigError } from '../model/errors.js';
import type { KubeObject } from '../model/kube-object.js';
import type { ConfigMap, Shoot } from '../model/shoot.js';
import { toCanonicalYaml } from './canonical-yaml.js';
import { DNS_1123_LABEL } from '../model/names.js';
import { REGISTRY_CACHE_FOLDER, SHOOTS_FOLDER, SHOOT_FILE, SKR_FOLDER } from '../model/contract.js';

/** Metadata the API server owns; written into Git it would be stale at once and fight every apply. */
const SERVER_SET_METADATA = new Set([
  'creationTimestamp',
  'deletionGracePeriodSeconds',
  'deletionTimestamp',
  'generation',
  'managedFields',
  'resourceVersion',
  'selfLink',
  'uid',
]);

/** A kind as a file-name part: letters and digits only. */
const KIND = /^[A-Za-z][A-Za-z0-9]*$/;

/** An object and the repo path it is written to. */
export interface Manifest {
  path: string;
  object: KubeObject;
}

export interface RenderedFile {
  path: string;
  content: string;
}

/**
 * `shoots/<shoot>/shoot.yaml`, each companion at `shoots/<shoot>/<kind>-<name>.yaml`, each registry cache's
 * data-less Secret stub at `shoots/<shoot>/registry-cache/secret-<name>.yaml` and each object of the Shoot's cluster
 * at `shoots/<shoot>/skr/<kind>-<name>.yaml` (kind lower-cased; an SKR object may be cluster-scoped).
 * In apply order: companions first (sorted by path), the Shoot last, because the Shoot refers to them; the stubs
 * (never applied as they are: the applier copies the SKR's Secret into each) and the SKR objects (sorted by path)
 * just before it — those are applied inside the cluster, once it is reconciled.
 * Throws ConfigError when a name is not a DNS-1123 label or two objects would share a file.
 */
export function shootManifests(
  shoot: Shoot,
  companions: readonly ConfigMap[],
  skr: readonly KubeObject[] = [],
  registryCache: readonly KubeObject[] = [],
): Manifest[] {
  const folder = `${SHOOTS_FOLDER}/${checkedName(shoot)}`;
  return [
    ...placed(`${folder}/`, companions, shoot),
    ...placed(`${folder}/${REGISTRY_CACHE_FOLDER}/`, registryCache, shoot),
    ...placed(`${folder}/${SKR_FOLDER}/`, skr, shoot),
    { path: `${folder}/${SHOOT_FILE}`, object: shoot },
  ].map(({ path, object }) => ({ path, object: withoutServerFields(object) }));
}

/** The files of one Shoot, as canonical YAML, in the order of shootManifests. */
export function shootFiles(
  shoot: Shoot,
  companions: readonly ConfigMap[],
  skr: readonly KubeObject[] = [],
  registryCache: readonly KubeObject[] = [],
): RenderedFile[] {
  return filesOf(shootManifests(shoot, companions, skr, registryCache));
}

/** Whether a repo path is one of a Shoot's registry-cache Secret stubs (`shoots/<shoot>/registry-cache/…`). */
export function isRegistryCachePath(path: string): boolean {
  const parts = path.split('/');
  return parts.length === 4 && parts[0] === SHOOTS_FOLDER && parts[2] === REGISTRY_CACHE_FOLDER;
}

/** Whether a repo path is one of a Shoot's SKR objects (`shoots/<shoot>/skr/…`). */
export function isSkrPath(path: string): boolean {
  const parts = path.split('/');
  return parts.length === 4 && parts[0] === SHOOTS_FOLDER && parts[2] === SKR_FOLDER;
}

/** Each object at `<folder><kind>-<name>.yaml`, sorted by path; two objects for one file are refused. */
function placed(folder: string, objects: readonly KubeObject[], shoot: Shoot): Manifest[] {
  const manifests = objects
    .map((object) => ({ path: `${folder}${checkedKind(object).toLowerCase()}-${checkedName(object)}.yaml`, object }))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  manifests.forEach(({ path, object }, i) => {
    if (manifests[i + 1]?.path === path) {
      throw new ConfigError(
        describe(object),
        'metadata.name',
        `is rendered twice for Shoot ${shoot.metadata.name}; each object of its folder needs its own name`,
      );
    }
  });
  return manifests;
}

export function filesOf(manifests: readonly Manifest[]): RenderedFile[] {
  return manifests.map(({ path, object }) => ({ path, content: toCanonicalYaml(object) }));
}

/** The same as repo path → text. */
export function fileMapOf(manifests: readonly Manifest[]): Map<string, string> {
  return new Map(filesOf(manifests).map((f) => [f.path, f.content]));
}

/** A copy without `status` and without server-set metadata. */
export function withoutServerFields<T extends KubeObject>(object: T): T {
  const copy = {
    ...object,
    metadata: Object.fromEntries(Object.entries(object.metadata).filter(([key]) => !SERVER_SET_METADATA.has(key))),
  };
  delete copy.status;
  return copy as T;
}

function checkedName(object: KubeObject): string {
  const name: unknown = object.metadata?.name;
  if (typeof name !== 'string' || !DNS_1123_LABEL.test(name)) {
    throw new ConfigError(
      describe(object),
      'metadata.name',
      'must be a DNS-1123 label (lower-case letters, digits and "-", starting and ending with a letter or digit, ' +
        'at most 63 characters): it names a file under shoots/ in the landscape repo',
    );
  }
  return name;
}

function checkedKind(object: KubeObject): string {
  if (typeof object.kind !== 'string' || !KIND.test(object.kind)) {
    throw new ConfigError(
      describe(object),
      'kind',
      'must be a Kubernetes kind like ConfigMap: it names a file in the landscape repo',
    );
  }
  return object.kind;
}

function describe(object: KubeObject): string {
  const kind = typeof object.kind === 'string' ? object.kind : 'object';
  const { namespace, name } = object.metadata ?? {};
  return `${kind} ${JSON.stringify(namespace ? `${namespace}/${String(name)}` : (name ?? ''))}`;
}
