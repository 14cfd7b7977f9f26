// The credentials scan over parsed documents: every value of a YAML or JSON document, whatever its
// syntax (block or flow YAML, JSON, tags, values on the next line, block scalars), inside `kind: List`
// items, and inside what a value encodes — base64 (a Secret's `data`, `!!binary`, any base64-looking
// string), JSON or YAML held in a string (`.dockerconfigjson`, a kubeconfig in a ConfigMap). Pure: it
// returns hits with a field path and what to search the file's lines for; credentials.ts places them.
import { ANNOTATION_REGISTRY_CACHE_SOURCE } from '../../model/contract.js';
import { isJsonObject } from '../../model/json.js';
import { formatField } from '../../model/landscape-parse.js';
import { printable } from '../../model/printable.js';
import {
  describeToken,
  isLiteral,
  keyRule,
  looksRandom,
  masked,
  tokensIn,
  type CredentialRule,
} from './credential-rules.js';
import { readAnyYaml } from './credential-yaml.js';

export interface DocumentHit {
  rule: CredentialRule;
  /** The field as kubectl prints it, decoded layers marked: `data[".dockerconfigjson"] (base64) → auths["r.io"].auth`. */
  field: string;
  /** What was found, the credential masked. */
  what: string;
  /** Text to find the field's line by: the token as written, else the key; never printed. */
  needle: string;
  /** Also on that line when the field is written as it is (a key's value): tells two equal keys apart. */
  alsoOnLine?: string;
  /** The token itself, to tell it apart from the same token found by the line scan; never printed. */
  token?: string;
}

type Segment = string | number;

/**
 * Where a value sits: its path (a chain up to the document or the decoded string it came from, so a
 * step costs one small object and the path is spelled out only for a hit), and how it was reached.
 */
interface At {
  up?: At;
  /** Absent at the root of a document or of a decoded value. */
  segment?: Segment;
  /** The field up to the last decoded string, ending in ` → `; empty for a plain field. */
  prefix: string;
  /** Decoding steps so far (bounded, so a value that decodes into itself cannot recurse for ever). */
  depth: number;
  /** Nesting from the document's root (bounded: a document nested thousands deep would overflow the stack). */
  level: number;
  /** Set once inside a decoded value, whose text is not in the file: the encoded string's start. */
  needle?: string;
}

/** Decoding steps followed into a value: base64 of JSON of base64 is as deep as real configs go. */
const MAX_DEPTH = 3;
/** Nesting followed into a document; no manifest comes near it (its lines are still scanned for tokens). */
const MAX_LEVEL = 200;
/** Shortest string outside a Secret's data that is tried as base64 (shorter ones are names and words). */
const MIN_BASE64 = 20;

/** What a walk collects, and the objects it has been in: YAML aliases can share an object, or make a cycle. */
interface Walk {
  hits: DocumentHit[];
  seen: WeakSet<object>;
}

/** Every credential in one parsed document. */
export function scanDocument(value: unknown): DocumentHit[] {
  const walk: Walk = { hits: [], seen: new WeakSet() };
  visit(value, { prefix: '', depth: 0, level: 0 }, walk, 'top');
  return walk.hits;
}

/** `top`: a document or a List item, where an object is a manifest of its own. */
type Role = 'top' | 'secret-data' | 'plain';

function visit(value: unknown, at: At, walk: Walk, role: Role): void {
  if (typeof value === 'string') return visitString(value, at, walk, role === 'secret-data');
  if (value instanceof Uint8Array) return visitBytes(value, decoded(at, '!!binary', ''), walk);
  if (typeof value !== 'object' || value === null || walk.seen.has(value) || at.level > MAX_LEVEL) return;
  walk.seen.add(value);
  if (Array.isArray(value)) value.forEach((item, i) => visit(item, child(at, i), walk, 'plain'));
  else if (isJsonObject(value)) visitObject(value, at, walk, role === 'top');
}

