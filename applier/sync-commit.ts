// One sync of one commit, end to end: read the commit's Shoot folders, LIST the Garden once, plan
// (plan.ts, with the live Shoot's say from rules/live-rules.ts), tell drift from Git changes (drift.ts), check
// Seeds before creates (seeds.ts), and — unless only reporting — write (sync.ts), annotate what
// Gardener's state asks for (force-deletion.ts, rules/operation-timeouts.ts) and configure the clusters of
// reconciled Shoots (skr-sync.ts). I/O only through the repo, Garden and SKR adapters passed in; the report is a
// value the CLI renders.
import type { ListAllOptions, ListAllResult } from '../adapters/kube/kube-client.js';
import { describeFailure, fixFor } from '../model/kube-result.js';
import type { ObjectRef } from '../adapters/kube/resources.js';
import type { FolderEntry, LandscapeRepo } from '../adapters/git/landscape-repo.js';
import type { KubeObject } from '../model/kube-object.js';
import {
  SHOOTS_FOLDER,
  APPLY_REPORT_NAME,
  FORCE_DELETION_ANNOTATION,
  OWNERSHIP_LABEL,
  OWNERSHIP_VALUE,
  COMPANION_OF_LABEL,
  DELETION_CONFIRMATION_ANNOTATION,
  OPERATION_TIMED_OUT_ANNOTATION,
  KIM_FIELD_MANAGER,
} from '../model/contract.js';
import { TransportError } from '../model/errors.js';
import type { KimopsConfig } from '../model/kimops-config.js';
import type { Seed } from '../model/seed.js';
import { SHOOT_API_VERSION, type Shoot } from '../model/shoot.js';
import { mapInParallel } from '../model/in-parallel.js';
import {
  applyFacts,
  applyReportConfigMap,
  readApplyReportCommit,
  reportUnchanged,
  type ApplyFacts,
} from '../rules/apply-report.js';
import { desiredFromFiles, type DesiredState } from './desired.js';
import { driftedShoots, withDrift } from './drift.js';
import { driftEvent } from './events.js';
import { forceDeletionDecision } from './force-deletion.js';
import { shootHealth, type ShootHealthState } from '../rules/shoot-health.js';
import { inventoryOf, planSync, rememberedFolders, type PlanEntry, type SyncPlan } from './plan.js';
import { massDeletionApproval } from '../rules/mass-deletion.js';
import { needsSeedCheck, seedCheck, seedListFailure } from './seeds.js';
import { executePlan, orphanedCompanions, type ShootAnnotation, type SyncResult } from './sync.js';
import type { GardenWriter } from './garden-writer.js';
import { overdueOperations, timeoutChanges } from '../rules/operation-timeouts.js';
import { pacedWriter } from './paced-writer.js';
import type { SkrConnect } from './skr-connect.js';
import { skrCandidates, syncSkrs, type SkrSyncResult } from './skr-sync.js';
import type { SkrObject } from './skr-plan.js';
import {
  deletingRuntimes,
  goneSecretsQuery,
  registryCacheCopyDue,
  type RegistryCacheStub,
} from './registry-cache-plan.js';
import { deleteGoneRuntimesSecrets, syncRegistryCaches, type RegistryCacheSyncResult } from './registry-cache-sync.js';
import type { Leader } from '../rules/leader.js';

/** What a sync needs of the Garden: the writes, and one paged LIST per kind. KubeClient has it. */
export interface GardenApi extends GardenWriter {
  listAll<T extends KubeObject>(ref: Omit<ObjectRef, 'name'>, options?: ListAllOptions): Promise<ListAllResult<T>>;
}

/**
 * The live objects a sync plans against when it does not LIST them: a watching applier's caches (kept by
 * WATCH, each Shoot compacted by `compactShoot` as it arrives). `failing` names why they may be stale.
 */
export interface LiveObjects {
  shoots(): Shoot[];
  companions(): KubeObject[];
  failing(): string | undefined;
}

