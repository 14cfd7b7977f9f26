// Which Shoots on main a pass proposes for deletion, and why the others wait (issue 14, "Deletion only on
// proof"). A Shoot goes only when its Runtime is known to be gone: KEB is deleting it (a deletionTimestamp,
// which KIM's finalizer — held by kimops's backfiller — keeps on the Runtime until the Shoot is gone), or it is
// absent from a Runtime source that was read in full. KEB's deletions flow in batches of kimops.yaml
// `deprovisioning.batchSize` per pass; a Shoot whose Runtime is simply absent waits for a human, under the
// mass-deletion guard. Pure: the caller reads main and the Runtimes.
import type { KimopsConfig } from '../../model/kimops-config.js';
import { runtimeRef, type Runtime } from '../../model/runtime.js';
import { LABEL_BROKER_PLAN_NAME, LABEL_RUNTIME_ID } from '../../model/contract.js';
import { formatCount } from '../../rules/change-text.js';
import { deletionsAllowedAtOnce, massDeletionGuard } from '../../rules/mass-deletion.js';
import type { ShootProposal } from './pr-body.js';

/** A Shoot on main that no Runtime asks for any more (none that is not being deleted names it). */
interface UnaskedShoot {
  name: string;
  /** KIM's `infrastructuremanager.kyma-project.io/runtime-id` annotation on the Shoot: all that is known of a Runtime that is gone. */
  runtimeId?: string;
}

export interface DeletionInput {
  unasked: readonly UnaskedShoot[];
  /** Every Runtime read this pass, those KEB is deleting included. */
  runtimes: readonly Runtime[];
  /** False when some Runtime input could not be read or parsed (the caller names each). */
  runtimesComplete: boolean;
  /** Runtimes (`<ns>/<name>`) that failed this pass, each reported with its reason. */
  failed: readonly string[];
  /** Shoots on main. */
  total: number;
  config: Pick<KimopsConfig, 'massDeletion' | 'deprovisioning'>;
  /** Deletions a human confirmed beyond the mass-deletion guard (`--allow-mass-deletion`). */
  allowMassDeletion?: number;
  /**
   * Known with the Garden's live Shoots: Shoots main no longer holds whose deletion the applier has not started
   * (no deletionTimestamp yet), and how many live Shoots the applier counts its guard against.
   */
  garden?: { unapplied: number; total: number };
}

interface Deletion {
  shoot: string;
  /** The Runtime the PR names: the one KEB is deleting, or, when it is absent, only its Shoot's runtime id. */
  runtime: ShootProposal['runtime'];
  /** KEB asked for it: merged per kimops.yaml's delete policy. Otherwise a human approves it. */
  askedByKeb: boolean;
  /** Why the Shoot goes, for the PR's reviewer. */
  reason: string;
}

export interface DeletionPlan {
  /** To propose in this pass, by Shoot name: KEB's batch first, then the absent Runtimes' Shoots. */
  deletions: Deletion[];
  /** Deletions KEB asked for beyond this pass's batch: later passes propose them. */
  later: number;
  /** Why this pass's batch is smaller than kimops.yaml's batchSize, when it is. */
  batchLimit?: string;
  /** Why Shoots were held back (no proof, or the mass-deletion guard): one line with the fix. */
  withheld?: string;
}

export function planDeletions(input: DeletionInput): DeletionPlan {
  const unasked = [...input.unasked].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  if (unasked.length === 0) return { deletions: [], later: 0 };
  const noProof = inventoryGap(input);
  if (noProof)
    return { deletions: [], later: 0, withheld: `not proposing to delete ${shootList(unasked)}: ${noProof}` };

  const deleting = new Map<string, Runtime>();
  for (const runtime of input.runtimes)
    if (runtime.metadata.deletionTimestamp) deleting.set(runtime.spec.shoot.name, runtime);
  // KEB's deletion proves a Shoot's only when it is that Shoot's Runtime: where KIM recorded the runtime id on
  // the Shoot, the Runtime being deleted must carry the same id (another Runtime naming the Shoot proves nothing).
  const isKebs = (shoot: UnaskedShoot) => {
    const runtime = deleting.get(shoot.name);
    return (
      runtime !== undefined && (!shoot.runtimeId || runtime.metadata.labels?.[LABEL_RUNTIME_ID] === shoot.runtimeId)
    );
  };
  const asked = unasked.filter(isKebs);
  const absent = unasked.filter((shoot) => !isKebs(shoot));
  const size = batchSize(input);
  const batch = asked.slice(0, size.size).map(({ name }) => kebDeletion(name, deleting.get(name) as Runtime));
  const plan: DeletionPlan = {
    deletions: batch,
    later: asked.length - batch.length,
    ...(batch.length < asked.length && size.why && { batchLimit: size.why }),
  };
  if (absent.length === 0) return plan;

  // Absence proves a deletion only when every Runtime was understood; KEB's deletionTimestamp proves itself.
  if (input.failed.length > 0) {
    const failed =
      input.failed.length === 1
        ? `runtime ${input.failed[0] as string} failed`
        : `${formatCount(input.failed.length)} Runtimes failed`;
    return {
      ...plan,
      withheld: `not proposing to delete ${shootList(absent)}, whose Runtime is absent: ${failed} this pass (see above), and a Shoot counts as gone only when every Runtime was understood — fix them and the next pass proposes the deletions`,
    };
  }
  const guard = massDeletionGuard({
    deleting: absent.length,
    total: input.total,
    policy: input.config.massDeletion,
    ...(input.allowMassDeletion !== undefined && { override: input.allowMassDeletion }),
  });
  if (!guard.allowed) return { ...plan, withheld: guard.message };
  return { ...plan, deletions: [...batch, ...absent.map(absentDeletion)] };
}

