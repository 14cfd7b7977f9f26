// Executes one sync plan (plan.ts) against the Garden: companions before their Shoot, the Shoot by
// server-side apply, deletions confirmed first and their companions only once the Shoot is gone. The
// outcome is a value (what was applied, skipped, failed), rendered once by the CLI. I/O only through the
// narrow GardenWriter; one Shoot's failure never stops the others.
import type { ApiStatus } from '../model/kube-result.js';
import { describeFailure } from '../model/kube-result.js';
import type { ObjectRef } from '../adapters/kube/resources.js';
import type { KubeObject } from '../model/kube-object.js';
import { SHOOT_API_VERSION } from '../model/shoot.js';
import { pacedWriter, SCHEMA_REFUSAL, type Pacing } from './paced-writer.js';
import type { ObjectPlan, PlanAction, PlanEntry, SyncPlan } from './plan.js';
import {
  OWNERSHIP_LABEL,
  OWNERSHIP_VALUE,
  APPLIED_COMMIT_ANNOTATION,
  COMPANION_OF_LABEL,
  DELETION_CONFIRMATION_ANNOTATION,
} from '../model/contract.js';
import { mapInParallel } from '../model/in-parallel.js';
import type { GardenWriter } from './garden-writer.js';

export interface SyncInput {
  plan: SyncPlan;
  garden: GardenWriter;
  /** garden-<project>: every object is written there; a manifest naming another namespace fails. */
  namespace: string;
  /**
   * Companions labelled for a Shoot that is neither live nor desired (their Shoot finished deleting after an
   * earlier sync left them): deleted now. From `orphanedCompanions`.
   */
  orphans?: readonly KubeObject[];
  /** How requests are paced and retried (paced-writer.ts); KIM's 5 QPS / burst 5 and 4 tries when absent. */
  pacing?: Pacing;
  /** Shoots written at the same time, within the pacing (kimops.yaml apply.concurrency). */
  concurrency?: number;
  /**
   * Merge patches of a live Shoot's annotations after the plan (force-deletion, operation timeouts): a
   * value of null removes the annotation. `line` says what it means for the report.
   */
  annotations?: readonly ShootAnnotation[];
  /** Events to record (drift): created once under a name derived from their content; an existing one is left. */
  events?: readonly KubeObject[];
}

export interface ShootAnnotation {
  shoot: string;
  annotations: Record<string, string | null>;
  line: string;
}

/** What happened to one Shoot; `lines` say it for a human (field paths, the server's message and the fix). */
interface ShootOutcome {
  shoot: string;
  action: PlanAction;
  lines: string[];
  /** For a failed write: the API server's HTTP status (0: it did not answer). */
  status?: number;
}

export interface SyncResult {
  commit: string;
  /** The mass-deletion guard's message: nothing was written. */
  refused?: string;
  /** Shoots with at least one write that succeeded and none that failed. */
  applied: ShootOutcome[];
  /** Unchanged (no request at all) and blocked Shoots. */
  skipped: ShootOutcome[];
  failed: ShootOutcome[];
  /** Orphaned companions deleted (or failed to delete: those are in `failed` under their Shoot's name). */
  cleaned: string[];
  /**
   * Some request never reached the Garden (status 0, after its retries): the sync stopped there rather than
   * try every other Shoot against a Garden that is gone; run again once it is back.
   */
  unreachable: boolean;
  /** Shoots (and orphans, annotations, Events) not tried because the Garden became unreachable. */
  notAttempted: number;
  /** The annotation patches written, as their lines. */
  annotated: string[];
  /** Events recorded (new ones; one that already existed is not counted). */
  events: number;
}

/** A write that failed: why, in one line, for the Shoot's outcome. */
class WriteFailed extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/** A sync of `commit` that did nothing yet: what a sync adds to as it goes. */
export function emptySyncResult(commit: string): SyncResult {
  return {
    commit,
    applied: [],
    skipped: [],
    failed: [],
    cleaned: [],
    unreachable: false,
    notAttempted: 0,
    annotated: [],
    events: 0,
  };
}