export interface SyncCommitInput {
  repo: LandscapeRepo;
  commit: string;
  garden: GardenApi;
  /** garden-<project>. */
  namespace: string;
  config: KimopsConfig;
  /** `--allow-mass-deletion N`. */
  allowMassDeletion?: number;
  /** false: plan and report only (dry-run, shadow): not one write. */
  write: boolean;
  /**
   * landscape.yaml's defaultLeader. `kim`: the landscape is being taken over, so the Garden's leftovers of gone
   * Runtimes are KIM's to clean (ADR 0011); the plan itself follows main's marks (`kimops.kyma-project.io/leader`).
   */
  defaultLeader?: Leader;
  now?: Date;
  /** Test seam for the writes' pacing (sleep, clock); QPS and burst come from kimops.yaml. */
  sleep?: (ms: number) => Promise<void>;
  /** Kept by a watching applier from one sync to the next (see SyncMemo). */
  memo?: SyncMemo;
  /** A watching applier's caches of the Shoots and companions: then the sync lists nothing. */
  live?: LiveObjects;
  /**
   * Called after each batch of folders is planned (and once the Garden is listed): the CLI collects its garbage
   * there, so a first sync's peak memory is its live data and one batch's garbage, not every file's.
   */
  betweenBatches?: () => void;
  /** Folders read and planned together (default PLAN_BATCH). */
  planBatch?: number;
  /** Clients for the Shoots' clusters: with it a writing sync configures the SKRs that are due (skr-sync.ts). */
  skr?: SkrConnect;
}

export interface SyncReport {
  plan: SyncPlan;
  orphans: KubeObject[];
  /** Annotations the Garden's state asks for (force-deletion, operation timeouts), written or (without write) only reported. */
  annotations: ShootAnnotation[];
  /** Deletions stuck on a force-deletable code that the landscape does not let kimops force: the SRE's to handle. */
  stuckDeletions: string[];
  /** The inventory's health by Gardener's rules (rules/shoot-health.ts), counted. */
  health: Record<ShootHealthState, number>;
  /** Shoots whose operation runs past its timeout (kimops.yaml apply.timeouts). */
  overdue: string[];
  /** Absent when nothing was to be written. */
  result?: SyncResult;
  /** Shoot folders read and parsed: the ones the memo did not remember (a no-op of a watching applier reads none). */
  foldersRead: number;
  /**
   * The report for the backfiller (rules/apply-report.ts), when the sync wrote: `written` (it changed), `unchanged`,
   * or why it could not be written (the next sync tries again).
   */
  applyReport?: { outcome: 'written' | 'unchanged'; shoots: number } | { outcome: 'failed'; message: string };
  /** The SKRs this sync configured or failed to (absent: it configured none, e.g. without `skr`). */
  skr?: SkrSyncResult;
  /** The registry caches' garden Secrets copied before the Shoots' writes (absent: no Shoot needed it). */
  registryCache?: RegistryCacheSyncResult;
  /** The garden Secrets of Runtimes whose Shoot is gone, deleted (or not: `failures`, tried again next sync). */
  goneSecrets?: { lines: string[]; failures: string[] };
}

const LIST_PAGE = 500;

