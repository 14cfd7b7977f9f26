// Whether a Shoot stuck in deletion may be force-deleted (docs/contracts/keb-and-gardener-shoot.md §B.3). Gardener
// accepts the annotation only on a Shoot being deleted whose `status.lastErrors` carry one of the codes below;
// it then skips the infrastructure cleanup, so cloud resources may be left behind. That is why kimops sets it
// only where the landscape allows it (kimops.yaml `apply.forceDeletion: true`) and otherwise tells the SRE.
// Pure: values in, values out; the caller writes the annotation.
import type { Shoot } from '../model/shoot.js';
import {
  codesOf,
  ERR_CLEANUP_CLUSTER_RESOURCES,
  ERR_CONFIGURATION_PROBLEM,
  ERR_INFRA_DEPENDENCIES,
  ERR_INFRA_UNAUTHENTICATED,
  ERR_INFRA_UNAUTHORIZED,
} from '../rules/shoot-health.js';
import { FORCE_DELETION_ANNOTATION } from '../model/contract.js';

/** The codes Gardener's validation requires in `status.lastErrors` before it accepts the annotation. */
export const FORCE_DELETABLE_CODES: readonly string[] = [
  ERR_CLEANUP_CLUSTER_RESOURCES,
  ERR_CONFIGURATION_PROBLEM,
  ERR_INFRA_DEPENDENCIES,
  ERR_INFRA_UNAUTHENTICATED,
  ERR_INFRA_UNAUTHORIZED,
];

export type ForceDeletionDecision =
  | { action: 'none' }
  /** Annotate the Shoot `confirmation.gardener.cloud/force-deletion: "true"`. */
  | { action: 'force'; codes: string[]; message: string }
  /** The landscape does not allow it: tell the SRE, write nothing. */
  | { action: 'report'; codes: string[]; message: string };

/**
 * `force` or `report` (by `allowed`) for a Shoot that is being deleted, reports a force-deletable code, is stuck
 * (its deletion Failed, or runs past `deleteTimeoutMs`) and is not force-deleted yet; `none` otherwise. `codes` are the force-deletable codes found, in the order Gardener reports
 * them.
 */
export function forceDeletionDecision(
  shoot: Shoot,
  allowed: boolean,
  { now, deleteTimeoutMs }: { now: Date; deleteTimeoutMs: number },
): ForceDeletionDecision {
  if (!shoot.metadata.deletionTimestamp || isForceDeletionConfirmed(shoot)) return { action: 'none' };
  const codes = codesOf(shoot.status?.lastErrors ?? []).filter((code) => FORCE_DELETABLE_CODES.includes(code));
  if (codes.length === 0) return { action: 'none' };
  // Stuck, not merely retrying: Gardener gave up (Failed), or the deletion ran past its timeout. Codes such as
  // ERR_INFRA_DEPENDENCIES often pass on a retry; forcing then would leave cloud resources behind for nothing.
  const gaveUp = shoot.status?.lastOperation?.state === 'Failed';
  const overdue = now.getTime() - Date.parse(shoot.metadata.deletionTimestamp) > deleteTimeoutMs;
  if (!gaveUp && !overdue) return { action: 'none' };
  const stuck = `Shoot ${shoot.metadata.namespace ?? ''}/${shoot.metadata.name} is stuck in deletion (${codes.join(', ')})`;
  if (allowed) {
    return {
      action: 'force',
      codes,
      message:
        `${stuck}: kimops annotates it ${FORCE_DELETION_ANNOTATION}=true, as kimops.yaml apply.forceDeletion allows; ` +
        'Gardener then deletes it without cleaning up its infrastructure — check the cloud account for what is left',
    };
  }
  return {
    action: 'report',
    codes,
    message:
      `${stuck}: check its infrastructure in the cloud account and clean up what Gardener cannot, then annotate the ` +
      `Shoot ${FORCE_DELETION_ANNOTATION}=true by hand; or set apply.forceDeletion: true in kimops.yaml to let kimops ` +
      'force-delete such Shoots',
  };
}

/** Gardener reads the annotation with Go's `strconv.ParseBool`; once true it cannot be removed again. */
function isForceDeletionConfirmed(shoot: Shoot): boolean {
  const value = shoot.metadata.annotations?.[FORCE_DELETION_ANNOTATION];
  return value !== undefined && GO_PARSE_BOOL_TRUE.includes(value);
}

const GO_PARSE_BOOL_TRUE = ['1', 't', 'T', 'TRUE', 'true', 'True'];
