// Rollouts touch many Shoots the same way; a reviewer reads each distinct diff once, with its count
// ("1,214 shoots: spec.kubernetes.version 1.32.5 → 1.33.3"), and the rollout is released in waves.
import { configure } from 'safe-stable-stringify';
import { describeChange, formatCount } from '../../rules/change-text.js';
import type { FieldChange } from '../../rules/semantic-diff.js';

const stableJson = configure({ deterministic: true });

export interface Cluster {
  /** Shoot names, sorted. */
  shoots: string[];
  /** The diff every one of these Shoots has. */
  changes: FieldChange[];
  /** `1,214 shoots: spec.kubernetes.version 1.32.5 → 1.33.3` (several changes joined by `; `). */
  line: string;
}

/** Groups Shoots whose diffs are identical (same paths, befores and afters); largest group first. */
export function clusterChanges(perShoot: readonly { shoot: string; changes: FieldChange[] }[]): Cluster[] {
  const groups = new Map<string, { shoots: string[]; changes: FieldChange[] }>();
  for (const { shoot, changes } of perShoot) {
    // Order within one diff is document order, so equal diffs have equal keys.
    const key = stableJson(changes.map(({ path, kind, before, after }) => [path, kind, before, after])) ?? '';
    const group = groups.get(key) ?? { shoots: [], changes };
    group.shoots.push(shoot);
    groups.set(key, group);
  }
  return [...groups.entries()]
    .map(([key, { shoots, changes }]) => ({ key, shoots: shoots.sort(byCodeUnit), changes }))
    .sort(
      (a, b) =>
        b.shoots.length - a.shoots.length ||
        byCodeUnit(a.shoots[0] ?? '', b.shoots[0] ?? '') ||
        byCodeUnit(a.key, b.key),
    )
    .map(({ shoots, changes }) => ({
      shoots,
      changes,
      line: `${formatCount(shoots.length)} ${shoots.length === 1 ? 'shoot' : 'shoots'}: ${changes.length === 0 ? 'no change' : changes.map(describeChange).join('; ')}`,
    }));
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