export async function executePlan({
  plan,
  garden,
  namespace,
  orphans = [],
  pacing,
  concurrency = 1,
  annotations = [],
  events = [],
}: SyncInput): Promise<SyncResult> {
  const result = emptySyncResult(plan.commit);
  if (plan.refused) return { ...result, refused: plan.refused.message };
  const writer = new Writer(pacedWriter(garden, pacing), namespace, plan.fieldManager);
  const failed = (shoot: string, action: PlanAction, lines: string[], error: unknown) => {
    if (!(error instanceof WriteFailed)) throw error;
    if (error.status === 0) result.unreachable = true;
    result.failed.push({ shoot, action, lines: [...lines, error.message], status: error.status });
  };
  const writing = plan.entries.filter((entry) => {
    const writes =
      entry.action === 'create' ||
      entry.action === 'update' ||
      entry.action === 'take-over' ||
      entry.action === 'delete' ||
      entry.action === 'hand-back' ||
      entry.moveMarkers !== undefined;
    if (!writes) result.skipped.push({ shoot: entry.shoot, action: entry.action, lines: entry.reasons });
    return writes;
  });
  await inParallel(
    writing,
    concurrency,
    async (entry) => {
      const lines: string[] = [];
      try {
        if (entry.action === 'delete') await deleteShoot(entry, writer, lines);
        else if (entry.action === 'hand-back') await handBack(entry, writer, lines);
        else await applyShoot(entry, writer, lines);
        result.applied.push({ shoot: entry.shoot, action: entry.action, lines });
      } catch (error) {
        failed(entry.shoot, entry.action, lines, error);
      }
    },
    result,
  );
  await inParallel(
    orphans,
    concurrency,
    async (orphan) => {
      const shoot = orphan.metadata.labels?.[COMPANION_OF_LABEL] ?? '';
      try {
        await writer.remove(orphan.kind, orphan.metadata.name, orphan.apiVersion);
        result.cleaned.push(`${orphan.kind} ${orphan.metadata.name} (its Shoot ${shoot} is gone)`);
      } catch (error) {
        failed(shoot, 'delete', [], error);
      }
    },
    result,
  );
  await inParallel(
    annotations,
    concurrency,
    async ({ shoot, annotations: patch, line }) => {
      try {
        await writer.annotate(shoot, patch);
        result.annotated.push(`${shoot}: ${line}`);
      } catch (error) {
        failed(shoot, 'update', [], error);
      }
    },
    result,
  );
  await inParallel(
    events,
    concurrency,
    async (event) => {
      try {
        if (await writer.record(event)) result.events++;
      } catch (error) {
        // An Event is a courtesy to humans: one that cannot be written is reported, never a Shoot's failure.
        if (!(error instanceof WriteFailed)) throw error;
        if (error.status === 0) result.unreachable = true;
        result.annotated.push(`Event ${event.metadata.name ?? ''} not recorded: ${error.message}`);
      }
    },
    result,
  );
  for (const list of [result.applied, result.skipped, result.failed])
    list.sort((a, b) => (a.shoot < b.shoot ? -1 : a.shoot > b.shoot ? 1 : 0));
  result.cleaned.sort();
  result.annotated.sort();
  return result;
}

/**
 * Runs `work` on every item, at most `limit` at a time (the writes stay paced by the shared writer); once
 * `stopped()` says so, the items not yet started are counted in `notAttempted` instead.
 */
async function inParallel<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<void>,
  result: SyncResult,
): Promise<void> {
  await mapInParallel(items, limit, async (item) => {
    if (result.unreachable) result.notAttempted++;
    else await work(item);
  });
}

/** Companions first (a Shoot's structured-auth ConfigMap must exist before the Shoot), then the Shoot, then stale companions. */
async function applyShoot(entry: PlanEntry, writer: Writer, lines: string[]): Promise<void> {
  for (const companion of entry.companions) {
    if (companion.action === 'create' || companion.action === 'update') {
      await writer.apply(companion);
      lines.push(`${companion.action === 'create' ? 'created' : 'updated'} ${companion.kind} ${companion.name}`);
    }
  }
  // A take-over is a write even when no field changes: it adds the ownership label.
  if (entry.action === 'create' || entry.action === 'take-over' || entry.object.action !== 'unchanged') {
    await writer.apply(entry.object);
    const verb = entry.action === 'create' ? 'created' : entry.action === 'take-over' ? 'took over' : 'updated';
    lines.push(
      `${verb} Shoot ${entry.shoot}${entry.action === 'create' ? '' : entry.reasons.length > 0 ? `: ${entry.reasons.join('; ')}` : ''}`,
    );
    for (const kept of entry.kept ?? []) lines.push(`kept ${kept.path}: ${kept.why}`);
  }
  for (const companion of entry.companions) {
    if (companion.action === 'delete') {
      await writer.remove(companion.kind, companion.name);
      lines.push(`deleted ${companion.kind} ${companion.name} (no longer in the commit)`);
    }
  }
  // Last, so a failed companion write leaves the old markers: the next sync sees a Git change, not drift.
  if (entry.moveMarkers) {
    await writer.annotate(entry.shoot, entry.moveMarkers);
    lines.push(
      `recorded ${entry.moveMarkers[APPLIED_COMMIT_ANNOTATION]?.slice(0, 12) ?? ''} on Shoot ${entry.shoot}: main changed its folder, nothing of the Shoot to write`,
    );
  }
}

