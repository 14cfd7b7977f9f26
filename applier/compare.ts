// `kimops compare` as a value: main's Shoots at one commit against every live Shoot of garden-<project>, per Shoot the
// fields where main differs (rules/field-differences.ts: only the fields main sets, held by the applier's live rules),
// the Shoots only one side has, who leads each Shoot, and the differences clustered by field. What a difference means
// depends on the leader (ADR 0011): for a Shoot kimops leads, what the next apply of main writes; for one KIM leads
// (the applier only shadows it), what a cut-over to kimops (its take-over) would write. The report is a stable,
// versioned JSON document (`kind: ComparisonReport`, docs/observability.md); nothing here reads or writes. Pure.
import { isManagedByKimops, type Shoot } from '../model/shoot.js';
import {
  byCodeUnit,
  clusterByField,
  compareWithLive,
  type FieldCluster,
  type FieldDifference,
  type KeptDifference,
} from '../rules/field-differences.js';
import { shootLeader, type Leader } from '../rules/leader.js';

const COMPARISON_API_VERSION = 'kimops.kyma-project.io/v1alpha1';
const COMPARISON_KIND = 'ComparisonReport';

/** Shoots named per field in the summary; the per-Shoot entries name them all. */
export const CLUSTER_EXAMPLES = 5;

/** One Shoot folder of main: its tree, and its Shoot or why it could not be read (neither: remembered, not read). */
export interface MainFolder {
  tree?: string;
  shoot?: Shoot;
  problem?: string;
}

/** A Shoot main holds and the Garden has. */
interface ComparedShoot {
  name: string;
  /** From main's file (rules/leader.ts): KIM when main marks it so. */
  leader: Leader;
  /** The live Shoot carries kimops's ownership label: kimops applied it (else KIM or a person did). */
  managedByKimops: boolean;
  /**
   * main's values the applier would write over the live ones, in document order; empty when the two agree. Led by
   * kimops: what the next apply changes. Led by KIM: nothing while KIM leads (the applier only shadows the Shoot);
   * what a cut-over to kimops (the take-over of the Shoot once main's leader annotation is removed) would change.
   */
  differences: FieldDifference[];
  /** Where main differs but the applier keeps the live value (never written). */
  kept: KeptDifference[];
}

/** A Shoot main holds that is not live. */
interface OnlyInMain {
  name: string;
  /** kimops: the next apply creates it. kim: nothing creates it while KIM leads; a cut-over to kimops would. */
  leader: Leader;
}

/** A folder of main that could not be compared, and why. */
interface Unreadable {
  name: string;
  problem: string;
}

/** One folder's outcome, as a watching compare remembers it by what it was computed from. */
export type RememberedShoot = { compared: ComparedShoot } | { onlyInMain: OnlyInMain } | { unreadable: Unreadable };

/** A field and how many Shoots differ there, with a few of them. */
export interface FieldSummary {
  path: string;
  count: number;
  examples: string[];
}

export interface ComparisonReport {
  apiVersion: typeof COMPARISON_API_VERSION;
  kind: typeof COMPARISON_KIND;
  landscape: string;
  /** garden-<project>. */
  namespace: string;
  /** The commit of main compared. */
  commit: string;
  /** When the Garden was read (RFC 3339). */
  comparedAt: string;
  summary: {
    inMain: number;
    live: number;
    compared: number;
    /** Compared Shoots with at least one difference. */
    differing: number;
    onlyInMain: number;
    onlyLive: number;
    unreadable: number;
    /** Fields where Shoots differ, most Shoots first. */
    fields: FieldSummary[];
    /** Fields where main differs but the live value is kept, most Shoots first. */
    kept: FieldSummary[];
  };
  /** Every Shoot main holds that is live, by name, the same ones included. */
  shoots: ComparedShoot[];
  /** In main, not live: the next apply creates those kimops leads; those KIM leads only a cut-over would. */
  onlyInMain: OnlyInMain[];
  /** Live, not in main: listed, never touched. */
  onlyLive: { name: string; managedByKimops: boolean }[];
  /** Folders of main whose Shoot could not be read or held against the live one. */
  unreadable: Unreadable[];
  /** With a Shoot filter: the names neither side has. */
  notFound?: string[];
}

export interface CompareInput {
  landscape: string;
  namespace: string;
  commit: string;
  comparedAt: string;
  /** main's Shoot folders by name. */
  main: ReadonlyMap<string, MainFolder>;
  /** The live Shoots of `namespace`. */
  live: readonly Shoot[];
  /** Only these Shoots (`--shoot`); absent: all. */
  only?: readonly string[];
  /**
   * A watching compare's outcomes by everything they were computed from (memoKey: the folder's tree, and the live
   * resourceVersion or that there is no live Shoot): a remembered folder is neither read nor compared again. Left
   * holding this comparison's.
   */
  memo?: Map<string, RememberedShoot>;
}