export async function syncCommit(input: SyncCommitInput): Promise<SyncReport> {
  const { repo, commit, garden, namespace, config } = input;
  const folders = await repo.listFolder(commit, SHOOTS_FOLDER);
  // A `--allow-mass-deletion` of the one run, or the commit's own approval, whichever allows more.
  const approvals = [input.allowMassDeletion, massDeletionApproval(await repo.commitMessage(commit))].filter(
    (n): n is number => n !== undefined,
  );
  const allowMassDeletion = approvals.length > 0 ? Math.max(...approvals) : undefined;
  const trees = new Map([...folders].map(([name, entry]) => [name, entry.oid]));
  const fieldManager = config.apply.fieldManager;
  // A watching applier has the live objects at once, and reads only the folders whose plan it does not remember.
  const cached = input.live ? await fromCaches(input.live) : undefined;
  const memo = input.memo ?? syncMemo();
  const listing = cached ? Promise.resolve(cached) : listLive(garden, namespace, fieldManager);
  // A memo from an earlier process (the plan cache) is checked against the live objects, so they are listed
  // first; without one, reading main and listing the Garden overlap (they wait on different things).
  const known = cached ?? (memo.plan.size > 0 ? await listing : undefined);
  const remembered = known
    ? rememberedFolders(memo.plan, trees, known.shoots, known.companions, fieldManager)
    : new Set<string>();
  const batches = inBatches(
    [...folders].filter(([name]) => !remembered.has(name)),
    input.planBatch ?? PLAN_BATCH,
  );
  // Batch by batch, the folders are read (the first while the Garden is listed: they wait on different things)
  // and planned into the memo, so that a sync never holds more than one batch's parsed files.
  const read = (index: number) =>
    index < batches.length ? quiet(desiredOf(repo, commit, new Map(batches[index]))) : undefined;
  let next = read(0);
  const { shoots: live, companions: liveCompanions } = await listing;
  if (!cached) input.betweenBatches?.(); // the LIST pages' garbage
  const liveByName = new Map(live.map((shoot) => [shoot.metadata.name, shoot]));
  // Entries read from the plan cache carry no live Shoot: a remembered one's key holds its resourceVersion, so the listed one is it.
  for (const entry of memo.plan.values()) entry.live ??= liveByName.get(entry.shoot);
  for (let index = 0; index < batches.length; index++) {
    const desired = (await next) as DesiredState;
    next = read(index + 1);
    const batch = batches[index] ?? [];
    // Only the batch's own live objects: the rest of the inventory is not this batch's to plan (or to delete).
    const names = new Set(batch.map(([name]) => name));
    const batchLive = batch.map(([name]) => liveByName.get(name)).filter((shoot) => shoot !== undefined);
    const batchCompanions = liveCompanions.filter((object) =>
      names.has(object.metadata.labels?.[COMPANION_OF_LABEL] ?? ''),
    );
    const planned = new Map<string, PlanEntry>();
    planSync({
      desired,
      live: batchLive,
      liveCompanions: batchCompanions,
      commit,
      trees: new Map(batch.map(([name, entry]) => [name, entry.oid])),
      fieldManager,
      massDeletion: config.massDeletion,
      memo: planned,
    });
    for (const [key, entry] of planned) memo.plan.set(key, entry);
    input.betweenBatches?.();
  }
  // The plan of the whole commit: what is remembered by now is not read again (only what changes, or is held back).
  const unread = rememberedFolders(memo.plan, trees, live, liveCompanions, fieldManager);
  let plan = planSync({
    desired: await desiredOf(repo, commit, new Map([...folders].filter(([name]) => !unread.has(name)))),
    live,
    liveCompanions,
    commit,
    trees,
    fieldManager,
    massDeletion: config.massDeletion,
    ...(allowMassDeletion !== undefined && { allowMassDeletion }),
    memo: memo.plan,
  });
  plan = withDrift(plan, driftedShoots(plan), config.drift);
  plan = await withSeedChecks(plan, garden);
  const orphans = orphanedCompanions(plan, new Set(live.map((s) => s.metadata.name)), liveCompanions);

  // A Shoot KIM leads (shadow, or handed back in this sync) is KIM's: no timeout mark, no annotation (ADR 0011).
  const kimLed = new Set(plan.entries.filter(isKimLed).map((entry) => entry.shoot));
  const inventory = inventoryOf(live).filter((shoot) => !kimLed.has(shoot.metadata.name));
  const now = input.now ?? new Date();
  const overdue = overdueOperations(inventory, config.apply.timeouts, now);
  const { annotations, stuckDeletions } = gardenStateAnnotations(plan, inventory, overdue, config, now);
  const health = { progressing: 0, healthy: 0, failed: 0, unknown: 0 };
  for (const shoot of inventory) health[shootHealth(shoot).state]++;

  const report: SyncReport = {
    plan,
    orphans,
    annotations,
    stuckDeletions,
    health,
    overdue: [...overdue.keys()],
    foldersRead: folders.size - remembered.size,
  };
  if (!input.write) return report;
  // Before the Shoots are written: the registry caches' garden Secrets they name, copied from their SKRs.
  const registryCache =
    input.skr && !plan.refused ? await syncRegistryCacheSecrets(input, plan, folders, input.skr) : undefined;
  if (registryCache) plan = report.plan = heldForRegistryCaches(plan, registryCache.failed);
  const events = plan.entries
    .filter((entry) => entry.drift)
    .map((entry) => driftEvent(entry, namespace, config.drift, now));
  const result = await executePlan({
    plan,
    garden,
    namespace,
    orphans,
    annotations,
    events,
    concurrency: config.apply.concurrency,
    pacing: { qps: config.apply.qps, burst: config.apply.burst, ...(input.sleep && { sleep: input.sleep }) },
  });
  // A Garden that stopped answering gets no more requests from this sync; the next one writes the report.
  if (result.unreachable) return { ...report, result };
  // KIM's DeleteAll: the registry caches' garden Secrets of Runtimes whose Shoot is gone. Not while KIM leads some
  // Shoots of the landscape: a gone Runtime's Secret may be one of KIM's, and KIM cleans up after its own.
  const goneSecrets =
    input.skr && !result.refused && kimLed.size === 0 && input.defaultLeader !== 'kim'
      ? await cleanGoneRuntimes(input, memo, plan, live, liveByName)
      : undefined;
  // After the Garden's writes, never before: a Shoot's cluster is configured once Gardener has reconciled it.
  // An error that is no SKR's (main unreadable) still leaves the Garden's facts reported, then fails the sync.
  let skr: SkrSyncResult | undefined;
  let skrFailure: { error: unknown } | undefined;
  try {
    skr =
      input.skr && !result.refused
        ? await syncSkrs({
            // The SKRs of the Shoots KIM leads are KIM's to configure.
            candidates: skrCandidates(plan, result, liveByName, trees).filter((c) => !kimLed.has(c.shoot)),
            read: async (names) => skrObjectsOf(await desiredOf(repo, commit, pick(folders, names))),
            garden: pacedWriter(garden, {
              qps: config.apply.qps,
              burst: config.apply.burst,
              ...(input.sleep && { sleep: input.sleep }),
            }),
            seeds: garden,
            namespace,
            connect: input.skr,
            fieldManager,
            concurrency: config.apply.concurrency,
            registryCache: {
              garden,
              stubs: async (names) => stubsOf(await desiredOf(repo, commit, pick(folders, names))),
            },
          })
        : undefined;
  } catch (error) {
    skrFailure = { error };
  }
  const facts = applyFacts(plan.entries, result, skr?.failed, registryCache?.failed);
  const applyReport = await writeApplyReport(garden, namespace, commit, facts, fieldManager);
  if (skrFailure) throw skrFailure.error;
  return {
    ...report,
    result,
    applyReport,
    ...(skr && { skr }),
    ...(registryCache && { registryCache }),
    ...(goneSecrets && { goneSecrets }),
  };
}

