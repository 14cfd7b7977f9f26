// The Shoot's schema: gardener-apiserver's own OpenAPI v3 description of core.gardener.cloud/v1beta1
// (Shoot is an aggregated API, not a CRD), from the committed snapshot shoot-openapi-v1beta1.json,
// closed against unknown fields. Compiled once, on first use.
import { readFileSync } from 'node:fs';
import type { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import {
  DEFINITIONS_REF_PREFIX,
  kubernetesAjv,
  toStrictJsonSchema,
  type SchemaNode,
} from './openapi-to-json-schema.js';
import type { OpenApiSnapshot } from './openapi-snapshot.js';
import { schemaProblems, type SchemaProblem } from './schema-problems.js';
import { packagePath } from '../package-root.js';

/** Formats ajv-formats checks as Go's decoder does (number ranges, base64, RFC 3339). */
const CHECKED_FORMATS = ['int32', 'int64', 'double', 'byte', 'date-time'] as const;
/**
 * Formats the snapshot names that carry no rule beyond the schema's types: int-or-string already
 * is a oneOf integer/string. Listed explicitly so that a new format after a Gardener upgrade fails
 * the compile (ajv strict) instead of being skipped silently.
 */
const IGNORED_FORMATS = ['int-or-string'] as const;

const SNAPSHOT_FILE = packagePath('model', 'schemas', 'shoot-openapi-v1beta1.json');

let snapshot: OpenApiSnapshot | undefined;
let compiled: ValidateFunction | undefined;

/** The committed OpenAPI snapshot (read once). */
export function shootOpenApiSnapshot(): OpenApiSnapshot {
  snapshot ??= JSON.parse(readFileSync(SNAPSHOT_FILE, 'utf8')) as OpenApiSnapshot;
  return snapshot;
}

/** The snapshot's components as JSON Schema `definitions`, closed against unknown fields. */
export function snapshotDefinitions(names?: readonly string[]): Record<string, SchemaNode> {
  const { components } = shootOpenApiSnapshot();
  const selected = names ?? Object.keys(components);
  return Object.fromEntries(
    selected.map((name) => [name, toStrictJsonSchema(components[name], { closeEmptyObjects: false })]),
  );
}

/** Formats ajv must know to compile schemas from the snapshot. */
export function addSnapshotFormats(ajv: ReturnType<typeof kubernetesAjv>): void {
  addFormats.default(ajv, [...CHECKED_FORMATS]);
  for (const format of IGNORED_FORMATS) ajv.addFormat(format, true);
}

function validator(): ValidateFunction {
  if (!compiled) {
    const ajv = kubernetesAjv();
    addSnapshotFormats(ajv);
    compiled = ajv.compile({
      definitions: snapshotDefinitions(),
      $ref: DEFINITIONS_REF_PREFIX + shootOpenApiSnapshot().root,
    });
  }
  return compiled;
}

/**
 * The schema problems of a Shoot (a parsed manifest): unknown fields, wrong types, missing required
 * fields, bad formats. Empty when the Shoot matches gardener-apiserver's schema; Gardener's own
 * validation (immutable fields, CloudProfile checks) is more and happens only on the server.
 */
export function validateShootSchema(shoot: unknown): SchemaProblem[] {
  const validate = validator();
  return validate(shoot) ? [] : schemaProblems(validate.errors ?? [], shoot, 'Shoot');
}
