// What kube-apiserver does to a custom resource between decoding and validation, so that kimops's
// verdict on a Runtime is the API server's: a `null` in a field that is not nullable is dropped, and a
// missing field with a `default` gets it (apiextensions-apiserver's PruneNonNullableNullsWithoutDefaults
// and Default, run before schema validation). `null` list items are kept: the API server rejects them.
import { isJsonObject } from '../json.js';
import type { SchemaNode } from './openapi-to-json-schema.js';

/** A copy of `value` with nulls pruned and defaults applied along `schema` (a structural schema, no $refs). */
export function applyStructuralDefaults(schema: SchemaNode, value: unknown): unknown {
  if (Array.isArray(value)) {
    const items = schema['items'];
    return isJsonObject(items) ? value.map((item) => applyStructuralDefaults(items, item)) : value;
  }
  if (!isJsonObject(value)) return value;
  const properties = isJsonObject(schema['properties']) ? schema['properties'] : {};
  const additional = isJsonObject(schema['additionalProperties']) ? schema['additionalProperties'] : undefined;
  // Own keys only, copied with defineProperty so that a `__proto__` key stays data, never a prototype.
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    const childSchema = Object.hasOwn(properties, key) ? properties[key] : additional;
    if (!isJsonObject(childSchema)) {
      define(out, key, child);
      continue;
    }
    if (child === null && childSchema['nullable'] !== true) {
      if (childSchema['default'] !== undefined) define(out, key, structuredClone(childSchema['default']));
      continue;
    }
    define(out, key, applyStructuralDefaults(childSchema, child));
  }
  for (const [key, childSchema] of Object.entries(properties)) {
    if (Object.hasOwn(out, key) || !isJsonObject(childSchema) || childSchema['default'] === undefined) continue;
    define(out, key, applyStructuralDefaults(childSchema, structuredClone(childSchema['default'])));
  }
  return out;
}

function define(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
