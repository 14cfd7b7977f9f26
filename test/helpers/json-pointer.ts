// RFC 6901 pointers and the parity fixtures' matchers (test/fixtures/parity/README.md).
import { jsonEqual } from '../../model/clone.js';

function resolvePointer(root: unknown, pointer: string): unknown {
  if (pointer === '') return root;
  let node: unknown = root;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** Objects match when every key of the pattern matches recursively; arrays and scalars must be equal. */
function subsetMatches(value: unknown, pattern: unknown): boolean {
  if (pattern !== null && typeof pattern === 'object' && !Array.isArray(pattern)) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
    return Object.entries(pattern).every(([k, v]) => subsetMatches((value as Record<string, unknown>)[k], v));
  }
  return jsonEqual(value, pattern);
}

export type Matcher =
  | { pointer: string; equals: unknown }
  | { pointer: string; absent: true }
  | { pointer: string; present: true }
  | { pointer: string; length: number }
  | { pointer: string; contains: unknown }
  | { pointer: string; notContains: unknown }
  | { value: unknown }
  | { error: string };

/** Returns undefined when the matcher holds, else a description of the mismatch. */
export function checkMatcher(root: unknown, matcher: Matcher): string | undefined {
  if ('value' in matcher)
    return jsonEqual(root, matcher.value)
      ? undefined
      : `value ${JSON.stringify(root)} ≠ ${JSON.stringify(matcher.value)}`;
  if ('error' in matcher) return `expected an error containing "${matcher.error}", got a result`;
  const actual = resolvePointer(root, matcher.pointer);
  const show = `${matcher.pointer} = ${JSON.stringify(actual)}`;
  if ('equals' in matcher)
    return jsonEqual(actual, matcher.equals) ? undefined : `${show}, expected ${JSON.stringify(matcher.equals)}`;
  if ('absent' in matcher) return actual === undefined || actual === null ? undefined : `${show}, expected absent`;
  if ('present' in matcher)
    return actual !== undefined && actual !== null ? undefined : `${matcher.pointer} is absent, expected present`;
  if ('length' in matcher) {
    const length = actual === undefined || actual === null ? 0 : Array.isArray(actual) ? actual.length : -1;
    return length === matcher.length ? undefined : `${show}, expected length ${matcher.length}`;
  }
  const list = Array.isArray(actual) ? actual : [];
  if ('contains' in matcher)
    return list.some((x) => subsetMatches(x, matcher.contains))
      ? undefined
      : `${show}, expected an element matching ${JSON.stringify(matcher.contains)}`;
  return list.some((x) => subsetMatches(x, matcher.notContains))
    ? `${show}, expected no element matching ${JSON.stringify(matcher.notContains)}`
    : undefined;
}
