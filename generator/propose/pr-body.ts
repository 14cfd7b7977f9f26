// The pull request a reviewer reads: what changes, why it has its class, whether it validated, where
// it came from and how to undo it — for one Shoot or for a rollout wave. Bodies are capped under
// GitHub's limit by shortening the least important sections; the untruncated text is returned as
// `fullReport` for the caller to commit on the branch. Same input, same bytes.
import { createTwoFilesPatch } from 'diff';
import type { Shoot } from '../../model/shoot.js';
import { toCanonicalYaml } from '../../rules/canonical-yaml.js';
import { withoutServerFields } from '../../rules/landscape-layout.js';
import { SHOOT_FILE, SHOOTS_FOLDER } from '../../model/contract.js';
import type { ChangeClass } from './classify.js';
import { describeChange, formatCount } from '../../rules/change-text.js';
import { clusterChanges } from './clusters.js';
import type { FieldChange } from '../../rules/semantic-diff.js';
import type { CheckResult } from './merge-policy.js';

/** GitHub refuses longer PR bodies and comments (Atlantis splits its plans at the same number). */
export const GITHUB_BODY_LIMIT = 65_535;

/** Room kept for the line that counts dropped sections. */
const OMITTED_NOTE_RESERVE = 100;

/** Where full reports live on the PR branch. */
const REPORTS_FOLDER = '.kimops/reports';

export interface ShootProposal {
  shoot: string;
  /** `absent`: no Runtime was found for a Shoot deleted from main; `name` is then the runtime id the Shoot records, if any. */
  runtime: { namespace: string; name: string; generation?: number; absent?: true };
  classification: ChangeClass;
  before?: Shoot;
  after?: Shoot;
  checks: readonly CheckResult[];
}

export interface PullRequestInput {
  landscape: string;
  /** The PR's head branch; with the landscape it identifies the PR (hidden marker). */
  branch: string;
  proposals: readonly ShootProposal[];
  /** Present for a rollout PR: one wave of a landscape-wide change, and how many Shoots wait for later waves. */
  rollout?: { name: string; later: number };
  /** Body size limit in UTF-8 bytes; GitHub's by default. */
  maxBodySize?: number;
}

export interface RenderedPullRequest {
  title: string;
  body: string;
  /** The whole report, never truncated: the caller commits it at `reportPath` on the branch. */
  fullReport: string;
  reportPath: string;
  truncated: boolean;
}

/** A block of the body: head and tail stay whole; lines may be cut when the body is too long. */
interface Section {
  essential: boolean;
  head: string[];
  lines: string[];
  tail: string[];
}

export function renderPullRequest(input: PullRequestInput): RenderedPullRequest {
  const { landscape, branch, proposals, rollout } = input;
  const [first] = proposals;
  if (!first) throw new RangeError('renderPullRequest needs at least one proposal');
  const reportPath = `${REPORTS_FOLDER}/${rollout ? `rollout-${rollout.name}` : first.shoot}.md`;
  const title = rollout
    ? `[${landscape}] rollout ${rollout.name}: ${formatCount(proposals.length)} ${proposals.length === 1 ? 'shoot' : 'shoots'}${rollout.later > 0 ? `, ${formatCount(rollout.later)} in later waves` : ''}`
    : `[${landscape}] ${classLabel(first.classification)}: ${first.shoot}`;
  const marker = prMarker(landscape, branch);

  const heading = essential([
    `## ${title.slice(landscape.length + 3)}`,
    '',
    `Landscape \`${landscape}\`, branch \`${branch}\`.`,
  ]);
  const summary: Section = {
    essential: !rollout,
    head: ['| shoot | Runtime | class | checks |', '|---|---|---|---|'],
    lines: proposals.map(summaryRow),
    tail: [],
  };
  const why: Section = {
    essential: true,
    head: ['**Why this class**', ''],
    lines: classReasons(proposals).map((reason) => `- ${reason}`),
    tail: [],
  };
  const changes: Section = {
    essential: false,
    head: ['### Changes', ''],
    lines: rollout ? clusterLines(proposals) : first.classification.changes.map(changeLine),
    tail: [],
  };
  const validation: Section = {
    essential: false,
    head: ['### Validation', ''],
    lines: validationLines(proposals),
    tail: [],
  };
  // Document order is also the order in which sections get room when the body is too long: a
  // rollout's clustered changes matter more than its table of a thousand Shoots.
  const sections: Section[] = [
    heading,
    ...(rollout ? [why, changes, validation, summary] : [summary, why, changes, validation]),
    ...proposals.map(yamlDiffSection),
    essential(['### Rollback', '', ...rollbackLines(proposals)]),
  ];

  const fullReport = `${sections.map((s) => render(s, s.lines.length)).join('\n\n')}\n`;
  const limit = input.maxBodySize ?? GITHUB_BODY_LIMIT;
  const whole = `${marker}\n${fullReport}`;
  if (size(whole) <= limit) return { title, body: whole, fullReport, reportPath, truncated: false };

  const note = `> **This body is shortened to fit GitHub's limit.** The full report is \`${reportPath}\` on branch \`${branch}\`.`;
  // Essential sections get room first (the heading and rollback are a few lines), then the others in order.
  let budget = limit - size(`${marker}\n${note}\n\n\n`) - OMITTED_NOTE_RESERVE;
  const texts = new Map<Section, string>();
  for (const section of [...sections.filter((s) => s.essential), ...sections.filter((s) => !s.essential)]) {
    const text = fitted(section, budget - 2);
    texts.set(section, text);
    budget -= text === '' ? 0 : size(text) + 2;
  }
  const omitted = sections.filter((section) => texts.get(section) === '').length;
  const kept = sections.map((section) => texts.get(section) ?? '').filter((text) => text !== '');
  // Dropped sections are counted just before the rollback, the last section.
  if (omitted > 0)
    kept.splice(
      -1,
      0,
      `_${formatCount(omitted)} more ${omitted === 1 ? 'section is' : 'sections are'} only in the full report._`,
    );
  const body = `${marker}\n${note}\n\n${kept.join('\n\n')}\n`;
  return { title, body, fullReport, reportPath, truncated: true };
}

