// What `kimops bootstrap` tells its reviewer (generator/bootstrap.ts gathers, this says it): per Shoot written, the
// fields where its render differs from the live Shoot in the Garden (rules/field-differences.ts: only what main sets,
// as the applier would write it), clustered by field; who leads each Shoot; what was not written and why. Three
// forms of one value: the PR body (a summary under GitHub's body limit), the full report committed with the Shoots
// (every Shoot, every field, both values), and JSON for `--report`. Pure; the same input gives the same bytes, so
// a second bootstrap over an unchanged landscape commits nothing.
import { printable } from '../model/printable.js';
import type { Shoot } from '../model/shoot.js';
import { formatCount, show } from '../rules/change-text.js';
import {
  clusterByField,
  differingFields,
  type FieldCluster,
  type FieldDifference,
} from '../rules/field-differences.js';
import type { Leader } from '../rules/leader.js';
import { tableCell } from '../rules/markdown-cell.js';
import { GITHUB_BODY_LIMIT, prMarker } from './propose/pr-body.js';

/** One Shoot the bootstrap writes into main. */
interface BootstrapShoot {
  shoot: string;
  /** `<namespace>/<name>` of its Runtime. */
  runtime: string;
  leader: Leader;
  /** Where the render differs from the live Shoot; empty when it renders exactly as it runs. */
  differences: FieldDifference[];
  /** Why the render could not be held against the live Shoot (then `differences` is empty and says nothing). */
  compareError?: string;
  /** The messages of the checks `kimops validate` fails its folder with. */
  failedChecks: string[];
}

/** A Runtime with a live Shoot that is not written, and why. */
export interface LeftOut {
  shoot: string;
  runtime: string;
  why: string;
}

export interface BootstrapReport {
  landscape: string;
  /** By Shoot name. */
  written: BootstrapShoot[];
  /** The differences of `written`, by field: most Shoots first. */
  clusters: FieldCluster[];
  /** Live Shoots no Runtime asks for: never written, never deleted. */
  withoutRuntime: string[];
  /** Runtimes whose Shoot is not live: no part of a bootstrap (`kimops generate` creates them). */
  withoutShoot: { runtime: string; shoot: string }[];
  /** Runtimes with a live Shoot that are not written (suspended, being deleted, failed to render). */
  leftOut: LeftOut[];
  /** False when some Runtimes could not be read: a Shoot listed without a Runtime may have one. */
  runtimesComplete: boolean;
}

/** A Shoot to report on: its render (as main will hold it) and the live Shoot it was rendered against. */
export interface RenderedLive {
  shoot: string;
  runtime: string;
  leader: Leader;
  render: Shoot;
  live: Shoot;
  failedChecks: string[];
}

export interface ReportInput {
  landscape: string;
  rendered: readonly RenderedLive[];
  withoutRuntime: readonly string[];
  withoutShoot: readonly { runtime: string; shoot: string }[];
  leftOut: readonly LeftOut[];
  runtimesComplete: boolean;
}

export function bootstrapReport(input: ReportInput): BootstrapReport {
  const written = input.rendered
    .map(({ shoot, runtime, leader, render, live, failedChecks }): BootstrapShoot => {
      try {
        return { shoot, runtime, leader, differences: differingFields(render, live), failedChecks };
      } catch (error) {
        // One Shoot that cannot be compared must not cost the others their report; it is named instead.
        const compareError = error instanceof Error ? error.message : String(error);
        return { shoot, runtime, leader, differences: [], compareError, failedChecks };
      }
    })
    .sort((a, b) => byCodeUnit(a.shoot, b.shoot));
  return {
    landscape: input.landscape,
    written,
    clusters: clusterByField(written.map((w) => [w.shoot, w.differences] as const)),
    withoutRuntime: [...input.withoutRuntime].sort(byCodeUnit),
    withoutShoot: [...input.withoutShoot].sort((a, b) => byCodeUnit(a.shoot, b.shoot)),
    leftOut: [...input.leftOut].sort((a, b) => byCodeUnit(a.shoot, b.shoot)),
    runtimesComplete: input.runtimesComplete,
  };
}

/** Where the full report is committed, beside the generator's full PR reports. */
export function reportPathOf(landscape: string): string {
  return `.kimops/reports/${landscape}-bootstrap.md`;
}

export interface BootstrapPullRequest {
  title: string;
  body: string;
}

/** Room kept for the markers the caller appends (heads written, class). */
const MARKERS_RESERVE = 400;

