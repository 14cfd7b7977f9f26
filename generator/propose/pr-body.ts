// The pull request a reviewer reads: what happens to it (merged per which policy, waiting for whom, blocked by
// what), what changes, why it has its class, whether it validated, where it came from and how to undo it — for
// one Shoot or for a rollout wave. Identical diffs of a wave are shown once, with their Shoots; a create or delete
// is summarised (Runtime, plan, region, account, age), not listed field by field; kimops's bookkeeping
// annotations are left out of the changes. Bodies are capped under GitHub's limit by shortening the least
// important sections; the untruncated text is returned as `fullReport` for the caller to commit on the branch.
// Same input, same bytes. test/fixtures/pr-bodies/ holds a reviewed body of every class (pr-body.golden.test.ts).
import { createTwoFilesPatch } from 'diff';
import type { KimopsConfig } from '../../model/kimops-config.js';
import type { Shoot } from '../../model/shoot.js';
import { toCanonicalYaml } from '../../rules/canonical-yaml.js';
import { withoutServerFields } from '../../rules/landscape-layout.js';
import { SHOOT_FILE, SHOOTS_FOLDER, SKR_FOLDER } from '../../model/contract.js';
import { reviewedChanges, type ChangeClass } from './classify.js';
import { describeChange, formatCount } from '../../rules/change-text.js';
import { clusterChanges, rolloutSubject } from './clusters.js';
import type { FieldChange } from '../../rules/semantic-diff.js';
import { labelOf, type PullRequestLabel } from './labels.js';
import { mergeStatement } from './merge-statement.js';
import type { CheckResult } from './merge-policy.js';
import { shootSummary, type ProposalRuntime } from './shoot-summary.js';
import { skrChangeText, type SkrChange } from './skr-changes.js';
import { LEADER_LABEL } from '../../rules/leader.js';

/** GitHub refuses longer PR bodies and comments (Atlantis splits its plans at the same number). */
export const GITHUB_BODY_LIMIT = 65_535;

/** Room kept for the line that counts dropped sections. */
const OMITTED_NOTE_RESERVE = 100;

/** Where full reports live on the PR branch. */
const REPORTS_FOLDER = '.kimops/reports';

export interface ShootProposal {
  shoot: string;
  /** `absent`: no Runtime was found for a Shoot deleted from main; `name` is then the runtime id the Shoot records, if any. */
  runtime: ProposalRuntime;
  classification: ChangeClass;
  before?: Shoot;
  after?: Shoot;
  checks: readonly CheckResult[];
  /** What changes inside the cluster (its `skr/` files), whatever the class; none when nothing there changes. */
  skr?: readonly SkrChange[];
}

export interface PullRequestInput {
  landscape: string;
  /** The PR's head branch; with the landscape it identifies the PR (hidden marker). */
  branch: string;
  proposals: readonly ShootProposal[];
  /** Present for a rollout PR: one wave of a landscape-wide change, and how many Shoots wait for later waves. */
  rollout?: RolloutWave;
  /** What decides the merge: kimops.yaml's policy and the checks the branch requires (by name). */
  merge: { policy: KimopsConfig['mergePolicy']; requiredChecks: readonly string[] };
  /** Body size limit in UTF-8 bytes; GitHub's by default. */
  maxBodySize?: number;
}

interface RolloutWave {
  name: string;
  /** Shoots of the rollout left for the waves after this one. */
  later: number;
  /**
   * This wave's place in the whole rollout (`rolloutWaveAfter`). Without it waves are counted from the Shoots
   * still to change, and the body says so: this one is wave 1.
   */
  wave?: { number: number; of: number };
}

/** `wave 2/3` in a rollout's title, as `rolloutHeading` writes it. */
const WAVE_IN_TITLE = /, wave (\d+)\/\d+, /;

/**
 * Which wave of its rollout a PR is, from the last closed PR of the rollout's branch: none, the first; one that
 * was merged, the wave after it; one closed unmerged, the same wave again. Later waves hold at most `size`
 * Shoots each. Undefined when that PR's title names no wave (written by an older kimops).
 */
export function rolloutWaveAfter(
  previous: { title: string; merged: boolean } | undefined,
  size: number,
  later: number,
): { number: number; of: number } | undefined {
  const before = previous === undefined ? 0 : Number(WAVE_IN_TITLE.exec(previous.title)?.[1] ?? Number.NaN);
  if (Number.isNaN(before)) return undefined;
  const number = previous === undefined ? 1 : previous.merged ? before + 1 : before;
  return { number, of: number + Math.ceil(later / Math.max(1, size)) };
}

