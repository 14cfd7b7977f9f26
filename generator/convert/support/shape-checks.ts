// Small composable checks of untrusted JSON shapes. Each throws a FieldError naming the path of
// the first value that does not fit, so callers can say which field to fix.
import { FieldError } from '../../../model/errors.js';
import { isJsonObject } from '../../../model/json.js';

export type Check = (value: unknown, path: string) => void;

export const string: Check = (v, path) => {
  if (typeof v !== 'string') throw new FieldError(path, `must be a string; got ${describe(v)}`);
};
export const number: Check = (v, path) => {
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new FieldError(path, `must be a number; got ${describe(v)}`);
};
export const boolean: Check = (v, path) => {
  if (typeof v !== 'boolean') throw new FieldError(path, `must be true or false; got ${describe(v)}`);
};
export const intOrString: Check = (v, path) => {
  if (typeof v !== 'number' && typeof v !== 'string')
    throw new FieldError(path, `must be a number or a percentage string; got ${describe(v)}`);
};

export function oneOf(values: readonly string[], what: string): Check {
  return (v, path) => {
    string(v, path);
    if (!values.includes(v as string))
      throw new FieldError(path, `${what} not supported: "${String(v)}"; use one of ${values.join(', ')}`);
  };
}

export function object(fields: Record<string, Check>, optional: string[] = []): Check {
  return (v, path) => {
    if (!isJsonObject(v)) throw new FieldError(path, `must be an object; got ${describe(v)}`);
    for (const [key, check] of Object.entries(fields)) {
      const child = v[key];
      const childPath = path ? `${path}.${key}` : key;
      if (child === undefined || child === null) {
        if (optional.includes(key)) continue;
        throw new FieldError(childPath, 'is required');
      }
      check(child, childPath);
    }
  };
}

export function arrayOf(item: Check): Check {
  return (v, path) => {
    if (!Array.isArray(v)) throw new FieldError(path, `must be a list; got ${describe(v)}`);
    // An index loop, not forEach: forEach skips the holes of a sparse array.
    for (let i = 0; i < v.length; i++) item(v[i], `${path}[${i}]`);
  };
}

export const mapOfStrings: Check = (v, path) => {
  if (!isJsonObject(v)) throw new FieldError(path, `must be a map of strings; got ${describe(v)}`);
  for (const [key, value] of Object.entries(v)) string(value, `${path}["${key}"]`);
};

export const anyObject: Check = (v, path) => {
  if (!isJsonObject(v)) throw new FieldError(path, `must be an object; got ${describe(v)}`);
};

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (v === undefined) return 'nothing';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'string') return `"${v.length > 40 ? `${v.slice(0, 40)}…` : v}"`;
  return typeof v === 'object' ? 'an object' : `${typeof v} ${String(v)}`;
}
