// Reads a landscape file: YAML text in, a checked `Landscape` out — or one ConfigError that lists
// every problem with its field path, line and fix, so an SRE fixes a file in one round. Pure: the
// caller reads the file and passes its text.
import type { ErrorObject } from 'ajv';
import {
  type Document,
  isPair,
  isScalar,
  isSeq,
  LineCounter,
  type Node as YamlNode,
  parseDocument,
  visit,
  type YAMLError,
} from 'yaml';
import { ConfigError } from './errors.js';
import type { Landscape } from './landscape.js';
import { hintFor, validateLandscapeSchema } from './landscape-schema.js';
import { parseGoDuration } from './go-time.js';
import { MAX_YAML_ALIASES, YAML_READ_OPTIONS } from './yaml-input.js';
import { isJsonObject } from './json.js';

export interface Problem {
  /** Keys and list indexes from the document root. */
  path: (string | number)[];
  detail: string;
}

export function parseLandscape(text: string, source: string, expectedName?: string): Landscape {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { ...YAML_READ_OPTIONS, lineCounter });
  const fail = (problems: Problem[]) => problemsError(source, problems, doc, lineCounter);

  const syntax = [...doc.errors, ...doc.warnings].map((error) => yamlProblem(doc, error));
  syntax.push(...nonStringKeys(doc));
  if (syntax.length > 0) throw fail(syntax);

  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: MAX_YAML_ALIASES });
  } catch (error) {
    const why =
      error instanceof ReferenceError
        ? `expands more than ${MAX_YAML_ALIASES} aliases, like a YAML bomb; write the values out instead of using anchors (&) and aliases (*)`
        : `cannot be read as YAML: ${(error as Error).message}`;
    throw new ConfigError(source, '', why);
  }
  if (!isJsonObject(data)) {
    const got = data === null || data === undefined ? 'an empty document' : describe(data);
    throw new ConfigError(source, '', `must be a YAML mapping (apiVersion, kind: Landscape, name, …); got ${got}`);
  }

  const problems = [...nonJsonValues(data, []), ...landscapeProblems(data, expectedName)];
  if (problems.length > 0) throw fail(problems);
  return data as unknown as Landscape;
}

/** What the schema and the checks beyond it find wrong in a landscape value, each with its field path. */
export function landscapeProblems(data: Record<string, unknown>, expectedName?: string): Problem[] {
  const problems: Problem[] = [];
  if (!validateLandscapeSchema(data)) {
    for (const error of validateLandscapeSchema.errors ?? []) {
      const problem = schemaProblem(error);
      if (problem) problems.push(problem);
    }
  }
  problems.push(...semanticProblems(data, expectedName));
  return problems;
}

/** Checks the schema cannot express; guarded so they also run on data that failed the schema. */
function semanticProblems(data: Record<string, unknown>, expectedName: string | undefined): Problem[] {
  const problems: Problem[] = [];
  const features = isJsonObject(data['features']) ? data['features'] : {};
  if (features['apiServerAcl'] === true && data['apiServerAcl'] === undefined) {
    problems.push({
      path: ['apiServerAcl'],
      detail:
        'is required when features.apiServerAcl is true (KIM refuses to start without its ACL ConfigMap); ' +
        'add apiServerAcl: {operatorCIDRs: [...], kcpIP: <CIDR>} or set features.apiServerAcl: false',
    });
  }
  const durations: [string, unknown][] = [
    ['kubernetes', isJsonObject(data['kubernetes']) ? data['kubernetes']['maxTokenExpiration'] : undefined],
    ['workers', isJsonObject(data['workers']) ? data['workers']['defaultMachineDrainTimeout'] : undefined],
  ];
  for (const [section, value] of durations) {
    if (typeof value === 'string' && parseGoDuration(value) === undefined) {
      const key = section === 'kubernetes' ? 'maxTokenExpiration' : 'defaultMachineDrainTimeout';
      problems.push({
        path: [section, key],
        detail: `must be a Go duration like "720h" (at most ~2562047h); got ${JSON.stringify(value)}`,
      });
    }
  }
  if (expectedName !== undefined && typeof data['name'] === 'string' && data['name'] !== expectedName) {
    problems.push({
      path: ['name'],
      detail: `must equal the landscape's folder name "${expectedName}"; got ${JSON.stringify(data['name'])} (rename one of them)`,
    });
  }
  return problems;
}