/**
 * The Shoots about to be written from a new tree (their folder changed since they were applied), or whose stubs were
 * not all copied for their tree yet, whose folders hold registry-cache/ stubs: their garden Secrets are created (or
 * replaced) from the SKRs first, as KIM syncs them before its patch.
 */
async function syncRegistryCacheSecrets(
  input: SyncCommitInput,
  plan: SyncPlan,
  folders: ReadonlyMap<string, FolderEntry>,
  connect: SkrConnect,
): Promise<RegistryCacheSyncResult | undefined> {
  const changed = plan.entries.filter(registryCacheCopyDue);
  if (changed.length === 0) return undefined;
  const stubs = stubsOf(
    await desiredOf(
      input.repo,
      input.commit,
      pick(
        folders,
        changed.map((entry) => entry.shoot),
      ),
    ),
  );
  const candidates = changed.flatMap((entry) => {
    const own = stubs.get(entry.shoot) ?? [];
    return own.length === 0
      ? []
      : [{ shoot: entry.shoot, tree: entry.tree as string, live: entry.live as Shoot, stubs: own }];
  });
  if (candidates.length === 0) return undefined;
  return syncRegistryCaches({
    candidates,
    garden: pacedWriter(input.garden, {
      qps: input.config.apply.qps,
      burst: input.config.apply.burst,
      ...(input.sleep && { sleep: input.sleep }),
    }),
    namespace: input.namespace,
    connect,
    concurrency: input.config.apply.concurrency,
  });
}