/**
 * A Shoot given back to KIM (ADR 0011): its fields applied with their live values as KIM's field manager, forced, so
 * KIM owns them; then the Shoot's identity alone applied as kimops's, so kimops owns nothing and the API server drops
 * what only kimops held (the ownership label, the applied markers). No field of the spec changes.
 */
async function handBack(entry: PlanEntry, writer: Writer, lines: string[]): Promise<void> {
  const handBack = entry.handBack;
  if (!handBack) throw new Error(`plan for Shoot ${entry.shoot} hands it back without the objects to apply`);
  await writer.applyAs(handBack.kim, handBack.manager, entry.shoot);
  lines.push(`handed Shoot ${entry.shoot}'s fields to field manager ${handBack.manager}`);
  if (handBack.release) await writer.applyAs(handBack.release, writer.fieldManager, entry.shoot);
  // What the applier set by merge patch besides its applies (the SKR's applied tree, the registry caches' synced tree).
  if (handBack.unannotate.length > 0)
    await writer.annotate(entry.shoot, Object.fromEntries(handBack.unannotate.map((key) => [key, null])));
  lines.push(
    `released kimops's ownership of Shoot ${entry.shoot} (its ${OWNERSHIP_LABEL} label and fields): KIM leads it`,
  );
}

/**
 * Confirmation, DELETE, and the companions once the Shoot is gone. Gardener deletes asynchronously (its
 * finalizer stays until the cluster is torn down): a Shoot still there keeps its companions until a later sync
 * finds it gone (the companions are then orphans, see orphanedCompanions).
 */
async function deleteShoot(entry: PlanEntry, writer: Writer, lines: string[]): Promise<void> {
  const ref = writer.shootRef(entry.shoot);
  if (!entry.alreadyDeleting) {
    const confirmed = await writer.confirmDeletion(ref);
    if (confirmed) {
      await writer.removeRef(ref);
      lines.push(`deletion of Shoot ${entry.shoot} confirmed and requested`);
    }
  }
  if (await writer.exists(ref)) {
    const left = entry.companions.map((c) => `${c.kind} ${c.name}`);
    lines.push(
      `Gardener is deleting Shoot ${entry.shoot}${left.length > 0 ? `; ${left.join(', ')} left for a sync after it is gone` : ''}`,
    );
    return;
  }
  for (const companion of entry.companions) {
    await writer.remove(companion.kind, companion.name);
    lines.push(`deleted ${companion.kind} ${companion.name}`);
  }
  lines.push(`Shoot ${entry.shoot} is gone`);
}

/**
 * Companions kimops labelled for a Shoot that is not live and not in the plan: left behind when their Shoot was
 * still being deleted at an earlier sync. Pure.
 */
export function orphanedCompanions(
  plan: SyncPlan,
  liveShootNames: ReadonlySet<string>,
  liveCompanions: readonly KubeObject[],
): KubeObject[] {
  const planned = new Set(plan.entries.map((entry) => entry.shoot));
  return liveCompanions.filter((object) => {
    const shoot = object.metadata.labels?.[COMPANION_OF_LABEL];
    return (
      object.metadata.labels?.[OWNERSHIP_LABEL] === OWNERSHIP_VALUE &&
      typeof shoot === 'string' &&
      !planned.has(shoot) &&
      !liveShootNames.has(shoot)
    );
  });
}

/** The requests of a sync, each failure turned into one line naming the object, the server's message and the fix. */
class Writer {
  constructor(
    private readonly garden: GardenWriter,
    private readonly namespace: string,
    readonly fieldManager: string,
  ) {}

  /** Server-side apply of a Shoot as `manager`, forced (a hand-back's two applies). */
  async applyAs(manifest: KubeObject, manager: string, shoot: string): Promise<void> {
    const result = await this.garden.apply(
      { ...manifest, metadata: { ...manifest.metadata, namespace: this.namespace } },
      manager,
      { force: true },
    );
    if (!result.ok) throw failure(`apply as ${manager}`, 'Shoot', shoot, result);
  }

  shootRef(name: string): ObjectRef {
    return { apiVersion: SHOOT_API_VERSION, kind: 'Shoot', namespace: this.namespace, name };
  }

