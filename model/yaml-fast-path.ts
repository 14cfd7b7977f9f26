// A faster reader for the YAML kimops itself writes (rules/canonical-yaml.ts): one document of maps, lists,
// plain and quoted scalars. js-yaml builds such a document about seven times faster than the `yaml`
// library's document model, which matters when the applier reads a landscape of 20,000 files. The YAML 1.1
// meaning of plain scalars (`yes`, `012`, `~`) is not re-implemented: each plain scalar is resolved by the
// `yaml` library's own tags, the same schema yaml-input.ts reads with. Anything beyond that subset —
// anchors, aliases, tags, merge keys, directives, document markers, explicit keys, tabs, null-like keys,
// or any error — is declined, and the full reader takes the text (errors are its to word).
import { FAILSAFE_SCHEMA, Type, load } from 'js-yaml';
import { Document, isScalar, type DocumentOptions, type ParseOptions, type ScalarTag, type SchemaOptions } from 'yaml';

/**
 * Text the fast path leaves to the full reader. Broad on purpose: a declined file costs time, never meaning.
 * `&`, `*`, `!` starting a node: anchors, aliases, tags; `%` starting a line: directives; `<<`: merge keys;
 * `---`/`...` starting a line: several documents (and the document's line then differs); `?` before a
 * space: explicit keys; tabs, carriage returns, a BOM and control characters: where YAML readers disagree
 * about whitespace and line breaks; `~:`/`null:`, a line or a flow item starting with `:`: null and empty
 * keys, which the two readers name differently; a line of spaces only (in a block scalar the readers
 * differ on it); a flow collection starting a line or inside another (it may
 * be a key); a block scalar with an indentation indicator; a comment straight after a quote or bracket
 * (invalid, which js-yaml lets pass); a line over 1,024 characters (a key that long is invalid: hasLongLine);
 * `__proto__`: an object-building edge; a line leaving a quote open (a multi-line quoted scalar: the readers
 * differ on its indentation rules; the lookahead and back-reference make the balanced part atomic, so a
 * closed quote is never taken for an open one). While reading: nesting past MAX_DEPTH, and any error.
 * No part repeats over line breaks, and the regex only ever sees lines of at most 1,024 characters
 * (hasLongLine runs first): V8 backtracks the quote lookahead once per quoted piece, which on a line of
 * megabytes overflowed its regexp stack. The test is linear in the text, its depth bounded.
 */
