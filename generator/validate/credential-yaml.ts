// How the credentials scan reads a YAML or JSON file: as Kubernetes does (model/yaml-input.ts, with its
// fast path for the files kimops writes), and where that reader refuses a document — a `!!binary` tag, a
// duplicate key, an unknown tag — again with every YAML 1.1 tag and duplicate keys allowed. The scan
// hunts for what anyone could read out of the file, not for what Kubernetes would apply, so a document
// Kubernetes refuses must not hide a token from it. Pure.
import { LineCounter, parseAllDocuments } from 'yaml';
import { MAX_YAML_ALIASES, parseYamlDocuments, YAML_READ_OPTIONS, type YamlDocument } from '../../model/yaml-input.js';

export interface ScannedDocument {
  /** 1-based position in the stream. */
  index: number;
  /** The line it starts on. */
  line: number;
  value: unknown;
}

export interface AnyYaml {
  documents: ScannedDocument[];
  /**
   * Kubernetes' reader refused part of the text: the documents are the lenient reader's (with a
   * duplicate key, only one of its values), so the caller scans the lines as well.
   */
  refused: boolean;
}

/**
 * The file's documents; `read` when the caller has parsed it already (a Shoot folder's files). A JSON file
 * is read by JSON.parse first: the YAML reader takes milliseconds per kilobyte of JSON.
 */
export function readAnyYaml(text: string, read?: readonly YamlDocument[], json = false): AnyYaml {
  if (json && read === undefined) {
    try {
      const value: unknown = JSON.parse(text);
      const line = /^\s*/.exec(text)?.[0].split('\n').length ?? 1;
      return { documents: value === null ? [] : [{ index: 1, line, value }], refused: false };
    } catch {
      // not strict JSON (a comment, a trailing comma): YAML may still read it
    }
  }
  const documents = read ?? parseYamlDocuments(text, 'credentials scan');
  if (documents.every((document) => document.error === undefined))
    return { documents: documents as ScannedDocument[], refused: false };
  return { documents: lenientDocuments(text), refused: true };
}

function lenientDocuments(text: string): ScannedDocument[] {
  const lineCounter = new LineCounter();
  const parsed = parseAllDocuments(text, {
    ...YAML_READ_OPTIONS,
    customTags: undefined,
    uniqueKeys: false,
    lineCounter,
  });
  if (!Array.isArray(parsed)) return [];
  return parsed.flatMap((document, position) => {
    if (document.errors.length > 0) return []; // a syntax error: the line scan has that part
    try {
      const value: unknown = document.toJS({ maxAliasCount: MAX_YAML_ALIASES });
      return value === null || value === undefined
        ? []
        : [
            {
              index: position + 1,
              line: lineCounter.linePos(document.contents?.range[0] ?? document.range[0]).line,
              value,
            },
          ];
    } catch {
      return []; // too many aliases, a bad merge key: the line scan has it
    }
  });
}
