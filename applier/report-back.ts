// What the applier tells the forge after a sync (issue 17), as Flux sets commit statuses and Atlantis comments
// its apply: per commit of main, the commit status `kimops/apply` and, on the pull request that merged it, one
// sticky comment — applied when, to which Garden, the Shoot's last operation, Ready when. Pure: the commit's
// changed Shoot folders and the sync's outcome in, the status and the comment text out. Both are functions of
// facts the Garden and Git keep (the apply's managedFields time, Gardener's lastOperation), never of the
// clock or of which sync computed them, so a restarted applier computes the same text and writes nothing new.
// A report only moves forward: a Shoot's settled line (Ready, failed, not applied, deleted, changed again) is kept
// as it was first said, whatever Gardener does later (a maintenance Reconcile, a later commit's change), and a
// commit's report settles with its status (success or failure): from then on it is never computed again.
// Writing them (what was written, the budget, the forge) is report-back-writer.ts's.
import { APPLIED_TREE_ANNOTATION, APPLY_STATUS_CONTEXT } from '../model/contract.js';
import { tableCell } from '../rules/markdown-cell.js';
import type { Shoot } from '../model/shoot.js';
import { printable } from '../model/printable.js';
import { codesOf, shootHealth } from '../rules/shoot-health.js';
import type { PlanEntry } from './plan.js';
import type { SyncResult } from './sync.js';

/** GitHub refuses a longer status description (the adapter cuts it; cut here, so what is compared is what is kept). */
const DESCRIPTION_LIMIT = 140;
/** Rows of the comment's table; a rollout of more Shoots is summed up below it. */
const MAX_ROWS = 100;
/** A message quoted in a table cell. */
const MAX_MESSAGE = 200;

/** What one commit of main changed: each Shoot folder it added, changed or removed, with its tree in the commit. */
export interface CommitChange {
  sha: string;
  /** Shoot name → the folder's tree in the commit; undefined when the commit removed the folder. */
  shoots: ReadonlyMap<string, string | undefined>;
}

/**
 * Where the applier writes, for the text only: named by the landscape and its project namespace, never by the
 * Garden's API server (an internal host name, and the comments of a public landscape repo are public).
 */
export interface GardenTarget {
  /** garden-<project>. */
  namespace: string;
  /** The landscape's name (landscape.yaml). */
  landscape: string;
}

/** What one finished, writing sync says about the Shoots. */
export interface SyncOutcome {
  /** The Shoot folders' trees in the synced commit. */
  trees: ReadonlyMap<string, string>;
  /** The sync's plan entries by Shoot. */
  entries: ReadonlyMap<string, PlanEntry>;
  result: SyncResult;
}

type StatusState = 'pending' | 'success' | 'failure';

export interface ApplyStatus {
  state: StatusState;
  description: string;
}

/** Where one Shoot of a commit stands. */
export type ShootProgress =
  /** A later commit changed the folder again: that commit's report follows the Shoot from here. */
  | { state: 'superseded' }
  /** Not applied, and no sync of this commit will: its files are held back, or Gardener refused the manifest. */
  | { state: 'not-applied'; message: string }
  /**
   * Not applied yet; a later sync may: the Garden stopped answering (no message), or `message` says what the
   * next sync waits for (the mass-deletion guard, a write the Garden failed or refused its credentials for, the
   * old Shoot's deletion).
   */
  | { state: 'waiting'; message?: string }
  /** Applied; Gardener has not started on it yet. */
  | { state: 'applied'; appliedAt?: string }
  | { state: 'reconciling' | 'reconciled' | 'failed'; appliedAt?: string; operation: string; at?: string }
  | { state: 'deleting'; operation?: string }
  | { state: 'deleted' };

export interface CommitReport {
  status: ApplyStatus;
  /** The sticky comment's body (the forge adds the marker). */
  comment: string;
  /**
   * Nothing left to follow: the status is success or failure (every Shoot reconciled, deleted or superseded, or
   * one not applied or failed for good). A settled report is final: never computed again, nor replaced.
   */
  settled: boolean;
  /** The Shoots whose line has settled, to be kept as they are by the next computation (`commitReport`'s `kept`). */
  settledShoots: ReadonlyMap<string, ShootProgress>;
}

