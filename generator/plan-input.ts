// What a generator pass plans from (plan.ts): everything read before anything is decided, as values, and the
// plan's bookkeeping while it decides. `foldersToRead` tells the caller which of main's folders to read first,
// so the plan itself never awaits.
import type { ConfigError } from '../model/errors.js';
import type { ConversionSettings } from '../model/landscape.js';
import { runtimeRef } from '../model/runtime.js';
import type { Shoot } from '../model/shoot.js';
import { branchOf, SHOOT_FILE, SHOOTS_FOLDER } from '../model/contract.js';
import type { MainFolder, MainSnapshot } from './main-snapshot.js';
import type { RenderFailure, RuntimeInput } from './render-runtimes.js';
import type { RenderedChanges } from './render-changes.js';
import type { RenderSelection } from './render-selection.js';
import type { ValidationContext } from './validate/checks.js';
import type { RuntimeLeaders } from './leaders.js';

/** What the plan knows of main: the folders by tree oid, and those it looks into as read (`foldersToRead`). */
export interface MainState extends Pick<MainSnapshot, 'ref' | 'config' | 'folders' | 'holds'> {
  read: ReadonlyMap<string, MainFolder>;
}

export interface PassInput {
  landscape: string;
  settings: ConversionSettings;
  /** Every Runtime read, those KEB is deleting included: their deletionTimestamp is what proves a deletion. */
  runtimes: readonly RuntimeInput[];
  /** False when some Runtimes could not be read: then no Shoot is proposed for deletion. */
  runtimesComplete: boolean;
  selection: RenderSelection;
  renders: RenderedChanges;
  /** Who leads each Runtime (leaders.ts); absent, kimops leads all. */
  leaders?: RuntimeLeaders;
  main: MainState;
  /** Live Shoots from the Garden (read-only), by name. */
  gardenShoots?: ReadonlyMap<string, Shoot>;
  /** The landscape's policies and facts; without them a change is checked against the Shoot schema only. */
  validation?: ValidationContext;
  /** Deletions a human confirmed beyond the mass-deletion guard. */
  allowMassDeletion?: number;
}

/**
 * The plan's bookkeeping while it decides: failures and kept branches accumulate here, inputs are never
 * changed.
 */
export interface Planning {
  input: PassInput;
  failures: RenderFailure[];
  keep: Set<string>;
}

/**
 * The folders of main the plan looks into: those of the renders main does not hold (to classify and check the
 * change), and those no Runtime asks for (to propose their deletion, or say why not).
 */
export function foldersToRead(
  selection: Pick<RenderSelection, 'active'>,
  renders: Pick<RenderedChanges, 'changed'>,
  folders: ReadonlyMap<string, string>,
): string[] {
  const requested = requestedShoots(selection.active);
  return [
    ...renders.changed.map((c) => c.rendered.shootName).filter((shoot) => folders.has(shoot)),
    ...[...folders.keys()].filter((shoot) => !requested.has(shoot)),
  ];
}

/** main's folder of a Shoot, undefined when main has none; one the caller did not read is a bug in the caller. */
export function mainFolder(main: MainState, shoot: string): MainFolder | undefined {
  if (!main.folders.has(shoot)) return undefined;
  const folder = main.read.get(shoot);
  if (!folder) throw new Error(`main's folder of ${shoot} was not read before planning (foldersToRead names it)`);
  return folder;
}

/**
 * A Shoot whose file on main cannot be read gets nothing proposed this pass — not rendered as a create
 * over it, not deleted — and is reported with the fix; its open PR stays as it is.
 */
export function brokenOnMain(planning: Planning, shoot: string, error: ConfigError, entry?: RuntimeInput): void {
  planning.failures.push({
    source: entry?.source ?? planning.input.main.ref,
    runtime: entry ? runtimeRef(entry.runtime) : '(none)',
    field: `${SHOOTS_FOLDER}/${shoot}/${SHOOT_FILE}`,
    message: `${error.message}; restore the file on main (git revert the commit that broke it): kimops proposes nothing for ${shoot} meanwhile`,
  });
  planning.keep.add(branchOf(planning.input.landscape, shoot));
}

/** Every Shoot a Runtime asks for, rendered or not: those are never proposed for deletion. */
export function requestedShoots(runtimes: readonly RuntimeInput[]): Set<string> {
  return new Set(
    runtimes.map(({ runtime }) => runtime.spec?.shoot?.name).filter((n): n is string => typeof n === 'string'),
  );
}
