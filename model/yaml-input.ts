// The one reader for YAML that comes from outside (Runtimes, live Shoots, landscape files, ConfigMaps).
// It reads YAML 1.1 like Kubernetes does (`yes` → true, `012` → 10), rejects duplicate keys and alias
// bombs, and turns every problem into a ConfigError naming the source, the document and the line.
import { LineCounter, parseAllDocuments } from 'yaml';
import type { Document, ParseOptions, DocumentOptions, SchemaOptions, Tags } from 'yaml';
import { ConfigError } from './errors.js';
import { fastYamlDocument } from './yaml-fast-path.js';

/**
 * Kubernetes manifests have no use for aliases beyond a few merge keys; a small limit stops
 * "billion laughs" documents before they expand (yaml's own default is 100).
 */
export const MAX_YAML_ALIASES = 32;

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

function readDocuments(
  text: string,
  source: string,
  locate: (index: number, line: number) => string,
): YamlDocument[] {
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
  const documents = parseAllDocuments(text, { ...YAML_READ_OPTIONS, lineCounter });
  const lineOf = (offset: number): number => lineCounter.linePos(offset).line;
  const results: YamlDocument[] = [];
  // parseAllDocuments returns an EmptyStream (not an array) for text without documents.
  if (!Array.isArray(documents)) return results;
  documents.forEach((document, position) => {
    const index = position + 1;
    const start = document.contents?.range[0] ?? document.range[0];
    const line = lineOf(start);
    const result = documentValue(document, (offset, detail) =>
      new ConfigError(source, locate(index, lineOf(offset ?? start)), detail),
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
  if (problem) return makeError(problem.pos[0], problem.message);
  try {
    return { value: document.toJS({ maxAliasCount: MAX_YAML_ALIASES }) };
  } catch (error) {
    // Alias and merge-key problems surface only while building the value.
    return makeError(undefined, error instanceof Error ? error.message : String(error));
  }
}
