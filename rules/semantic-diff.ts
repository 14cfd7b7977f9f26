// The field-level difference between two Shoots, as a reviewer reads it: lists that Gardener keys by
// name are compared by that name, so removing the first of two workers reads "workers[a] removed",
// not "workers[0].name a → b" plus a shifted tail. Pure: values in, values out.
import type { Shoot } from '../model/shoot.js';
import { withoutServerFields } from './landscape-layout.js';
import { isJsonObject } from '../model/json.js';

export interface FieldChange {
  /** `spec.provider.workers[cpu-worker-0].maximum`, `metadata.annotations["a.b/c"]`, `spec.dns.providers[0]`. */
  path: string;
  kind: 'added' | 'removed' | 'changed';
  before?: unknown;
  after?: unknown;
}

/** How the items of a list are matched between the two sides. */
type ListRule = { by: 'key'; key: string } | { by: 'set' } | { by: 'position' };

/**
 * Lists Gardener identifies by a field (its validation matches workers by name, extensions by type,
 * resources by name). Patterns are paths with `[]` for "any list item".
 */
const LIST_RULES: Record<string, ListRule> = {
  'spec.provider.workers': { by: 'key', key: 'name' },
  // Zones are a set to Gardener's providers: only appending is allowed, and order is KIM's business.
  'spec.provider.workers[].zones': { by: 'set' },
  'spec.extensions': { by: 'key', key: 'type' },
  'spec.resources': { by: 'key', key: 'name' },
  'spec.tolerations': { by: 'key', key: 'key' },
  'spec.accessRestrictions': { by: 'key', key: 'name' },
};

/**
 * Changes from `before` to `after`, in document order (map keys sorted, list items in `before`'s
 * order, then new ones in `after`'s). A missing side (create, delete) lists every leaf of the other.
 * Status and server-set metadata are ignored: they are not what kimops proposes.
 */
export function semanticDiff(before: Shoot | undefined, after: Shoot | undefined): FieldChange[] {
  const changes: FieldChange[] = [];
  const a = before && withoutServerFields(before);
  const b = after && withoutServerFields(after);
  if (a === undefined && b !== undefined) flatten(b, '', '', 'added', changes);
  else if (a !== undefined && b === undefined) flatten(a, '', '', 'removed', changes);
  else compare(a, b, '', '', changes);
  return changes;
}

/** `path` is what readers see; `pattern` is the same path with `[]` for list items, to find list rules. */
function compare(a: unknown, b: unknown, path: string, pattern: string, out: FieldChange[]): void {
  if (a === undefined && b === undefined) return;
  if (a === undefined) return void out.push({ path, kind: 'added', after: b });
  if (b === undefined) return void out.push({ path, kind: 'removed', before: a });
  if (Array.isArray(a) && Array.isArray(b)) return compareLists(a, b, path, pattern, out);
  if (isJsonObject(a) && isJsonObject(b)) {
    for (const key of unionKeys(a, b)) compare(a[key], b[key], child(path, key), child(pattern, key), out);
    return;
  }
  if (!sameValue(a, b)) out.push({ path, kind: 'changed', before: a, after: b });
}

function compareLists(a: unknown[], b: unknown[], path: string, pattern: string, out: FieldChange[]): void {
  const rule = listRule(a, b, pattern);
  const itemPattern = `${pattern}[]`;
  if (rule.by === 'set') {
    for (const item of a)
      if (!b.some((other) => sameValue(item, other)))
        out.push({ path: keyed(path, item), kind: 'removed', before: item });
    for (const item of b)
      if (!a.some((other) => sameValue(item, other))) out.push({ path: keyed(path, item), kind: 'added', after: item });
    const common = (list: unknown[], other: unknown[]) => list.filter((item) => other.some((x) => sameValue(item, x)));
    reportOrder(common(a, b), common(b, a), path, out);
    return;
  }
  if (rule.by === 'position') {
    for (let i = 0; i < Math.max(a.length, b.length); i++) compare(a[i], b[i], `${path}[${i}]`, itemPattern, out);
    return;
  }
  const before = byKey(a, rule.key);
  const after = byKey(b, rule.key);
  for (const [key, item] of before) compare(item, after.get(key), keyed(path, key), itemPattern, out);
  for (const [key, item] of after) if (!before.has(key)) compare(undefined, item, keyed(path, key), itemPattern, out);
  reportOrder(
    [...before.keys()].filter((key) => after.has(key)),
    [...after.keys()].filter((key) => before.has(key)),
    path,
    out,
  );
}

