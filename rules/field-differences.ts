// Where main's Shoot differs from the live one, field by field, as `kimops compare` reports it and `kimops bootstrap`
// clusters it: only the fields main sets (ADR 0009, managed-fields.ts), with main first held against the live Shoot
// by the applier's own rules (live-rules.ts `keepLive`), so a value the applier would never write — a newer live
// Kubernetes or image version, a zone Gardener cannot remove, a create-only field — is no difference but `kept`,
// listed apart. Paths are semantic-diff.ts's (list items by their key: `spec.provider.workers[cpu-worker-0].maximum`).
// Pure: values in, values out.
import type { Shoot } from '../model/shoot.js';
import { withLeader } from './leader.js';
import { keepLive, type KeptLive } from './live-rules.js';
import { managedPart } from './managed-fields.js';
import { type FieldChange, sameValue, semanticDiff } from './semantic-diff.js';

/** One field where main and the live Shoot disagree; a side is absent where it does not set the field. */
export interface FieldDifference {
  path: string;
  main?: unknown;
  live?: unknown;
}

/** A field where main differs but the applier keeps the live value, and why (live-rules.ts). */
export interface KeptDifference extends FieldDifference {
  why: string;
}

export interface ShootComparison {
  /**
   * The fields main sets whose live value an apply of main would change, in document order. (A field kimops applied
   * before and main no longer sets is not among them: the applier's plan removes it, through managedFields.)
   */
  differences: FieldDifference[];
  /** Where main differs but the live value stays whatever main says: never written, so not a difference. */
  kept: KeptDifference[];
}

/** Said of a kept field live-rules.ts gives no reason for (the live order of the workers). */
const KEPT_WITHOUT_NOTE = 'the applier keeps the live value (rules/live-rules.ts)';

/**
 * main's Shoot against the live one. The leader annotation of main's file is left out (the applier never writes it,
 * rules/leader.ts), as is everything the live Shoot holds at fields main does not set (defaults, other managers'
 * fields, status). Throws when main's Shoot is too incomplete to be held against the live one (keepLive's error):
 * the caller reports that Shoot.
 */
export function compareWithLive(main: Shoot, listed: Shoot): ShootComparison {
  // A LIST's items carry no apiVersion and kind (they are the list's): no difference of the Shoot.
  const live = { ...listed, apiVersion: listed.apiVersion ?? main.apiVersion, kind: listed.kind ?? main.kind };
  const unmarked = withLeader(main, 'kimops');
  const held = keepLive(unmarked, live);
  const differences = changesAgainst(held.shoot, live);
  const kept = changesAgainst(unmarked, live)
    .filter((change) => !differences.some((difference) => sameChange(difference, change)))
    .map((change) => ({ ...change, why: reasonFor(change.path, held.kept) }));
  return { differences, kept };
}

/** Only the differences an apply would write (compareWithLive's `differences`). */
export function differingFields(main: Shoot, live: Shoot): FieldDifference[] {
  return compareWithLive(main, live).differences;
}

export interface FieldCluster {
  path: string;
  /** Shoots with a difference at `path`. */
  count: number;
  /** Their names, sorted. */
  shoots: string[];
}

/** The Shoots' differences grouped by path: most Shoots first, then by path, so the same input reads the same. */
export function clusterByField(perShoot: Iterable<readonly [string, readonly FieldDifference[]]>): FieldCluster[] {
  const byPath = new Map<string, Set<string>>();
  for (const [shoot, differences] of perShoot)
    for (const { path } of differences) byPath.set(path, (byPath.get(path) ?? new Set()).add(shoot));
  return [...byPath]
    .map(([path, shoots]) => ({ path, count: shoots.size, shoots: [...shoots].sort(byCodeUnit) }))
    .sort((a, b) => b.count - a.count || byCodeUnit(a.path, b.path));
}

/** semanticDiff of the live Shoot cut down to what `main` sets (before) against `main` (after). */
function changesAgainst(main: Shoot, live: Shoot): FieldDifference[] {
  return semanticDiff(managedPart(live, main) as Shoot, main).map(toDifference);
}

function toDifference({ path, before, after }: FieldChange): FieldDifference {
  return { path, ...(after !== undefined && { main: after }), ...(before !== undefined && { live: before }) };
}

function sameChange(a: FieldDifference, b: FieldDifference): boolean {
  return a.path === b.path && sameValue(a.main, b.main) && sameValue(a.live, b.live);
}

/** The reason keepLive noted at this path or a field above it (`…workers[a].zones` for `…zones[z2]`, `…zones (order)`). */
function reasonFor(path: string, kept: readonly KeptLive[]): string {
  const note = kept.find((k) => path === k.path || ['.', '[', ' '].some((next) => path.startsWith(`${k.path}${next}`)));
  return note?.why ?? KEPT_WITHOUT_NOTE;
}

/** Strings in UTF-16 code unit order, as `sort()` without a comparator: the same on every machine, unlike localeCompare. */
export function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
