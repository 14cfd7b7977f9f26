// `kimops compare` as a value: main's Shoots at one commit against every live Shoot of garden-<project>, per Shoot the
// fields where main differs (rules/field-differences.ts: only the fields main sets, held by the applier's live rules),
// the Shoots only one side has, who leads each Shoot, and the differences clustered by field. The report is a stable,
// versioned JSON document (`kind: ComparisonReport`, docs/observability.md); nothing here reads or writes. Pure.
import { isManagedByKimops, type Shoot } from '../model/shoot.js';
import {
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
export interface ComparedShoot {
  name: string;
  /** From main's file (rules/leader.ts): KIM when main marks it so. */
  leader: Leader;
  /** The live Shoot carries kimops's ownership label: kimops applied it (else KIM or a person did). */
  managedByKimops: boolean;
  /** What an apply of main would change, in document order; empty when the two agree. */
  differences: FieldDifference[];
  /** Where main differs but the applier keeps the live value (never written). */
  kept: KeptDifference[];
}

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
  /** In main, not live: an apply would create them. */
  onlyInMain: { name: string; leader: Leader }[];
  /** Live, not in main: listed, never touched. */
  onlyLive: { name: string; managedByKimops: boolean }[];
  /** Folders of main whose Shoot could not be read or held against the live one. */
  unreadable: { name: string; problem: string }[];
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
   * A watching compare's entries by everything they were computed from (folder tree, live resourceVersion): a
   * remembered Shoot is neither read nor compared again. Left holding this comparison's.
   */
  memo?: Map<string, ComparedShoot>;
}

export function compareLandscape(input: CompareInput): ComparisonReport {
  const only = input.only && new Set(input.only);
  const wanted = (name: string) => !only || only.has(name);
  const liveByName = new Map(input.live.filter((s) => wanted(s.metadata.name)).map((s) => [s.metadata.name, s]));
  const mainNames = [...input.main.keys()].filter(wanted).sort(byCodeUnit);
  const shoots: ComparedShoot[] = [];
  const onlyInMain: ComparisonReport['onlyInMain'] = [];
  const unreadable: ComparisonReport['unreadable'] = [];
  const remembered = new Map<string, ComparedShoot>();
  for (const name of mainNames) {
    const folder = input.main.get(name) as MainFolder;
    const live = liveByName.get(name);
    const key = live && memoKey(name, folder.tree, live);
    const known = key !== undefined ? input.memo?.get(key) : undefined;
    if (known && key !== undefined) {
      remembered.set(key, known);
      shoots.push(known);
      continue;
    }
    if (folder.shoot === undefined) {
      unreadable.push({ name, problem: folder.problem ?? 'not read: a bug in kimops, please report it' });
      continue;
    }
    if (!live) {
      onlyInMain.push({ name, leader: shootLeader(folder.shoot) });
      continue;
    }
    try {
      const entry = {
        name,
        leader: shootLeader(folder.shoot),
        managedByKimops: isManagedByKimops(live),
        ...compareWithLive(folder.shoot, live),
      };
      if (key !== undefined) remembered.set(key, entry);
      shoots.push(entry);
    } catch (error) {
      unreadable.push({
        name,
        problem: `cannot be held against the live Shoot (${error instanceof Error ? error.message : String(error)}): it is not a complete Shoot; run kimops validate on it and merge a fix`,
      });
    }
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
 * The folders of main (name → tree) to read for a comparison: all but those whose comparison `memo` remembers for
 * the same tree and live resourceVersion, and only those of `only` when given.
 */
export function foldersToRead(
  folders: ReadonlyMap<string, string>,
  live: readonly Shoot[],
  memo: ReadonlyMap<string, ComparedShoot> | undefined,
  only?: readonly string[],
): string[] {
  const liveByName = new Map(live.map((s) => [s.metadata.name, s]));
  const wanted = only && new Set(only);
  return [...folders]
    .filter(([name]) => !wanted || wanted.has(name))
    .filter(([name, tree]) => {
      const shoot = liveByName.get(name);
      const key = shoot && memoKey(name, tree, shoot);
      return key === undefined || !memo?.has(key);
    })
    .map(([name]) => name);
}

/** What a comparison was computed from; undefined when that is not known (then it is always computed). */
function memoKey(name: string, tree: string | undefined, live: Shoot): string | undefined {
  const version = live.metadata.resourceVersion;
  if (tree === undefined || version === undefined) return undefined;
  return [name, tree, version].join('\0');
}

function summaryOf(clusters: FieldCluster[]): FieldSummary[] {
  return clusters.map(({ path, count, shoots }) => ({ path, count, examples: shoots.slice(0, CLUSTER_EXAMPLES) }));
}

function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