export function compareLandscape(input: CompareInput): ComparisonReport {
  const only = input.only && new Set(input.only);
  const wanted = (name: string) => !only || only.has(name);
  const liveByName = new Map(input.live.filter((s) => wanted(s.metadata.name)).map((s) => [s.metadata.name, s]));
  const mainNames = [...input.main.keys()].filter(wanted).sort(byCodeUnit);
  const shoots: ComparedShoot[] = [];
  const onlyInMain: OnlyInMain[] = [];
  const unreadable: Unreadable[] = [];
  const remembered = new Map<string, RememberedShoot>();
  for (const name of mainNames) {
    const folder = input.main.get(name) as MainFolder;
    const live = liveByName.get(name);
    const key = memoKey(name, folder.tree, live);
    const outcome = (key !== undefined && input.memo?.get(key)) || outcomeOf(name, folder, live);
    if (key !== undefined) remembered.set(key, outcome);
    if ('compared' in outcome) shoots.push(outcome.compared);
    else if ('onlyInMain' in outcome) onlyInMain.push(outcome.onlyInMain);
    else unreadable.push(outcome.unreadable);
  }
  if (input.memo) {
    input.memo.clear();
    for (const [key, entry] of remembered) input.memo.set(key, entry);
  }
  const onlyLive = [...liveByName.values()]
    .filter((s) => !input.main.has(s.metadata.name))
    .map((s) => ({ name: s.metadata.name, managedByKimops: isManagedByKimops(s) }))
    .sort((a, b) => byCodeUnit(a.name, b.name));
  const notFound = only && [...only].filter((name) => !input.main.has(name) && !liveByName.has(name)).sort(byCodeUnit);
  return {
    apiVersion: COMPARISON_API_VERSION,
    kind: COMPARISON_KIND,
    landscape: input.landscape,
    namespace: input.namespace,
    commit: input.commit,
    comparedAt: input.comparedAt,
    summary: {
      inMain: mainNames.length,
      live: liveByName.size,
      compared: shoots.length,
      differing: shoots.filter((s) => s.differences.length > 0).length,
      onlyInMain: onlyInMain.length,
      onlyLive: onlyLive.length,
      unreadable: unreadable.length,
      fields: summaryOf(clusterByField(shoots.map((s) => [s.name, s.differences] as const))),
      kept: summaryOf(clusterByField(shoots.map((s) => [s.name, s.kept] as const))),
    },
    shoots,
    onlyInMain,
    onlyLive,
    unreadable,
    ...(notFound && { notFound }),
  };
}

/** Whether main and the Garden disagree anywhere a human must look (kept values are not a disagreement). */
export function hasDifferences(report: ComparisonReport): boolean {
  const { differing, onlyInMain, onlyLive, unreadable } = report.summary;
  return differing + onlyInMain + onlyLive + unreadable + (report.notFound?.length ?? 0) > 0;
}

/**
 * The folders of main (name → tree) to read for a comparison: all but those whose outcome `memo` remembers for the
 * same tree and the same live Shoot (or none), and only those of `only` when given.
 */
export function foldersToRead(
  folders: ReadonlyMap<string, string>,
  live: readonly Shoot[],
  memo: ReadonlyMap<string, RememberedShoot> | undefined,
  only?: readonly string[],
): string[] {
  const liveByName = new Map(live.map((s) => [s.metadata.name, s]));
  const wanted = only && new Set(only);
  return [...folders]
    .filter(([name]) => !wanted || wanted.has(name))
    .filter(([name, tree]) => {
      const key = memoKey(name, tree, liveByName.get(name));
      return key === undefined || !memo?.has(key);
    })
    .map(([name]) => name);
}

/** A folder of main held against its live Shoot, or why it could not be. */
function outcomeOf(name: string, folder: MainFolder, live: Shoot | undefined): RememberedShoot {
  if (folder.shoot === undefined)
    return { unreadable: { name, problem: folder.problem ?? 'not read: a bug in kimops, please report it' } };
  if (!live) return { onlyInMain: { name, leader: shootLeader(folder.shoot) } };
  try {
    return {
      compared: {
        name,
        leader: shootLeader(folder.shoot),
        managedByKimops: isManagedByKimops(live),
        ...compareWithLive(folder.shoot, live),
      },
    };
  } catch (error) {
    return {
      unreadable: {
        name,
        problem: `cannot be held against the live Shoot (${error instanceof Error ? error.message : String(error)}): it is not a complete Shoot; run kimops validate on it and merge a fix`,
      },
    };
  }
}

/**
 * What a folder's outcome was computed from: its tree and the live Shoot's resourceVersion, or its tree alone when
 * nothing is live (a Shoot only main has is not read again while its folder stays). Undefined when that is not known
 * (then it is always computed).
 */
function memoKey(name: string, tree: string | undefined, live: Shoot | undefined): string | undefined {
  if (tree === undefined) return undefined;
  if (!live) return [name, tree].join('\0');
  const version = live.metadata.resourceVersion;
  return version === undefined ? undefined : [name, tree, version].join('\0');
}

function summaryOf(clusters: FieldCluster[]): FieldSummary[] {
  return clusters.map(({ path, count, shoots }) => ({ path, count, examples: shoots.slice(0, CLUSTER_EXAMPLES) }));
}