/** Shoot folder → tree, of the commit and of its first parent: the folders the commit added, changed or removed. */
export function changedShoots(
  parent: ReadonlyMap<string, string>,
  commit: ReadonlyMap<string, string>,
): Map<string, string | undefined> {
  const changed = new Map<string, string | undefined>();
  for (const [name, tree] of commit) if (parent.get(name) !== tree) changed.set(name, tree);
  for (const name of parent.keys()) if (!commit.has(name)) changed.set(name, undefined);
  return new Map([...changed].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** The status a commit gets when a sync of it starts. */
export function startedStatus(garden: GardenTarget): ApplyStatus {
  return { state: 'pending', description: `applying to ${garden.namespace}` };
}

/** Where `shoot`, at `tree` in the reported commit, stands after the sync `outcome`. */
export function shootProgress(shoot: string, tree: string | undefined, outcome: SyncOutcome): ShootProgress {
  if (outcome.trees.get(shoot) !== tree) return { state: 'superseded' };
  const { result } = outcome;
  // Allowed by a later commit's trailer or the applier's --allow-mass-deletion: then a later sync applies it.
  if (result.refused) return { state: 'waiting', message: 'held by the mass-deletion guard' };
  const failed = result.failed.find((f) => f.shoot === shoot);
  if (failed) {
    const message = failed.lines.at(-1) ?? 'the write failed';
    return refusedForGood(failed.status, message) ? { state: 'not-applied', message } : { state: 'waiting', message };
  }
  const entry = outcome.entries.get(shoot);
  if (entry?.action === 'blocked') {
    const message = entry.reasons.join('; ') || 'held back';
    // The old Shoot still being deleted holds back its successor only until Gardener has removed it.
    return entry.live?.metadata.deletionTimestamp ? { state: 'waiting', message } : { state: 'not-applied', message };
  }
  if (tree === undefined) return entry?.live ? deleting(entry.live) : { state: 'deleted' };
  if (!entry) return { state: 'waiting' };
  if (result.applied.some((a) => a.shoot === shoot)) return { state: 'applied' };
  // A write the plan wanted that neither succeeded nor failed was not attempted.
  if (entry.action === 'create' || entry.action === 'update' || entry.action === 'take-over')
    return { state: 'waiting' };
  return gardenerProgress(entry.live, tree);
}

/**
 * Whether the Garden refused a write so that no later sync of the same files can succeed: a manifest it rejects
 * (400, 422, or a 403 from an admission plugin rather than RBAC's "cannot <verb> resource"). Not answering, a
 * conflict, overload, credentials or RBAC (fixed outside the landscape repo) may pass at the next sync.
 */
function refusedForGood(status: number | undefined, message: string): boolean {
  if (status === undefined) return true;
  return status === 400 || status === 422 || (status === 403 && !/ cannot \w+ resource /.test(message));
}

/** An applied Shoot as Gardener reports it: the markers say whether the live Shoot is this folder's. */
function gardenerProgress(live: Shoot | undefined, tree: string): ShootProgress {
  if (!live) return { state: 'waiting' };
  const appliedAt = live.metadata.annotations?.[APPLIED_TREE_ANNOTATION] === tree ? appliedTime(live) : undefined;
  const at = appliedAt === undefined ? {} : { appliedAt };
  const operation = live.status?.lastOperation;
  const generation = live.metadata.generation;
  // Gardener has not seen the newest spec: its last operation is about an older one.
  if (!operation || (generation !== undefined && generation > (live.status?.observedGeneration ?? 0)))
    return { state: 'applied', ...at };
  const health = shootHealth(live);
  const codes = codesOf(health.lastErrors);
  const text = `${operation.type} ${operation.state}${codes.length > 0 && health.state !== 'healthy' ? `: ${codes.join(', ')}` : ''}`;
  const since = operation.lastUpdateTime === undefined ? {} : { at: operation.lastUpdateTime };
  if (health.state === 'healthy') return { state: 'reconciled', operation: text, ...at, ...since };
  if (health.state === 'failed') return { state: 'failed', operation: text, ...at, ...since };
  return { state: 'reconciling', operation: text, ...at };
}

function deleting(live: Shoot): ShootProgress {
  const operation = live.status?.lastOperation;
  return operation?.type === 'Delete'
    ? { state: 'deleting', operation: `${operation.type} ${operation.state}` }
    : { state: 'deleting' };
}

/** When kimops's field manager last applied the Shoot, as the API server recorded it. */
function appliedTime(live: Shoot): string | undefined {
  const entries = Array.isArray(live.metadata.managedFields)
    ? (live.metadata.managedFields as { operation?: string; time?: string }[])
    : [];
  const times = entries.filter((e) => e.operation === 'Apply' && typeof e.time === 'string').map((e) => e.time ?? '');
  return times.length > 0 ? times.sort().at(-1) : undefined;
}

/** A Shoot's line that no later fact changes: Ready, failed or not applied for good, deleted, changed again. */
const SETTLED: ReadonlySet<ShootProgress['state']> = new Set([
  'superseded',
  'reconciled',
  'failed',
  'not-applied',
  'deleted',
]);
const FAILING: ReadonlySet<ShootProgress['state']> = new Set(['not-applied', 'failed']);

/**
 * The commit's status and comment after the sync `outcome`; `kept`: the lines that settled in an earlier
 * computation (its `settledShoots`), said again as they were.
 */
export function commitReport(
  change: CommitChange,
  outcome: SyncOutcome,
  garden: GardenTarget,
  kept: ReadonlyMap<string, ShootProgress> = new Map(),
): CommitReport {
  const shoots = [...change.shoots].map(([name, tree]) => ({
    name,
    progress: kept.get(name) ?? shootProgress(name, tree, outcome),
  }));
  const status = statusOf(shoots, garden);
  return {
    status,
    comment: commentOf(change.sha, shoots, garden),
    settled: status.state !== 'pending',
    settledShoots: new Map(shoots.filter((s) => SETTLED.has(s.progress.state)).map((s) => [s.name, s.progress])),
  };
}

interface ShootLine {
  name: string;
  progress: ShootProgress;
}

function statusOf(shoots: readonly ShootLine[], garden: GardenTarget): ApplyStatus {
  const to = garden.namespace;
  if (shoots.length === 0) return { state: 'success', description: `applied to ${to}; no Shoot changed` };
  const state: StatusState = shoots.some((s) => FAILING.has(s.progress.state))
    ? 'failure'
    : shoots.every((s) => SETTLED.has(s.progress.state))
      ? 'success'
      : 'pending';
  const [only] = shoots;
  const description =
    shoots.length === 1 && only ? oneShoot(only, to) : `${to}: ${shoots.length} Shoots: ${tally(shoots)}`;
  return { state, description: cut(description, DESCRIPTION_LIMIT) };
}

function oneShoot({ name, progress }: ShootLine, to: string): string {
  const shoot = `Shoot ${printable(name)}`;
  switch (progress.state) {
    case 'superseded':
      return `${shoot} changed again by a later commit, whose report follows it`;
    case 'not-applied':
      return `not applied to ${to}: ${shoot}: ${printable(progress.message)}`;
    case 'waiting':
      return progress.message === undefined
        ? `not yet applied to ${to}: the next sync carries on`
        : `not yet applied to ${to}: ${shoot}: ${printable(progress.message)}`;
    case 'applied':
      return `applied to ${to}; waiting for Gardener to reconcile ${shoot}`;
    case 'reconciling':
      return `applied to ${to}; ${shoot} reconciling (${progress.operation})`;
    case 'reconciled':
      return `applied to ${to}; ${shoot} reconciled (${progress.operation})`;
    case 'failed':
      return `applied to ${to}; ${shoot} failed (${progress.operation})`;
    case 'deleting':
      return `deleting ${shoot} from ${to}${progress.operation ? ` (${progress.operation})` : ''}`;
    case 'deleted':
      return `${shoot} deleted from ${to}`;
  }
}

const TALLY_ORDER: readonly [ShootProgress['state'], string][] = [
  ['failed', 'failed'],
  ['not-applied', 'not applied'],
  ['waiting', 'not yet applied'],
  ['applied', 'waiting for Gardener'],
  ['reconciling', 'reconciling'],
  ['deleting', 'deleting'],
  ['reconciled', 'reconciled'],
  ['deleted', 'deleted'],
  ['superseded', 'changed again later'],
];

function tally(shoots: readonly ShootLine[]): string {
  const parts: string[] = [];
  for (const [state, words] of TALLY_ORDER) {
    const count = shoots.filter((s) => s.progress.state === state).length;
    if (count > 0) parts.push(`${count} ${words}`);
  }
  return parts.join(', ');
}

const HEADLINE: Record<StatusState, string> = {
  pending: 'kimops is applying this change',
  success: 'kimops applied this change',
  failure: 'kimops could not apply all of this change',
};

function commentOf(sha: string, shoots: readonly ShootLine[], garden: GardenTarget): string {
  const status = statusOf(shoots, garden);
  const lines = [`### ${HEADLINE[status.state]}`, '', `Merge commit \`${sha.slice(0, 12)}\` · ${gardenOf(garden)}`, ''];
  if (shoots.length === 0) lines.push('No Shoot folder changed: nothing to apply.');
  else {
    lines.push('| Shoot | applied | Gardener | Ready |', '|---|---|---|---|');
    for (const shoot of shoots.slice(0, MAX_ROWS)) lines.push(row(shoot));
    if (shoots.length > MAX_ROWS)
      lines.push(
        '',
        `… and ${shoots.length - MAX_ROWS} more Shoots: \`kubectl get shoots -n ${garden.namespace}\` shows them all.`,
      );
    lines.push('', `${tally(shoots)}.`);
  }
  lines.push(
    '',
    `_Updated by \`kimops apply\` as Gardener progresses; the commit status \`${APPLY_STATUS_CONTEXT}\` says the same._`,
  );
  return `${lines.join('\n')}\n`;
}

/** The Garden as the landscape's admin names it: the project namespace and the landscape, never its API server. */
function gardenOf({ namespace, landscape }: GardenTarget): string {
  return `Garden \`${printable(namespace)}\` (landscape \`${printable(landscape)}\`)`;
}

function row({ name, progress }: ShootLine): string {
  const applied = (at: string | undefined) => (at === undefined ? 'yes' : at);
  const cells = ((): [string, string, string] => {
    switch (progress.state) {
      case 'superseded':
        return ['changed again by a later commit', '—', '—'];
      case 'not-applied':
        return [`no: ${progress.message}`, '—', '—'];
      case 'waiting':
        return [`not yet: ${progress.message ?? 'the Garden stopped answering'}`, '—', '—'];
      case 'applied':
        return [applied(progress.appliedAt), 'not started yet', '—'];
      case 'reconciling':
        return [applied(progress.appliedAt), progress.operation, '—'];
      case 'reconciled':
        return [applied(progress.appliedAt), progress.operation, progress.at ?? 'yes'];
      case 'failed':
        return [applied(progress.appliedAt), progress.operation, 'no'];
      case 'deleting':
        return ['deletion requested', progress.operation ?? 'deleting', '—'];
      case 'deleted':
        return ['deleted', 'gone', '—'];
    }
  })();
  return `| \`${cell(name)}\` | ${cells.map(cell).join(' | ')} |`;
}

/** Text in a table cell: one line, no column break, not too long. */
function cell(text: string): string {
  return tableCell(cut(text, MAX_MESSAGE)).replaceAll('`', "'");
}

function cut(text: string, limit: number): string {
  return text.length > limit ? `${text.slice(0, limit - 1)}…` : text;
}

/** Whether the forge already shows `wanted` (the latest status of the context, normalised by the forge). */
export function statusShown(shown: ApplyStatus | undefined, wanted: ApplyStatus): boolean {
  return shown !== undefined && shown.state === wanted.state && shown.description === wanted.description;
}
