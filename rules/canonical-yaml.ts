// Canonical YAML for the landscape repo: the same value always gives the same bytes, whatever order
// its keys were built in, and Kubernetes (a YAML 1.1 reader, go-yaml v2) reads every value back
// unchanged. A small dedicated writer rather than the `yaml` library's document model: manifests are
// plain JSON data, and rendering a fleet of Shoots is on the generator's hot path (docs/performance.md).

/** Keys written first, in this order; every other key follows in code-unit order. */
const KEYS_FIRST = {
  resource: ['apiVersion', 'kind', 'metadata', 'spec', 'data'],
  metadata: ['name', 'namespace', 'labels', 'annotations'],
  listItem: ['name', 'type'],
  plain: [],
} as const satisfies Record<string, readonly string[]>;
type MapKind = keyof typeof KEYS_FIRST;

const INDENT = '  ';

type Collection = unknown[] | Record<string, unknown>;

/** One YAML document, no `---` marker, ending in a newline. */
export function toCanonicalYaml(value: unknown): string {
  const lines: string[] = [];
  if (isNonEmptyCollection(value, '$')) writeBlock(lines, value, '', 'resource', '$');
  else lines.push(inline(value, '$'));
  return `${lines.join('\n')}\n`;
}

/** Several documents as one `---`-separated stream (kubectl apply -f - reads it as is). */
export function toYamlStream(values: readonly unknown[]): string {
  return values.map(toCanonicalYaml).join('---\n');
}

/** Appends the lines of a non-empty map or list at the given indentation. */
function writeBlock(lines: string[], value: Collection, pad: string, kind: MapKind, path: string): void {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      // JSON turns an undefined array slot into null; so do we.
      const item = value[i] ?? null;
      const itemPath = `${path}[${i}]`;
      if (isNonEmptyCollection(item, itemPath)) {
        const start = lines.length;
        writeBlock(lines, item, pad + INDENT, Array.isArray(item) ? 'plain' : 'listItem', itemPath);
        lines[start] = `${pad}- ${(lines[start] as string).slice(pad.length + INDENT.length)}`;
      } else {
        writeScalar(lines, `${pad}-`, item, pad + INDENT, itemPath);
      }
    }
    return;
  }
  for (const key of sortedKeys(value, kind)) {
    const item = value[key];
    const itemPath = `${path}.${key}`;
    const head = `${pad}${scalarText(key)}:`;
    if (isNonEmptyCollection(item, itemPath)) {
      lines.push(head);
      // Lists sit flush under their key, as kubectl and Gardener print them.
      writeBlock(
        lines,
        item,
        Array.isArray(item) ? pad : pad + INDENT,
        kind === 'resource' && key === 'metadata' ? 'metadata' : 'plain',
        itemPath,
      );
    } else {
      writeScalar(lines, head, item, pad + INDENT, itemPath);
    }
  }
}

/** `head value`, or `head |` followed by the lines of a multi-line string. */
function writeScalar(lines: string[], head: string, value: unknown, contentPad: string, path: string): void {
  if (typeof value === 'string' && isLiteralBlock(value)) {
    const body = value.endsWith('\n') ? value.slice(0, -1) : value;
    const chomp = !value.endsWith('\n') ? '-' : body.endsWith('\n') || body === '' ? '+' : '';
    lines.push(`${head} |${chomp}`);
    for (const line of body.split('\n')) lines.push(line === '' ? '' : contentPad + line);
    return;
  }
  lines.push(`${head} ${inline(value, path)}`);
}

function isNonEmptyCollection(value: unknown, path: string): value is Collection {
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value !== 'object' || value === null) return false;
  if (!isPlainObject(value))
    throw new TypeError(`${path}: ${Object.prototype.toString.call(value)} is not a JSON value`);
  for (const key in value) if (value[key] !== undefined) return true;
  return false;
}

function inline(value: unknown, path: string): string {
  switch (typeof value) {
    case 'string':
      return scalarText(value);
    case 'boolean':
      return String(value);
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`${path}: ${value} has no JSON/Kubernetes representation`);
      return Object.is(value, -0) ? '-0' : String(value);
    case 'object':
      if (value === null) return 'null';
      return Array.isArray(value) ? '[]' : '{}';
    default:
      throw new TypeError(`${path}: ${typeof value} is not a JSON value`);
  }
}