/** The hidden first line of a kimops PR body: how a forge adapter finds the PR (or sticky comment) again. */
export function prMarker(landscape: string, branch: string): string {
  return `<!-- kimops:pr landscape=${landscape} branch=${branch} -->`;
}

function essential(lines: string[]): Section {
  return { essential: true, head: lines, lines: [], tail: [] };
}

function render(section: Section, count: number): string {
  const cut = section.lines.length - count;
  // The blank line ends a table, which would otherwise take the note for one more row.
  const elided = cut > 0 ? ['', `… ${formatCount(cut)} more ${cut === 1 ? 'line' : 'lines'} in the full report`] : [];
  return [...section.head, ...section.lines.slice(0, count), ...elided, ...section.tail].join('\n');
}

/** The section with as many lines as fit in `budget` bytes, or '' when not even its frame fits. */
function fitted(section: Section, budget: number): string {
  const full = render(section, section.lines.length);
  if (size(full) <= budget) return full;
  let count = 0;
  let used = size(render(section, 0));
  while (count < section.lines.length && used + size(section.lines[count] as string) + 1 <= budget) {
    used += size(section.lines[count] as string) + 1;
    count++;
  }
  const text = render(section, count);
  return size(text) <= budget ? text : '';
}

function summaryRow({ shoot, runtime, classification, checks }: ShootProposal): string {
  return `| ${cell(code(shoot))} | ${runtimeCell(runtime)} | ${classLabel(classification)} | ${checksCell(checks)} |`;
}

/** The Runtime as far as it is known: a Runtime that is gone is not given a made-up namespace and name. */
function runtimeCell(runtime: ShootProposal['runtime']): string {
  if (runtime.absent) return runtime.name === '' ? 'none found' : `none found (runtime id ${cell(code(runtime.name))})`;
  const generation = runtime.generation === undefined ? '' : ` (generation ${runtime.generation})`;
  return `${cell(code(runtime.namespace === '' ? runtime.name : `${runtime.namespace}/${runtime.name}`))}${generation}`;
}

function classLabel({ class: name, disruptive }: ChangeClass): string {
  if (name === 'update') return disruptive ? 'update (disruptive)' : 'update (non-disruptive)';
  if (name === 'immutable') return 'immutable (blocked)';
  if (name === 'delete' && disruptive) return 'delete (Runtime absent)';
  return name;
}

function checksCell(checks: readonly CheckResult[]): string {
  if (checks.length === 0) return 'none';
  const failed = checks.filter((check) => !check.passed);
  const warned = checks.filter((check) => check.passed && check.warning);
  if (failed.length > 0) return `❌ ${failed.map((check) => check.name).join(', ')} failed`;
  return `✅ ${checks.length}/${checks.length} passed${warned.length > 0 ? `, ⚠️ ${warned.map((check) => check.name).join(', ')}` : ''}`;
}

function mark(check: CheckResult): string {
  return !check.passed ? '❌' : check.warning ? '⚠️' : '✅';
}