/** How much of each list the body shows; halved until the body fits. */
interface Caps {
  fields: number;
  names: number;
  list: number;
}
const FULL_CAPS: Caps = { fields: 200, names: 5, list: 100 };

/**
 * The PR body: what merging changes, the clusters, what was left out, the checks; each list cut to fit GitHub's
 * body limit (the full report, committed at `reportPath`, has everything).
 */
export function bootstrapPullRequest(
  report: BootstrapReport,
  pr: { branch: string; requiredChecks: readonly string[]; maxBodySize?: number },
): BootstrapPullRequest {
  const max = (pr.maxBodySize ?? GITHUB_BODY_LIMIT) - MARKERS_RESERVE;
  const title = `bootstrap: ${shootCount(report.written.length)} of ${report.landscape} from the Garden`;
  let caps = FULL_CAPS;
  let body = bodyWith(report, pr, caps);
  while (Buffer.byteLength(body) > max && caps.list > 1) {
    caps = { fields: Math.ceil(caps.fields / 2), names: Math.ceil(caps.names / 2), list: Math.ceil(caps.list / 2) };
    body = bodyWith(report, pr, caps);
  }
  return { title, body };
}

function bodyWith(
  report: BootstrapReport,
  pr: { branch: string; requiredChecks: readonly string[] },
  caps: Caps,
): string {
  const { written } = report;
  const kim = written.filter((w) => w.leader === 'kim');
  const kimops = written.filter((w) => w.leader === 'kimops');
  const differing = written.filter((w) => w.differences.length > 0);
  const checks =
    pr.requiredChecks.length === 0
      ? "kimops's own validation passes"
      : `the required checks pass: ${pr.requiredChecks.map((c) => `\`${c}\``).join(', ')}`;
  const lines = [
    prMarker(report.landscape, pr.branch),
    `**Bootstrap of landscape \`${report.landscape}\`: ${shootCount(written.length)} from the Garden into \`shoots/\`, in one commit.**`,
    `Waits for 1 approval by a code owner of its files, or by a collaborator where CODEOWNERS names none: a bootstrap is always reviewed, whatever kimops.yaml says. Merge it once approved and ${checks}.`,
    '',
    '### What merging changes',
    '',
    `- ${shootCount(kim.length)} KIM leads (\`kimops.kyma-project.io/leader: kim\` in their shoot.yaml): merging changes nothing live, the applier only shadows them.`,
    `- ${shootCount(kimops.length)} kimops leads: the applier takes them over from KIM and writes their differences below.${names(
      kimops.map((w) => w.shoot),
      caps.list,
    )}`,
    '',
    '### Where the renders differ from the Garden',
    '',
    `${formatCount(differing.length)} of ${shootCount(written.length)} differ from their live Shoot in ${formatCount(report.clusters.length)} ${plural(report.clusters.length, 'field')}; ${formatCount(written.length - differing.length)} render exactly as they run. Only the fields main sets count, as the applier would write them.`,
    ...clusterTable(report.clusters, caps),
    ...listSection(
      'Could not be compared',
      written.filter((w) => w.compareError !== undefined).map((w) => `${w.shoot}: ${w.compareError ?? ''}`),
      caps.list,
    ),
    '',
    '### Not written',
    '',
    `- **Live Shoots without a Runtime** (${formatCount(report.withoutRuntime.length)}): not written, never deleted.${names(report.withoutRuntime, caps.list)}`,
    ...(report.runtimesComplete
      ? []
      : ['  Some Runtimes could not be read: a Shoot listed here may have a Runtime; fix the input and run again.']),
    `- **Runtimes without a live Shoot** (${formatCount(report.withoutShoot.length)}): no part of a bootstrap; \`kimops generate\` creates them.${names(
      report.withoutShoot.map((r) => `${r.shoot} (${r.runtime})`),
      caps.list,
    )}`,
    `- **Left out** (${formatCount(report.leftOut.length)}).${names(
      report.leftOut.map((l) => `${l.shoot} (${l.runtime}): ${l.why}`),
      caps.list,
    )}`,
    '',
    '### Checks',
    '',
    ...checksSection(written, caps.list),
    '',
    `The full report — every Shoot, its leader and each differing field with both values — is \`${reportPathOf(report.landscape)}\` on this branch.`,
    'To undo: close this PR; once merged, `git revert` its merge commit (for Shoots KIM leads nothing live changed).',
  ];
  return `${lines.join('\n')}\n`;
}

