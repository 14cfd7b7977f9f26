// The renders a pass plans with. Each selected Runtime is rendered against the Garden's live Shoot where there
// is one, else in create mode. A Shoot whose render main does not hold and whose folder main has is rendered
// again: against main's copy when the Garden has none, else against the part of the live Shoot main manages
// (rules/managed-fields.ts), so that what gardener-apiserver defaulted (`ipFamilies`, a worker's `updateStrategy`)
// never reaches Git while a value main states and Gardener changed (a maintenance version) does (ADR 0009).
// Update mode on its own output gives that output back (property-tested in convert/), so main's Shoot is parsed
// only for those. In batches, keeping only the renders main does not hold: a 10,000-Shoot pass holds the changed
// Shoots only. A Shoot whose Runtime KIM leads is marked so (leaders.ts), as main holds it. Reads main through the
// snapshot, writes nothing.
import type { AuditLogTenant } from '../model/converter-config.js';
import type { ConfigError } from '../model/errors.js';
import type { ConversionSettings } from '../model/landscape.js';
import { runtimeRef } from '../model/runtime.js';
import type { Shoot } from '../model/shoot.js';
import { fileMapOf } from '../rules/landscape-layout.js';
import { withRotationsOf } from '../rules/registry-cache-rotation.js';
import { managedShoot } from '../rules/managed-fields.js';
import type { MainSnapshot } from './main-snapshot.js';
import { leaderOf, markedForLeader, type RuntimeLeaders } from './leaders.js';
import {
  renderRuntimes,
  type RenderBug,
  type RenderedRuntime,
  type RenderFailure,
  type RuntimeInput,
} from './render-runtimes.js';

/** Runtimes rendered at once: bounds a cold pass's memory to a batch of Shoot objects. */
const RENDER_BATCH = 500;

interface RenderInput {
  runtimes: readonly RuntimeInput[];
  settings: ConversionSettings;
  gardenShoots?: ReadonlyMap<string, Shoot>;
  main: Pick<MainSnapshot, 'folders' | 'holds' | 'shoot' | 'broken'>;
  /** By Runtime: the tenant of the AuditLog it claimed (render-selection.ts). */
  dedicatedAuditLogs?: ReadonlyMap<string, AuditLogTenant>;
  /** Who leads each Runtime; absent, kimops leads all (no Shoot is marked). */
  leaders?: RuntimeLeaders;
}

/** A render whose files main does not hold. */
export interface RenderedChange {
  entry: RuntimeInput;
  rendered: RenderedRuntime;
  /** Every file of the Shoot's folder (repo path → text). */
  files: Map<string, string>;
}

export interface RenderedChanges {
  /** By Shoot name. */
  changed: RenderedChange[];
  /** Renders main holds byte for byte: their Runtimes' changes are merged. */
  inMain: { runtime: string; shoot: string }[];
  /** Runtimes not rendered against main because their Shoot's file on main cannot be read. */
  brokenOnMain: { entry: RuntimeInput; error: ConfigError }[];
  failures: RenderFailure[];
  bugs: RenderBug[];
}

export async function renderChanges(input: RenderInput): Promise<RenderedChanges> {
  const renders: RenderedChanges = { changed: [], inMain: [], brokenOnMain: [], failures: [], bugs: [] };
  for (let i = 0; i < input.runtimes.length; i += RENDER_BATCH)
    await renderBatch(input, input.runtimes.slice(i, i + RENDER_BATCH), renders);
  renders.changed.sort((a, b) => byName(a.rendered.shootName, b.rendered.shootName));
  return renders;
}

async function renderBatch(input: RenderInput, batch: readonly RuntimeInput[], renders: RenderedChanges) {
  const { main, settings } = input;
  const bySource = new Map(batch.map((entry) => [sourceKey(entry.source, runtimeRef(entry.runtime)), entry]));
  const entryOf = (r: RenderedRuntime) => bySource.get(sourceKey(r.source, r.runtime)) as RuntimeInput;
  const keep = (r: RenderedRuntime, files: Map<string, string>) => {
    if (main.holds(r.shootName, files)) renders.inMain.push({ runtime: r.runtime, shoot: r.shootName });
    else renders.changed.push({ entry: entryOf(r), rendered: r, files });
  };

  const gardenLive = new Map(
    batch.flatMap(({ runtime }) => {
      const shoot = input.gardenShoots?.get(runtime.spec?.shoot?.name);
      return shoot ? [[shoot.metadata.name, shoot] as const] : [];
    }),
  );
  const first = marked(input, entryOf, renderRuntimes(batch, settings, gardenLive, {}, input.dedicatedAuditLogs));
  const again: RuntimeInput[] = [];
  for (const r of first.rendered) {
    const files = fileMapOf(r.manifests);
    if (main.holds(r.shootName, files)) renders.inMain.push({ runtime: r.runtime, shoot: r.shootName });
    else if (!main.folders.has(r.shootName)) renders.changed.push({ entry: entryOf(r), rendered: r, files });
    else again.push(entryOf(r));
  }
  const live = new Map<string, Shoot>();
  const readable: RuntimeInput[] = [];
  for (const entry of again) {
    const name = entry.runtime.spec.shoot.name;
    const shoot = await main.shoot(name);
    const error = main.broken.get(name);
    // Proposed over it, the render would overwrite the file a human has to restore: the plan reports it instead.
    if (error) {
      renders.brokenOnMain.push({ entry, error });
      continue;
    }
    readable.push(entry);
    const garden = gardenLive.get(name);
    // Not the whole live Shoot: what the API server defaulted is no difference to main (ADR 0009). The applier's
    // records of rotated registry-cache credentials are kept: they name the Secret the render must use.
    if (garden) live.set(name, shoot ? withRotationsOf(managedShoot(garden, shoot), garden) : garden);
    else if (shoot) live.set(name, shoot);
  }
  const second = marked(input, entryOf, renderRuntimes(readable, settings, live, {}, input.dedicatedAuditLogs));
  for (const { failures, bugs } of [first, second]) {
    renders.failures.push(...failures);
    renders.bugs.push(...bugs);
  }
  for (const r of second.rendered) keep(r, fileMapOf(r.manifests));
}

const sourceKey = (source: string, runtime: string) => `${source}\0${runtime}`;

/** The renders with the Shoots of Runtimes KIM leads marked so. */
function marked<T extends { rendered: RenderedRuntime[] }>(
  input: RenderInput,
  entryOf: (r: RenderedRuntime) => RuntimeInput,
  result: T,
): T {
  const { leaders } = input;
  if (!leaders) return result;
  return {
    ...result,
    rendered: result.rendered.map((r) => ({
      ...r,
      manifests: markedForLeader(r.manifests, leaderOf(leaders, entryOf(r).runtime)),
    })),
  };
}

function byName(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
