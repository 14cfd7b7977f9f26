// Which Runtimes a pass renders. A Runtime KEB is deleting is rendered no more (its Shoot goes); two Runtimes
// naming one Shoot neither (they would overwrite each other's files); a suspended one is left alone, and so is one
// that got no dedicated audit log (audit-log-pass.ts), and one whose leader label kimops cannot read (leaders.ts); and
// one whose render inputs are what they were when main last held its render is known unchanged (render-memo.ts).
// A Runtime KIM leads is rendered like any other: main is kimops's shadow of it.
// Pure: the memo is read here and written by the caller, from the plan.
import { ANNOTATION_FORCE_PATCH, ANNOTATION_SUSPEND_PATCH } from '../model/contract.js';
import type { AuditLogTenant } from '../model/converter-config.js';
import type { ConversionSettings } from '../model/landscape.js';
import { runtimeRef, type Runtime } from '../model/runtime.js';
import type { Shoot } from '../model/shoot.js';
import { withoutSharedShootNames, type RenderFailure, type RuntimeInput } from './render-runtimes.js';
import { digestOf, renderKey, type RenderMemo } from './render-memo.js';
import type { AuditLogRendering } from './audit-log-pass.js';
import { leaderOf, type RuntimeLeaders } from './leaders.js';

interface SelectionInput {
  /** Every Runtime read, those KEB is deleting included. */
  runtimes: readonly RuntimeInput[];
  settings: ConversionSettings;
  /** main's Shoot folders by name, each with its tree oid: a changed folder is a changed render input. */
  folders: ReadonlyMap<string, string>;
  gardenShoots?: ReadonlyMap<string, Shoot>;
  memo: Pick<RenderMemo, 'isUnchanged'>;
  /** With the landscape's dedicated audit logging: the claimed tenants, and the Runtimes held for want of one. */
  auditLogs?: AuditLogRendering;
  /** Who leads each Runtime; absent, kimops leads all. */
  leaders?: RuntimeLeaders;
}

export interface RenderSelection {
  /** The Runtimes not being deleted: what the pass renders from, and the Shoots they ask for. */
  active: RuntimeInput[];
  toRender: RuntimeInput[];
  /** The render key of each Shoot to render, remembered once main holds its render. */
  keys: ReadonlyMap<string, string>;
  /** Shoots of Runtimes annotated to suspend reconciliation: nothing is proposed for them. */
  suspended: string[];
  /** Shoots of Runtimes that got no dedicated audit log (KIM fails them): nothing is proposed for them. */
  auditLogHeld: string[];
  /** By Runtime (`<namespace>/<name>`): the tenant of the AuditLog it claimed, to render instead of the landscape's. */
  dedicatedAuditLogs: ReadonlyMap<string, AuditLogTenant>;
  /** Runtimes the memo knows to be unchanged. */
  unchanged: number;
  /** Runtimes that share their Shoot name with another one, or whose leader label kimops cannot read. */
  failures: RenderFailure[];
  /** For the log, one line each: why a Runtime is left alone. */
  log: string[];
}

export function selectRenders(input: SelectionInput): RenderSelection {
  const active = notBeingDeleted(input.runtimes);
  const { unique, failures } = withoutSharedShootNames(active);
  const settingsKey = digestOf(input.settings);
  const { leaders } = input;
  // Who leads it is unknown: nothing is proposed for its Shoot, neither a shadow nor a live change.
  const problems = (leaders?.problems ?? []).filter((p) => active.some((e) => runtimeRef(e.runtime) === p.runtime));
  const unreadableLeader = new Set(problems.map((problem) => problem.runtime));
  failures.push(...problems);
  const selection = {
    active,
    toRender: [] as RuntimeInput[],
    keys: new Map<string, string>(),
    suspended: [] as string[],
    auditLogHeld: [] as string[],
    dedicatedAuditLogs: input.auditLogs?.tenants ?? new Map<string, AuditLogTenant>(),
    unchanged: 0,
    failures,
    log: [] as string[],
  };
  for (const entry of unique) {
    const shoot = entry.runtime.spec?.shoot?.name;
    if (typeof shoot !== 'string') {
      selection.toRender.push(entry); // renders to the error that names the missing field
      continue;
    }
    if (annotated(entry.runtime, ANNOTATION_SUSPEND_PATCH)) {
      selection.suspended.push(shoot);
      selection.log.push(
        `suspended           ${shoot}: ${runtimeRef(entry.runtime)} has ${ANNOTATION_SUSPEND_PATCH}: "true"; nothing proposed`,
      );
      continue;
    }
    const ref = runtimeRef(entry.runtime);
    if (unreadableLeader.has(ref)) continue;
    const held = input.auditLogs?.held.get(ref);
    if (held !== undefined) {
      selection.auditLogHeld.push(shoot);
      selection.log.push(`audit-log held      ${shoot}: ${ref}: ${held}; nothing proposed`);
      continue;
    }
    const garden = input.gardenShoots?.get(shoot);
    // A live Shoot's spec changes bump its generation; its annotations and labels the converter reads too.
    const gardenKey = garden
      ? JSON.stringify([garden.metadata.generation, garden.metadata.annotations, garden.metadata.labels])
      : '';
    // A claimed tenant is an input the Runtime does not show: its claim must render the Shoot again.
    const tenant = selection.dedicatedAuditLogs.get(ref);
    const key = renderKey(
      entry.runtime,
      settingsKey,
      input.folders.get(shoot) ?? '',
      gardenKey,
      tenant ? JSON.stringify(tenant) : '',
      // The landscape's defaultLeader is no setting of the render, but it marks the Shoot.
      leaderOf(leaders, entry.runtime),
    );
    if (!annotated(entry.runtime, ANNOTATION_FORCE_PATCH) && input.memo.isUnchanged(shoot, key)) {
      selection.unchanged++;
      continue;
    }
    selection.keys.set(shoot, key);
    selection.toRender.push(entry);
  }
  return selection;
}

export function annotated(runtime: Runtime, annotation: string): boolean {
  return runtime.metadata.annotations?.[annotation] === 'true';
}

/**
 * A Runtime KEB deleted stays in KCP until its Shoot is gone (KIM's finalizer, which the backfiller holds and
 * releases): like KIM, kimops takes it as deleted — nothing is rendered for it, its Shoot is proposed for
 * deletion, and the deletion policy's Runtime inventory leaves it out.
 */
function notBeingDeleted(runtimes: readonly RuntimeInput[]): RuntimeInput[] {
  return runtimes.filter(({ runtime }) => !runtime.metadata?.deletionTimestamp);
}
