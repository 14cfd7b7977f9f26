// The class of a change by who leads its Runtime (rules/leader.ts, docs/adr/0011-who-leads-a-runtime.md). The leader
// is not the one main's Shoot records: a `cut-over` — kimops takes the Shoot over from KIM, or hands it back — which
// merges alone only where the Garden's live Shoot already is what main says in every field main sets, and is
// `disruptive` (waits for a person, merge-policy.ts) otherwise or when the Garden was not read. KIM leads it and did
// before: a `shadow`, since the applier writes nothing for it. Pure.
import { isManagedByKimops, type Shoot } from '../../model/shoot.js';
import { show } from '../../rules/change-text.js';
import { differingFields } from '../../rules/field-differences.js';
import { LEADER_LABEL, shootLeader, type Leader } from '../../rules/leader.js';
import { reviewedChanges, type ChangeClass } from './classify.js';

/** The reviewer's difference list stops here; the rest is counted. */
const FIELDS_SHOWN = 10;

export interface LeaderClassInput {
  /** Who leads the Runtime now. */
  leader: Leader;
  /** main's Shoot; absent for a create. */
  before?: Shoot;
  /** The Shoot as proposed (marked for its leader). */
  after: Shoot;
  /** The class by the Shoots alone (classify.ts) and why the change happened. */
  classification: ChangeClass;
  /** With the Garden read (`--garden-kubeconfig`): its live Shoot of that name, if any. */
  garden?: { live: Shoot | undefined };
}

export function leaderClass({ leader, before, after, classification, garden }: LeaderClassInput): ChangeClass {
  // No folder in main (a bootstrap left it out) but a live Shoot KIM wrote: merging it is a take-over, not a create.
  const takesOverUnseen =
    before === undefined && leader === 'kimops' && garden?.live !== undefined && !isManagedByKimops(garden.live);
  if (takesOverUnseen || (before !== undefined && shootLeader(before) !== leader)) {
    const { differs, reason } = liveAgainstMain(after, garden, leader);
    const reviewed = reviewedChanges(classification.changes).length > 0;
    return {
      class: 'cut-over',
      disruptive: differs,
      reasons: [cutOverReason(leader), reason, ...(reviewed ? classification.reasons : [])],
      changes: classification.changes,
    };
  }
  if (leader !== 'kim') return classification;
  return {
    ...classification,
    class: 'shadow',
    disruptive: false,
    reasons: [
      `KIM leads this Runtime (its \`${LEADER_LABEL}\` label, or the landscape's \`defaultLeader\`): main keeps kimops's shadow of its Shoot, and merging changes nothing live`,
      ...classification.reasons,
    ],
  };
}

function cutOverReason(leader: Leader): string {
  return leader === 'kimops'
    ? `take-over: kimops now leads this Runtime (its \`${LEADER_LABEL}\` label, or the landscape's \`defaultLeader\`); once merged, the applier takes the live Shoot over from KIM's field manager; KIM must no longer reconcile it (a KIM build that skips Runtimes labelled \`${LEADER_LABEL}=kimops\`, or KIM scaled to 0)`
    : `hand-back: KIM now leads this Runtime (its \`${LEADER_LABEL}\` label, or the landscape's \`defaultLeader\`); once merged, the applier gives the live Shoot's fields to KIM's field manager \`kim\` and writes it no more, and main keeps it as a shadow`;
}

/** Whether the Garden's live Shoot differs from main in a field main sets, and the sentence that says where. */
function liveAgainstMain(
  main: Shoot,
  garden: LeaderClassInput['garden'],
  leader: Leader,
): { differs: boolean; reason: string } {
  if (!garden)
    return {
      differs: true,
      reason:
        'the live Shoot was not read (no --garden-kubeconfig): a person compares it with main before this merges (`kimops compare`)',
    };
  if (!garden.live)
    return {
      differs: true,
      reason:
        leader === 'kimops'
          ? 'the Garden has no such Shoot: once merged, the applier creates it'
          : 'the Garden has no such Shoot: there is nothing to hand back',
    };
  const differences = differingFields(main, garden.live);
  if (differences.length === 0)
    return { differs: false, reason: 'the live Shoot matches main in every field main sets: no field of it changes' };
  const shown = differences
    .slice(0, FIELDS_SHOWN)
    .map(({ path, main: wanted, live }) => `\`${path}\` (live ${show(live)}, main ${show(wanted)})`);
  const more = differences.length > FIELDS_SHOWN ? ` and ${differences.length - FIELDS_SHOWN} more` : '';
  const count = differences.length === 1 ? '1 field' : `${differences.length} fields`;
  const then = leader === 'kimops' ? ": once merged, the applier writes main's values" : '';
  return {
    differs: true,
    reason: `the live Shoot differs from main in ${count} main sets: ${shown.join(', ')}${more}${then}`,
  };
}

/**
 * Why removing the folder of a Shoot KIM leads changes nothing live, or undefined when that is not known: the Garden
 * was read and holds no Shoot of that name the applier owns (one still owned, not yet handed back, would be deleted
 * by the applier once main drops its folder — a real delete, classed and merged as one).
 */
export function shadowDeletion(before: Shoot, live: ReadonlyMap<string, Shoot> | undefined): string | undefined {
  if (shootLeader(before) !== 'kim' || !live) return undefined;
  const shoot = live.get(before.metadata.name);
  if (shoot && isManagedByKimops(shoot)) return undefined;
  return shoot
    ? "KIM leads this Shoot and the applier owns no part of the live one: removing main's shadow deletes nothing live (KIM deletes the cluster when KEB asks it to)"
    : "KIM leads this Shoot and the Garden has none of that name: removing main's shadow deletes nothing live";
}
