// YAML as KIM writes it into the objects it puts next to a Shoot and inside a cluster (the structured-authentication
// ConfigMap's config.yaml, kyma-provisioning-info's details): sigs.k8s.io/yaml turns the object's JSON into go-yaml
// v2's block style. Byte for byte, because those ConfigMaps are written create-or-update: text that differs from
// KIM's by a quote or a key's place is a write on every Shoot kimops takes over, and back when it hands one over.
// The rules below are go-yaml v2's (encode.go, emitterc.go, resolve.go, sorter.go), restated for JSON data. Pure.

const INDENT = '  ';
/** go-yaml's preferred line width: a plain or single-quoted text with spaces is folded past this column. */
const BEST_WIDTH = 80;

/** One document, ending in a newline, as sigs.k8s.io/yaml's JSONToYAML writes the JSON of `value`. */
export function toGoYaml(value: unknown): string {
  const lines: string[] = [];
  if (isNonEmptyMap(value)) writeMap(lines, value, '');
  else if (Array.isArray(value) && value.length > 0) writeList(lines, value, '');
  else lines.push(scalar(value, 0, ''));
  return `${lines.join('\n')}\n`;
}

function writeMap(lines: string[], map: Record<string, unknown>, pad: string): void {
  const keys = Object.keys(map)
    .filter((key) => map[key] !== undefined)
    .sort(compareKeys);
  for (const key of keys) {
    const head = `${pad}${keyText(key)}:`;
    const item = map[key];
    if (Array.isArray(item) && item.length > 0) {
      lines.push(head);
      // A list sits flush under its key.
      writeList(lines, item, pad);
    } else if (isNonEmptyMap(item)) {
      lines.push(head);
      writeMap(lines, item, pad + INDENT);
    } else {
      lines.push(`${head} ${scalar(item, head.length + 1, pad + INDENT)}`);
    }
  }
}

/** Each item `- …`; a map or list item starts on the dash's line and continues two spaces in. */
function writeList(lines: string[], list: readonly unknown[], pad: string): void {
  const inner = pad + INDENT;
  for (const item of list) {
    const start = lines.length;
    if (Array.isArray(item) && item.length > 0) writeList(lines, item, inner);
    else if (isNonEmptyMap(item)) writeMap(lines, item, inner);
    else {
      lines.push(`${pad}- ${scalar(item ?? null, inner.length, inner)}`);
      continue;
    }
    lines[start] = `${pad}- ${(lines[start] as string).slice(inner.length)}`;
  }
}

function isNonEmptyMap(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.values(value).some((v) => v !== undefined)
  );
}

/** A value on one line (or folded), starting at `column`; continuation lines at `pad`. */
function scalar(value: unknown, column: number, pad: string): string {
  switch (typeof value) {
    case 'string':
      return stringText(value, column, pad);
    case 'boolean':
      return String(value);
    case 'number':
      return String(value);
    case 'object':
      if (value === null) return 'null';
      return Array.isArray(value) ? '[]' : '{}';
    default:
      throw new TypeError(`${typeof value} is not a JSON value`);
  }
}

/** A map key: a simple key, so an empty one is quoted (go-yaml's emitter), and never folded. */
function keyText(key: string): string {
  if (key === '') return "''";
  return stringText(key, 0, '', false);
}

/**
 * encode.go's stringv, then the emitter's choice: plain when the text would read back as a string and the emitter
 * allows it plain; single-quoted when it does not; double-quoted when the plain text would read as something else
 * (a number, a boolean, null, a timestamp) or single quotes cannot hold it. Multi-line text is not written by KIM
 * into these objects and is refused rather than guessed.
 */
/** Texts without a space never fold, so their form depends on the text alone; ids, regions and names repeat. */
const unfoldedTexts = new Map<string, string>();
/** Bounds the cache in a long-running generator. */
const UNFOLDED_TEXTS_KEPT = 50_000;

function stringText(text: string, column: number, pad: string, fold = true): string {
  if (!text.includes(' ')) {
    let known = unfoldedTexts.get(text);
    if (known === undefined) {
      known = formOf(text, 0, '', false);
      if (unfoldedTexts.size < UNFOLDED_TEXTS_KEPT) unfoldedTexts.set(text, known);
    }
    return known;
  }
  return formOf(text, column, pad, fold);
}

function formOf(text: string, column: number, pad: string, fold: boolean): string {
  if (text.includes('\n'))
    throw new RangeError(`go-yaml writes multi-line text as a block; not supported: ${JSON.stringify(text)}`);
  if (!readsAsString(text)) return JSON.stringify(text);
  const { plain, singleQuoted } = analyze(text);
  if (plain) return fold ? folded(text, column, pad, false) : text;
  if (singleQuoted) return fold ? folded(text, column, pad, true) : `'${text.replaceAll("'", "''")}'`;
  return JSON.stringify(text);
}

/**
 * go-yaml breaks a plain or single-quoted text at a space once the line has passed its width, when the next
 * character is no space (and, quoted, the space is neither the first nor the last character); the rest continues
 * on the next line at the value's indentation.
 */
function folded(text: string, column: number, pad: string, quoted: boolean): string {
  const quote = quoted ? "'" : '';
  let out = quote;
  let col = column + quote.length;
  let spaces = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    const inside = !quoted || (i > 0 && i < text.length - 1);
    if (ch === ' ' && !spaces && col > BEST_WIDTH && text[i + 1] !== ' ' && inside) {
      out += `\n${pad}`;
      col = pad.length;
    } else {
      const written = quoted && ch === "'" ? "''" : ch;
      out += written;
      col += written.length;
    }
    spaces = ch === ' ';
  }
  return out + quote;
}