/** Items kept on both sides but in another order: invisible item by item, yet a change of the file. */
function reportOrder(before: unknown[], after: unknown[], path: string, out: FieldChange[]): void {
  if (!sameValue(before, after)) out.push({ path: `${path} (order)`, kind: 'changed', before, after });
}

/** The configured rule, else by `name` when every item has a distinct one, else by position. */
function listRule(a: unknown[], b: unknown[], pattern: string): ListRule {
  const rule = LIST_RULES[pattern];
  if (rule?.by === 'key' && (!hasUniqueKeys(a, rule.key) || !hasUniqueKeys(b, rule.key))) return { by: 'position' };
  if (rule) return rule;
  return hasUniqueKeys(a, 'name') && hasUniqueKeys(b, 'name') && a.length + b.length > 0
    ? { by: 'key', key: 'name' }
    : { by: 'position' };
}

/** Every item is an object whose `key` is a string no other item has: the list can be matched by that key. */
export function hasUniqueKeys(items: unknown[], key: string): boolean {
  const seen = new Set<string>();
  for (const item of items) {
    const value = isJsonObject(item) ? item[key] : undefined;
    if (typeof value !== 'string' || seen.has(value)) return false;
    seen.add(value);
  }
  return true;
}

function byKey(items: unknown[], key: string): Map<string, unknown> {
  return new Map(items.map((item) => [String((item as Record<string, unknown>)[key]), item]));
}

/** Every leaf of a value as one change: what a create or delete shows, field by field. */
function flatten(value: unknown, path: string, pattern: string, kind: 'added' | 'removed', out: FieldChange[]): void {
  if (Array.isArray(value) && value.length > 0) {
    const rule = listRule(value, value, pattern);
    value.forEach((item, i) => {
      const itemPath =
        rule.by === 'key'
          ? keyed(path, (item as Record<string, unknown>)[rule.key])
          : rule.by === 'set'
            ? keyed(path, item)
            : `${path}[${i}]`;
      if (rule.by === 'set') out.push({ path: itemPath, kind, [kind === 'added' ? 'after' : 'before']: item });
      else flatten(item, itemPath, `${pattern}[]`, kind, out);
    });
    return;
  }
  if (isJsonObject(value) && Object.keys(value).some((key) => value[key] !== undefined)) {
    for (const key of unionKeys(value, {})) flatten(value[key], child(path, key), child(pattern, key), kind, out);
    return;
  }
  out.push({ path, kind, [kind === 'added' ? 'after' : 'before']: value });
}

const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_-]*$/;
/** Item names that read unambiguously inside `[...]`; an all-digit name is quoted so it is no index. */
const PLAIN_ITEM = /^(?![0-9]+$)[A-Za-z0-9._/-]+$/;

function child(path: string, key: string): string {
  if (PLAIN_KEY.test(key)) return path ? `${path}.${key}` : key;
  return `${path}[${JSON.stringify(key)}]`;
}

function keyed(path: string, key: unknown): string {
  const text = typeof key === 'string' ? key : JSON.stringify(key);
  return `${path}[${PLAIN_ITEM.test(text) ? text : JSON.stringify(text)}]`;
}

function unionKeys(a: Record<string, unknown>, b: Record<string, unknown>): string[] {
  const keys = new Set<string>();
  for (const key in a) if (a[key] !== undefined) keys.add(key);
  for (const key in b) if (b[key] !== undefined) keys.add(key);
  // Code-unit order: the same on every machine, as in canonical YAML.
  return [...keys].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
}

/** Deep equality of JSON values; map key order does not matter, list order does. */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => sameValue(item, b[i]));
  if (isJsonObject(a) && isJsonObject(b)) {
    const keys = unionKeys(a, b);
    return keys.every((key) => sameValue(a[key], b[key]));
  }
  return false;
}
