// The desired state of one commit of the landscape repo: each `shoots/<name>/shoot.yaml` with its companions
// and the objects of its cluster under `skr/` (docs/design.md §1.4, the layout rules/landscape-layout.ts
// defines). Pure: the caller reads the files.
// Every problem is a value naming the file and the fix; a folder with a problem is reported by name, so the
// plan holds that Shoot back instead of taking it for deleted.
import { ConfigError } from '../model/errors.js';
import { SHOOT_API_VERSION, type ConfigMap, type Shoot } from '../model/shoot.js';
import { parseYamlDocuments } from '../model/yaml-input.js';
import {
  KYMA_SYSTEM_NAMESPACE,
  PROVISIONING_INFO_CONFIG_MAP,
  REGISTRY_CACHE_FOLDER,
  SHOOTS_FOLDER,
  SHOOT_FILE,
  SKR_FOLDER,
} from '../model/contract.js';
import { describeKind, isJsonObject } from '../model/json.js';
import type { KubeObject } from '../model/kube-object.js';
import { skrObjectProblem, type SkrObject } from './skr-plan.js';
import { registryCacheStubProblem, type RegistryCacheStub } from './registry-cache-plan.js';

/** A companion: a garden-side object its Shoot refers to, applied before it and deleted after it. */
interface DesiredCompanion {
  path: string;
  object: ConfigMap;
}

export interface DesiredShoot {
  /** The folder name, equal to `metadata.name`. */
  name: string;
  /** `shoots/<name>/shoot.yaml`. */
  path: string;
  shoot: Shoot;
  /** Sorted by path: the order they are applied in, all before the Shoot. */
  companions: DesiredCompanion[];
  /** `shoots/<name>/skr/*.yaml`, sorted by path: applied inside the Shoot's cluster once it is reconciled (skr-sync.ts). */
  skr: SkrObject[];
  /**
   * `shoots/<name>/registry-cache/*.yaml`, sorted by path: data-less stubs of the registry caches' garden Secrets,
   * never applied as they are (registry-cache-sync.ts copies the SKR's Secret into each before the Shoot is written).
   * Absent: none.
   */
  registryCache?: RegistryCacheStub[];
}

export interface DesiredProblem {
  /** The Shoot folder the problem is in, when there is one: the plan neither applies nor deletes that Shoot. */
  shoot?: string;
  error: ConfigError;
}

export interface DesiredState {
  /** Sorted by name. */
  shoots: DesiredShoot[];
  problems: DesiredProblem[];
}

/**
 * The kinds a companion may have. Today the generator writes only the structured-auth ConfigMap
 * `structured-auth-config-<shoot>` (rules/landscape-layout.ts, generator/convert/structured-auth.ts).
 */
const COMPANION_KINDS: readonly { apiVersion: string; kind: string }[] = [{ apiVersion: 'v1', kind: 'ConfigMap' }];

const YAML_SUFFIX = '.yaml';

/**
 * `files` is repo path → text for one commit (LandscapeRepo.readFiles). Files outside `shoots/` and files
 * not ending in `.yaml` are not desired state and are skipped (a Shoot folder holding only such files is a
 * problem: its Shoot is held back). A Shoot folder's one subfolder is `skr/`.
 */
export function desiredFromFiles(files: ReadonlyMap<string, string>): DesiredState {
  const folders = new Map<string, string[]>();
  const problems: DesiredProblem[] = [];
  for (const path of [...files.keys()].sort(byCodeUnit)) {
    const parts = path.split('/');
    if (parts[0] !== SHOOTS_FOLDER || parts.length < 2) continue;
    if (!path.endsWith(YAML_SUFFIX)) {
      // Not read, but it keeps its folder: a folder left with only, say, shoot.yml is held back, never taken for a deleted Shoot.
      if (parts.length === 3) folders.set(parts[1] as string, folders.get(parts[1] as string) ?? []);
      continue;
    }
    if (
      parts.length !== 3 &&
      !(parts.length === 4 && (parts[2] === SKR_FOLDER || parts[2] === REGISTRY_CACHE_FOLDER))
    ) {
      const shoot = parts.length > 3 ? parts[1] : undefined;
      problems.push(
        problem(
          path,
          '',
          `is not where kimops reads manifests: move it to ${SHOOTS_FOLDER}/<shoot-name>/ (or its ${SKR_FOLDER}/ or ${REGISTRY_CACHE_FOLDER}/) or out of ${SHOOTS_FOLDER}/`,
          shoot,
        ),
      );
      continue;
    }
    const folder = parts[1] as string;
    folders.set(folder, [...(folders.get(folder) ?? []), path]);
  }
  const shoots: DesiredShoot[] = [];
  for (const [name, paths] of [...folders].sort(([a], [b]) => byCodeUnit(a, b))) {
    const read = readFolder(name, paths, files);
    problems.push(...read.problems);
    if (read.shoot) shoots.push(read.shoot);
  }
  // A problem anywhere under a Shoot's folder holds that Shoot back, so the plan neither applies nor deletes it.
  const held = new Set(problems.map((p) => p.shoot));
  return { shoots: shoots.filter((shoot) => !held.has(shoot.name)), problems };
}

