// The repo-level rule "no Secret objects or credentials anywhere in the landscape repo": a scan of one
// file's text at a time (scanFile); which files a check scans is its caller's (folder-check.ts: every file
// of a Shoot's folder; repo-check.ts: the files a change added or changed, or all). Pure; the caller reads
// the files. It is not a
// ValidatingAdmissionPolicy: a VAP matches requests by resource, and one denying `secrets` in the
// garden cluster would also deny the Secrets Gardener and its operators create there. In Git, every
// file is ours, so the rule is checked over files instead.
//
// YAML and JSON files are read as documents (credential-documents.ts), so a credential is found however
// it is written; their lines are scanned for token formats too (a comment has no value), and wholly
// (credential-lines.ts) when Kubernetes' reader refuses the file. Other files are scanned line by line.
import { printable } from '../../model/printable.js';
import type { YamlDocument } from '../../model/yaml-input.js';
import { scanDocument } from './credential-documents.js';
import { scanLines } from './credential-lines.js';
import type { CredentialRule } from './credential-rules.js';
import { readAnyYaml, type ScannedDocument } from './credential-yaml.js';

export interface CredentialFinding {
  path: string;
  /** 1-based line of the finding. */
  line: number;
  rule: CredentialRule;
  /** The document and field (for YAML and JSON), what was found and how to fix it; never the credential itself. */
  message: string;
}

/** A line carrying this marker is not reported (a documented example value, a test fixture). */
const ALLOW_MARKER = 'kimops: not-a-secret';

const FIX =
  'remove it from the repo and rotate it; credentials live in the cluster (Secrets referenced by name), never in Git';

/** Files read as YAML documents (JSON is YAML). */
const DOCUMENT_FILE = /(\.(ya?ml|json|kubeconfig)|(^|\/)[^/.]*kubeconfig[^/.]*)$/i;
/** Files whose `key: value` lines are data (configs, docs), not program code: the line scan reads their keys. */
const DATA_FILE = /(\.(env|ini|properties|conf|cfg|toml|md|txt)|\/[^./]+|^[^./]+)$/i;

/** One file's findings, by line; `documents` when the caller has parsed the file already. */
export function scanFile(path: string, text: string, documents?: readonly YamlDocument[]): CredentialFinding[] {
  const lines = text.split(/\r?\n/);
  let findings: (CredentialFinding & { token?: string })[];
  if (DOCUMENT_FILE.test(path)) {
    const read = readAnyYaml(text, documents, /\.json$/i.test(path));
    findings = read.documents.flatMap((document, i) =>
      documentFindings(path, lines, document, read.documents[i + 1]?.line ?? lines.length + 1),
    );
    // The lines add what the documents do not show: a token in a comment, a value a duplicate key hid.
    const tokens = findings.flatMap((f) => (f.token === undefined ? [] : [f.token]));
    const taken = new Set(findings.map((f) => f.line));
    const note = read.refused ? ' (found line by line: Kubernetes cannot read this file as YAML)' : '';
    for (const hit of scanLines(text, read.refused ? 'all' : 'patterns', true)) {
      const known =
        hit.token === undefined ? taken.has(hit.line) : tokens.some((token) => token.includes(hit.token as string));
      if (known) continue;
      findings.push({ path, line: hit.line, rule: hit.rule, message: `${hit.what}${note}; ${FIX}` });
    }
  } else {
    findings = scanLines(text, 'all', DATA_FILE.test(path)).map((hit) => ({
      path,
      line: hit.line,
      rule: hit.rule,
      message: `${hit.what}; ${FIX}`,
    }));
  }
  return findings
    .filter((finding) => !lines[finding.line - 1]?.includes(ALLOW_MARKER))
    .sort((a, b) => a.line - b.line)
    .map(({ path: file, line, rule, message }) => ({ path: file, line, rule, message }));
}

function documentFindings(
  path: string,
  lines: readonly string[],
  document: ScannedDocument,
  nextStart: number,
): (CredentialFinding & { token?: string })[] {
  const lastLine = new Map<string, number>();
  return scanDocument(document.value).map((hit) => {
    // Hits come in the document's order: the same key again is searched for below the last one.
    const from = Math.max(document.line, (lastLine.get(hit.needle) ?? 0) + 1);
    const needles = [hit.needle, ...(hit.alsoOnLine === undefined ? [] : [hit.alsoOnLine])];
    const line =
      lineOf(lines, from, nextStart - 1, needles) ??
      lineOf(lines, document.line, nextStart - 1, needles) ??
      lineOf(lines, from, nextStart - 1, [hit.needle]) ??
      lineOf(lines, document.line, nextStart - 1, [hit.needle]) ??
      document.line;
    lastLine.set(hit.needle, line);
    return {
      path,
      line,
      rule: hit.rule,
      message: `${documentLabel(document)}${hit.field ? `, ${hit.field}` : ''}: ${hit.what}; ${FIX}`,
      ...(hit.token !== undefined && { token: hit.token }),
    };
  });
}

/** The first line in [from, to] (1-based) holding every needle. */
function lineOf(lines: readonly string[], from: number, to: number, needles: readonly string[]): number | undefined {
  for (let line = from; line <= Math.min(to, lines.length); line++)
    if (needles.every((needle) => lines[line - 1]?.includes(needle))) return line;
  return undefined;
}

/** `document 2 (Secret kcp-system/x)`: which document of the file, and what it is. */
function documentLabel({ index, value }: ScannedDocument): string {
  const object = value as { kind?: unknown; metadata?: { name?: unknown; namespace?: unknown } } | null;
  if (typeof object?.kind !== 'string') return `document ${index}`;
  const name =
    typeof object.metadata?.name === 'string'
      ? ` ${typeof object.metadata.namespace === 'string' ? `${object.metadata.namespace}/` : ''}${object.metadata.name}`
      : '';
  return `document ${index} (${printable(`${object.kind}${name}`)})`;
}