function clusterTable(clusters: readonly FieldCluster[], caps: Caps): string[] {
  if (clusters.length === 0) return [];
  const shown = clusters.slice(0, caps.fields);
  return [
    '',
    '| field | Shoots | e.g. |',
    '|---|---:|---|',
    ...shown.map(
      (c) =>
        `| \`${tableCell(c.path)}\` | ${formatCount(c.count)} | ${tableCell(c.shoots.slice(0, caps.names).join(', '))}${c.count > caps.names ? ', …' : ''} |`,
    ),
    ...(clusters.length > shown.length
      ? ['', `_${formatCount(clusters.length - shown.length)} more fields only in the full report._`]
      : []),
  ];
}

function checksSection(written: readonly BootstrapShoot[], cap: number): string[] {
  const failed = written.filter((w) => w.failedChecks.length > 0);
  if (failed.length === 0) return [`\`kimops validate\` passes every Shoot folder (${shootCount(written.length)}).`];
  return [
    `\`kimops validate\` fails ${shootCount(failed.length)}; the PR is blocked until they pass:`,
    ...failed.slice(0, cap).map((w) => `- ${tableCell(w.shoot)}: ${tableCell(w.failedChecks.join('; '))}`),
    ...(failed.length > cap ? [`- … ${formatCount(failed.length - cap)} more in the full report`] : []),
  ];
}

function listSection(heading: string, items: readonly string[], cap: number): string[] {
  if (items.length === 0) return [];
  return ['', `**${heading}** (${formatCount(items.length)}):${names(items, cap)}`];
}

/** ` a, b, c and 12 more` — the first `cap` items, one line. */
function names(items: readonly string[], cap: number): string {
  if (items.length === 0) return '';
  const shown = items.slice(0, cap).map(tableCell);
  return ` ${shown.join(', ')}${items.length > cap ? ` and ${formatCount(items.length - cap)} more` : ''}`;
}

/** The whole report as Markdown: every cluster with all its Shoots, every Shoot with its leader and values. */
export function fullReport(report: BootstrapReport): string {
  const lines = [
    `# Bootstrap of landscape ${report.landscape}`,
    '',
    `${shootCount(report.written.length)} written; ${formatCount(report.clusters.length)} ${plural(report.clusters.length, 'field')} differ from the Garden.`,
    '',
    '## Differences by field',
    '',
    ...report.clusters.flatMap((c) => [`- \`${c.path}\` (${formatCount(c.count)}): ${c.shoots.join(', ')}`]),
    '',
    '## Shoots written',
    '',
    ...report.written.flatMap((w) => [
      `### ${w.shoot}`,
      '',
      `Runtime ${w.runtime}; led by ${w.leader === 'kim' ? 'KIM' : 'kimops'}.`,
      ...(w.compareError ? [`Could not be compared: ${w.compareError}`] : []),
      ...(w.differences.length === 0 && !w.compareError ? ['Renders exactly as it runs.'] : []),
      // One line per field: a value's line breaks are escaped (model/printable.ts).
      ...w.differences.map((d) => `- \`${d.path}\`: main ${printable(show(d.main))}, live ${printable(show(d.live))}`),
      ...(w.failedChecks.length > 0 ? [`Failed checks: ${w.failedChecks.join('; ')}`] : []),
      '',
    ]),
    '## Live Shoots without a Runtime (not written, never deleted)',
    '',
    ...bullets(report.withoutRuntime),
    ...(report.runtimesComplete
      ? []
      : ['Some Runtimes could not be read: a Shoot listed here may have a Runtime.', '']),
    '## Runtimes without a live Shoot (kimops generate creates them)',
    '',
    ...bullets(report.withoutShoot.map((r) => `${r.shoot} (${r.runtime})`)),
    '## Left out',
    '',
    ...bullets(report.leftOut.map((l) => `${l.shoot} (${l.runtime}): ${l.why}`)),
  ];
  return `${lines.join('\n').trimEnd()}\n`;
}

function bullets(items: readonly string[]): string[] {
  return items.length === 0 ? ['None.', ''] : [...items.map((item) => `- ${item}`), ''];
}

/** The report for `--report`: the same value, as JSON a script reads. */
export function reportJson(report: BootstrapReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}

const plural = (count: number, word: string) => (count === 1 ? word : `${word}s`);
const shootCount = (count: number) => `${formatCount(count)} ${plural(count, 'Shoot')}`;

function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