function visitObject(object: Record<string, unknown>, at: At, walk: Walk, top: boolean): void {
  const { hits } = walk;
  if (object.type === 'service_account' && typeof object.private_key === 'string') {
    const who = typeof object.client_email === 'string' ? ` of ${printable(object.client_email)}` : '';
    hits.push({
      rule: 'service-account-key',
      field: fieldOf(at),
      what: `a Google Cloud service account key${who}`,
      needle: at.needle ?? 'service_account',
      token: object.private_key,
    });
    return; // its private_key is this finding, not a second one
  }
  const secret =
    object.kind === 'Secret' && ('data' in object || 'stringData' in object || (top && !isRegistryCacheStub(object)));
  if (secret) hits.push(secretHit(object, at));
  const list = typeof object.kind === 'string' && object.kind.endsWith('List') && Array.isArray(object.items);
  for (const [key, value] of Object.entries(object)) {
    const at2 = child(at, key);
    if (list && key === 'items') {
      (value as unknown[]).forEach((item, i) => visit(item, child(at2, i), walk, 'top'));
      continue;
    }
    if (secret && key === 'data' && isJsonObject(value)) {
      for (const [name, data] of Object.entries(value)) visit(data, child(at2, name), walk, 'secret-data');
      continue;
    }
    const before = hits.length;
    visit(value, at2, walk, 'plain');
    // A token found in the value says more than "a literal value for <key>".
    if (hits.length === before) keyHit(key, value, at, at2, hits);
  }
}

/**
 * The generator's data-less stub of a registry cache's garden Secret (generator/convert/registry-cache-stubs.ts):
 * it holds no credential, only where the applier copies one from. With data it is a Secret like any other.
 */
function isRegistryCacheStub(object: Record<string, unknown>): boolean {
  const annotations = isJsonObject(object.metadata) ? object.metadata.annotations : undefined;
  return isJsonObject(annotations) && typeof annotations[ANNOTATION_REGISTRY_CACHE_SOURCE] === 'string';
}

function secretHit(object: Record<string, unknown>, at: At): DocumentHit {
  const metadata = isJsonObject(object.metadata) ? object.metadata : {};
  const name = typeof metadata.name === 'string' ? metadata.name : undefined;
  const namespace = typeof metadata.namespace === 'string' ? `${metadata.namespace}/` : '';
  const keys = ['data', 'stringData'].flatMap((field) =>
    isJsonObject(object[field]) ? Object.keys(object[field]).map((k) => formatField([field, k])) : [],
  );
  // A document's label names it already; a List item's does not.
  const named = name && (at.segment !== undefined || at.prefix !== '') ? ` (${printable(`${namespace}${name}`)})` : '';
  const what = `a Secret object${named}${keys.length > 0 ? ` holding ${keys.join(', ')}` : ''}`;
  // Placed at its `kind: Secret` line (the hits of a List's items come in order, each below the last).
  return {
    rule: 'secret-object',
    field: fieldOf(at),
    what,
    needle: at.needle ?? 'Secret',
    ...(at.needle === undefined && { alsoOnLine: 'kind' }),
  };
}

function keyHit(key: string, value: unknown, parent: At, at: At, hits: DocumentHit[]): void {
  const rule = keyRule(key, parent.up?.segment);
  if (!rule) return;
  // !!binary bytes that are no text (a key file, say) are a literal too.
  const bytes = value instanceof Uint8Array ? `${value.length} bytes` : undefined;
  if (
    bytes === undefined &&
    (typeof value !== 'string' || !isLiteral(value) || (rule.needsEntropy && !looksRandom(value)))
  )
    return;
  const what =
    rule.rule === 'kubeconfig-client-key'
      ? 'a kubeconfig client key'
      : rule.rule === 'registry-credential'
        ? `the "${printable(key)}" of registry ${printable(String(parent.segment))}`
        : `a literal value for "${printable(key)}"`;
  const written =
    parent.needle === undefined && typeof value === 'string' && !value.includes('\n') ? { alsoOnLine: value } : {};
  hits.push({
    rule: rule.rule,
    field: fieldOf(at),
    what: `${what} (${bytes ?? masked(value as string)})`,
    needle: parent.needle ?? key,
    ...written,
    ...(typeof value === 'string' && { token: value }),
  });
}

