// Rollouts touch many Shoots the same way; a reviewer reads each distinct diff once, with the Shoots that have
// it, and the rollout is named after what it changes ("kubernetes 1.33.3 → 1.34.1") and released in waves.
import { configure } from 'safe-stable-stringify';
import { show } from '../../rules/change-text.js';
import type { FieldChange } from '../../rules/semantic-diff.js';
import { skrChangeText, type SkrChange } from './skr-changes.js';

const stableJson = configure({ deterministic: true });

export interface Cluster {
  /** Shoot names, sorted. */
  shoots: string[];
  /** The diff every one of these Shoots has. */
  changes: FieldChange[];
  /** And the changes inside their clusters (skr-changes.ts). */
  skr: readonly SkrChange[];
}

/** One Shoot's change: its Shoot's diff and what changes inside its cluster. */
interface ShootChanges {
  shoot: string;
  changes: readonly FieldChange[];
  skr?: readonly SkrChange[] | undefined;
}

/** Groups Shoots whose diffs are identical (same paths, befores and afters, SKR changes); largest group first. */
export function clusterChanges(perShoot: readonly ShootChanges[]): Cluster[] {
  const groups = new Map<string, Cluster>();
  for (const { shoot, changes, skr = [] } of perShoot) {
    // Order within one diff is document order, so equal diffs have equal keys.
    const key =
      stableJson([
        changes.map(({ path, kind, before, after }) => [path, kind, before, after]),
        skr.map(skrChangeText),
      ]) ?? '';
    const group = groups.get(key) ?? { shoots: [], changes: [...changes], skr };
    group.shoots.push(shoot);
    groups.set(key, group);
  }
  return [...groups.entries()]
    .map(([key, cluster]) => ({ key, cluster: { ...cluster, shoots: cluster.shoots.sort(byCodeUnit) } }))
    .sort(
      (a, b) =>
        b.cluster.shoots.length - a.cluster.shoots.length ||
        byCodeUnit(a.cluster.shoots[0] ?? '', b.cluster.shoots[0] ?? '') ||
        byCodeUnit(a.key, b.key),
    )
    .map(({ cluster }) => cluster);
}

/** Fields named in a rollout's title as people say them; any other field by its path without `spec.`. */
const FIELD_NAMES: Record<string, string> = {
  'spec.kubernetes.version': 'kubernetes',
  'spec.provider.workers[*].kubernetes.version': 'worker kubernetes',
  'spec.provider.workers[*].machine.image.version': 'machine image',
  'spec.provider.workers[*].machine.image.name': 'operating system',
  'spec.provider.workers[*].machine.type': 'machine type',
};
/** A worker's key in a path (`[cpu-worker-0]`, `["a.b"]`): pools are named per Runtime, the change is the same. */
const WORKER = /^spec\.provider\.workers\[(?:"(?:[^"\\]|\\.)*"|[^\]]*)\]/;
/** Fields named in a title; the rest are counted. */
const TITLE_FIELDS = 2;
/** Longest value shown in a title: GitHub titles end at 256 characters, and a title is read at a glance. */
const TITLE_VALUE_CHARS = 40;

/**
 * What a rollout changes, for its title: `kubernetes 1.33.3 → 1.34.1`, up to two fields every Shoot of the wave
 * changes (else the one most do), the rest counted: `and 3 more changes`. A field whose old value differs between
 * Shoots reads `kubernetes → 1.34.1`. A change inside the clusters counts as a field named `SKR <subject>`:
 * `SKR OIDC kyma-oidc-0: issuerURL a → b` when every Shoot has the same, else `SKR OIDC kyma-oidc-0 changed`.
 */
export function rolloutSubject(perShoot: readonly ShootChanges[]): string {
  const fields = new Map<string, { shoots: Set<string>; changes: FieldChange[] }>();
  const add = (key: string, shoot: string, change: FieldChange) => {
    const field = fields.get(key) ?? { shoots: new Set(), changes: [] };
    field.shoots.add(shoot);
    field.changes.push(change);
    fields.set(key, field);
  };
  for (const { shoot, changes, skr = [] } of perShoot) {
    for (const change of changes) add(change.path.replace(WORKER, 'spec.provider.workers[*]'), shoot, change);
    // The detail as the change's `after`: the same for every Shoot, it is shown; else the field reads `changed`.
    for (const { subject, detail } of skr)
      add(`SKR ${subject}`, shoot, { path: `SKR ${subject}`, kind: 'changed', after: detail });
  }
  if (fields.size === 0) return 'companion files';
  // Map order is first appearance, i.e. document order: the tie-break when as many Shoots share two fields.
  const ranked = [...fields].sort(([, a], [, b]) => b.shoots.size - a.shoots.size);
  // Named: what the whole wave changes (one Shoot's extra change is no name for the rollout), else the commonest.
  const shared = ranked.filter(([, { shoots }]) => shoots.size === perShoot.length);
  const named = (shared.length > 0 ? shared : ranked.slice(0, 1))
    .slice(0, TITLE_FIELDS)
    .map(([key, { changes }]) => fieldSubject(key, changes));
  const more = ranked.length - named.length;
  return `${named.join(', ')}${more > 0 ? ` and ${more} more ${more === 1 ? 'change' : 'changes'}` : ''}`;
}

function fieldSubject(key: string, changes: readonly FieldChange[]): string {
  const name = FIELD_NAMES[key] ?? key.replace(/^spec\./, '');
  if (key.startsWith('SKR ')) {
    const detail = new Set(changes.map((c) => c.after));
    return detail.size === 1 ? `${name}: ${value([...detail][0])}` : `${name} changed`;
  }
  const kinds = new Set(changes.map((c) => c.kind));
  const distinct = (values: unknown[]) => new Set(values.map((v) => stableJson(v) ?? ''));
  const only = (values: unknown[]) => (distinct(values).size === 1 ? value(values[0]) : undefined);
  if (kinds.size > 1) return `${name} changed`;
  if (kinds.has('removed')) return `${name} removed`;
  const after = only(changes.map((c) => c.after));
  if (kinds.has('added')) return after === undefined ? `${name} added` : `${name} added: ${after}`;
  const before = only(changes.map((c) => c.before));
  if (after === undefined) return `${name} changed`;
  return before === undefined ? `${name} → ${after}` : `${name} ${before} → ${after}`;
}

function value(raw: unknown): string {
  const text = show(raw);
  return text.length > TITLE_VALUE_CHARS ? `${text.slice(0, TITLE_VALUE_CHARS - 1)}…` : text;
}

/**
 * A rollout split into waves of at most `size` Shoots, by name: the same Shoots always land in the
 * same waves, so a re-run proposes the same PRs.
 */
export function waves(shoots: readonly string[], size: number): string[][] {
  if (!Number.isInteger(size) || size < 1)
    throw new RangeError(`wave size must be a whole number of at least 1, got ${size}`);
  const sorted = [...new Set(shoots)].sort(byCodeUnit);
  const result: string[][] = [];
  for (let i = 0; i < sorted.length; i += size) result.push(sorted.slice(i, i + size));
  return result;
}

function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