  /** Server-side apply with force: kimops's manifest wins over other managers for the fields it sets. */
  async apply(object: ObjectPlan): Promise<void> {
    const manifest = object.manifest;
    if (!manifest) throw new Error(`plan for ${object.kind} ${object.name} has no manifest to apply`);
    const given = manifest.metadata.namespace;
    if (given !== undefined && given !== this.namespace) {
      // Not sent (status -1): writing into another project's namespace is never what a landscape means.
      throw new WriteFailed(
        `${object.kind} ${object.name}: ${object.path ?? 'its manifest'} names namespace ${given}, but this landscape's Shoots live in ${this.namespace}: fix metadata.namespace in the landscape repo`,
        -1,
      );
    }
    const result = await this.garden.apply(
      { ...manifest, metadata: { ...manifest.metadata, namespace: this.namespace } },
      this.fieldManager,
      { force: true },
    );
    if (!result.ok) throw failure('apply', object.kind, object.name, result);
  }

  /** A companion (COMPANION_KINDS: v1 ConfigMaps only today). */
  async remove(kind: string, name: string, apiVersion = 'v1'): Promise<void> {
    await this.removeRef({ apiVersion, kind, namespace: this.namespace, name });
  }

  /** DELETE; an object already gone is what was wanted. */
  async removeRef(ref: ObjectRef): Promise<void> {
    const result = await this.garden.delete(ref);
    if (!result.ok && result.status !== 404) throw failure('delete', ref.kind, ref.name ?? '', result);
  }

  /** Sets the confirmation annotation; false when the Shoot is already gone. */
  async confirmDeletion(ref: ObjectRef): Promise<boolean> {
    const result = await this.garden.patch(ref, {
      metadata: { annotations: { [DELETION_CONFIRMATION_ANNOTATION]: 'true' } },
    });
    if (result.ok) return true;
    if (result.status === 404) return false;
    throw failure(`set ${DELETION_CONFIRMATION_ANNOTATION} on`, ref.kind, ref.name ?? '', result);
  }

  /** A merge patch of the Shoot's annotations (null removes one). */
  async annotate(shoot: string, annotations: Record<string, string | null>): Promise<void> {
    const ref = this.shootRef(shoot);
    const result = await this.garden.patch(ref, { metadata: { annotations } });
    if (!result.ok) throw failure('annotate', ref.kind, shoot, result);
  }

  /** Creates an Event; false when one of that name exists already (the same drift, recorded before). */
  async record(event: KubeObject): Promise<boolean> {
    const result = await this.garden.create({ ...event, metadata: { ...event.metadata, namespace: this.namespace } });
    if (result.ok) return true;
    if (result.status === 409) return false;
    throw failure('record', 'Event', event.metadata.name ?? '', result);
  }

  async exists(ref: ObjectRef): Promise<boolean> {
    const result = await this.garden.get(ref);
    if (result.ok) return true;
    if (result.status === 404) return false;
    throw failure('read', ref.kind, ref.name ?? '', result);
  }
}

function failure(verb: string, kind: string, name: string, result: { status: number; error: ApiStatus }): WriteFailed {
  // Status 0: KubeClient's message already says how to reach the Garden.
  const fix = result.status === 0 ? '' : ` — ${writeFix(result.status, kind, result.error.message)}`;
  return new WriteFailed(`${verb} ${kind} ${name}: ${describeFailure(result)}${fix}`, result.status);
}

/**
 * What a user can do about a failed write, by HTTP status. A 403 is RBAC's only when the server says the
 * identity "cannot" do the verb; Gardener's admission plugins answer 403 too, for a Shoot they refuse.
 */
function writeFix(status: number, kind: string, message = ''): string {
  if (status === 403 && !/ cannot \w+ resource /.test(message))
    return 'Gardener refused the object: fix it in the landscape repo (its message says what) and merge the fix';
  if (status === 401) return "the Garden rejected the kubeconfig's credentials: renew its token or client certificate";
  if (status === 403)
    return `grant the kubeconfig's identity get, patch and delete on ${kind === 'Shoot' ? 'shoots' : kind === 'Event' ? 'events (create)' : 'configmaps'} in the project namespace`;
  if (status === 404) return "the project namespace or the API is missing: check the landscape's Gardener project";
  if (status === 409) return 'another writer changed the object at the same time: the next sync applies it again';
  if (status === 422 || status === 400 || SCHEMA_REFUSAL.test(message))
    return 'Gardener refused the manifest: fix it in the landscape repo (kimops validate shows the rules) and merge the fix';
  if (status === 429 || status >= 500)
    return 'the Garden is overloaded or failing: retried with backoff within this sync, and the next sync tries again';
  return "see the server's message";
}