function readFolder(
  name: string,
  paths: string[],
  files: ReadonlyMap<string, string>,
): { shoot?: DesiredShoot; problems: DesiredProblem[] } {
  const problems: DesiredProblem[] = [];
  const shootPath = `${SHOOTS_FOLDER}/${name}/${SHOOT_FILE}`;
  const skrPrefix = `${SHOOTS_FOLDER}/${name}/${SKR_FOLDER}/`;
  const cachePrefix = `${SHOOTS_FOLDER}/${name}/${REGISTRY_CACHE_FOLDER}/`;
  let shoot: Shoot | undefined;
  const companions: DesiredCompanion[] = [];
  const skr: SkrObject[] = [];
  const registryCache: RegistryCacheStub[] = [];
  for (const path of paths) {
    const value = readOne(path, files.get(path) ?? '', name, problems);
    if (value === undefined) continue;
    if (path === shootPath) {
      shoot = checkedShoot(value, path, name, problems);
      continue;
    }
    if (path.startsWith(skrPrefix)) {
      const object = checkedSkr(value, path, name, problems);
      const twin = object && skr.find((o) => sameObject(o.object, object));
      if (twin) problems.push(definedTwice(path, object, twin.path, name));
      else if (object) skr.push({ path, object });
      continue;
    }
    if (path.startsWith(cachePrefix)) {
      const wrong = registryCacheStubProblem(value);
      if (wrong) problems.push(problem(path, wrong.field, `${wrong.detail}: fix the file or remove it`, name));
      if (wrong) continue;
      const stub = value as RegistryCacheStub['object'];
      const twin = registryCache.find((other) => other.object.metadata.name === stub.metadata.name);
      if (twin) problems.push(definedTwice(path, stub, twin.path, name));
      else registryCache.push({ path, object: stub });
      continue;
    }
    const companion = checkedCompanion(value, path, name, problems);
    const twin =
      companion &&
      companions.find((c) => c.object.kind === companion.kind && c.object.metadata.name === companion.metadata.name);
    if (twin) problems.push(definedTwice(path, companion, twin.path, name));
    else if (companion) companions.push({ path, object: companion });
  }
  if (!paths.includes(shootPath)) {
    problems.push(
      problem(
        `${SHOOTS_FOLDER}/${name}/`,
        '',
        `has no ${SHOOT_FILE}: add the Shoot manifest, or remove the folder to delete the Shoot`,
        name,
      ),
    );
  }
  // Configured means every step ran: an skr/ without the Namespace or kyma-provisioning-info would be recorded as
  // applied, and the Runtime reported KymaSystemNSCreated, though nothing was created.
  if (skr.length > 0) {
    for (const kind of ['Namespace', 'ConfigMap']) {
      if (!skr.some((o) => o.object.kind === kind))
        problems.push(
          problem(
            skrPrefix,
            '',
            `has no ${kind} (${kind === 'Namespace' ? KYMA_SYSTEM_NAMESPACE : `${KYMA_SYSTEM_NAMESPACE}/${PROVISIONING_INFO_CONFIG_MAP}`}): the generator writes both; restore the file`,
            name,
          ),
        );
    }
  }
  if (!shoot || problems.length > 0) return { problems };
  return { shoot: { name, path: shootPath, shoot, companions, skr, registryCache }, problems };
}