/**
 * A listing sync (`--once`), and a watching applier's first (Shoots may have gone while no applier ran), list the
 * registry caches' Secrets and delete those of runtime ids no live Shoot has; a watching applier's later syncs,
 * whose no-op syncs list nothing, remember the Runtimes of Shoots being deleted and list only theirs, once their
 * Shoots are gone (kept for the next sync when that fails; a failed first LIST is done again).
 */
async function cleanGoneRuntimes(
  input: SyncCommitInput,
  memo: SyncMemo,
  plan: SyncPlan,
  live: readonly Shoot[],
  liveByName: ReadonlyMap<string, Shoot>,
): Promise<{ lines: string[]; failures: string[] } | undefined> {
  const remembered = memo.deletingRuntimes ?? new Map<string, string>();
  const gone = [...remembered].filter(([shoot]) => !liveByName.has(shoot));
  memo.deletingRuntimes = deletingRuntimes(plan.entries, live);
  const query = goneSecretsQuery(
    input.live !== undefined,
    memo.goneSecretsListed === true,
    gone.map(([, runtimeId]) => runtimeId),
  );
  if (query === undefined) return undefined;
  const outcome = await deleteGoneRuntimesSecrets(
    input.garden,
    input.namespace,
    live,
    query === 'all' ? undefined : query,
  );
  if (outcome.failures.length > 0) for (const [shoot, runtimeId] of gone) memo.deletingRuntimes.set(shoot, runtimeId);
  else memo.goneSecretsListed = true;
  return outcome;
}

/** A Shoot naming a garden Secret that is still missing is not written: Gardener would refuse it. */
function heldForRegistryCaches(plan: SyncPlan, failed: RegistryCacheSyncResult['failed']): SyncPlan {
  const held = new Map(failed.filter((f) => f.hold).map((f) => [f.shoot, f.error.message]));
  if (held.size === 0) return plan;
  const counts = { ...plan.counts };
  const entries = plan.entries.map((entry) => {
    const message = held.get(entry.shoot);
    if (message === undefined) return entry;
    counts[entry.action]--;
    counts.blocked++;
    return {
      ...entry,
      action: 'blocked' as const,
      reasons: [`not written: a registry cache's garden Secret it names is missing: ${message}`],
    };
  });
  return { ...plan, entries, counts };
}

/** The registry-cache/ stubs of each Shoot read without problems. */
function stubsOf(desired: DesiredState): Map<string, RegistryCacheStub[]> {
  return new Map(desired.shoots.map((shoot) => [shoot.name, shoot.registryCache ?? []]));
}

function pick(folders: ReadonlyMap<string, FolderEntry>, names: readonly string[]): Map<string, FolderEntry> {
  return new Map(
    names.flatMap((name) => {
      const entry = folders.get(name);
      return entry ? [[name, entry] as const] : [];
    }),
  );
}

/** The skr/ objects of each Shoot read without problems. */
function skrObjectsOf(desired: DesiredState): Map<string, SkrObject[]> {
  return new Map(desired.shoots.map((shoot) => [shoot.name, shoot.skr]));
}

/** The report ConfigMap, written only when it says something new: one GET per sync, no write on a no-op. */
async function writeApplyReport(
  garden: GardenApi,
  namespace: string,
  commit: string,
  facts: Map<string, ApplyFacts>,
  fieldManager: string,
): Promise<NonNullable<SyncReport['applyReport']>> {
  const ref = { apiVersion: 'v1', kind: 'ConfigMap', namespace, name: APPLY_REPORT_NAME };
  const live = await garden.get<KubeObject>(ref);
  if (!live.ok && live.status !== 404)
    return { outcome: 'failed', message: `read ConfigMap ${namespace}/${APPLY_REPORT_NAME}: ${describeFailure(live)}` };
  // A report of no failures, where there is none yet, is none: a landscape that never failed has no ConfigMap.
  if (!live.ok && facts.size === 0) return { outcome: 'unchanged', shoots: 0 };
  const desired = applyReportConfigMap(namespace, commit, facts);
  // The commit alone moving on is no news: the facts decide.
  if (
    live.ok &&
    reportUnchanged(live.body, applyReportConfigMap(namespace, readApplyReportCommit(live.body) ?? commit, facts))
  )
    return { outcome: 'unchanged', shoots: facts.size };
  const written = await garden.apply(desired, fieldManager, { force: true });
  if (!written.ok)
    return {
      outcome: 'failed',
      message: `apply ConfigMap ${namespace}/${APPLY_REPORT_NAME}: ${describeFailure(written)} — ${fixFor(written.status, 'configmaps')}`,
    };
  return { outcome: 'written', shoots: facts.size };
}

