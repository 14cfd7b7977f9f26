// ajv's errors as problems a person can act on: a field path as kubectl prints it
// (`spec.shoot.provider.workers[0].maximum`), one message per problem, and a fix where one is known.
import type { ErrorObject } from 'ajv';
import { isJsonObject } from '../json.js';

export interface SchemaProblem {
  /** The field, as kubectl and the API server print it: `spec.shoot.provider.workers[0].maximum`. */
  path: string;
  /** What is wrong: `must be integer or string`, `unknown field "workerz"`, `required field is missing`. */
  message: string;
  /** How to fix it, where there is more to say than the message. */
  fix?: string;
  /** The JSON Schema keyword that failed (`type`, `additionalProperties`, `required`, …), for tests and tooling. */
  keyword: string;
}

/** Marks integers the API server reads as int64 (Runtime only); see runtime-schema.ts. */
export const INT64_KEYWORD = 'x-kimops-int64';

/** A plain name segment; anything else (label keys with dots and slashes) is printed in brackets. */
const PLAIN_NAME = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;

/** Readable path of a JSON pointer into `data`; list indexes as `[n]`, odd names as `["a.b/c"]`. */
function displayPath(data: unknown, pointer: string, last?: string): string {
  const segments =
    pointer === ''
      ? []
      : pointer
          .slice(1)
          .split('/')
          .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (last !== undefined) segments.push(last);
  let path = '';
  let current: unknown = data;
  for (const segment of segments) {
    if (Array.isArray(current)) path += `[${segment}]`;
    else if (PLAIN_NAME.test(segment)) path += path === '' ? segment : `.${segment}`;
    else path += `[${JSON.stringify(segment)}]`;
    current = Array.isArray(current)
      ? current[Number(segment)]
      : isJsonObject(current) && Object.hasOwn(current, segment)
        ? current[segment]
        : undefined;
  }
  return path;
}

/**
 * The problems behind ajv's errors for `data`. `kind` names the object in fixes ("is not a field of
 * Runtime"). Errors from the branches of an anyOf/oneOf (int-or-string, quantities) are folded into
 * the one error of the anyOf itself; duplicates (same path and message) are dropped.
 */
export function schemaProblems(errors: readonly ErrorObject[], data: unknown, kind: string): SchemaProblem[] {
  const alternatives = errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf');
  const problems: SchemaProblem[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    const insideAlternative = alternatives.some(
      (a) =>
        a !== error && error.schemaPath.startsWith(`${a.schemaPath}/`) && error.instancePath.startsWith(a.instancePath),
    );
    if (insideAlternative) continue;
    const problem = problemOf(error, data, kind);
    const key = `${problem.path}\u0000${problem.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    problems.push(problem);
  }
  return problems;
}

function problemOf(error: ErrorObject, data: unknown, kind: string): SchemaProblem {
  const { keyword, params } = error;
  const at = (last?: string) => displayPath(data, error.instancePath, last);
  switch (keyword) {
    case 'additionalProperties': {
      const field = String(params['additionalProperty']);
      const parent = at();
      const known = isJsonObject(error.parentSchema?.['properties'])
        ? Object.keys(error.parentSchema['properties'])
        : [];
      const suggestion = closestName(field, known);
      return {
        path: at(field),
        message: `unknown field ${JSON.stringify(field)}`,
        fix: `${JSON.stringify(field)} is not a field of ${kind}${parent ? ` at ${parent}` : ''}; check its spelling${suggestion ? ` (did you mean ${JSON.stringify(suggestion)}?)` : ''}`,
        keyword,
      };
    }
    case 'required': {
      const field = String(params['missingProperty']);
      return { path: at(field), message: 'required field is missing', fix: `set ${at(field)}`, keyword };
    }
    case 'type':
      return {
        path: at(),
        message: `must be ${String(params['type']).replace(',', ' or ')}, not ${typeName(error.data)}`,
        keyword,
      };
    case 'enum':
      return {
        path: at(),
        message: `must be one of ${(params['allowedValues'] as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`,
        keyword,
      };
    case 'anyOf':
    case 'oneOf':
      return {
        path: at(),
        message: `must be ${alternativeTypes(error.schema) ?? `valid against one of the ${keyword} schemas`}, not ${typeName(error.data)}`,
        keyword,
      };
    case 'pattern':
      return { path: at(), message: `must match ${String(params['pattern'])}`, keyword };
    case INT64_KEYWORD:
      return {
        path: at(),
        message: 'must be an integer between -2^63 and 2^63 (the API server reads a larger number as a float)',
        keyword,
      };
    case 'format':
      return { path: at(), message: `must be a valid ${String(params['format'])}`, keyword };
    default:
      return { path: at(), message: error.message ?? keyword, keyword };
  }
}

/** `integer or string` for alternatives that differ only in type; undefined otherwise. */
function alternativeTypes(branches: unknown): string | undefined {
  if (!Array.isArray(branches)) return undefined;
  const typeOnly = (b: Record<string, unknown>) =>
    Object.keys(b).every((key) => key === 'type' || key.startsWith('x-'));
  const types = branches.map((b) =>
    isJsonObject(b) && typeOnly(b) && typeof b['type'] === 'string' ? b['type'] : undefined,
  );
  if (types.some((t) => t === undefined)) return undefined;
  return types.join(' or ');
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  // The API server's decoder: integers beyond int64 are floats.
  if (typeof value === 'number') return Number.isInteger(value) && Math.abs(value) < 2 ** 63 ? 'integer' : 'number';
  return typeof value;
}

/** The known name a typo most likely meant: within edit distance 2, or differing only in case. */
function closestName(typo: string, known: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of known) {
    const distance = name.toLowerCase() === typo.toLowerCase() ? 0 : editDistance(typo, name);
    if (distance <= 2 && (!best || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}

function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2) return 3;
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] as number;
}