export interface RenderedPullRequest {
  title: string;
  body: string;
  /** The one label of its class (labels.ts). */
  label: PullRequestLabel;
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
  const prClass = pullRequestClass(proposals, rollout !== undefined);
  const heading = rollout ? rolloutHeading(proposals, rollout) : `${classLabel(first.classification)}: ${first.shoot}`;
  const title = `[${landscape}] ${heading}`;
  const marker = prMarker(landscape, branch);
  const blocked = prClass.class === 'immutable';

  const intro = essential([
    `## ${heading}`,
    '',
    `Landscape \`${landscape}\`, branch \`${branch}\`.${rollout ? ` ${waveSentence(proposals.length, rollout)}` : ''}`,
  ]);
  const merge = essential(mergeLines(input, prClass));
  const summary: Section = {
    essential: !rollout,
    head: ['| shoot | Runtime | class | checks |', '|---|---|---|---|'],
    lines: proposals.map(summaryRow),
    tail: [],
  };
  // A blocked Shoot's reasons are what blocks it: the merge statement lists them already.
  const why: Section | undefined =
    blocked && !rollout
      ? undefined
      : {
          essential: true,
          head: ['**Why this class**', ''],
          lines: classReasons(proposals).map((r) => `- ${r}`),
          tail: [],
        };
  const changes: Section = {
    essential: false,
    head: [changesHeading(first, rollout !== undefined), ''],
    lines: rollout ? clusterLines(proposals) : changeLines(first),
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
    intro,
    merge,
    ...(rollout ? [why, changes, validation, summary] : [summary, why, changes, validation]).filter(
      (section): section is Section => section !== undefined,
    ),
    ...yamlDiffSections(proposals),
    // A blocked PR never merges: there is nothing to roll back.
    ...(blocked ? [] : [essential(['### Rollback', '', ...rollbackLines(proposals)])]),
  ];

  const fullReport = `${sections.map((s) => render(s, s.lines.length)).join('\n\n')}\n`;
  const limit = input.maxBodySize ?? GITHUB_BODY_LIMIT;
  const whole = `${marker}\n${fullReport}`;
  const label = labelOf(prClass);
  if (size(whole) <= limit) return { title, body: whole, label, fullReport, reportPath, truncated: false };

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
  // Dropped sections are counted just before the rollback, the last section (at the end when there is none).
  if (omitted > 0)
    kept.splice(
      blocked ? kept.length : -1,
      0,
      `_${formatCount(omitted)} more ${omitted === 1 ? 'section is' : 'sections are'} only in the full report._`,
    );
  const body = `${marker}\n${note}\n\n${kept.join('\n\n')}\n`;
  return { title, body, label, fullReport, reportPath, truncated: true };
}

/** The hidden first line of a kimops PR body: how a forge adapter finds the PR (or sticky comment) again. */
export function prMarker(landscape: string, branch: string): string {
  return `<!-- kimops:pr landscape=${landscape} branch=${branch} -->`;
}

/**
 * The class a PR is decided by: a rollout holding a change Gardener would reject is blocked as a whole; a rollout
 * that changes nothing but the objects inside the clusters is merged by that class's policy (`skr-unrequested`).
 */
export function pullRequestClass(
  proposals: readonly ShootProposal[],
  rollout: boolean,
): Pick<ChangeClass, 'class' | 'disruptive'> {
  const immutable = proposals.find((p) => p.classification.class === 'immutable');
  if (immutable) return { class: 'immutable', disruptive: true };
  // Changes only inside the clusters keep their class: asked for by nobody (a new default OIDC), or the first skr/
  // objects of Shoots written before kimops configured clusters (what KIM applies for their Runtimes).
  // A wave of Shoots KIM leads only changes nothing live: merged as a shadow.
  for (const only of ['skr-unrequested', 'skr', 'shadow'] as const)
    if (rollout && proposals.every((p) => p.classification.class === only)) return { class: only, disruptive: false };
  if (rollout) return { class: 'rollout', disruptive: proposals.some((p) => p.classification.disruptive) };
  const { class: name, disruptive } = (proposals[0] as ShootProposal).classification;
  return { class: name, disruptive };
}

/** `rollout: kubernetes 1.33.3 → 1.34.1, wave 1/3, 50 shoots`: named after what it changes. */
function rolloutHeading(proposals: readonly ShootProposal[], rollout: RolloutWave): string {
  const subject = rolloutSubject(
    proposals.map(({ shoot, classification, skr }) => ({
      shoot,
      changes: reviewedChanges(classification.changes),
      skr,
    })),
  );
  const { number, of } = waveOf(proposals.length, rollout);
  return `rollout: ${subject}, wave ${number}/${of}, ${shootCount(proposals.length)}`;
}