/** Two files for one object would be applied in turn, the later one winning, on every sync. */
function definedTwice(path: string, object: KubeObject, twin: string, shoot: string): DesiredProblem {
  return problem(
    path,
    'metadata.name',
    `${object.kind} ${object.metadata.name} is also defined in ${twin}: keep one of the two files`,
    shoot,
  );
}

function sameObject(a: KubeObject, b: KubeObject): boolean {
  return (
    a.apiVersion === b.apiVersion &&
    a.kind === b.kind &&
    a.metadata.namespace === b.metadata.namespace &&
    a.metadata.name === b.metadata.name
  );
}

/** An object for the Shoot's cluster (skr-plan.ts says which it may be). */
function checkedSkr(value: unknown, path: string, folder: string, problems: DesiredProblem[]): KubeObject | undefined {
  const wrong = skrObjectProblem(value);
  if (!wrong) return value as KubeObject;
  problems.push(
    problem(
      path,
      wrong.field,
      `${wrong.detail} (${describeKind(value)} in ${SHOOTS_FOLDER}/${folder}/${SKR_FOLDER}/): fix the file or remove it`,
      folder,
    ),
  );
  return undefined;
}

/** The one document of a file; anything else is a problem. */
function readOne(path: string, text: string, shoot: string, problems: DesiredProblem[]): unknown {
  const documents = parseYamlDocuments(text, path);
  const broken = documents.find((document) => document.error);
  if (broken?.error) {
    problems.push({
      shoot,
      error: new ConfigError(
        path,
        broken.error.field,
        `${broken.error.detail}: fix the YAML (kimops writes one object per file)`,
      ),
    });
    return undefined;
  }
  if (documents.length !== 1) {
    const what = documents.length === 0 ? 'holds no YAML document' : `holds ${documents.length} YAML documents`;
    problems.push(problem(path, '', `${what}: each file under ${SHOOTS_FOLDER}/ holds exactly one object`, shoot));
    return undefined;
  }
  return documents[0]?.value;
}

function checkedShoot(value: unknown, path: string, folder: string, problems: DesiredProblem[]): Shoot | undefined {
  if (!isJsonObject(value) || value.kind !== 'Shoot' || value.apiVersion !== SHOOT_API_VERSION) {
    problems.push(
      problem(
        path,
        'kind',
        `must be a ${SHOOT_API_VERSION} Shoot, found ${describeKind(value)}: put companions in their own files`,
        folder,
      ),
    );
    return undefined;
  }
  const metadata = value.metadata;
  const name = isJsonObject(metadata) ? metadata.name : undefined;
  if (name !== folder) {
    problems.push(
      problem(
        path,
        'metadata.name',
        `is ${JSON.stringify(name)} but the folder is ${SHOOTS_FOLDER}/${folder}/: a Shoot lives in the folder of its name; rename one to match`,
        folder,
      ),
    );
    return undefined;
  }
  if (!isJsonObject(value.spec)) {
    problems.push(problem(path, 'spec', 'is missing: a Shoot manifest needs its spec', folder));
    return undefined;
  }
  return value as unknown as Shoot;
}

function checkedCompanion(
  value: unknown,
  path: string,
  folder: string,
  problems: DesiredProblem[],
): ConfigMap | undefined {
  const expected = COMPANION_KINDS.some(
    (k) => isJsonObject(value) && value.kind === k.kind && value.apiVersion === k.apiVersion,
  );
  if (!expected) {
    const kinds = COMPANION_KINDS.map((k) => `${k.apiVersion} ${k.kind}`).join(', ');
    problems.push(
      problem(
        path,
        'kind',
        `is ${describeKind(value)}, but a Shoot's companions can only be ${kinds}: remove the file or move it out of ${SHOOTS_FOLDER}/`,
        folder,
      ),
    );
    return undefined;
  }
  const metadata = (value as { metadata?: unknown }).metadata;
  if (!isJsonObject(metadata) || typeof metadata.name !== 'string' || metadata.name === '') {
    problems.push(problem(path, 'metadata.name', 'is missing: a companion needs a name', folder));
    return undefined;
  }
  return value as unknown as ConfigMap;
}

function problem(path: string, field: string, detail: string, shoot: string | undefined): DesiredProblem {
  return { ...(shoot !== undefined ? { shoot } : {}), error: new ConfigError(path, field, detail) };
}

function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
