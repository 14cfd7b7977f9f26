// `kimops compare --output text`: the ComparisonReport as `flux diff` shows a change set — a line per Shoot that
// needs a look, its fields under it — then the fields clustered across Shoots, and one summary line. Pure.
import { formatCount, show } from '../rules/change-text.js';
import type { FieldDifference } from '../rules/field-differences.js';
import { MAIN_BRANCH } from '../model/contract.js';
import type { ComparisonReport, FieldSummary } from './compare.js';

export function comparisonText(report: ComparisonReport): string {
  const lines: string[] = [];
  const at = (name: string) => `► Shoot/${report.namespace}/${name}`;
  for (const shoot of report.shoots) {
    if (shoot.differences.length + shoot.kept.length === 0) continue;
    const owner = shoot.managedByKimops ? 'applied by kimops' : 'not applied by kimops';
    // Who writes the differences, and when: KIM's Shoots get main's values only on a cut-over (ADR 0011).
    const writer = shoot.leader === 'kim' ? 'a cut-over to kimops would change' : 'the next apply changes';
    lines.push(
      `${at(shoot.name)} (led by ${shoot.leader}, ${owner}): ${writer} ${shoot.differences.length} field(s)` +
        (shoot.kept.length > 0 ? `, ${shoot.kept.length} kept live` : ''),
    );
    for (const difference of shoot.differences) lines.push(`    ${valuesOf(difference)}`);
    for (const kept of shoot.kept) lines.push(`    kept ${valuesOf(kept)}: ${kept.why}`);
  }
  for (const { name, leader } of report.onlyInMain)
    lines.push(
      `${at(name)} (led by ${leader}): only in ${MAIN_BRANCH}, not live: ${leader === 'kim' ? 'nothing creates it while KIM leads, a cut-over to kimops would' : 'the next apply creates it'}`,
    );
  for (const { name, managedByKimops } of report.onlyLive)
    lines.push(
      `${at(name)}: only live, not in ${MAIN_BRANCH} (${managedByKimops ? 'applied by kimops: an apply would delete it' : 'not applied by kimops: never touched'})`,
    );
  for (const { name, problem } of report.unreadable) lines.push(`${at(name)}: not compared: ${problem}`);
  for (const name of report.notFound ?? []) lines.push(`${at(name)}: neither in ${MAIN_BRANCH} nor live`);
  lines.push(...clusterLines('Fields that differ', report.summary.fields, report.summary.differing));
  lines.push(...clusterLines('Fields where the live value is kept', report.summary.kept, report.summary.compared));
  lines.push(comparisonSummary(report));
  return `${lines.join('\n')}\n`;
}

/** One line: what was compared, and how many Shoots are in which state (a watching compare logs it per pass). */
export function comparisonSummary(report: ComparisonReport): string {
  const s = report.summary;
  return (
    `compare of ${MAIN_BRANCH} at ${report.commit.slice(0, 12)} with ${report.namespace}: ${formatCount(s.inMain)} in ${MAIN_BRANCH}, ` +
    `${formatCount(s.live)} live; ${formatCount(s.differing)} differ, ${formatCount(s.compared - s.differing)} same, ` +
    `${formatCount(s.onlyInMain)} only in ${MAIN_BRANCH}, ${formatCount(s.onlyLive)} only live, ` +
    `${formatCount(s.unreadable)} not compared${report.notFound?.length ? `, ${formatCount(report.notFound.length)} not found` : ''}; nothing written`
  );
}

/** `path: main <value>, live <value>`; a side that does not set the field reads `(unset)`. */
function valuesOf(difference: FieldDifference): string {
  return `${difference.path}: main ${show(difference.main)}, live ${show(difference.live)}`;
}

/** A heading and a line per field: how many of `of` Shoots, and a few of them. */
function clusterLines(title: string, fields: readonly FieldSummary[], of: number): string[] {
  if (fields.length === 0) return [];
  const width = Math.max(...fields.map((f) => formatCount(f.count).length));
  return [
    `${title} (Shoots of ${formatCount(of)}):`,
    ...fields.map(
      (f) =>
        `  ${formatCount(f.count).padStart(width)}  ${f.path} (${f.examples.join(', ')}${f.count > f.examples.length ? ', …' : ''})`,
    ),
  ];
}