/**
 * The annotation patches the Garden's state asks for, beside the plan: force-deletion of a stuck deletion
 * (where allowed; otherwise reported), the removal of a deletion confirmation an interrupted deletion left on a
 * Shoot that is desired again (or anyone's plain DELETE would go through), and the operation-timeout marks.
 */
function gardenStateAnnotations(
  plan: SyncPlan,
  inventory: readonly Shoot[],
  overdue: ReadonlyMap<string, string>,
  config: KimopsConfig,
  now: Date,
): { annotations: ShootAnnotation[]; stuckDeletions: string[] } {
  const annotations: ShootAnnotation[] = [];
  const stuckDeletions: string[] = [];
  for (const entry of plan.entries) {
    const shoot = entry.live;
    if (!shoot) continue;
    if (entry.action === 'delete') {
      const decision = forceDeletionDecision(shoot, config.apply.forceDeletion, {
        now,
        deleteTimeoutMs: config.apply.timeouts.delete,
      });
      if (decision.action === 'force')
        annotations.push({
          shoot: entry.shoot,
          annotations: { [FORCE_DELETION_ANNOTATION]: 'true' },
          line: decision.message,
        });
      if (decision.action === 'report') stuckDeletions.push(decision.message);
    } else if (
      entry.action !== 'blocked' &&
      !isKimLed(entry) &&
      !shoot.metadata.deletionTimestamp &&
      shoot.metadata.annotations?.[DELETION_CONFIRMATION_ANNOTATION] === 'true'
    ) {
      const line = `removed ${DELETION_CONFIRMATION_ANNOTATION}, left by an interrupted deletion: the Shoot is in ${plan.commit.slice(0, 12)} again`;
      annotations.push({ shoot: entry.shoot, annotations: { [DELETION_CONFIRMATION_ANNOTATION]: null }, line });
    }
  }
  for (const change of timeoutChanges(inventory, overdue)) {
    annotations.push(
      'set' in change
        ? {
            shoot: change.shoot,
            annotations: { [OPERATION_TIMED_OUT_ANNOTATION]: change.set },
            line: `operation timed out: ${change.set}`,
          }
        : {
            shoot: change.shoot,
            annotations: { [OPERATION_TIMED_OUT_ANNOTATION]: null },
            line: 'operation no longer timed out: annotation removed',
          },
    );
  }
  return { annotations, stuckDeletions };
}

/** A plan entry of a Shoot KIM leads (ADR 0011). */
function isKimLed(entry: PlanEntry): boolean {
  return entry.action === 'shadow' || entry.action === 'hand-back';
}

/**
 * What a watching applier keeps from one sync to the next, all of it derived (a restart only costs time): the
 * plan's unchanged entries (plan.ts) by everything they were computed from, so it reads, parses and plans only
 * the Shoots that moved on either side — a no-op sync of 10,000 Shoots reads no file.
 */
export interface SyncMemo {
  plan: Map<string, PlanEntry>;
  /** Shoot → runtime id of the Shoots being deleted at the last sync: their garden Secrets go once they are gone. */
  deletingRuntimes?: Map<string, string>;
  /** Set once this process listed all the registry caches' Secrets (cleanGoneRuntimes): later syncs list fewer. */
  goneSecretsListed?: boolean;
}

export function syncMemo(): SyncMemo {
  return { plan: new Map(), deletingRuntimes: new Map() };
}

/** Folders read at once: reading is waiting on the disk (isomorphic-git reads object by object). */
const READ_LANES = 8;
/**
 * Folders parsed and planned together when nothing is remembered (a first sync): the most parsed files held at
 * once. With a garbage collection after each batch (`betweenBatches`) a first sync of 10,000 Shoots peaks at
 * 435–478 MiB instead of 521–597 MiB (docs/performance.md); four collections cost under a second.
 */