/** One ajv error as a path and a sentence saying what is wrong and what is expected. */
function schemaProblem(error: ErrorObject): Problem | undefined {
  const at = pointerSegments(error.instancePath);
  const got = describe(error.data);
  const schema = (error.parentSchema ?? {}) as {
    description?: string;
    properties?: Record<string, { description?: string }>;
  };
  if (error.propertyName !== undefined) {
    const expected =
      error.keyword === 'enum' ? `one of ${(error.params['allowedValues'] as unknown[]).join(', ')}` : hintFor(error);
    const note = schema.description && error.keyword === 'enum' ? ` (${schema.description})` : '';
    return {
      path: [...at, error.propertyName],
      detail: `is not allowed as a key here: must be ${expected ?? schema.description}${note}`,
    };
  }
  switch (error.keyword) {
    case 'propertyNames':
      return undefined; // the inner error, which carries propertyName, says it better
    case 'required': {
      const key = String(error.params['missingProperty']);
      const what = schema.properties?.[key]?.description;
      return { path: [...at, key], detail: `is required${what ? ` (${what})` : ''}; add it` };
    }
    case 'additionalProperties': {
      const key = String(error.params['additionalProperty']);
      return { path: [...at, key], detail: unknownKeyDetail(key, Object.keys(schema.properties ?? {})) };
    }
    case 'type': {
      const type = String(error.params['type']);
      const quote =
        type === 'string' && (typeof error.data === 'number' || typeof error.data === 'boolean')
          ? ` (YAML reads it as a ${typeof error.data}; put it in quotes)`
          : '';
      return {
        path: at,
        detail: `must be ${type === 'object' ? 'a mapping' : type === 'array' ? 'a list' : `a ${type}`}; got ${got}${quote}`,
      };
    }
    case 'const':
      return { path: at, detail: `must be ${JSON.stringify(error.params['allowedValue'])}; got ${got}` };
    case 'enum':
      return {
        path: at,
        detail: `must be one of ${(error.params['allowedValues'] as unknown[]).join(', ')}; got ${got}${schema.description ? ` (${schema.description})` : ''}`,
      };
  }
  const hint = hintFor(error);
  return { path: at, detail: hint ? `must be ${hint}; got ${got}` : `${error.message ?? 'is invalid'}; got ${got}` };
}