const DECLINED =
  // eslint-disable-next-line no-control-regex -- control characters are among what it looks for
  /(?:^|[\s[{,:])[&*!]|^%|<<|^(?:---|\.\.\.)|\?(?:\s|$)|[\t\r\uFEFF\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]|(?:~|null|Null|NULL)[ ]*:(?:\s|$)|^[ -]*[[{]|[[{,][ ]*[[{:]|[|>][-+]?[0-9]|["'\]}]#|__proto__|^[ ]*:|^[ ]+$|^(?=((?:[^"'\n]|"(?:[^"\\\n]|\\.)*"|'[^'\n]*')*))\1["']/m;

/**
 * Nodes open at once (a map holding a list holding a string is 3) past which the fast path declines: half the
 * full reader's MAX_YAML_DEPTH, so that the two readers' ways of counting can never make it read what that refuses.
 */
const MAX_DEPTH = 50;

/** The first line holding content (not blank, not only a comment): where the full reader places the document. */
const BLANK_OR_COMMENT = /^[ ]*(?:#.*)?$/;

/** Why the fast path stopped reading (a tag reported a problem, the nesting got too deep): the full reader words it. */
class Declined extends Error {}

/**
 * The value and start line of `text` when it is one plain document the fast path can read exactly as the
 * full reader would; undefined when it declines. `null` for a document without content (only comments).
 */
export function fastYamlDocument(
  text: string,
  options: ParseOptions & DocumentOptions & SchemaOptions,
): { value: unknown; line: number } | undefined {
  // hasLongLine first: it bounds the line length DECLINED is tried on.
  if (hasLongLine(text) || DECLINED.test(text)) return undefined;
  let value: unknown;
  let depth = 0;
  try {
    // js-yaml reads recursively: a deep document is the full reader's, which refuses it past MAX_YAML_DEPTH unread.
    const listener = (event: 'open' | 'close') => {
      depth += event === 'open' ? 1 : -1;
      if (depth > MAX_DEPTH) throw new Declined('nested too deeply');
    };
    value = load(text, { schema: schemaFor(options), listener });
  } catch {
    return undefined;
  }
  return { value: value ?? null, line: contentLine(text) };
}

/** YAML's limit for an implicit key is 1,024 characters; found without a regex that would rescan each line. */
const MAX_LINE = 1_024;

function hasLongLine(text: string): boolean {
  for (let start = 0; start < text.length;) {
    const end = text.indexOf('\n', start);
    const stop = end === -1 ? text.length : end;
    if (stop - start > MAX_LINE) return true;
    start = stop + 1;
  }
  return false;
}

function contentLine(text: string): number {
  let line = 1;
  let start = 0;
  for (;;) {
    const end = text.indexOf('\n', start);
    const current = text.slice(start, end === -1 ? undefined : end);
    if (!BLANK_OR_COMMENT.test(current) || end === -1) return line;
    start = end + 1;
    line++;
  }
}

/**
 * False for a plain scalar none of YAML 1.1's tags can take (a cheap test before the regexes: most plain
 * scalars are keys such as `apiVersion`). Those tags start with a digit, a sign, a dot, `e`/`E` (yaml's
 * YAML 1.1 float lets `e5` stand for 1e5) or `~` (numbers, null), or are words of at most five letters
 * starting with n/y/t/f/o (null, booleans), or are empty.
 */
export function mayNotBeString(text: string): boolean {
  if (text.length === 0) return true;
  const first = text.charCodeAt(0);
  if (
    (first >= 0x30 && first <= 0x39) ||
    first === 0x2b ||
    first === 0x2d ||
    first === 0x2e ||
    first === 0x7e ||
    first === 0x65 ||
    first === 0x45
  )
    return true;
  return text.length <= 5 && 'nNyYtTfFoO'.includes(text.charAt(0));
}

const schemas = new WeakMap<object, ReturnType<typeof FAILSAFE_SCHEMA.extend>>();

/** js-yaml's failsafe schema (maps, lists, strings) plus one implicit type: the `yaml` library's plain-scalar resolution. */
function schemaFor(options: ParseOptions & DocumentOptions & SchemaOptions): ReturnType<typeof FAILSAFE_SCHEMA.extend> {
  const cached = schemas.get(options);
  if (cached) return cached;
  // The tags yaml tries on a plain scalar, in its order: default ones with a test (str has none: the fallback).
  const tags = new Document(null, options).schema.tags.filter(
    (tag): tag is ScalarTag => tag.default === true && 'test' in tag && tag.test !== undefined,
  );
  let lastText: string | undefined;
  let lastTag: (typeof tags)[number] | undefined;
  const plain = new Type('tag:kimops,2026:yaml-plain-scalar', {
    kind: 'scalar',
    resolve: (data: string | null) => {
      if (typeof data !== 'string' || !mayNotBeString(data)) return false;
      lastText = data;
      lastTag = tags.find((tag) => tag.test?.test(data));
      return lastTag !== undefined;
    },
    construct: (data: string) => {
      // js-yaml calls construct right after a resolve that said yes, with the same text.
      const tag = data === lastText ? lastTag : tags.find((t) => t.test?.test(data));
      if (!tag?.resolve) throw new Declined(`no tag for ${data}`);
      const resolved: unknown = tag.resolve(
        data,
        (message: string) => {
          throw new Declined(message);
        },
        { intAsBigInt: false },
      );
      return isScalar(resolved) ? resolved.value : resolved;
    },
  });
  const schema = FAILSAFE_SCHEMA.extend({ implicit: [plain] });
  schemas.set(options, schema);
  return schema;
}
