// `kimops validate --output github`'s job summary: a Markdown table for `$GITHUB_STEP_SUMMARY`, one row per
// checked Shoot (its operation, its result, its findings) and one per other file with findings. Pure: the report
// in, Markdown out. Shoots with findings come first; passed ones are listed up to a limit, as GitHub takes at
// most 1 MiB of summary per step and nobody reads 10,000 green rows.
import { SHOOTS_FOLDER } from '../model/contract.js';
import { tableCell } from '../rules/markdown-cell.js';
import type { Finding, RepoCheckReport } from '../generator/validate/repo-check.js';

/** Rows of Shoots that passed without a finding, at most; the rest are counted. */
const MAX_PASSED_ROWS = 100;
/** Findings shown in one cell; the rest are counted (the annotations and the log have them all). */
const MAX_FINDINGS_PER_ROW = 10;
/** Rows with findings, at most. */
const MAX_FINDING_ROWS = 500;

export function stepSummary(report: RepoCheckReport, headline: string): string {
  const byFile = new Map<string, Finding[]>();
  const byShoot = new Map<string, Finding[]>();
  const shootFolders = new Set(report.shoots.map((shoot) => folderOf(shoot.path)));
  for (const finding of report.findings) {
    const folder = folderOf(finding.path);
    const into = folder !== undefined && shootFolders.has(folder) ? byShoot : byFile;
    const key = folder !== undefined && shootFolders.has(folder) ? folder : finding.path;
    into.set(key, [...(into.get(key) ?? []), finding]);
  }
  const rows: { findings: Finding[]; cells: string[] }[] = [];
  for (const shoot of report.shoots) {
    const folder = folderOf(shoot.path) ?? shoot.path;
    const findings = byShoot.get(folder) ?? [];
    rows.push({ findings, cells: [code(nameOf(folder)), shoot.operation.toLowerCase(), result(findings)] });
  }
  for (const [path, findings] of [...byFile].sort(([a], [b]) => (a < b ? -1 : 1)))
    rows.push({ findings, cells: [code(path), '–', result(findings)] });

  const withFindings = rows.filter((row) => row.findings.length > 0);
  const passed = rows.filter((row) => row.findings.length === 0);
  const shown = [...withFindings.slice(0, MAX_FINDING_ROWS), ...passed.slice(0, MAX_PASSED_ROWS)];
  const lines = ['### kimops validate', '', tableCell(headline), ''];
  if (rows.length === 0) return `${[...lines, 'Nothing to check: no Shoot changed.'].join('\n')}\n`;
  lines.push('| Shoot | operation | result | findings |', '| --- | --- | --- | --- |');
  for (const row of shown) lines.push(`| ${[...row.cells, findingsCell(row.findings)].join(' | ')} |`);
  const left = rows.length - shown.length;
  if (left > 0)
    lines.push('', `${left} more rows not shown (${Math.max(0, passed.length - MAX_PASSED_ROWS)} of them passed).`);
  return `${lines.join('\n')}\n`;
}

/** `shoots/<name>/` of a path under shoots/, else undefined. */
function folderOf(path: string): string | undefined {
  const match = new RegExp(`^${SHOOTS_FOLDER}/([^/]+)/`).exec(path);
  return match ? match[0] : undefined;
}

function nameOf(folder: string): string {
  return folder.slice(SHOOTS_FOLDER.length + 1).replace(/\/$/, '');
}

function result(findings: readonly Finding[]): string {
  const denied = findings.filter((f) => f.severity === 'deny').length;
  if (denied > 0) return `❌ denied (${denied})`;
  if (findings.length > 0) return `⚠️ ${findings.length} ${findings.length === 1 ? 'warning' : 'warnings'}`;
  return '✅ passed';
}

function findingsCell(findings: readonly Finding[]): string {
  const shown = findings.slice(0, MAX_FINDINGS_PER_ROW).map((f) => {
    const where = f.path.split('/').pop() ?? f.path;
    return `${f.severity === 'deny' ? '✗' : '!'} **${tableCell(f.check)}** (${tableCell(where)}${f.line === undefined ? '' : `:${f.line}`}): ${tableCell(f.message)}`;
  });
  if (findings.length > shown.length) shown.push(`… ${findings.length - shown.length} more`);
  return shown.join('<br>');
}

function code(text: string): string {
  return `\`${tableCell(text).replaceAll('`', "'")}\``;
}
