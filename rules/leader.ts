// Which system leads a Runtime: kimops (renders, proposes, applies, reports status) or KIM (kimops only shadows it
// in the landscape repo and writes nothing outside it). The marker lets KIM and kimops own disjoint sets of
// Runtimes on one KCP during a cut-over (docs/adr/0011-who-leads-a-runtime.md). Values in, values out.
import type { Landscape } from '../model/landscape.js';
import type { ObjectMeta } from '../model/kube-object.js';

/** On a Runtime: who leads it. KEB never writes it; an SRE (or a cut-over script) sets it per Runtime. */
export const LEADER_LABEL = 'kimops.kyma-project.io/leader';
/**
 * On a Shoot in main's `shoot.yaml`: `kim` while KIM leads its Runtime (absent while kimops leads, so the files of a
 * landscape kimops leads never change). The same key as the label, so one name is searched for both. The applier
 * never writes it to the Garden.
 */
export const LEADER_ANNOTATION = 'kimops.kyma-project.io/leader';

const LEADERS = ['kimops', 'kim'] as const;
export type Leader = (typeof LEADERS)[number];

/** The landscape's leader for Runtimes without the label; absent means kimops, as before the marker existed. */
function defaultLeader(landscape: Pick<Landscape, 'defaultLeader'>): Leader {
  return landscape.defaultLeader ?? 'kimops';
}

export interface RuntimeLeader {
  leader: Leader;
  /** Set when the label holds a value that is neither leader: the Runtime is then treated as led by KIM. */
  problem?: { field: string; detail: string };
}

function isLeader(value: unknown): value is Leader {
  return (LEADERS as readonly unknown[]).includes(value);
}

/**
 * Who leads a Runtime: its label, else the landscape's default. A label kimops cannot read means KIM leads — doing
 * nothing is the safe side while a human fixes it — and comes with the problem to report.
 */
export function runtimeLeader(
  runtime: { metadata: Pick<ObjectMeta, 'labels'> },
  landscape: Pick<Landscape, 'defaultLeader'>,
): RuntimeLeader {
  const value = runtime.metadata.labels?.[LEADER_LABEL];
  if (value === undefined) return { leader: defaultLeader(landscape) };
  if (isLeader(value)) return { leader: value };
  return {
    leader: 'kim',
    problem: {
      field: `metadata.labels[${LEADER_LABEL}]`,
      detail:
        `must be "kimops" or "kim"; got ${JSON.stringify(value)} — treated as led by KIM (kimops writes nothing for ` +
        `it) until the label is fixed: set it to "kimops" or "kim", or remove it to use the landscape's default ` +
        `(${defaultLeader(landscape)})`,
    },
  };
}

/**
 * Who leads the Shoot a folder in main holds: kimops when main leaves it unmarked, else KIM. kimops writes only `kim`;
 * any other value was written by hand, and the safe reading is the one under which the applier writes nothing (the
 * generator then proposes the mark its Runtime's leader asks for).
 */
export function shootLeader(shootInMain: { metadata: Pick<ObjectMeta, 'annotations'> }): Leader {
  return shootInMain.metadata.annotations?.[LEADER_ANNOTATION] === undefined ? 'kimops' : 'kim';
}

/** The Shoot as main holds it for that leader: marked when KIM leads, unmarked (no empty annotations) otherwise. */
export function withLeader<T extends { metadata: ObjectMeta }>(shoot: T, leader: Leader): T {
  const annotations = Object.fromEntries(
    Object.entries(shoot.metadata.annotations ?? {}).filter(([key]) => key !== LEADER_ANNOTATION),
  );
  if (leader === 'kim') annotations[LEADER_ANNOTATION] = 'kim';
  const metadata: ObjectMeta = { ...shoot.metadata, annotations };
  if (Object.keys(annotations).length === 0) delete metadata.annotations;
  return { ...shoot, metadata };
}