/** One comparator per map kind, built once: keys listed first by rank, then code-unit order. */
const COMPARATORS = Object.fromEntries(
  Object.entries(KEYS_FIRST).map(([kind, first]) => {
    const rank = new Map<string, number>((first as readonly string[]).map((key, i) => [key, i]));
    const last = first.length;
    const compare = (a: string, b: string) =>
      // Code-unit order, not localeCompare: the same on every machine and locale.
      (rank.get(a) ?? last) - (rank.get(b) ?? last) || (a < b ? -1 : a > b ? 1 : 0);
    return [kind, compare];
  }),
) as Record<MapKind, (a: string, b: string) => number>;

function sortedKeys(map: Record<string, unknown>, kind: MapKind): string[] {
  const keys: string[] = [];
  for (const key in map) if (map[key] !== undefined) keys.push(key);
  return keys.sort(COMPARATORS[kind]);
}

/**
 * Plain only when no YAML reader Kubernetes or a reviewer might use could take the string for
 * something else: printable ASCII, no indicator at the start, no `: ` or ` #` inside, and not a
 * YAML 1.1 or go-yaml null, boolean, number (go-yaml drops `_` and knows 0x/0o/0b), timestamp or
 * merge key. Anything else is double-quoted. Quoting more than needed is harmless; less changes the value.
 */
const PLAIN_SAFE = /^[A-Za-z0-9_./][\x20-\x7e]*$/;
const PLAIN_UNSAFE_INSIDE = /: | #|:$|\s$|[\t{}[\],&*!|>'"%@`]/;
const IMPLICITLY_TYPED = [
  /^(?:~|null|Null|NULL)$/,
  /^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$/,
  // go-yaml parses the digits after 0b with a signed parser: `0b+1` is the number 1; the yaml library reads
  // a prefix with only underscores after it (`0b_`) as a number too (NaN).
  /^[-+]?(?:0[bBoOxX][-+]?[0-9a-fA-F]*|0[0-7]+|[0-9]+|[1-9][0-9]*(?::[0-5]?[0-9])+)$/,
  // A superset of the float forms: the `yaml` library also reads `E0` or `.` as numbers.
  /^[-+]?(?:[0-9][0-9_]*)?(?:\.[0-9_]*)?(?:[eE][-+]?[0-9]+)?$/,
  /^[-+]?[0-9]+(?::[0-5]?[0-9])+\.[0-9]*$/,
  /^[-+]?\.(?:inf|Inf|INF)$|^\.(?:nan|NaN|NAN)$/,
  /^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}/,
  /^(?:<<|=)$/,
];

const scalarCache = new Map<string, string>();
/** Bounds the cache in long-running processes; names repeat across Shoots, most values do too. */
const SCALAR_CACHE_LIMIT = 100_000;

function scalarText(value: string): string {
  let text = scalarCache.get(value);
  if (text === undefined) {
    text = needsQuotes(value) ? doubleQuoted(value) : value;
    if (scalarCache.size < SCALAR_CACHE_LIMIT) scalarCache.set(value, text);
  }
  return text;
}

function needsQuotes(value: string): boolean {
  if (!PLAIN_SAFE.test(value) || PLAIN_UNSAFE_INSIDE.test(value)) return true;
  const withoutUnderscores = value.replaceAll('_', '');
  return IMPLICITLY_TYPED.some((pattern) => pattern.test(value) || pattern.test(withoutUnderscores));
}

// DEL, C1 (incl. NEL), LS, PS, BOM, non-characters, lone surrogates: JSON leaves them raw, YAML readers do not.
const ESCAPED_BY_US =
  /[\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** A YAML double-quoted scalar: JSON's escapes are valid YAML escapes; we add the ones JSON leaves raw. */
function doubleQuoted(value: string): string {
  return JSON.stringify(value).replace(ESCAPED_BY_US, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * Multi-line text (an embedded config file) reads best as a `|` block. go-yaml rejects a block line
 * starting with a tab and reads a line of only spaces as empty; a leading space on the first line
 * would need an indentation indicator. Such text, and text needing escapes, is double-quoted.
 */
const BLOCK_UNSAFE =
  // eslint-disable-next-line no-control-regex -- control characters are what this looks for
  /(?:^|\n)(?:\t| +(?:\n|$))|^\n* |[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]/;

function isLiteralBlock(value: string): boolean {
  return value.includes('\n') && !BLOCK_UNSAFE.test(value);
}

function isPlainObject(value: object): value is Record<string, unknown> {
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
