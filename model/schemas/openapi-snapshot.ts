// The committed snapshot of an API group's OpenAPI v3 description: only the components a kind needs,
// descriptions dropped, keys in a stable order, with a header saying where it came from. Built by
// scripts/shoot-openapi-snapshot.ts; read by shoot-schema.ts (and, for ObjectMeta, runtime-schema.ts).
import { isJsonObject } from '../json.js';
import { reachableComponents } from './openapi-to-json-schema.js';

export interface OpenApiSnapshot {
  /** What the snapshot was read from (API path and server). */
  source: string;
  /** Gardener's version as the API server announced it (OpenAPI `info.version`). */
  gardenerVersion: string;
  /** kube-apiserver's version of the plane it was read from (`/version` gitVersion). */
  kubernetesVersion: string;
  /** The command that refreshes the snapshot. */
  refresh: string;
  /** The component the snapshot was trimmed to (the Shoot). */
  root: string;
  components: Record<string, unknown>;
}

export const SHOOT_COMPONENT = 'com.github.gardener.gardener.pkg.apis.core.v1beta1.Shoot';
export const OBJECT_META_COMPONENT = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';
export const SHOOT_OPENAPI_PATH = '/openapi/v3/apis/core.gardener.cloud/v1beta1';
const SNAPSHOT_REFRESH_COMMAND = 'KIMOPS_TESTENV=<state dir> npx tsx scripts/shoot-openapi-snapshot.ts';

/** Keyword values that are data, not schemas: never walked into. */
const DATA_KEYWORDS = new Set([
  'enum',
  'default',
  'example',
  'x-kubernetes-group-version-kind',
  'x-kubernetes-list-map-keys',
  'required',
]);
/** Keywords whose value maps field or component names to schemas. */
const NAME_MAP_KEYWORDS = new Set(['properties', 'definitions']);

/** The trimmed snapshot of `document` (an /openapi/v3 answer) for `root` and what it references. */
export function snapshotOf(
  document: unknown,
  header: { source: string; kubernetesVersion: string; root?: string },
): OpenApiSnapshot {
  if (
    !isJsonObject(document) ||
    !isJsonObject(document['components']) ||
    !isJsonObject(document['components']['schemas'])
  ) {
    throw new Error(`${header.source}: not an OpenAPI v3 document (no components.schemas)`);
  }
  const schemas = document['components']['schemas'];
  const root = header.root ?? SHOOT_COMPONENT;
  const info = isJsonObject(document['info']) ? document['info'] : {};
  const components: Record<string, unknown> = {};
  for (const name of reachableComponents(schemas, [root])) components[name] = sortedSchema(schemas[name]);
  return {
    source: header.source,
    gardenerVersion: String(info['version'] ?? 'unknown'),
    kubernetesVersion: header.kubernetesVersion,
    refresh: SNAPSHOT_REFRESH_COMMAND,
    root,
    components,
  };
}

/**
 * A schema without `description`s and with every object's keys sorted, so that a refresh after a
 * Gardener upgrade shows only the changes that matter for validation. Field names that happen to be
 * "description" (inside `properties`) are kept.
 */
function sortedSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(sortedSchema);
  if (!isJsonObject(node)) return node;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(node).sort()) {
    if (key === 'description') continue;
    const value = node[key];
    if (DATA_KEYWORDS.has(key)) out[key] = value;
    else if (NAME_MAP_KEYWORDS.has(key) && isJsonObject(value)) {
      out[key] = Object.fromEntries(
        Object.keys(value)
          .sort()
          .map((name) => [name, sortedSchema(value[name])]),
      );
    } else out[key] = sortedSchema(value);
  }
  return out;
}
