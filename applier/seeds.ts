// KIM's pre-create seed check for a Runtime with `enforceSeedLocation` (docs/contracts/runtime-status.md §1,
// CreateShoot; KIM internal/controller/runtime/fsm/seed.go and runtime_fsm_create_shoot.go). The converter writes
// that flag as the seed selector's region label, so the manifest alone says whether to check. Without the check
// Gardener would accept the Shoot and leave it unscheduled; KIM refuses it up front with a final `SeedNotFound`.
// Pure: the caller makes the one LIST of Seeds.
import { SEED_REGION_LABEL } from '../model/contract.js';
import type { Seed } from '../model/seed.js';
import type { Shoot } from '../model/shoot.js';

export type SeedCheckResult = { ok: true } | { ok: false; reason: 'SeedNotFound'; message: string };

/** The region the Shoot must be scheduled in, when its Runtime enforces the seed location. */
export function enforcedSeedRegion(shoot: Shoot): string | undefined {
  const region = shoot.spec.seedSelector?.matchLabels?.[SEED_REGION_LABEL];
  return region === undefined || region === '' ? undefined : region;
}

/** Whether a create must LIST Seeds first: only a Shoot whose Runtime enforces the seed location. */
export function needsSeedCheck(shoot: Shoot): boolean {
  return enforcedSeedRegion(shoot) !== undefined;
}

/**
 * KIM's rule: some usable Seed of the Shoot's provider type is in the enforced region. A Shoot without the
 * enforced region passes (there is nothing to check). The message is KIM's, typo included, because KEB's
 * users and SREs know it by these words; the regions are listed as KIM does (Go's `%v` of its slice: usable
 * Seeds of the same provider type, in LIST order, each region once).
 */
export function seedCheck(shoot: Shoot, seeds: readonly Seed[]): SeedCheckResult {
  const region = enforcedSeedRegion(shoot);
  if (region === undefined) return { ok: true };
  const readyRegions = [
    ...new Set(
      seeds
        .filter((seed) => seed.spec.provider.type === shoot.spec.provider.type && isUsable(seed))
        .map((seed) => seed.spec.provider.region),
    ),
  ];
  if (readyRegions.includes(region)) return { ok: true };
  return {
    ok: false,
    reason: 'SeedNotFound',
    message: `Cannot find available seed for the region ${region}. The followig regions have seeds ready: [${readyRegions.join(' ')}].`,
  };
}

/** KIM's status when the LIST of Seeds fails: not final, KIM retries after its Gardener requeue interval. */
export function seedListFailure(shoot: Shoot): { ok: false; reason: 'GardenerErr'; message: string } {
  const region = enforcedSeedRegion(shoot) ?? shoot.spec.region;
  return {
    ok: false,
    reason: 'GardenerErr',
    message: `Failed to verify whether seed is available for the region ${region}.`,
  };
}

/**
 * KIM's `seedCanBeUsed`: not being deleted, visible to the scheduler, reconciled at least once by its gardenlet
 * (KIM refuses a Seed without `status.lastOperation`), gardenlet ready, and its backup buckets ready if it has a
 * backup.
 */
function isUsable(seed: Seed): boolean {
  if (seed.metadata.deletionTimestamp) return false;
  if (seed.spec.settings?.scheduling?.visible !== true) return false;
  if (!seed.status?.lastOperation) return false;
  if (!hasTrueCondition(seed, 'GardenletReady')) return false;
  // Go's constant is SeedBackupBucketsReady; the condition's type on the wire is BackupBucketsReady.
  return !seed.spec.backup || hasTrueCondition(seed, 'BackupBucketsReady');
}

/** Gardener's `GetCondition` takes the first condition of the type. */
function hasTrueCondition(seed: Seed, type: string): boolean {
  return seed.status?.conditions?.find((condition) => condition.type === type)?.status === 'True';
}
