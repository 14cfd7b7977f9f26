// The Runtime's schema: the v1 openAPIV3Schema of crds/runtime.yaml (KIM's CRD, the API contract with
// KEB), closed against unknown fields, with `metadata` checked as the API server decodes it (ObjectMeta,
// taken from the same OpenAPI snapshot as the Shoot). Verdicts match kube-apiserver's create with
// fieldValidation=Strict; the differences are listed in docs/validation.md. Compiled once, on first use.
import { readFileSync } from 'node:fs';
import type { ValidateFunction } from 'ajv';
import { parseYaml11 } from '../yaml-input.js';
import { isJsonObject } from '../json.js';
import {
  DEFINITIONS_REF_PREFIX,
  kubernetesAjv,
  reachableComponents,
  toStrictJsonSchema,
  type SchemaNode,
} from './openapi-to-json-schema.js';
import { OBJECT_META_COMPONENT } from './openapi-snapshot.js';
import { addSnapshotFormats, shootOpenApiSnapshot, snapshotDefinitions } from './shoot-schema.js';
import { INT64_KEYWORD, schemaProblems, type SchemaProblem } from './schema-problems.js';
import { applyStructuralDefaults } from './structural-defaulting.js';
import { packagePath } from '../package-root.js';

const CRD_FILE = packagePath('crds', 'runtime.yaml');
const RUNTIME_SCHEMA_VERSION = 'v1';

/**
 * `format: byte` as kube-apiserver checks it on custom resources (found by the differential test):
 * standard base64 with padding, not empty, no line breaks. ajv-formats' `byte` takes "" and
 * multi-line text.
 */
const KUBE_APISERVER_BYTE = /^(?:(?:[A-Za-z0-9+/]{4})+|(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=))$/;

/**
 * The API server decodes a custom resource's JSON numbers as int64 when they fit and as float64
 * otherwise, so 1e20 is not an integer there (JavaScript says it is). Doubles step by 2048 near 2^63,
 * so the bounds are exclusive powers of two.
 */
const INT64_LIMIT = 2 ** 63;
const isInt64 = (value: number): boolean => value > -INT64_LIMIT && value < INT64_LIMIT;

/**
 * The JSON Schema of a Runtime from the CRD (a parsed crds/runtime.yaml): the served version's
 * openAPIV3Schema made strict, `metadata` pointing at ObjectMeta. Exported for tests and tools that
 * hold another copy of the CRD.
 */
export function runtimeJsonSchema(crd: unknown): SchemaNode {
  const versions = isJsonObject(crd) && isJsonObject(crd['spec']) ? crd['spec']['versions'] : undefined;
  const version = Array.isArray(versions)
    ? versions.find((v) => isJsonObject(v) && v['name'] === RUNTIME_SCHEMA_VERSION)
    : undefined;
  const openApi =
    isJsonObject(version) && isJsonObject(version['schema']) ? version['schema']['openAPIV3Schema'] : undefined;
  if (!isJsonObject(openApi)) throw new Error(`the Runtime CRD has no ${RUNTIME_SCHEMA_VERSION} openAPIV3Schema`);
  const schema = toStrictJsonSchema(openApi, { closeEmptyObjects: true, integerKeywords: { [INT64_KEYWORD]: true } });
  // The CRD says only `metadata: {type: object}`; the API server decodes it as ObjectMeta, strictly.
  schema['properties'] = {
    ...(schema['properties'] as SchemaNode),
    metadata: { $ref: DEFINITIONS_REF_PREFIX + OBJECT_META_COMPONENT },
  };
  return schema;
}

interface CompiledRuntimeSchema {
  /** The structural schema without definitions, for pruning nulls and defaulting as the server does. */
  structural: SchemaNode;
  validate: ValidateFunction;
}

let compiled: CompiledRuntimeSchema | undefined;

function compile(): CompiledRuntimeSchema {
  if (compiled) return compiled;
  const structural = runtimeJsonSchema(parseYaml11(readFileSync(CRD_FILE, 'utf8'), CRD_FILE));
  const ajv = kubernetesAjv();
  addSnapshotFormats(ajv);
  // The API server checks no number formats on custom resources: an int32 field takes 2^40 (it is
  // KIM's Go decoder, and the Shoot schema downstream, that refuse it). Only string formats count.
  for (const format of ['int32', 'int64'] as const) ajv.addFormat(format, { type: 'number', validate: () => true });
  ajv.addFormat('byte', KUBE_APISERVER_BYTE);
  ajv.addKeyword({
    keyword: INT64_KEYWORD,
    type: 'number',
    schemaType: 'boolean',
    errors: false,
    validate: (_schema: boolean, value: number) => isInt64(value),
  });
  const definitions = snapshotDefinitions(
    reachableComponents(shootOpenApiSnapshot().components, [OBJECT_META_COMPONENT]),
  );
  compiled = { structural, validate: ajv.compile({ ...structural, definitions }) };
  return compiled;
}

/**
 * The schema problems of a Runtime (a parsed manifest), as kube-apiserver would report them on create
 * with fieldValidation=Strict: unknown fields (which the API server would otherwise prune silently),
 * wrong types, values outside an enum or pattern, missing required fields. Nulls in non-nullable
 * fields are dropped and defaults applied first, as the API server does.
 */
export function validateRuntimeSchema(runtime: unknown): SchemaProblem[] {
  const { structural, validate } = compile();
  const defaulted = applyStructuralDefaults(structural, runtime);
  return validate(defaulted) ? [] : schemaProblems(validate.errors ?? [], defaulted, 'Runtime');
}
