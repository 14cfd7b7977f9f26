// The deletions of a pass's plan: Shoots on main no Runtime asks for, one delete PR each, proposed only on proof
// (propose/deletions.ts): those KEB is deleting in batches, merged per the delete policy; those whose Runtime is
// absent for a human's approval, under the mass-deletion guard. Pure, like plan.ts, whose bookkeeping it shares.
// A folder of a Shoot KIM leads goes on the same proof; its PR is a `shadow` only where the Garden shows that the
// applier owns no live Shoot of that name (ADR 0011). While some Runtime's leader is unreadable nothing goes.
import { ANNOTATION_RUNTIME_ID, branchOf } from '../model/contract.js';
import { runtimeRef } from '../model/runtime.js';
import { isManagedByKimops, type Shoot } from '../model/shoot.js';
import type { MainFolder } from './main-snapshot.js';
import { brokenOnMain, mainFolder, type MainState, type Planning } from './plan-input.js';
import { classifyChange, type ChangeClass } from './propose/classify.js';
import { planDeletions } from './propose/deletions.js';
import type { ShootProposal } from './propose/pr-body.js';
import type { BranchProposal } from './propose-branch.js';
import { checkProposedShoot } from './validate/folder-check.js';
import { LEADER_LABEL } from '../rules/leader.js';
import { shadowDeletion } from './propose/leader-class.js';
import { formatCount } from '../rules/change-text.js';

export interface PlannedDeletions {
  /** One PR per Shoot: KEB's batch first, then the Shoots whose Runtime is absent. */
  deletions: BranchProposal[];
  /** Why Shoots whose Runtime was not found are not proposed for deletion (no proof, or the mass-deletion guard). */
  deletionRefused?: string;
  /** Deletions KEB asked for: proposed in this pass, and left for later passes. */
  deprovisioning?: { proposed: number; later: number };
  /** For the log when some of KEB's deletions wait for a later pass: how many, and what limits the batch. */
  deprovisioningNote?: string;
}

export function planShootDeletions(planning: Planning, requested: ReadonlySet<string>): PlannedDeletions {
  const { input } = planning;
  const { main } = input;
  const gone = new Map<string, MainFolder & { shoot: Shoot }>();
  for (const name of main.folders.keys()) {
    if (requested.has(name)) continue;
    const folder = mainFolder(main, name) as MainFolder;
    if (folder.broken) brokenOnMain(planning, name, folder.broken);
    else if (folder.shoot) gone.set(name, { ...folder, shoot: folder.shoot });
  }
  if (gone.size === 0) return { deletions: [] };
  // Open delete PRs stay while their Shoot waits (a later batch, a held-back pass).
  for (const name of gone.keys()) planning.keep.add(branchOf(input.landscape, name));
  // A Runtime whose leader kimops cannot read may be the one of any of these Shoots, led by either system.
  const unreadable = input.leaders?.problems.length ?? 0;
  if (unreadable > 0)
    return {
      deletions: [],
      deletionRefused: `not proposing any deletion this pass: ${unreadable === 1 ? "1 Runtime's" : `${formatCount(unreadable)} Runtimes'`} \`${LEADER_LABEL}\` label cannot be read (see above), and nothing is deleted while it is unknown who leads a Runtime — fix the label and the next pass proposes the deletions`,
    };
  // Failures of Runtimes read this pass; the others are main's broken files, of no Runtime.
  const read = new Set(input.runtimes.map(({ runtime }) => runtimeRef(runtime)));
  const failed = new Set(
    [...planning.failures, ...input.renders.bugs].map((f) => f.runtime).filter((ref) => read.has(ref)),
  );
  const plan = planDeletions({
    unasked: [...gone].map(([name, { shoot }]) => {
      const runtimeId = shoot.metadata.annotations?.[ANNOTATION_RUNTIME_ID];
      return runtimeId ? { name, runtimeId } : { name };
    }),
    runtimes: input.runtimes.map(({ runtime }) => runtime),
    runtimesComplete: input.runtimesComplete,
    failed: [...failed],
    total: main.folders.size,
    config: main.config,
    ...(input.allowMassDeletion !== undefined && { allowMassDeletion: input.allowMassDeletion }),
    ...(input.gardenShoots && { garden: gardenDeletions(input.gardenShoots, main) }),
  });
  const deletions = plan.deletions.map((deletion): BranchProposal => {
    const { shoot: before, files } = gone.get(deletion.shoot) as MainFolder & { shoot: Shoot };
    const deleted = classifyChange({ before, runtimeDeleted: deletion.askedByKeb }) as ChangeClass;
    const shadow = shadowDeletion(before, input.gardenShoots);
    const classification: ChangeClass = shadow
      ? { ...deleted, class: 'shadow', disruptive: false, reasons: [shadow, deletion.reason] }
      : { ...deleted, reasons: [deletion.reason] };
    const proposal: ShootProposal = {
      shoot: deletion.shoot,
      runtime: deletion.runtime,
      classification,
      before,
      checks: checkProposedShoot(input.validation, deletion.shoot, new Map(), files),
    };
    return { branch: branchOf(input.landscape, deletion.shoot), proposals: [proposal], files: new Map() };
  });
  const planned: PlannedDeletions = { deletions, deletionRefused: plan.withheld };
  const proposed = plan.deletions.filter((d) => d.askedByKeb).length;
  if (proposed + plan.later > 0) planned.deprovisioning = { proposed, later: plan.later };
  if (plan.later > 0) {
    const limit = plan.batchLimit ?? `kimops.yaml deprovisioning.batchSize ${main.config.deprovisioning.batchSize}`;
    planned.deprovisioningNote = `deprovisioning: ${proposed} of ${proposed + plan.later} deletions KEB asked for proposed in this pass (${limit}); ${plan.later} more ${plan.later === 1 ? 'follows' : 'follow'} in later passes`;
  }
  return planned;
}

/**
 * What the applier's mass-deletion guard will count: the live Shoots, and those main dropped whose deletion it
 * has not started.
 */
function gardenDeletions(live: ReadonlyMap<string, Shoot>, main: MainState): { unapplied: number; total: number } {
  const owned = [...live.values()].filter(isManagedByKimops);
  const unapplied = owned.filter(
    (shoot) => !main.folders.has(shoot.metadata.name) && !shoot.metadata.deletionTimestamp,
  ).length;
  return { unapplied, total: owned.length };
}
