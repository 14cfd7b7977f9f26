// `kimops validate` on a landscape repo's files: every Shoot folder that changed against the base (all
// of them without one) checked like the generator checks its proposals — schema and policies with the
// change's operation — plus the repo-wide credentials scan. Pure: the caller reads the files.
import type { Shoot } from '../../model/shoot.js';
import { parseYamlDocuments } from '../../model/yaml-input.js';
import { SHOOT_FILE, SHOOTS_FOLDER } from '../render/landscape-layout.js';
import { checkShootChange, operationOf, type ValidationContext } from './checks.js';
import { scanForCredentials } from './credentials.js';
import type { Operation } from './policy-file.js';
import type { CheckResult } from '../propose/merge-policy.js';

export interface Finding {
  /** Repo path the finding is about. */
  path: string;
  /** 1-based, where known. */
  line?: number;
  /** The policy, `shoot-schema`, `yaml` or `credentials (<rule>)`. */
  check: string;
  severity: 'deny' | 'warn';
  message: string;
}

export interface RepoCheckInput {
  /** The files as they are now (repo path → text). */
  files: ReadonlyMap<string, string>;
  /** The same at the base the change is compared with; absent: every Shoot is checked as a create. */
  base?: ReadonlyMap<string, string>;
  context: ValidationContext;
}

export interface CheckedShoot {
  path: string;
  operation: Operation;
  /** Checks that ran (schema and applicable policies). */
  checks: number;
}

export interface RepoCheckReport {
  shoots: CheckedShoot[];
  /** Shoots left out because they did not change against the base. */
  unchanged: number;
  findings: Finding[];
}

export function checkLandscapeFiles({ files, base, context }: RepoCheckInput): RepoCheckReport {
  const report: RepoCheckReport = { shoots: [], unchanged: 0, findings: [] };
  const now = shootFiles(files);
  const before = base === undefined ? new Map<string, string>() : shootFiles(base);
  for (const path of [...new Set([...now.keys(), ...before.keys()])].sort()) {
    const text = now.get(path);
    const old = before.get(path);
    if (base !== undefined && folderUnchanged(path, files, base)) {
      report.unchanged++;
      continue;
    }
    const after = text === undefined ? undefined : parsedShoot(path, text, false, report.findings);
    const previous = old === undefined ? undefined : parsedShoot(path, old, true, report.findings);
    if (after === null || previous === null) continue; // unreadable: reported, nothing to check
    const checks = checkShootChange(context, { before: previous, after });
    report.shoots.push({ path, operation: operationOf({ before: previous, after }), checks: checks.length });
    report.findings.push(...findingsOf(path, checks));
  }
  report.findings.push(...credentialFindings(files));
  return report;
}

/**
 * Loose Shoot files (not a landscape repo): every Shoot document in them checked as a create, plus the
 * credentials scan. Documents of other kinds are skipped; a broken one is a finding.
 */
export function checkShootFiles(files: ReadonlyMap<string, string>, context: ValidationContext): RepoCheckReport {
  const report: RepoCheckReport = { shoots: [], unchanged: 0, findings: [] };
  for (const [path, text] of files) {
    for (const document of parseYamlDocuments(text, path)) {
      if (document.error) {
        report.findings.push({ path, line: document.line, check: 'yaml', severity: 'deny', message: document.error.message });
        continue;
      }
      if ((document.value as { kind?: unknown } | null)?.kind !== 'Shoot') continue;
      const checks = checkShootChange(context, { after: document.value as Shoot });
      report.shoots.push({ path: documentPath(path, document.index), operation: 'CREATE', checks: checks.length });
      report.findings.push(...findingsOf(path, checks, document.line));
    }
  }
  report.findings.push(...credentialFindings(files));
  return report;
}

function findingsOf(path: string, checks: readonly CheckResult[], line?: number): Finding[] {
  return checks
    .filter((check) => !check.passed || check.warning)
    .flatMap((check) =>
      (check.messages.length > 0 ? check.messages : [`${check.name} failed`]).map((message) => ({ path, ...(line !== undefined && { line }), check: check.name, severity: check.passed ? ('warn' as const) : ('deny' as const), message })),
    );
}

function credentialFindings(files: ReadonlyMap<string, string>): Finding[] {
  return scanForCredentials(new Map(files)).map((finding) => ({ path: finding.path, line: finding.line, check: `credentials (${finding.rule})`, severity: 'deny' as const, message: finding.message }));
}

const documentPath = (path: string, index: number) => (index === 1 ? path : `${path} (document ${index})`);

/** `shoots/<name>/shoot.yaml` → text. */
function shootFiles(files: ReadonlyMap<string, string>): Map<string, string> {
  const shoots = new Map<string, string>();
  for (const [path, text] of files) {
    const [folder, name, file, ...rest] = path.split('/');
    if (folder === SHOOTS_FOLDER && name && file === SHOOT_FILE && rest.length === 0) shoots.set(path, text);
  }
  return shoots;
}

/** A Shoot's companions count as part of its change. */
function folderUnchanged(shootPath: string, files: ReadonlyMap<string, string>, base: ReadonlyMap<string, string>): boolean {
  const folder = shootPath.slice(0, shootPath.lastIndexOf('/') + 1);
  const inFolder = (map: ReadonlyMap<string, string>) => [...map].filter(([path]) => path.startsWith(folder));
  const now = inFolder(files);
  return now.length === inFolder(base).length && now.every(([path, text]) => base.get(path) === text);
}

/** The Shoot in the file, or null when it cannot be read (a finding says why). */
function parsedShoot(path: string, text: string, atBase: boolean, findings: Finding[]): Shoot | null {
  const documents = parseYamlDocuments(text, atBase ? `${path} at the base` : path);
  const [document] = documents;
  const problem =
    documents.length !== 1 ? `holds ${documents.length} YAML documents; a Shoot file holds exactly one`
    : document?.error ? document.error.message
    : (document?.value as { kind?: unknown } | null)?.kind !== 'Shoot' ? 'is not a Shoot (kind: Shoot)'
    : undefined;
  if (problem === undefined) return document?.value as Shoot;
  findings.push({ path, check: 'yaml', severity: 'deny', message: `${atBase ? 'at the base: ' : ''}${problem}` });
  return null;
}
