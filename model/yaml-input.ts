// The one reader for YAML that comes from outside (Runtimes, live Shoots, landscape files, ConfigMaps).
// It reads YAML 1.1 like Kubernetes does (`yes` → true, `012` → 10), rejects duplicate keys, alias bombs
// and nesting no manifest has, and turns every problem into a ConfigError naming the source, the document
// and the line.
import { Composer, CST, LineCounter, Parser } from 'yaml';
import type { Document, ParseOptions, DocumentOptions, SchemaOptions, Tags } from 'yaml';
import { ConfigError } from './errors.js';
import { fastYamlDocument } from './yaml-fast-path.js';

/**
 * Kubernetes manifests have no use for aliases beyond a few merge keys; a small limit stops
 * "billion laughs" documents before they expand (yaml's own default is 100).
 */
export const MAX_YAML_ALIASES = 32;

/**
 * The deepest nesting read (a map holding a list holding a string is 3). kimops's deepest input, the Runtime
 * CRD, has 25. yaml builds values recursively: thousands of levels overflow the stack — which V8 may not
 * survive when it happens while a regular expression is compiled — so deeper documents are refused unread.
 */
export const MAX_YAML_DEPTH = 100;

/**
 * YAML 1.1 types Kubernetes' reader (go-yaml v2 into interface{}) does not produce: it reads
 * timestamps and sexagesimal numbers as strings and has no binary/set/omap/pairs. Without these tags
 * an explicit `!!binary` becomes an unresolved-tag warning, which this reader treats as an error.
 */
const TAGS_KUBERNETES_DOES_NOT_READ = new Set([
  'tag:yaml.org,2002:timestamp',
  'tag:yaml.org,2002:binary',
  'tag:yaml.org,2002:set',
  'tag:yaml.org,2002:omap',
  'tag:yaml.org,2002:pairs',
]);
const SEXAGESIMAL_FORMAT = 'TIME';

function kubernetesTags(tags: Tags): Tags {
  return tags.filter((tag) => {
    if (typeof tag === 'string') return !TAGS_KUBERNETES_DOES_NOT_READ.has(tag);
    return !TAGS_KUBERNETES_DOES_NOT_READ.has(tag.tag) && tag.format !== SEXAGESIMAL_FORMAT;
  });
}

/** The options behind every reader here; exported for readers that need the parsed Document itself. */
export const YAML_READ_OPTIONS: ParseOptions & DocumentOptions & SchemaOptions = {
  version: '1.1',
  uniqueKeys: true,
  prettyErrors: false,
  customTags: kubernetesTags,
};

/** One document of a stream: its 1-based position, the line it starts on, and its value or its error. */
export type YamlDocument =
  | { index: number; line: number; value: unknown; error?: undefined }
  | { index: number; line: number; value?: undefined; error: ConfigError };

/**
 * All non-empty documents of a `---` stream. A broken document yields an error entry and never hides
 * the documents around it. Errors name `document <index>, line <line>`.
 */
export function parseYamlDocuments(text: string, source: string): YamlDocument[] {
  return readDocuments(text, source, (index, line) => `document ${index}, line ${line}`);
}

/** A file that holds exactly one YAML document (a landscape file, a config). Errors name the line. */
export function parseYaml11(text: string, source: string): unknown {
  const [first, second] = readDocuments(text, source, (_index, line) => `line ${line}`);
  if (!first) throw new ConfigError(source, '', 'no YAML document found — the file is empty');
  if (second) {
    throw new ConfigError(source, `line ${second.line}`, 'a second YAML document — this file must hold exactly one');
  }
  if (first.error) throw first.error;
  return first.value;
}

function readDocuments(text: string, source: string, locate: (index: number, line: number) => string): YamlDocument[] {
  // Most files (all that kimops writes) are plain single documents: read them fast, the rest in full.
  const fast = fastYamlDocument(text, YAML_READ_OPTIONS);
  if (fast) return fast.value === null ? [] : [{ index: 1, line: fast.line, value: fast.value }];
  return fullDocuments(text, source, locate);
}

