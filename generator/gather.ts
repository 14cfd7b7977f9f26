// What a generator pass gathers before it decides anything (generate.ts calls it, plan.ts decides on its result):
// which Runtimes to render, their renders, main's folders the plan looks into, and the landscape's policies.
// The only awaits are on main's snapshot and the policy source it is handed; the plan's tests gather the same way.
import type { MainFolder, MainSnapshot } from './main-snapshot.js';
import { foldersToRead, type PassInput } from './plan-input.js';
import type { RenderMemo } from './render-memo.js';
import { renderChanges } from './render-changes.js';
import type { RuntimeInput } from './render-runtimes.js';
import { selectRenders } from './render-selection.js';
import type { ValidationSource } from './validate/checks.js';
import type { ConversionSettings } from '../model/landscape.js';
import type { Shoot } from '../model/shoot.js';
import type { LogLine } from '../model/log.js';
import type { AuditLogRendering } from './audit-log-pass.js';
import type { Leader } from '../rules/leader.js';
import { runtimeLeaders } from './leaders.js';

/** What gathering needs of a pass's input (generate.ts's GenerateInput has it). */
export interface GatherInput {
  landscape: string;
  settings: ConversionSettings;
  runtimes: readonly RuntimeInput[];
  runtimesComplete: boolean;
  gardenShoots?: ReadonlyMap<string, Shoot>;
  validation?: ValidationSource;
  allowMassDeletion?: number;
  /** landscape.yaml's defaultLeader: who leads a Runtime without the leader label (absent: kimops). */
  defaultLeader?: Leader;
  log: LogLine;
}

/** What a pass settled with KALM's AuditLog pool before it gathers (audit-log-pass.ts). */
export interface GatherExtras {
  auditLogs?: AuditLogRendering;
}

/** What the plan decides on: the Runtimes to render and their renders, main's folders they need, the policies. */
export async function gatherPassInput(
  input: GatherInput,
  snapshot: MainSnapshot,
  memo: Pick<RenderMemo, 'isUnchanged'>,
  extras: GatherExtras = {},
): Promise<PassInput> {
  const { landscape, settings, gardenShoots } = input;
  const leaders = runtimeLeaders(input.runtimes, input.defaultLeader);
  const selection = selectRenders({
    leaders,
    runtimes: input.runtimes,
    settings,
    folders: snapshot.folders,
    ...(gardenShoots && { gardenShoots }),
    memo,
    ...(extras.auditLogs && { auditLogs: extras.auditLogs }),
  });
  const validation = input.validation && {
    policies: await input.validation.policies(snapshot.config.policySet),
    params: await input.validation.params(input.runtimesComplete ? selection.active.map((r) => r.runtime) : undefined),
    landscape,
  };
  for (const line of selection.log) input.log(line);
  const renders = await renderChanges({
    runtimes: selection.toRender,
    settings,
    ...(gardenShoots && { gardenShoots }),
    main: snapshot,
    dedicatedAuditLogs: selection.dedicatedAuditLogs,
    leaders,
  });
  const read = new Map<string, MainFolder>();
  for (const shoot of foldersToRead(selection, renders, snapshot.folders))
    read.set(shoot, await snapshot.folder(shoot));
  return {
    landscape,
    settings,
    runtimes: input.runtimes,
    runtimesComplete: input.runtimesComplete,
    selection,
    renders,
    leaders,
    main: { ref: snapshot.ref, config: snapshot.config, folders: snapshot.folders, holds: snapshot.holds, read },
    ...(gardenShoots && { gardenShoots }),
    ...(validation && { validation }),
    ...(input.allowMassDeletion !== undefined && { allowMassDeletion: input.allowMassDeletion }),
  };
}