function waveOf(size: number, { later, wave }: RolloutWave): { number: number; of: number } {
  // When later waves wait, this one is full: they hold at most as many Shoots each.
  return wave ?? { number: 1, of: 1 + Math.ceil(later / size) };
}

function waveSentence(size: number, rollout: RolloutWave): string {
  const { number, of } = waveOf(size, rollout);
  const left = of - number;
  const after =
    rollout.later === 0
      ? 'It is the last wave.'
      : `${formatCount(rollout.later)} more ${rollout.later === 1 ? 'shoot follows' : 'shoots follow'} in ${formatCount(left)} later ${left === 1 ? 'wave' : 'waves'}, the next once this one is merged.`;
  const counted = rollout.wave ? '' : ' Waves are counted from the Shoots still to change.';
  return `This wave holds ${shootCount(size)}. ${after}${counted}`;
}

/** The merge statement, and what stops it now: a failing check blocks any class until it passes. */
function mergeLines(input: PullRequestInput, prClass: Pick<ChangeClass, 'class' | 'disruptive'>): string[] {
  const { proposals, merge } = input;
  const blockedBy = proposals.flatMap(({ shoot, classification }) =>
    classification.class !== 'immutable'
      ? []
      : classification.reasons.map((reason) => (proposals.length === 1 ? reason : `${code(shoot)}: ${reason}`)),
  );
  const statement = mergeStatement({
    ...prClass,
    policy: merge.policy,
    requiredChecks: merge.requiredChecks,
    blockedBy,
  });
  const failed = [...new Set(proposals.flatMap(({ checks }) => checks.filter((c) => !c.passed).map((c) => c.name)))];
  const now =
    failed.length > 0 && statement.action !== 'blocked'
      ? [
          '',
          `Now: ❌ ${failed.join(', ')} failed (see Validation), so nothing merges until ${failed.length === 1 ? 'it passes' : 'they pass'}.`,
        ]
      : [];
  return [`**Merge:** ${statement.text}`, ...now];
}

function changesHeading({ classification }: ShootProposal, rollout: boolean): string {
  if (rollout) return '### Changes';
  if (classification.class === 'create') return '### The new Shoot';
  if (classification.class === 'delete') return '### The Shoot that goes';
  return '### Changes';
}

/**
 * A create or delete summarised, anything else field by field without the bookkeeping, then what changes inside
 * the cluster.
 */
function changeLines({ shoot, classification, before, after, runtime, skr = [] }: ShootProposal): string[] {
  if (classification.class === 'create' && after) return shootSummary(after, runtime, 'create');
  if (classification.class === 'delete' && before)
    return [
      ...shootSummary(before, runtime, 'delete'),
      '',
      `This PR removes the folder \`${SHOOTS_FOLDER}/${shoot}/\`; main's history keeps its manifest.`,
    ];
  const changes = reviewedChanges(classification.changes);
  const inCluster = skrLines(shoot, skr);
  if (changes.length === 0 && inCluster.length > 0) return inCluster;
  return [
    ...(changes.length > 0
      ? changes.map(changeLine)
      : [`- nothing in \`${SHOOT_FILE}\` a reviewer needs to read: see Why this class`]),
    ...(inCluster.length > 0 ? ['', ...inCluster] : []),
  ];
}

/** What changes inside the cluster, under a line naming where. */
function skrLines(shoot: string, skr: readonly SkrChange[]): string[] {
  if (skr.length === 0) return [];
  return [
    `Inside the cluster (\`${SHOOTS_FOLDER}/${shoot}/${SKR_FOLDER}/\`, applied once the Shoot is reconciled):`,
    ...skr.map(skrLine),
  ];
}