const PLAN_BATCH = 2_500;

function inBatches<T>(items: readonly T[], size: number): T[][] {
  const batches: T[][] = [];
  for (let start = 0; start < items.length; start += size) batches.push(items.slice(start, start + size));
  return batches;
}

/** A read started ahead of its use: its failure is seen where it is awaited, never as an unhandled rejection meanwhile. */
function quiet<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {});
  return promise;
}

/** The desired state of the commit's `folders` (a file directly in shoots/ is reported by desiredFromFiles). */
async function desiredOf(
  repo: LandscapeRepo,
  commit: string,
  folders: ReadonlyMap<string, FolderEntry>,
): Promise<DesiredState> {
  const loose = new Map<string, string>();
  const states = await mapInParallel([...folders], READ_LANES, async ([name, entry]) => {
    const path = `${SHOOTS_FOLDER}/${name}`;
    if (entry.type !== 'tree') {
      loose.set(path, (await repo.readFile(commit, path)) ?? '');
      return undefined;
    }
    const files = new Map<string, string>();
    for (const [file, blob] of await repo.readTreeFiles(entry.oid, `${path}/`)) files.set(file, await blob.read());
    return desiredFromFiles(files);
  });
  const all = [
    ...states.filter((state) => state !== undefined),
    desiredFromFiles(new Map([...loose].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))),
  ];
  return { shoots: all.flatMap((s) => s.shoots), problems: all.flatMap((s) => s.problems) };
}

/** The companions' label selector: kimops's own ConfigMaps that belong to a Shoot. */
export const COMPANION_SELECTOR = `${OWNERSHIP_LABEL}=${OWNERSHIP_VALUE},${COMPANION_OF_LABEL}`;

/** The Shoots of the namespace and the companions, one LIST each; each page's Shoots compacted as it arrives. */
async function listLive(
  garden: GardenApi,
  namespace: string,
  fieldManager: string,
): Promise<{ shoots: Shoot[]; companions: KubeObject[] }> {
  const shoots = await listShoots(garden, namespace, fieldManager);
  const companions = await garden.listAll<KubeObject>(
    { apiVersion: 'v1', kind: 'ConfigMap', namespace },
    { labelSelector: COMPANION_SELECTOR, limit: LIST_PAGE, map: (item) => compactCompanion(item, fieldManager) },
  );
  if (!companions.ok) throw new TransportError('Garden', companions.message);
  return { shoots, companions: companions.items };
}

/** The Shoots of the namespace, one paged LIST, each page's Shoots compacted as it arrives (as a sync keeps them). */
export async function listShoots(
  garden: Pick<GardenApi, 'listAll'>,
  namespace: string,
  fieldManager: string,
): Promise<Shoot[]> {
  // Pages of 500 (as client-go's informers list) keep the JSON of 10,000 Shoots from being held at once.
  const shoots = await garden.listAll<Shoot>(
    { apiVersion: SHOOT_API_VERSION, kind: 'Shoot', namespace },
    { limit: LIST_PAGE, map: (item) => compactShoot(item, fieldManager) },
  );
  if (!shoots.ok) throw new TransportError('Garden', shoots.message);
  return shoots.items;
}

async function fromCaches(live: LiveObjects): Promise<{ shoots: Shoot[]; companions: KubeObject[] }> {
  const failing = live.failing();
  // A stale cache must not pass for the Garden: the sync fails as unreachable and the watch backs off.
  if (failing !== undefined) throw new TransportError('Garden', failing);
  return { shoots: live.shoots(), companions: live.companions() };
}

/**
 * What a sync reads of a listed companion: all of it but other managers' managedFields. A LIST leaves
 * apiVersion and kind off its items (a watch event carries them): set either way.
 */
export function compactCompanion(item: KubeObject, fieldManager: string): KubeObject {
  return {
    ...item,
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { ...item.metadata, managedFields: ownApplies(item, fieldManager) },
  };
}

/**
 * The managedFields entries of `fieldManager`'s applies: what an apply of its would remove (plan.ts's
 * applyChanges), each `fieldsV1` kept as its JSON text. A Shoot's fieldsV1 is a tree of thousands of small
 * objects (every field it sets, `{}` at each leaf): as objects ~8 KiB of heap per Shoot, as text ~3 KiB — at
 * 10,000 Shoots some 50 MiB of a cache's live data. plan.ts parses it only for a Shoot it plans.
 */