/** The full reader: yaml's document model, with positions for every error. */
/** Exported for the fast path's differential test. */
export function fullDocuments(
  text: string,
  source: string,
  locate: (index: number, line: number) => string,
): YamlDocument[] {
  const lineCounter = new LineCounter();
  // What parseAllDocuments does, with each document's depth checked between parsing (iterative) and
  // composing (recursive): see MAX_YAML_DEPTH.
  const parser = new Parser(lineCounter.addNewLine);
  // yaml makes an Error per bad token, and capturing their stack traces (read by no one: only message and
  // position are) was 90 % of the time a line of a million bad tokens took (10 s for 4 MB). A bug thrown
  // meanwhile has no stack either; its message still names it.
  const stackTraceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  let documents;
  try {
    documents = [...new Composer(YAML_READ_OPTIONS).compose(withinDepth(parser.parse(text)))];
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
  }
  const lineOf = (offset: number): number => lineCounter.linePos(offset).line;
  const results: YamlDocument[] = [];
  documents.forEach((document, position) => {
    const index = position + 1;
    const start = document.contents?.range[0] ?? document.range[0];
    const line = lineOf(start);
    const result = documentValue(
      document,
      (offset, detail) => new ConfigError(source, locate(index, lineOf(offset ?? start)), detail),
    );
    if (result instanceof ConfigError) results.push({ index, line, error: result });
    // Like kubectl, skip empty documents (a trailing `---`, a comment-only document).
    else if (result.value !== null) results.push({ index, line, value: result.value });
  });
  return results;
}

type MakeError = (offset: number | undefined, detail: string) => ConfigError;

function documentValue(document: Document.Parsed, makeError: MakeError): { value: unknown } | ConfigError {
  // Warnings (unresolved tags, ignored directives) mean the value is not what the author wrote.
  const [problem] = [...document.errors, ...document.warnings];
  if (problem) return makeError(problem.pos[0], firstLine(problem.message));
  try {
    return { value: document.toJS({ maxAliasCount: MAX_YAML_ALIASES }) };
  } catch (error) {
    // Alias and merge-key problems surface only while building the value.
    return makeError(undefined, buildProblem(error));
  }
}

/** Each document's syntax tree, a document nested deeper than MAX_YAML_DEPTH holding only an error in its place. */
function* withinDepth(tokens: Generator<CST.Token>): Generator<CST.Token> {
  for (const token of tokens) {
    const offset = token.type === 'document' && token.value ? tooDeepAt(token.value) : undefined;
    if (token.type === 'document' && offset !== undefined) {
      token.value = {
        type: 'error',
        offset,
        source: '',
        message: `nests deeper than ${MAX_YAML_DEPTH} levels (a Kubernetes manifest has a few dozen): check that the file is the manifest meant`,
      };
    }
    yield token;
  }
}

/** The offset of the first node nested deeper than MAX_YAML_DEPTH under `root` (a node and its keys and values count), found without recursion. */
function tooDeepAt(root: CST.Token): number | undefined {
  const stack = [{ token: root, depth: 1 }];
  for (let next = stack.pop(); next; next = stack.pop()) {
    if (next.depth > MAX_YAML_DEPTH) return next.token.offset;
    if (!CST.isCollection(next.token)) continue;
    for (const item of next.token.items) {
      for (const child of [item.key, item.value]) if (child) stack.push({ token: child, depth: next.depth + 1 });
    }
  }
  return undefined;
}

/** Why a parsed document could not be built into a value, in words that say the fix. */
function buildProblem(error: unknown): string {
  // yaml throws a ReferenceError for aliases that expand past maxAliasCount (and for an unresolved one).
  if (error instanceof ReferenceError && error.message.startsWith('Excessive alias count')) {
    return `expands aliases (*name) past kimops's limit (${MAX_YAML_ALIASES} per document), as a YAML bomb does: write the values out instead of using anchors (&) and aliases (*)`;
  }
  return firstLine(error instanceof Error ? error.message : String(error));
}

/** yaml may add a quote of the input after its message; the message names the line already. */
function firstLine(message: string): string {
  const end = message.indexOf('\n');
  return end === -1 ? message : message.slice(0, end).replace(/ at line \d+, column \d+:$/, '');
}