function unknownKeyDetail(key: string, allowed: string[]): string {
  const near = allowed.find((name) => name.toLowerCase() === key.toLowerCase() || editDistance(name, key) <= 2);
  const suggestion = near ? `did you mean "${near}"? ` : '';
  return `is not a known key; ${suggestion}allowed here: ${allowed.join(', ')}`;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/** A syntax error or warning from the YAML parser; duplicate keys get the path of the key. */
function yamlProblem(doc: Document, error: YAMLError): Problem {
  const firstLine = error.message.split('\n')[0] ?? error.message;
  if (error.code === 'DUPLICATE_KEY') {
    const path = pathOfKeyAt(doc, error.pos[0]);
    if (path)
      return { path, detail: 'is given twice in the same mapping; keep one (YAML would otherwise silently drop one)' };
  }
  if (error.code === 'MULTIPLE_DOCS')
    return { path: [], detail: 'holds more than one YAML document (---); a landscape file holds exactly one' };
  return { path: [], detail: `is not valid YAML: ${firstLine}` };
}

function pathOfKeyAt(doc: Document, offset: number): Problem['path'] | undefined {
  let found: Problem['path'] | undefined;
  visit(doc, {
    Pair(_, pair, ancestors) {
      if (isScalar(pair.key) && pair.key.range?.[0] === offset) {
        found = [...ancestorPath(ancestors, pair), String(pair.key.value)];
        return visit.BREAK;
      }
      return undefined;
    },
  });
  return found;
}

/** YAML 1.1 turns keys like `yes`, `on` or `1` into booleans and numbers; JSON keys are strings. */
function nonStringKeys(doc: Document): Problem[] {
  const problems: Problem[] = [];
  visit(doc, {
    Pair(_, pair, ancestors) {
      const key = pair.key;
      if (isScalar(key) && typeof key.value === 'string') return;
      const text = isScalar(key) ? (key.source ?? String(key.value)) : String(key);
      problems.push({
        path: [...ancestorPath(ancestors, pair), text],
        detail: `is read as ${isScalar(key) ? `a ${typeof key.value}` : 'a complex key'} by YAML 1.1; put the key in quotes`,
      });
    },
  });
  return problems;
}

function ancestorPath(ancestors: readonly unknown[], leaf: unknown): Problem['path'] {
  const path: Problem['path'] = [];
  ancestors.forEach((node, i) => {
    if (isPair(node)) path.push(isScalar(node.key) ? String(node.key.value) : String(node.key));
    else if (isSeq(node)) path.push(node.items.indexOf((ancestors[i + 1] ?? leaf) as never));
  });
  return path;
}

/** Values JSON has no word for (.inf, .nan) must not reach the converter; other YAML-only types are refused by the reader. */
function nonJsonValues(value: unknown, path: Problem['path']): Problem[] {
  if (typeof value === 'number' && !Number.isFinite(value))
    return [{ path, detail: `must be a finite number; got ${value}` }];
  if (Array.isArray(value)) return value.flatMap((item, i) => nonJsonValues(item, [...path, i]));
  if (isJsonObject(value)) return Object.entries(value).flatMap(([key, item]) => nonJsonValues(item, [...path, key]));
  return [];
}

function problemsError(source: string, problems: Problem[], doc: Document, lines: LineCounter): ConfigError {
  // One line per field: a bad value often also breaks a pattern and a semantic check.
  const byField = new Map<string, string>();
  for (const problem of problems) {
    const field = formatField(problem.path);
    if (byField.has(field)) continue;
    const line = lineOf(doc, lines, problem.path);
    byField.set(field, line ? `${problem.detail} (line ${line})` : problem.detail);
  }
  const entries = [...byField];
  const [first] = entries;
  if (entries.length === 1 && first) return new ConfigError(source, first[0], first[1]);
  const list = entries.map(([field, detail]) => `  - ${field ? `${field}: ` : ''}${detail}`).join('\n');
  return new ConfigError(source, '', `${entries.length} problems:\n${list}`);
}

/** The line of the deepest node on the path that exists in the file. */
function lineOf(doc: Document, lines: LineCounter, path: Problem['path']): number | undefined {
  // Depth 0 (the document) would point at its first line, which helps nobody.
  for (let depth = path.length; depth >= 1; depth--) {
    const node = doc.getIn(path.slice(0, depth), true) as YamlNode | null | undefined;
    const offset = node?.range?.[0];
    if (offset !== undefined) return lines.linePos(offset).line;
  }
  return undefined;
}

/** `auditLog.tenants.aws.eu-central-1.serviceURL`, `apiServerAcl.operatorCIDRs[0]`, `runtimeConfig["a.b/c"]`. */
export function formatField(path: Problem['path']): string {
  return path.reduce<string>((field, segment) => {
    if (typeof segment === 'number') return `${field}[${segment}]`;
    if (/^[A-Za-z0-9_-]+$/.test(segment)) return field ? `${field}.${segment}` : segment;
    return `${field}[${JSON.stringify(segment)}]`;
  }, '');
}

/** ajv's JSON pointer as segments; all-digit segments are list indexes (no landscape map has such keys). */
function pointerSegments(pointer: string): Problem['path'] {
  return pointer
    .split('/')
    .slice(1)
    .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'))
    .map((segment) => (/^(0|[1-9][0-9]*)$/.test(segment) ? Number(segment) : segment));
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return `${typeof value} ${String(value)}`;
  if (value === null || value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  return 'a mapping';
}
