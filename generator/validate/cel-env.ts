// The CEL environment policies run in: @bufbuild/cel's standard library plus the few Kubernetes
// admission-CEL extras the pack needs, with the same semantics as kube-apiserver, so a policy gives
// the same verdict in kimops and in a cluster. Keep this set minimal: every function added here must
// exist, with the same meaning, in kube-apiserver v1.35's ValidatingAdmissionPolicy environment.
import {
  celEnv,
  celFunc,
  celList,
  celMap,
  celMethod,
  CelScalar,
  isCelMap,
  type CelEnv,
  type CelMap,
  type CelValue,
} from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';

/**
 * The variables a policy expression sees, as in a ValidatingAdmissionPolicy. `authorizer` and
 * `namespaceObject` are Kubernetes variables kimops cannot provide; a policy using them is refused.
 */
export const POLICY_VARIABLES = ['object', 'oldObject', 'params', 'request', 'variables'] as const;

// ---------------------------------------------------------------------------------------------
// Values: JSON → CEL, typed like Kubernetes' unstructured objects.

/**
 * Converts a JSON value (a parsed Shoot, a ConfigMap's data…) into a CEL value. Whole numbers become
 * `int` (bigint): Kubernetes types integer fields as int, and a double where it has an int changes `+`
 * and comparisons. Objects are converted lazily, field by field on first read, so a policy pays only
 * for the fields it reads; the JSON must not change while expressions run.
 */
export function toCelValue(value: unknown): CelValue {
  switch (typeof value) {
    case 'string':
    case 'boolean':
    case 'bigint':
      return value;
    case 'number':
      return Number.isInteger(value) ? BigInt(value) : value;
    case 'undefined':
      return null;
    case 'object':
      if (value === null) return null;
      if (Array.isArray(value)) return celList(value.map(toCelValue));
      return celMap(new JsonObjectMap(value as Record<string, unknown>));
    default:
      throw new TypeError(`not a JSON value: ${typeof value}`);
  }
}

/** A read-only Map view of a JSON object whose values are converted (once) when first read. */
class JsonObjectMap extends Map<string, CelValue> {
  readonly #object: Record<string, unknown>;
  readonly #converted = new Map<string, CelValue>();
  #keys: string[] | undefined;

  constructor(object: Record<string, unknown>) {
    super();
    this.#object = object;
  }

  #ownKeys(): string[] {
    return (this.#keys ??= Object.keys(this.#object).filter((k) => this.#object[k] !== undefined));
  }