const INDICATOR_ALWAYS = new Set(['#', ',', '[', ']', '{', '}', '&', '*', '!', '|', '>', "'", '"', '%', '@', '`']);

/** emitterc.go's analyze_scalar for one line of text in a block context. */
function analyze(text: string): { plain: boolean; singleQuoted: boolean } {
  if (text === '') return { plain: false, singleQuoted: true };
  let indicator = text.startsWith('---') || text.startsWith('...');
  let special = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    const followedByBlank = i + 1 >= text.length || text[i + 1] === ' ' || text[i + 1] === '\t';
    if (i === 0) {
      if (INDICATOR_ALWAYS.has(ch)) indicator = true;
      else if ((ch === '?' || ch === ':' || ch === '-') && followedByBlank) indicator = true;
    } else if (ch === ':' && followedByBlank) indicator = true;
    else if (ch === '#' && (text[i - 1] === ' ' || text[i - 1] === '\t')) indicator = true;
    if (!printable(ch.codePointAt(0) as number)) special = true;
  }
  const edgeSpace = text.startsWith(' ') || text.endsWith(' ');
  return { plain: !indicator && !special && !edgeSpace, singleQuoted: !special };
}

/** go-yaml's is_printable (with unicode output on, as yaml.Marshal sets it). */
function printable(code: number): boolean {
  return (
    code === 0x0a ||
    (code >= 0x20 && code <= 0x7e) ||
    code === 0x85 ||
    (code >= 0xa0 && code <= 0xd7ff) ||
    (code >= 0xe000 && code <= 0xfffd && code !== 0xfeff) ||
    code >= 0x10000
  );
}

const NOT_STRINGS = new Set(
  [
    ['y', 'Y', 'yes', 'Yes', 'YES', 'n', 'N', 'no', 'No', 'NO'],
    ['true', 'True', 'TRUE', 'false', 'False', 'FALSE', 'on', 'On', 'ON', 'off', 'Off', 'OFF'],
    ['', '~', 'null', 'Null', 'NULL', '<<'],
    ['.nan', '.NaN', '.NAN', '.inf', '.Inf', '.INF', '+.inf', '+.Inf', '+.INF', '-.inf', '-.Inf', '-.INF'],
  ].flat(),
);
const DOT_FLOAT = /^\.[0-9]+(?:[eE][-+]?[0-9]+)?$/;
const TIMESTAMP =
  /^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:(?:[Tt][0-9]{1,2}:[0-9]{1,2}:[0-9]{1,2}(?:\.[0-9]+)?(?:Z|[-+][0-9]{2}:[0-9]{2}))|(?: [0-9]{1,2}:[0-9]{1,2}:[0-9]{1,2}(?:\.[0-9]+)?))?$/;
const INTEGER = /^[-+]?(?:0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$/;
const YAML_FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;
const BASE_60_FLOAT = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/;

/** resolve.go: whether the text, written plain, would read back as a string (and is no base-60 float). */
function readsAsString(text: string): boolean {
  if (NOT_STRINGS.has(text)) return false;
  const first = text[0] as string;
  if (first === '.') return !DOT_FLOAT.test(text);
  if (!/[-+0-9]/.test(first)) return true;
  if (BASE_60_FLOAT.test(text) || TIMESTAMP.test(text)) return false;
  const plain = text.replaceAll('_', '');
  return !INTEGER.test(plain) && !YAML_FLOAT.test(plain) && !/^-0[bB][01]+$/.test(plain);
}

const LETTERS_ONLY = /^[A-Za-z]*$/;

/** sorter.go's order of string keys: letters after other characters, runs of digits by their number. */
function compareKeys(a: string, b: string): number {
  // Most keys are words: between letters the order is the characters' (the rule below, without its cost).
  if (LETTERS_ONLY.test(a) && LETTERS_ONLY.test(b)) return a < b ? -1 : a > b ? 1 : 0;
  const ar = [...a];
  const br = [...b];
  for (let i = 0; i < ar.length && i < br.length; i++) {
    const x = ar[i] as string;
    const y = br[i] as string;
    if (x === y) continue;
    const xl = /\p{L}/u.test(x);
    const yl = /\p{L}/u.test(y);
    if (xl && yl) return x < y ? -1 : 1;
    if (xl || yl) return yl ? -1 : 1;
    let xn = 0;
    let yn = 0;
    if (x === '0' || y === '0') {
      for (let j = i - 1; j >= 0 && /[0-9]/.test(ar[j] as string); j--) {
        if (ar[j] !== '0') {
          xn = 1;
          yn = 1;
          break;
        }
      }
    }
    let xi = i;
    let yi = i;
    for (; xi < ar.length && /[0-9]/.test(ar[xi] as string); xi++) xn = xn * 10 + Number(ar[xi]);
    for (; yi < br.length && /[0-9]/.test(br[yi] as string); yi++) yn = yn * 10 + Number(br[yi]);
    if (xn !== yn) return xn < yn ? -1 : 1;
    if (xi !== yi) return xi < yi ? -1 : 1;
    return x < y ? -1 : 1;
  }
  return ar.length - br.length;
}