function skrLine(change: SkrChange): string {
  return `- ${skrChangeText(change)}`;
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
  if (name === 'cut-over' && disruptive) return 'cut-over (review)';
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

/** Each distinct diff of a wave once, headed by the Shoots that have it. */
function clusterLines(proposals: readonly ShootProposal[]): string[] {
  const clusters = clusterChanges(
    proposals.map(({ shoot, classification, skr }) => ({
      shoot,
      changes: reviewedChanges(classification.changes),
      skr,
    })),
  );
  return clusters.flatMap(({ shoots, changes, skr }, i) => [
    ...(i > 0 ? [''] : []),
    `**${shootCount(shoots.length)}:** ${shoots.map(code).join(', ')}`,
    ...changes.map(changeLine),
    ...skr.map((change) => `- inside the cluster: ${skrChangeText(change)}`),
    ...(changes.length + skr.length === 0 ? [`- nothing in \`${SHOOT_FILE}\`: only companion files change`] : []),
  ]);
}

/** Every check of one Shoot; for a rollout, the failures and warnings by Shoot and a count of the rest. */
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
    // Failures, then warnings: a warning never blocks, but the reviewer decides on it.
    ...[false, true].flatMap((warnings) =>
      proposals.flatMap(({ shoot, checks }) =>
        checks
          .filter((check) => (warnings ? check.passed && check.warning : !check.passed))
          .flatMap((check) => [
            `- ${mark(check)} ${code(shoot)} ${check.name}`,
            ...check.messages.map((message) => `  - ${message}`),
          ]),
      ),
    ),
  ];
}

/**
 * The unified diff of each Shoot's manifest, folded; Shoots whose changed lines are the same share one (the first
 * Shoot's, with its context). A delete has none: its summary says what goes, and main keeps the manifest.
 */
function yamlDiffSections(proposals: readonly ShootProposal[]): Section[] {
  const groups = new Map<string, { shoot: string; lines: string[]; others: string[] }>();
  for (const { shoot, before, after } of proposals) {
    if (!after) continue;
    const lines = yamlDiffLines(shoot, before, after);
    // The changed lines alone: context and hunk positions differ between Shoots that change the same way.
    const key = lines.filter((line) => /^[-+](?!--|\+\+)/.test(line)).join('\n');
    if (key === '') continue;
    const group = groups.get(key);
    if (group) group.others.push(shoot);
    else groups.set(key, { shoot, lines, others: [] });
  }
  return [...groups.values()].map(({ shoot, lines, others }) => ({
    essential: false,
    head: [
      `<details><summary>YAML diff: ${manifestPath(shoot)}${others.length > 0 ? `, the same changed lines in ${formatCount(others.length)} more ${others.length === 1 ? 'shoot' : 'shoots'}` : ''}</summary>`,
      '',
      ...(others.length > 0 ? [`The same lines change in ${others.map(code).join(', ')}.`, ''] : []),
      '```diff',
    ],
    lines,
    tail: ['```', '', '</details>'],
  }));
}

function yamlDiffLines(shoot: string, before: Shoot | undefined, after: Shoot): string[] {
  const path = manifestPath(shoot);
  const yaml = (object: Shoot | undefined) => (object ? toCanonicalYaml(withoutServerFields(object)) : '');
  const patch = createTwoFilesPatch(
    before ? `a/${path}` : '/dev/null',
    `b/${path}`,
    yaml(before),
    yaml(after),
    '',
    '',
    { context: 3 },
  );
  // The first line is diff's "====" separator; the ---/+++ headers stay.
  return patch
    .split('\n')
    .slice(1)
    .filter((line, i, all) => line !== '' || i < all.length - 1);
}

const manifestPath = (shoot: string) => `${SHOOTS_FOLDER}/${shoot}/${SHOOT_FILE}`;
const shootCount = (count: number) => `${formatCount(count)} ${count === 1 ? 'shoot' : 'shoots'}`;

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
    ...(proposals.some((p) => (p.skr?.length ?? 0) > 0)
      ? [
          "- Inside the cluster a revert puts main's previous objects back: the applier applies them again and removes the administrators' bindings and OpenIDConnect resources no longer in Git.",
        ]
      : []),
  ];
  // Who leads a Runtime is its label's, not main's: a revert of a cut-over would be proposed again by the next pass.
  if (classes.has('cut-over'))
    return [
      `To move the Runtime back, set its \`${LEADER_LABEL}\` label to the other leader (\`kim\` or \`kimops\`): the next pass proposes the cut-over back. A revert of this PR alone is proposed again by the next pass while the label (or the landscape's \`defaultLeader\`) stays.`,
    ];
  const revert =
    "After this PR is merged, revert its merge commit on `main` in a new PR: `git revert -m 1 <this PR's merge commit>` " +
    '(`git revert <commit>` if it was squash-merged).';
  // Only shadows: KIM leads every Shoot of the PR, and the applier writes none of them.
  if ([...classes].every((c) => c === 'shadow'))
    return [
      `${revert} KIM leads this Runtime: neither the merge nor its revert changes anything live, only main's shadow of the Shoot.`,
    ];
  return [
    `${revert} Once the revert is merged, the applier returns the Shoot to the previous manifest.`,
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
