// One Shoot folder's change, checked the one way kimops checks it: the generator for the folder it
// commits (every file, companions too) against main, and `kimops validate` for each folder a checkout
// changed against its base. So a PR's `kimops/validate` status and merge decision are the verdict
// `kimops validate` gives on a checkout of its head. The checks: the folder's shoot.yaml read (before
// and after), the Shoot schema and the policies with the change's operation (checks.ts), and the
// credentials scan over every file the change writes. Pure: the caller reads the files.
import type { Shoot } from '../../model/shoot.js';
import { parseYamlDocuments, type YamlDocument } from '../../model/yaml-input.js';
import type { CheckResult } from '../propose/merge-policy.js';
import { SHOOT_FILE, SHOOTS_FOLDER } from '../../model/contract.js';
import { checkShootChange, operationOf, type ValidationContext } from './checks.js';
import { scanFile, type CredentialFinding } from './credentials.js';
import type { Operation } from './policy-file.js';

/** The check of the credentials scan, and of a Shoot file that cannot be read. */
const CREDENTIALS_CHECK = 'credentials';
export const YAML_CHECK = 'yaml';

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

export interface FolderChange {
  /** The Shoot's folder, `shoots/<name>/`. */
  folder: string;
  /** Its files after the change (repo path → text); none for a deletion. */
  files: ReadonlyMap<string, string>;
  /** Its files before the change, on main or at the base; none for a create. */
  base: ReadonlyMap<string, string>;
}

export interface FolderCheck {
  /** What the change does to the Shoot; absent when a shoot.yaml could not be read. */
  operation?: Operation;
  /** Every check that ran, passed or not: what a PR lists, its status sums up and its merge decision weighs. */
  checks: CheckResult[];
  /** The same verdict as findings at file and line: the failed checks (deny) and warnings, as `kimops validate` prints them. */
  findings: Finding[];
}

export function checkShootFolder(context: ValidationContext | undefined, change: FolderChange): FolderCheck {
  const shootPath = `${change.folder}${SHOOT_FILE}`;
  const result: FolderCheck = { checks: [], findings: [] };
  // Each file is parsed once: the Shoot's checks and the credentials scan read the same documents.
  const documents = new Map<string, YamlDocument[]>();
  for (const [path, text] of change.files)
    if (/\.(ya?ml|json)$/i.test(path)) documents.set(path, parseYamlDocuments(text, path));

  const unreadable: string[] = [];
  const readShoot = (read: readonly YamlDocument[] | undefined, atBase: boolean): Shoot | undefined => {
    if (read === undefined) return undefined;
    const problem = shootProblem(read);
    if (problem === undefined) return read[0]?.value as Shoot;
    const message = `${atBase ? 'at the base: ' : ''}${problem}`;
    unreadable.push(`${shootPath}: ${message}`);
    result.findings.push({ path: shootPath, check: YAML_CHECK, severity: 'deny', message });
    return undefined;
  };
  const baseText = change.base.get(shootPath);
  const after = readShoot(documents.get(shootPath) ?? (change.files.has(shootPath) ? [] : undefined), false);
  const before = readShoot(
    baseText === undefined ? undefined : parseYamlDocuments(baseText, `${shootPath} at the base`),
    true,
  );
  if (unreadable.length > 0) {
    result.checks.push({ name: YAML_CHECK, passed: false, messages: unreadable });
  } else if (after !== undefined || before !== undefined) {
    result.operation = operationOf({ before, after });
    const checks = checkShootChange(context, { before, after });
    result.checks.push(...checks);
    result.findings.push(...findingsOf(shootPath, checks));
  }

  if (change.files.size > 0) {
    const found = [...change.files]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .flatMap(([path, text]) => scanFile(path, text, documents.get(path)));
    result.checks.push({
      name: CREDENTIALS_CHECK,
      passed: found.length === 0,
      messages: found.map((f) => `${f.path}:${f.line}: ${f.message}`),
    });
    result.findings.push(...found.map(credentialFinding));
  }
  return result;
}

/**
 * The checks of a generator's proposal for one Shoot: its folder as the proposal commits it (`files`,
 * none for a deletion) against main's (`onMain`, absent for a create).
 */
export function checkProposedShoot(
  context: ValidationContext | undefined,
  shoot: string,
  files: ReadonlyMap<string, string>,
  onMain: ReadonlyMap<string, string> | undefined,
): CheckResult[] {
  return checkShootFolder(context, { folder: `${SHOOTS_FOLDER}/${shoot}/`, files, base: onMain ?? new Map() }).checks;
}

/** Why the documents of a shoot.yaml are no Shoot, or undefined when they are one. */
function shootProblem(documents: readonly YamlDocument[]): string | undefined {
  const [document] = documents;
  if (documents.length !== 1) return `holds ${documents.length} YAML documents; a Shoot file holds exactly one`;
  if (document?.error) return document.error.message;
  if ((document?.value as { kind?: unknown } | null)?.kind !== 'Shoot') return 'is not a Shoot (kind: Shoot)';
  return undefined;
}

/** Failed checks deny, warnings warn: one finding per message, at the file (and line) given. */
export function findingsOf(path: string, checks: readonly CheckResult[], line?: number): Finding[] {
  return checks
    .filter((check) => !check.passed || check.warning)
    .flatMap((check) =>
      (check.messages.length > 0 ? check.messages : [`${check.name} failed`]).map((message) => ({
        path,
        ...(line !== undefined && { line }),
        check: check.name,
        severity: check.passed ? ('warn' as const) : ('deny' as const),
        message,
      })),
    );
}

export function credentialFinding(finding: CredentialFinding): Finding {
  return {
    path: finding.path,
    line: finding.line,
    check: `${CREDENTIALS_CHECK} (${finding.rule})`,
    severity: 'deny',
    message: finding.message,
  };
}