function ownApplies(item: KubeObject, fieldManager: string): unknown[] {
  // KIM's applies too: a hand-back applies them again as KIM's, or they would be dropped (plan.ts handBackOf).
  const entries = Array.isArray(item.metadata.managedFields)
    ? (item.metadata.managedFields as { manager?: string; operation?: string; fieldsV1?: unknown }[])
    : [];
  return entries
    .filter(
      (entry) => (entry.manager === fieldManager || entry.manager === KIM_FIELD_MANAGER) && entry.operation === 'Apply',
    )
    .map((entry) =>
      entry.fieldsV1 === undefined || typeof entry.fieldsV1 === 'string'
        ? entry
        : { ...entry, fieldsV1: JSON.stringify(entry.fieldsV1) },
    );
}

/**
 * What a sync reads of a listed Shoot, and no more: ten thousand Shoots' managedFields and status would
 * otherwise be most of the applier's memory. Kept: the metadata, the spec, `field manager`'s own applies and KIM's in
 * managedFields (what an apply would remove), and the status fields health, timeouts and force-deletion read.
 */
export function compactShoot(item: KubeObject, fieldManager: string): Shoot {
  const shoot = item as unknown as Shoot;
  const managedFields = ownApplies(item, fieldManager);
  const status = shoot.status;
  return {
    apiVersion: SHOOT_API_VERSION,
    kind: 'Shoot',
    metadata: { ...shoot.metadata, managedFields },
    spec: shoot.spec,
    ...(status && {
      status: {
        ...(status.observedGeneration !== undefined && { observedGeneration: status.observedGeneration }),
        ...(status.lastOperation && { lastOperation: status.lastOperation }),
        ...(status.lastErrors && { lastErrors: status.lastErrors }),
        ...(status.retryCycleStartTime !== undefined && { retryCycleStartTime: status.retryCycleStartTime }),
      },
    }),
  };
}

/**
 * KIM's seed check before a create whose Runtime enforces the seed location: one LIST of Seeds when some
 * create needs it; a create without a usable Seed is blocked with KIM's SeedNotFound message (and with
 * KIM's GardenerErr message when the LIST fails), so nothing is created that Gardener could not schedule.
 */
async function withSeedChecks(plan: SyncPlan, garden: GardenApi): Promise<SyncPlan> {
  const creates = plan.entries.filter(
    (entry) => entry.action === 'create' && needsSeedCheck(entry.object.manifest as Shoot),
  );
  if (creates.length === 0) return plan;
  const seeds = await garden.listAll<KubeObject>({ apiVersion: SHOOT_API_VERSION, kind: 'Seed' });
  if (!seeds.ok && seeds.status === 0) throw new TransportError('Garden', seeds.message);
  const blocked = new Map<string, { reason: string; seedNotFound?: string }>();
  for (const entry of creates) {
    const shoot = entry.object.manifest as Shoot;
    const check = seeds.ok ? seedCheck(shoot, seeds.items as unknown as Seed[]) : seedListFailure(shoot);
    // A refused LIST names its fix (KubeClient's): the identity needs `list` on the cluster-scoped seeds.
    if (!check.ok)
      blocked.set(entry.shoot, {
        reason: `${check.reason}: ${check.message}${seeds.ok ? '' : ` (${seeds.message})`}`,
        ...(check.reason === 'SeedNotFound' && { seedNotFound: check.message }),
      });
  }
  if (blocked.size === 0) return plan;
  const entries = plan.entries.map((entry) => {
    const block = blocked.get(entry.shoot);
    return block === undefined
      ? entry
      : {
          ...entry,
          action: 'blocked' as const,
          reasons: [`not created: ${block.reason}`],
          ...(block.seedNotFound !== undefined && { seedNotFound: block.seedNotFound }),
        };
  });
  return {
    ...plan,
    entries,
    counts: { ...plan.counts, create: plan.counts.create - blocked.size, blocked: plan.counts.blocked + blocked.size },
  };
}
