// Kubernetes OpenAPI v3 schemas (a CRD's openAPIV3Schema, an API server's /openapi/v3 components) turned
// into JSON Schemas ajv can compile in strict mode, and closed against unknown fields: the API server
// prunes (or, with fieldValidation=Strict, rejects) fields its schema does not declare, so a typo in a
// Runtime or Shoot silently disappears unless kimops refuses it first.
import { Ajv, type Options } from 'ajv';
import { isJsonObject } from '../json.js';

/** A schema node as JSON: keyword → value. */
export type SchemaNode = Record<string, unknown>;

/**
 * Kubernetes' vendor extensions. Registered as a vocabulary so that ajv's strict mode (which throws
 * on unknown keywords) stays on and still catches a keyword this list does not know.
 * int-or-string and preserve-unknown-fields are acted on by `toStrictJsonSchema`; the rest only
 * describe merging, list semantics or CEL rules (see docs/validation.md for what is not checked).
 */
const KUBERNETES_KEYWORDS = [
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-int-or-string',
  'x-kubernetes-embedded-resource',
  'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-map-type',
  'x-kubernetes-validations',
  'x-kubernetes-group-version-kind',
  'x-kubernetes-patch-strategy',
  'x-kubernetes-patch-merge-key',
  'x-kubernetes-unions',
] as const;

/** Where an OpenAPI document keeps its components, and where the converted schema keeps them. */
const OPENAPI_REF_PREFIX = '#/components/schemas/';
export const DEFINITIONS_REF_PREFIX = '#/definitions/';

export interface StrictSchemaOptions {
  /**
   * Whether `type: object` without `properties` holds no fields. True for CRD structural schemas (the
   * API server prunes every field of such an object); false for aggregated APIs' OpenAPI, where it
   * means a free-form object (RawExtension, FieldsV1).
   */
  closeEmptyObjects: boolean;
  /** Keywords added to every `type: integer` node (int-or-string's integer branch included). */
  integerKeywords?: SchemaNode;
}

/** Keywords whose value is one schema. */
const SCHEMA_KEYWORDS = ['items', 'not'] as const;
/** Keywords whose value is a list of schemas. */
const SCHEMA_LIST_KEYWORDS = ['allOf', 'anyOf', 'oneOf'] as const;
/** Keywords whose value maps names to schemas. */
const SCHEMA_MAP_KEYWORDS = ['properties', 'definitions'] as const;

/**
 * The node and everything below it, converted: int-or-string as `anyOf` integer/string,
 * `additionalProperties: false` on every object that declares its fields (except where
 * x-kubernetes-preserve-unknown-fields keeps unknown ones, or additionalProperties is already
 * set), `$ref`s pointing into `definitions`. Never mutates its input.
 */
export function toStrictJsonSchema(node: unknown, options: StrictSchemaOptions): SchemaNode {
  if (!isJsonObject(node)) throw new Error(`not a schema node: ${JSON.stringify(node)}`);
  const out: SchemaNode = { ...node };
  for (const keyword of SCHEMA_KEYWORDS) {
    if (isJsonObject(node[keyword])) out[keyword] = toStrictJsonSchema(node[keyword], options);
  }
  for (const keyword of SCHEMA_LIST_KEYWORDS) {
    const list = node[keyword];
    if (Array.isArray(list)) out[keyword] = list.map((child) => toStrictJsonSchema(child, options));
  }
  for (const keyword of SCHEMA_MAP_KEYWORDS) {
    const map = node[keyword];
    if (isJsonObject(map)) {
      out[keyword] = Object.fromEntries(
        Object.entries(map).map(([name, child]) => [name, toStrictJsonSchema(child, options)]),
      );
    }
  }
  if (isJsonObject(node['additionalProperties']))
    out['additionalProperties'] = toStrictJsonSchema(node['additionalProperties'], options);
  if (typeof node['$ref'] === 'string' && node['$ref'].startsWith(OPENAPI_REF_PREFIX)) {
    out['$ref'] = DEFINITIONS_REF_PREFIX + node['$ref'].slice(OPENAPI_REF_PREFIX.length);
  }
  // The API server accepts an integer or a string here; CRDs may already spell it out as anyOf.
  if (node['x-kubernetes-int-or-string'] === true && !node['anyOf'] && !node['oneOf']) {
    delete out['type'];
    out['anyOf'] = [{ type: 'integer', ...options.integerKeywords }, { type: 'string' }];
  }
  if (out['type'] === 'integer') Object.assign(out, options.integerKeywords);
  if (closesUnknownFields(node, options)) out['additionalProperties'] = false;
  return out;
}

function closesUnknownFields(node: SchemaNode, options: StrictSchemaOptions): boolean {
  if (node['x-kubernetes-preserve-unknown-fields'] === true || node['additionalProperties'] !== undefined) return false;
  if (node['x-kubernetes-embedded-resource'] === true) return false;
  if (isJsonObject(node['properties'])) return true;
  return options.closeEmptyObjects && node['type'] === 'object';
}

/**
 * The named components and every component they reference, transitively: what a validator of those
 * kinds needs from a whole API group's OpenAPI document.
 */
export function reachableComponents(components: Record<string, unknown>, roots: readonly string[]): string[] {
  const seen = new Set<string>();
  const pending = [...roots];
  while (pending.length > 0) {
    const name = pending.pop() as string;
    if (seen.has(name)) continue;
    const schema = components[name];
    if (schema === undefined) throw new Error(`component ${name} is referenced but not in the document`);
    seen.add(name);
    for (const ref of refsIn(schema)) pending.push(ref);
  }
  return [...seen].sort();
}

function refsIn(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) refsIn(item, found);
  else if (isJsonObject(value)) {
    for (const [key, child] of Object.entries(value)) {
      if (key === '$ref' && typeof child === 'string' && child.startsWith(OPENAPI_REF_PREFIX))
        found.push(child.slice(OPENAPI_REF_PREFIX.length));
      else refsIn(child, found);
    }
  }
  return found;
}

/**
 * An ajv instance for Kubernetes schemas: strict about keywords (the vocabulary above is known),
 * all errors reported, the failing schema attached to each error (messages and hints need it).
 * strictTypes is off because Kubernetes schemas legitimately put `pattern` beside an integer/string
 * anyOf (quantities), which strictTypes would log on every compile.
 */
export function kubernetesAjv(options: Options = {}): Ajv {
  const ajv = new Ajv({ allErrors: true, verbose: true, strictSchema: true, strictTypes: false, ...options });
  ajv.addVocabulary([...KUBERNETES_KEYWORDS]);
  return ajv;
}