/**
 * How many of KEB's deletions this pass proposes: kimops.yaml's batchSize, but never more than the applier's
 * mass-deletion guard lets through in one sync, less the merged deletions it has not applied yet — so a
 * deprovisioning wave reaches Gardener batch by batch instead of stopping at the guard for a human.
 */
function batchSize({ config, total, garden }: DeletionInput): { size: number; why?: string } {
  const guardTotal = garden?.total ?? total;
  const atOnce = deletionsAllowedAtOnce(guardTotal, config.massDeletion);
  const room = Math.max(0, atOnce - (garden?.unapplied ?? 0));
  if (room >= config.deprovisioning.batchSize) return { size: config.deprovisioning.batchSize };
  const unapplied =
    garden && garden.unapplied > 0
      ? `, ${formatCount(garden.unapplied)} merged ${garden.unapplied === 1 ? 'deletion' : 'deletions'} not applied yet`
      : '';
  return {
    size: room,
    why: `the applier's mass-deletion guard lets ${atOnce} through at once in a landscape of ${guardTotal}${unapplied}`,
  };
}

/**
 * Why this pass's Runtimes cannot prove that any Runtime is gone, or undefined when they can: something
 * could not be read, nothing was read at all, or a Runtime names no Shoot (it may be any Shoot's).
 */
function inventoryGap({ runtimes, runtimesComplete }: DeletionInput): string | undefined {
  if (!runtimesComplete) {
    return 'some Runtime inputs could not be read (each is named above), and a Runtime that could not be read is not a deleted Runtime — fix or remove those inputs and the next pass proposes what is really gone';
  }
  if (runtimes.length === 0) {
    return 'no Runtime was read at all, and an empty Runtime source never deletes (check --runtimes or --kcp-namespace) — to retire the last Shoots, remove their folders from main in a reviewed pull request';
  }
  const nameless = runtimes.find(
    (runtime) => typeof runtime.spec?.shoot?.name !== 'string' || runtime.spec.shoot.name === '',
  );
  if (nameless)
    return `runtime ${runtimeRef(nameless)} has no spec.shoot.name, so it may be the Runtime of any of them — set spec.shoot.name (KEB always does) or remove the Runtime`;
  return undefined;
}

function kebDeletion(shoot: string, runtime: Runtime): Deletion {
  const { namespace = '', name, generation, deletionTimestamp, creationTimestamp, labels } = runtime.metadata;
  const plan = labels?.[LABEL_BROKER_PLAN_NAME];
  return {
    shoot,
    // What the PR's summary names the cluster by, from the Runtime: it is gone once the Shoot is.
    runtime: {
      namespace,
      name,
      ...(typeof generation === 'number' && { generation }),
      ...(plan && { plan }),
      ...(typeof creationTimestamp === 'string' && { createdAt: creationTimestamp }),
      ...(typeof deletionTimestamp === 'string' && { deletionRequestedAt: deletionTimestamp }),
    },
    askedByKeb: true,
    reason: `runtime ${runtimeRef(runtime)} is being deleted (deletionTimestamp ${String(deletionTimestamp)}; KIM's finalizer keeps it until this Shoot is gone): KEB deprovisions it, Gardener deletes the cluster`,
  };
}

function absentDeletion({ name, runtimeId }: UnaskedShoot): Deletion {
  const known = runtimeId
    ? `its Runtime (runtime id ${runtimeId}, from the Shoot's annotation)`
    : 'its Runtime (the Shoot records no runtime id)';
  return {
    shoot: name,
    runtime: { namespace: '', name: runtimeId ?? '', absent: true },
    askedByKeb: false,
    reason: `no Runtime asks for this Shoot and none is being deleted for it: ${known} is absent, removed without KEB's deletion (which keeps the Runtime, marked for deletion, until the Shoot is gone) — approve only if this cluster is meant to go`,
  };
}

/** `a, b, c and 97 more`: enough to recognise, short enough for one line. */
function shootList(shoots: readonly UnaskedShoot[], shown = 3): string {
  const names = shoots
    .slice(0, shown)
    .map((s) => s.name)
    .join(', ');
  return shoots.length > shown ? `${names} and ${formatCount(shoots.length - shown)} more` : names;
}