function visitString(text: string, at: At, walk: Walk, secretData: boolean): void {
  const inner: Walk = { hits: [], seen: walk.seen };
  if (at.depth < MAX_DEPTH) {
    const base64 =
      secretData || (text.length >= MIN_BASE64 && /^[A-Za-z0-9+/]+={0,2}$/.test(text) && text.length % 4 === 0);
    if (base64) visitBytes(Buffer.from(text.replace(/\s+/g, ''), 'base64'), decoded(at, 'base64', text), inner);
    else visitEmbedded(text, at, inner);
  }
  const { hits } = walk;
  hits.push(...inner.hits);
  const known = new Set(inner.hits.map((hit) => hit.token));
  for (const { pattern, token } of tokensIn(text)) {
    if ([...known].some((found) => found?.includes(token))) continue;
    hits.push({
      rule: pattern.rule,
      field: fieldOf(at),
      what: describeToken(pattern, token),
      needle: at.needle ?? token,
      token,
    });
  }
}

/** Decoded bytes that are text (UTF-8, no control characters but line breaks and tabs) are scanned as text. */
function visitBytes(bytes: Uint8Array, at: At, walk: Walk): void {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return;
  }
  // eslint-disable-next-line no-control-regex -- control characters mean binary data, not text
  if (/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/.test(text)) return;
  visitString(text, at, walk, false);
}

/** JSON or YAML held in a string (`.dockerconfigjson`, a kubeconfig or config file in a ConfigMap). */
function visitEmbedded(text: string, at: At, walk: Walk): void {
  const trimmed = text.trim();
  if (/^[{[]/.test(trimmed) && /[}\]]$/.test(trimmed)) {
    try {
      visit(JSON.parse(trimmed) as unknown, decoded(at, 'JSON', text), walk, 'top');
      return;
    } catch {
      // not JSON: maybe YAML flow
    }
  }
  if (!text.includes('\n') || !/^[ ]*[\w"'.-]+[ ]*:(?: |$)/m.test(text)) return;
  for (const document of readAnyYaml(text).documents) visit(document.value, decoded(at, 'YAML', text), walk, 'top');
}

function child(at: At, segment: Segment): At {
  return {
    up: at,
    segment,
    prefix: at.prefix,
    depth: at.depth,
    level: at.level + 1,
    ...(at.needle !== undefined && { needle: at.needle }),
  };
}

/**
 * Into a value decoded from `encoded`. JSON or YAML in a string is text of the file (a block scalar), so
 * what is found in it is searched for as it is; base64 and !!binary hide it, so their hits are placed by
 * the encoded string (or its key).
 */
function decoded(at: At, layer: 'base64' | '!!binary' | 'JSON' | 'YAML', encoded: string): At {
  // `data.x (base64, JSON) → auths…`: steps without a field between them share the parentheses.
  const prefix =
    at.segment === undefined && at.prefix !== ''
      ? at.prefix.replace(/\) → $/, `, ${layer}) → `)
      : `${fieldOf(at)} (${layer}) → `;
  const hidden = layer === 'base64' || layer === '!!binary';
  const needle =
    at.needle ?? (hidden ? encoded.trim().split('\n')[0]?.slice(0, 40) || String(at.segment ?? '') : undefined);
  return { prefix, depth: at.depth + 1, level: at.level + 1, ...(needle !== undefined && { needle }) };
}

function fieldOf(at: At): string {
  const segments: Segment[] = [];
  for (let step: At | undefined = at; step?.segment !== undefined; step = step.up) segments.unshift(step.segment);
  const field = `${at.prefix}${formatField(segments)}`;
  return field.endsWith(' → ') ? field.slice(0, -3) : field;
}