/** Each distinct reason once, with the Shoots it applies to when there are several. */
function classReasons(proposals: readonly ShootProposal[]): string[] {
  if (proposals.length === 1) return (proposals[0] as ShootProposal).classification.reasons;
  const byReason = new Map<string, string[]>();
  for (const { shoot, classification } of proposals) {
    for (const reason of classification.reasons) byReason.set(reason, [...(byReason.get(reason) ?? []), shoot]);
  }
  return [...byReason].map(
    ([reason, shoots]) => `${formatCount(shoots.length)} ${shoots.length === 1 ? 'shoot' : 'shoots'}: ${reason}`,
  );
}

/** `- \`spec.provider.workers[cpu-worker-0].maximum\` 20 → 25`: the path stands out, the values read as text. */
function changeLine(change: FieldChange): string {
  return `- ${code(change.path)}${describeChange(change).slice(change.path.length)}`;
}

function clusterLines(proposals: readonly ShootProposal[]): string[] {
  const clusters = clusterChanges(
    proposals.map(({ shoot, classification }) => ({ shoot, changes: classification.changes })),
  );
  return clusters.map((cluster) => `- ${code(cluster.line)}`);
}

/** Every check of one Shoot; for a rollout, the failures by Shoot and a count of the rest. */
function validationLines(proposals: readonly ShootProposal[]): string[] {
  if (proposals.length === 1) {
    const { checks } = proposals[0] as ShootProposal;
    if (checks.length === 0) return ['- no checks ran'];
    return checks.flatMap((check) => [
      `- ${mark(check)} ${check.name}`,
      ...check.messages.map((message) => `  - ${message}`),
    ]);
  }
  const failing = proposals.filter(({ checks }) => checks.some((check) => !check.passed));
  const passing = proposals.length - failing.length;
  return [
    ...(passing > 0
      ? [`- ✅ ${formatCount(passing)} ${passing === 1 ? 'shoot passes' : 'shoots pass'} every check`]
      : []),
    ...failing.flatMap(({ shoot, checks }) =>
      checks
        .filter((check) => !check.passed)
        .flatMap((check) => [
          `- ❌ ${code(shoot)} ${check.name}`,
          ...check.messages.map((message) => `  - ${message}`),
        ]),
    ),
  ];
}

function yamlDiffSection({ shoot, before, after }: ShootProposal): Section {
  const path = `${SHOOTS_FOLDER}/${shoot}/${SHOOT_FILE}`;
  const yaml = (object: Shoot | undefined) => (object ? toCanonicalYaml(withoutServerFields(object)) : '');
  const patch = createTwoFilesPatch(
    before ? `a/${path}` : '/dev/null',
    after ? `b/${path}` : '/dev/null',
    yaml(before),
    yaml(after),
    '',
    '',
    { context: 3 },
  );
  // The first line is diff's "====" separator; the ---/+++ headers stay.
  const lines = patch
    .split('\n')
    .slice(1)
    .filter((line, i, all) => line !== '' || i < all.length - 1);
  return {
    essential: false,
    head: [`<details><summary>YAML diff: ${path}</summary>`, '', '```diff'],
    lines,
    tail: ['```', '', '</details>'],
  };
}

function rollbackLines(proposals: readonly ShootProposal[]): string[] {
  const classes = new Set(proposals.map((p) => p.classification.class));
  const caveats = [
    ...(classes.has('create')
      ? ['- Reverting a create deletes the new cluster (subject to the mass-deletion guard).']
      : []),
    ...(classes.has('delete')
      ? [
          '- Reverting a delete creates a new, empty cluster of the same name: the deleted cluster and its data do not come back.',
        ]
      : []),
    ...([...classes].some((c) => c === 'update' || c === 'rollout' || c === 'adopt')
      ? [
          '- Versions never go down and zones are never removed: after a revert the applier keeps the live Kubernetes and machine-image versions and zones (it says so), as Gardener allows nothing else.',
        ]
      : []),
  ];
  return [
    "After this PR is merged, revert its merge commit on `main` in a new PR: `git revert -m 1 <this PR's merge commit>` " +
      '(`git revert <commit>` if it was squash-merged). Once the revert is merged, the applier returns the Shoot to the previous manifest.',
    ...(caveats.length > 0 ? ['', ...caveats] : []),
  ];
}

/** A Markdown code span that survives backticks in the text. */
function code(text: string): string {
  const fence = text.includes('`') ? '``' : '`';
  return `${fence}${fence.length > 1 ? ' ' : ''}${text}${fence.length > 1 ? ' ' : ''}${fence}`;
}

function cell(text: string): string {
  return text.replaceAll('|', '\\|');
}

function size(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}
