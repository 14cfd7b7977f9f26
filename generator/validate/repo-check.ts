// `kimops validate` on a landscape repo's files. With a base it judges the change, as a PR check does:
// every Shoot folder that changed against the base checked as the generator checks the folders it
// commits — checkShootFolder, the one implementation both use — and the credentials scan over every
// other file added or changed; a file the base already holds as it is decides nothing (a credential
// already on main is reported by `kimops validate` without a base, not by every PR). Without a base it
// judges the whole checkout: every Shoot as a create, every file scanned. Pure: the caller reads the files.
import type { Shoot } from '../../model/shoot.js';
import { parseYamlDocuments } from '../../model/yaml-input.js';
import { SHOOT_FILE, SHOOTS_FOLDER } from '../../model/contract.js';
import { checkShootChange, type ValidationContext } from './checks.js';
import { scanFile } from './credentials.js';
import { checkShootFolder, credentialFinding, findingsOf, YAML_CHECK, type Finding } from './folder-check.js';
import type { Operation } from './policy-file.js';

export type { Finding } from './folder-check.js';

export interface RepoCheckInput {
  /** The files as they are now (repo path → text). */
  files: ReadonlyMap<string, string>;
  /**
   * Every file at the base the change is compared with (not only its Shoots: a file is judged only when
   * it is new or differs from the base's); absent: every Shoot is checked as a create, every file scanned.
   */
  base?: ReadonlyMap<string, string>;
  context: ValidationContext;
}

interface CheckedShoot {
  path: string;
  operation: Operation;
  /** Checks that ran (schema, applicable policies, credentials). */
  checks: number;
}

export interface RepoCheckReport {
  shoots: CheckedShoot[];
  /** Shoots left out because they did not change against the base. */
  unchanged: number;
  findings: Finding[];
  /** Loose files: the documents that are no Shoot, by file (kind undefined: a document without one). */
  others?: { path: string; kind: string | undefined }[];
}

export function checkLandscapeFiles({ files, base, context }: RepoCheckInput): RepoCheckReport {
  const report: RepoCheckReport = { shoots: [], unchanged: 0, findings: [] };
  const now = shootFolders(files);
  const before = base === undefined ? new Map<string, Map<string, string>>() : shootFolders(base);
  const empty = new Map<string, string>();
  const scanned = new Set<string>();
  for (const folder of [...new Set([...now.keys(), ...before.keys()])].sort()) {
    const change = { folder, files: now.get(folder) ?? empty, base: before.get(folder) ?? empty };
    // A Shoot's companions count as part of its change.
    if (base !== undefined && sameFiles(change.files, change.base)) {
      report.unchanged++;
      continue;
    }
    const checked = checkShootFolder(context, change);
    for (const path of change.files.keys()) scanned.add(path);
    if (checked.operation)
      report.shoots.push({
        path: `${folder}${SHOOT_FILE}`,
        operation: checked.operation,
        checks: checked.checks.length,
      });
    report.findings.push(...checked.findings);
  }
  // Every other file: the credentials scan alone — with a base only where the change added or changed
  // the file, as the generator scans only what it commits; a file main holds as it is is not the PR's.
  for (const [path, text] of [...files].sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (scanned.has(path) || base?.get(path) === text) continue;
    report.findings.push(...scanFile(path, text).map(credentialFinding));
  }
  return report;
}

/**
 * Loose Shoot files (not a landscape repo): every Shoot document in them checked as a create, plus the
 * credentials scan. Documents of other kinds are skipped; a broken one is a finding.
 */
export function checkShootFiles(files: ReadonlyMap<string, string>, context: ValidationContext): RepoCheckReport {
  const report: RepoCheckReport = { shoots: [], unchanged: 0, findings: [], others: [] };
  for (const [path, text] of files) {
    const documents = parseYamlDocuments(text, path);
    for (const document of documents) {
      if (document.error) {
        report.findings.push({
          path,
          line: document.line,
          check: YAML_CHECK,
          severity: 'deny',
          message: document.error.message,
        });
        continue;
      }
      const kind = (document.value as { kind?: unknown } | null)?.kind;
      if (kind !== 'Shoot') {
        report.others?.push({ path, kind: typeof kind === 'string' ? kind : undefined });
        continue;
      }
      const checks = checkShootChange(context, { after: document.value as Shoot });
      report.shoots.push({ path: documentPath(path, document.index), operation: 'CREATE', checks: checks.length });
      report.findings.push(...findingsOf(path, checks, document.line));
    }
    report.findings.push(...scanFile(path, text, documents).map(credentialFinding));
  }
  return report;
}

/**
 * What loose files held when none of it was a Shoot, for the error that says so: `found 1 Runtime and
 * 0 Shoots in x.yaml`, `found no YAML document in empty.yaml`.
 */
export function foundInsteadOfShoots(
  paths: readonly string[],
  others: readonly { kind: string | undefined }[],
): string {
  const where = paths.length > 3 ? `${paths.slice(0, 3).join(', ')} and ${paths.length - 3} more` : paths.join(', ');
  if (others.length === 0) return `found no YAML document in ${where}`;
  const counts = new Map<string, number>();
  for (const { kind } of others) counts.set(kind ?? '', (counts.get(kind ?? '') ?? 0) + 1);
  const kinds = [...counts].map(([kind, n]) =>
    kind === '' ? `${n} ${n === 1 ? 'document' : 'documents'} without a kind` : `${n} ${kind}${n === 1 ? '' : 's'}`,
  );
  return `found ${kinds.join(', ')} and 0 Shoots in ${where}`;
}

const documentPath = (path: string, index: number) => (index === 1 ? path : `${path} (document ${index})`);

/** `shoots/<name>/` → its files (repo path → text), for each folder that holds a shoot.yaml. */
function shootFolders(files: ReadonlyMap<string, string>): Map<string, Map<string, string>> {
  const folders = new Map<string, Map<string, string>>();
  for (const [path, text] of files) {
    const folder = folderOf(path);
    if (folder === undefined) continue;
    (folders.get(folder) ?? folders.set(folder, new Map()).get(folder))?.set(path, text);
  }
  for (const [folder, inFolder] of folders) if (!inFolder.has(`${folder}${SHOOT_FILE}`)) folders.delete(folder);
  return folders;
}

/** `shoots/<name>/` for a path under it. */
function folderOf(path: string): string | undefined {
  const [top, name, ...rest] = path.split('/');
  return top === SHOOTS_FOLDER && name && rest.length > 0 ? `${top}/${name}/` : undefined;
}

function sameFiles(a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>): boolean {
  return a.size === b.size && [...a].every(([path, text]) => b.get(path) === text);
}
