// The mass-deletion guard, one rule for the generator (before it proposes deletions) and the applier
// (before it deletes): a pass that would delete many Shoots at once most likely read an incomplete source,
// so it stops and asks a human, who approves a number of deletions for one run or one commit.
import type { KimopsConfig } from '../model/kimops-config.js';

export type GuardResult = { allowed: true } | { allowed: false; message: string };

export interface MassDeletionInput {
  /** Shoots this run would propose deleting (the generator: those no Runtime asked for; KEB's deletions pass in batches). */
  deleting: number;
  /** Shoots in the landscape before the deletion. */
  total: number;
  policy: KimopsConfig['massDeletion'];
  /** The number of deletions a human confirmed (e.g. `--allow-mass-deletion 40`); must cover `deleting`. */
  override?: number;
  /** Who refuses what, and how a human approves: the generator's proposal by default; the applier says its own. */
  wording?: { refusing: string; approve: (deleting: number) => string };
}

const GENERATOR_WORDING: NonNullable<MassDeletionInput['wording']> = {
  refusing: 'refusing to propose deleting',
  approve: (deleting) =>
    `These are Shoots whose Runtime is absent (deletions KEB asked for, by a deletionTimestamp, are not counted): check that the Runtime source is complete; ` +
    `if the deletions are intended, re-run with --allow-mass-deletion ${deleting} or raise massDeletion in kimops.yaml.`,
};

/** The most deletions `massDeletionGuard` lets through at once in a landscape of `total` Shoots (one always, unless maxShoots is 0). */
export function deletionsAllowedAtOnce(total: number, policy: KimopsConfig['massDeletion']): number {
  return Math.min(policy.maxShoots, Math.max(1, Math.floor((policy.maxPercent * total) / 100)));
}

/**
 * Refuses more than `maxShoots` deletions, or more than `maxPercent` of the landscape, at once. A
 * single deletion never trips the percentage: in a landscape of three Shoots one is 33 %.
 */
export function massDeletionGuard({
  deleting,
  total,
  policy,
  override,
  wording = GENERATOR_WORDING,
}: MassDeletionInput): GuardResult {
  const percent = total > 0 ? (deleting / total) * 100 : 100;
  const tooMany = deleting > policy.maxShoots;
  // Compared in integers: 13 of 130 is 10 % exactly, which floating point makes 10.000000000000002.
  const tooLarge = deleting > 1 && deleting * 100 > policy.maxPercent * total;
  if (!tooMany && !tooLarge) return { allowed: true };
  if (override !== undefined && override >= deleting) return { allowed: true };
  const share = `${deleting} of ${total} shoots (${Math.round(percent)} %)`;
  return {
    allowed: false,
    message: `${wording.refusing} ${share} at once: kimops.yaml massDeletion allows ${policy.maxShoots} shoots or ${policy.maxPercent} %. ${wording.approve(deleting)}`,
  };
}

/**
 * A human's approval of more deletions than kimops.yaml's massDeletion allows, carried by the commit being
 * synced as a git trailer (`Kimops-Allow-Mass-Deletion: 25`), e.g. on an empty commit reviewed like any other
 * (`git commit --allow-empty -m "Approve deleting 25 Shoots" --trailer "Kimops-Allow-Mass-Deletion: 25"`).
 * It holds for that commit only: once main moves on, the next commit needs its own.
 */
export const MASS_DELETION_TRAILER = 'Kimops-Allow-Mass-Deletion';

export function massDeletionApproval(message: string): number | undefined {
  const approvals = [...message.matchAll(new RegExp(`^${MASS_DELETION_TRAILER}:\\s*(\\d+)\\s*$`, 'gim'))].map((m) =>
    Number(m[1]),
  );
  return approvals.length > 0 ? Math.max(...approvals) : undefined;
}

/** A count of deletions a human typed (`--allow-mass-deletion 25`): a whole number, 0 or more; undefined if not one. */
export function parseDeletionCount(text: string): number | undefined {
  const count = Number(text);
  return /^\d+$/.test(text) && Number.isSafeInteger(count) ? count : undefined;
}