  override get(key: string): CelValue | undefined {
    let value = this.#converted.get(key);
    if (value === undefined) {
      if (typeof key !== 'string' || !Object.hasOwn(this.#object, key) || this.#object[key] === undefined)
        return undefined;
      value = toCelValue(this.#object[key]);
      this.#converted.set(key, value);
    }
    return value;
  }

  override has(key: string): boolean {
    return typeof key === 'string' && Object.hasOwn(this.#object, key) && this.#object[key] !== undefined;
  }

  override get size(): number {
    return this.#ownKeys().length;
  }

  override keys(): MapIterator<string> {
    return this.#ownKeys()[Symbol.iterator]();
  }

  override *values(): MapIterator<CelValue> {
    for (const key of this.#ownKeys()) yield this.get(key) as CelValue;
  }

  override *entries(): MapIterator<[string, CelValue]> {
    for (const key of this.#ownKeys()) yield [key, this.get(key) as CelValue];
  }

  override [Symbol.iterator](): MapIterator<[string, CelValue]> {
    return this.entries();
  }

  override forEach(
    callback: (value: CelValue, key: string, map: Map<string, CelValue>) => void,
    thisArg?: unknown,
  ): void {
    for (const key of this.#ownKeys()) callback.call(thisArg, this.get(key) as CelValue, key, this);
  }
}

// ---------------------------------------------------------------------------------------------
// Kubernetes' semver library (k8s.io/apiserver/pkg/cel/library/semverlib.go, library version 1),
// which parses with github.com/blang/semver/v4's strict Parse. A Semver value is represented as a
// one-entry map {semver: "<major.minor.patch[-pre]>"} registered below, so `==` between two Semvers
// compares versions without build metadata, like Kubernetes' Semver.Equal.

interface Semver {
  major: bigint;
  minor: bigint;
  patch: bigint;
  pre: (bigint | string)[];
}

const semvers = new WeakMap<CelMap, Semver>();
const NUMBERS = /^[0-9]+$/;
const ALPHANUM = /^[0-9A-Za-z-]+$/;

function parseNumber(part: string, what: string): bigint {
  if (!NUMBERS.test(part)) throw new Error(`Invalid character(s) found in ${what} number ${JSON.stringify(part)}`);
  if (part.length > 1 && part.startsWith('0'))
    throw new Error(
      `${what[0]?.toUpperCase()}${what.slice(1)} number must not contain leading zeroes ${JSON.stringify(part)}`,
    );
  const n = BigInt(part);
  if (n > 0xffffffffffffffffn) throw new Error(`${what} number out of range`);
  return n;
}

/** blang/semver/v4 `Parse`: MAJOR.MINOR.PATCH[-PRERELEASE][+BUILD], no "v", no leading zeroes. */
export function parseSemver(text: string): Semver {
  if (text.length === 0) throw new Error('Version string empty');
  const parts = text.split('.');
  if (parts.length < 3) throw new Error('No Major.Minor.Patch elements found');
  const [majorPart = '', minorPart = ''] = parts;
  let rest = parts.slice(2).join('.');
  const buildAt = rest.indexOf('+');
  const build = buildAt >= 0 ? rest.slice(buildAt + 1).split('.') : [];
  if (buildAt >= 0) rest = rest.slice(0, buildAt);
  const preAt = rest.indexOf('-');
  const pre = preAt >= 0 ? rest.slice(preAt + 1).split('.') : [];
  if (preAt >= 0) rest = rest.slice(0, preAt);
  const version: Semver = {
    major: parseNumber(majorPart, 'major'),
    minor: parseNumber(minorPart, 'minor'),
    patch: parseNumber(rest, 'patch'),
    pre: pre.map((p) => {
      if (p.length === 0) throw new Error('Prerelease is empty');
      if (NUMBERS.test(p)) {
        if (p.length > 1 && p.startsWith('0'))
          throw new Error(`Numeric PreRelease version must not contain leading zeroes ${JSON.stringify(p)}`);
        return BigInt(p);
      }
      if (!ALPHANUM.test(p)) throw new Error(`Invalid character(s) found in prerelease ${JSON.stringify(p)}`);
      return p;
    }),
  };
  for (const b of build) {
    if (b.length === 0) throw new Error('Build meta data is empty');
    if (!ALPHANUM.test(b)) throw new Error(`Invalid character(s) found in build meta data ${JSON.stringify(b)}`);
  }
  return version;
}

/** semverlib.go `normalizeAndParse`: drops a "v" prefix and leading zeroes, fills missing minor/patch. */
export function normalizeAndParseSemver(text: string): Semver {
  const parts = (text.startsWith('v') ? text.slice(1) : text).split('.');
  const head = parts.length > 3 ? [...parts.slice(0, 2), parts.slice(2).join('.')] : parts;
  const trimmed = head.map((p) => {
    if (p.length <= 1) return p;
    const t = p.replace(/^0+/, '');
    return t.length === 0 || !/^[0-9]/.test(t) ? `0${t}` : t;
  });
  if (trimmed.length < 3) {
    if (/[+-]/.test(trimmed[trimmed.length - 1] ?? ''))
      throw new Error('short version cannot contain PreRelease/Build meta data');
    while (trimmed.length < 3) trimmed.push('0');
  }
  return parseSemver(trimmed.join('.'));
}

/** blang/semver/v4 `Version.Compare`: -1, 0 or 1; a version without prerelease ranks above one with. */
export function compareSemver(a: Semver, b: Semver): -1 | 0 | 1 {
  for (const [x, y] of [
    [a.major, b.major],
    [a.minor, b.minor],
    [a.patch, b.patch],
  ] as const) {
    if (x !== y) return x > y ? 1 : -1;
  }
  if (a.pre.length === 0 || b.pre.length === 0) return a.pre.length === b.pre.length ? 0 : a.pre.length === 0 ? 1 : -1;
  for (let i = 0; i < a.pre.length && i < b.pre.length; i++) {
    const x = a.pre[i] as bigint | string;
    const y = b.pre[i] as bigint | string;
    if (x === y) continue;
    if (typeof x === typeof y) return x > y ? 1 : -1;
    return typeof x === 'bigint' ? -1 : 1; // numeric identifiers rank below alphanumeric ones
  }
  return a.pre.length === b.pre.length ? 0 : a.pre.length < b.pre.length ? -1 : 1;
}

/** Parsed Semvers by text: policies parse the same few versions (landscape minimum, live) over and over. */
const semverCache = new Map<string, CelMap>();
const SEMVER_CACHE_LIMIT = 1024;

function cachedSemver(text: string, normalize: boolean): CelMap {
  const key = `${normalize ? 'n' : 's'}:${text}`;
  let value = semverCache.get(key);
  if (!value) {
    value = semverValue(normalize ? normalizeAndParseSemver(text) : parseSemver(text));
    if (semverCache.size >= SEMVER_CACHE_LIMIT) semverCache.clear();
    semverCache.set(key, value);
  }
  return value;
}

function semverValue(version: Semver): CelMap {
  const text = `${version.major}.${version.minor}.${version.patch}${version.pre.length > 0 ? `-${version.pre.join('.')}` : ''}`;
  const value = celMap(new Map([['semver', text]]));
  semvers.set(value, version);
  return value;
}

function asSemver(value: unknown): Semver {
  const version = isCelMap(value) ? semvers.get(value) : undefined;
  if (!version) throw new Error('no such overload: expected a Semver (from semver(<string>))');
  return version;
}

const { STRING, BOOL, INT, DYN } = CelScalar;

const semverFunctions = [
  celFunc('semver', [STRING], DYN, (s) => cachedSemver(s, false)),
  celFunc('semver', [STRING, BOOL], DYN, (s, normalize) => cachedSemver(s, normalize)),
  celFunc('isSemver', [STRING], BOOL, (s) => isValid(() => parseSemver(s))),
  celFunc('isSemver', [STRING, BOOL], BOOL, (s, normalize) =>
    isValid(() => (normalize ? normalizeAndParseSemver(s) : parseSemver(s))),
  ),
  celMethod('major', DYN, [], INT, function () {
    return asSemver(this).major;
  }),
  celMethod('minor', DYN, [], INT, function () {
    return asSemver(this).minor;
  }),
  celMethod('patch', DYN, [], INT, function () {
    return asSemver(this).patch;
  }),
  celMethod('compareTo', DYN, [DYN], INT, function (other) {
    return BigInt(compareSemver(asSemver(this), asSemver(other)));
  }),
  celMethod('isLessThan', DYN, [DYN], BOOL, function (other) {
    return compareSemver(asSemver(this), asSemver(other)) === -1;
  }),
  celMethod('isGreaterThan', DYN, [DYN], BOOL, function (other) {
    return compareSemver(asSemver(this), asSemver(other)) === 1;
  }),
];

function isValid(parse: () => unknown): boolean {
  try {
    parse();
    return true;
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------------------------------------

/**
 * The functions beyond CEL's standard library, and where Kubernetes has them:
 * - cel-go ext strings (Kubernetes enables `ext.Strings`): charAt, indexOf, lastIndexOf, lowerAscii,
 *   upperAscii, replace, split, substring, trim, join, format, strings.quote — from @bufbuild/cel/ext.
 * - Kubernetes semver library: semver, isSemver, major, minor, patch, compareTo, isLessThan, isGreaterThan.
 */
const KUBERNETES_EXTRA_FUNCTIONS = [...strings, ...semverFunctions];

/** The one environment every policy expression is planned in. */
export const policyEnv: CelEnv = celEnv({ funcs: KUBERNETES_EXTRA_FUNCTIONS });

/**
 * Whether `name` is a function or macro a policy may call: the environment's functions, CEL's
 * operators (`_&&_`, `@in`…) and the macros the parser expands (has, all, exists, exists_one, map, filter).
 */
export function isKnownFunction(name: string): boolean {
  return name.startsWith('_') || name.startsWith('@') || policyEnv.funcs.find(name) !== undefined;
}
