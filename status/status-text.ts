// `kimops status` as text, in the manner of `flux get`: one summary line first, a line per source that could not
// be read, then a row per Runtime (and per Shoot no Runtime names) in aligned columns. `wide` adds the Runtime ID,
// the Shoot, main's tree, the drifted fields and the kubeconfig's expiry. Times are shown as ages relative to
// `now` (5m, 2h, 3d). Every cell is one printable line, whatever a message holds. Pure.
import { MAIN_BRANCH } from '../model/contract.js';
import { printable } from '../model/printable.js';
import { formatCount } from '../rules/change-text.js';
import type { LandscapeStatus, RuntimeRow } from './landscape-status.js';

export type TextFormat = 'text' | 'wide';

/** A cell longer than this is cut: the MESSAGE column is for the eye, `-o json` has it whole. */
const CELL_LIMIT = 160;
const GAP = '   ';
const SHORT_OID = 12;

export function statusText(status: LandscapeStatus, format: TextFormat, now: Date): string {
  const lines = [summaryLine(status, now)];
  for (const source of status.sources)
    if (source.state === 'failed') lines.push(`${source.name} could not be read: ${printable(source.message ?? '')}`);
  const wide = format === 'wide';
  const header = [
    'NAME',
    'STATE',
    'STAGE',
    'PR',
    'APPLIED',
    'LAST OPERATION',
    ...(wide ? ['RUNTIME ID', 'SHOOT', 'MAIN TREE', 'DRIFT', 'KUBECONFIG EXPIRES'] : []),
    'MESSAGE',
  ];
  const rows = status.rows.map((row) => [
    row.key,
    row.runtime ? (row.runtime.state ?? 'Unknown') : '-',
    row.stage,
    prCell(row, now),
    row.sync + (row.applied?.commit ? ` ${row.applied.commit}` : ''),
    operationCell(row, now),
    ...(wide
      ? [
          row.runtime?.id ?? '',
          row.shoot,
          row.mainTree ?? '',
          (row.drift ?? []).join(', '),
          row.kubeconfig ? untilCell(row.kubeconfig.expiresAt, now) : '',
        ]
      : []),
    messageCell(row),
  ]);
  lines.push('', ...table([header, ...rows.map((cells) => cells.map(cell))]));
  return `${lines.join('\n')}\n`;
}

/**
 * `landscape dev: 12 Runtimes: 9 Ready, 2 Pending, 1 Failed; 3 PRs open (oldest 2h); main 1a2b3c4d5e6f; 1 out of
 * sync, 0 drifted; 0 kubeconfigs expiring`: what a reader needs first, and what a watching loop logs.
 */
export function summaryLine(status: LandscapeStatus, now: Date): string {
  const s = status.summary;
  const read = (name: string) => status.sources.some((source) => source.name === name && source.state === 'read');
  const states = Object.entries(s.byState).map(([state, count]) => `${formatCount(count ?? 0)} ${state}`);
  const runtimes = read('kcp')
    ? `${plural(s.runtimes, 'Runtime')}${states.length > 0 ? `: ${states.join(', ')}` : ''}`
    : 'Runtimes not read';
  const shoots = s.orphanedShoots > 0 ? `; ${plural(s.orphanedShoots, 'Shoot')} without a Runtime` : '';
  const oldest = s.oldestPullRequestOpenedAt && ` (oldest ${ageOf(s.oldestPullRequestOpenedAt, now)})`;
  const prs = read('forge') ? `${plural(s.openPullRequests, 'PR')} open${oldest ?? ''}` : 'PRs not read';
  const main = status.main ? `${MAIN_BRANCH} ${status.main.commit.slice(0, SHORT_OID)}` : `${MAIN_BRANCH} not read`;
  const kubeconfigs = read('kubeconfigs')
    ? `${plural(s.kubeconfigsExpiring, 'kubeconfig')} expiring`
    : 'kubeconfigs not read';
  // Sync needs main and the Garden: without either, zeros would read as a landscape in sync.
  const sync =
    status.main && read('garden')
      ? `${formatCount(s.outOfSync)} out of sync, ${formatCount(s.drifted)} drifted`
      : 'sync not read';
  return (
    `landscape ${status.landscape}: ${runtimes}${shoots}; ${prs}; ${main}; ` +
    `${sync}, ${formatCount(s.failed)} failed; ${kubeconfigs}`
  );
}

function prCell(row: RuntimeRow, now: Date): string {
  const pr = row.pr;
  if (!pr) return '';
  const parts = [`#${pr.number}`];
  if (pr.class !== undefined) parts.push(pr.class);
  if (pr.state === 'merged') parts.push('merged');
  else if (pr.openedAt !== undefined) parts.push(ageOf(pr.openedAt, now));
  if (pr.waitsFor !== undefined) parts.push(`(${pr.waitsFor})`);
  return parts.join(' ');
}

function operationCell(row: RuntimeRow, now: Date): string {
  const operation = row.lastOperation;
  if (!operation) return '';
  const progress = operation.state === 'Succeeded' ? '' : ` ${operation.progress}%`;
  return `${operation.type} ${operation.state}${progress}${operation.at ? ` ${ageOf(operation.at, now)}` : ''}`;
}

function messageCell(row: RuntimeRow): string {
  if (row.failure) return `${row.failure.reason}: ${row.failure.message}`;
  if (row.sync === 'drifted') return `live Shoot differs from ${MAIN_BRANCH} in ${(row.drift ?? []).join(', ')}`;
  return '';
}

/** One line, control characters escaped, cut to CELL_LIMIT. */
function cell(text: string): string {
  const line = printable(text.replace(/\s*\n\s*/g, ' '));
  return line.length <= CELL_LIMIT ? line : `${line.slice(0, CELL_LIMIT - 1)}…`;
}

/** Columns padded to their widest cell; the last is not padded. */
function table(rows: readonly string[][]): string[] {
  const widths = (rows[0] ?? []).map((_, column) => Math.max(...rows.map((cells) => (cells[column] ?? '').length)));
  return rows.map((cells) =>
    cells
      .map((text, column) => (column === cells.length - 1 ? text : text.padEnd(widths[column] ?? 0)))
      .join(GAP)
      .trimEnd(),
  );
}

/** How long ago, as kubectl's AGE column: 45s, 5m, 2h, 3d. */
function ageOf(time: string, now: Date): string {
  return duration((now.getTime() - Date.parse(time)) / 1000);
}

/** How long until (`in 5h`), or `expired 2m ago`. */
function untilCell(time: string, now: Date): string {
  const seconds = (Date.parse(time) - now.getTime()) / 1000;
  return seconds >= 0 ? `in ${duration(seconds)}` : `expired ${duration(-seconds)} ago`;
}

function duration(seconds: number): string {
  if (!Number.isFinite(seconds)) return '?';
  const s = Math.max(0, Math.floor(seconds));
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.floor(s / 60)}m`;
  if (s < 172_800) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86_400)}d`;
}

function plural(count: number, noun: string): string {
  return `${formatCount(count)} ${noun}${count === 1 ? '' : 's'}`;
}
