// What one sync of one commit would do, Shoot by Shoot, before anything is written (Flux's change-set as a
// value). Pure: the desired state of the commit, the live objects of garden-<project>, and the policy in; the
// plan out. The applier executes it; `--dry-run` prints it.
import type { MassDeletionGuard } from '../model/kimops-config.js';
import { isManagedByKimops, type Shoot } from '../model/shoot.js';
import {
  OWNERSHIP_LABEL,
  OWNERSHIP_VALUE,
  COMPANION_OF_LABEL,
  APPLIED_COMMIT_ANNOTATION,
  APPLIED_TREE_ANNOTATION,
  FIELD_MANAGER,
  KIM_FIELD_MANAGER,
} from '../model/contract.js';
import type { KubeObject } from '../model/kube-object.js';
import { massDeletionGuard, MASS_DELETION_TRAILER } from '../rules/mass-deletion.js';
import { type FieldChange, semanticDiff } from '../rules/semantic-diff.js';
import { managedPart, type OwnedFields } from '../rules/managed-fields.js';
import { describeChange } from '../rules/change-text.js';
import { keepLive, type KeptLive } from '../rules/live-rules.js';
import type { DesiredProblem, DesiredShoot, DesiredState } from './desired.js';
import { isJsonObject } from '../model/json.js';
import { LEADER_ANNOTATION, shootLeader, withLeader } from '../rules/leader.js';
import { differingFields } from '../rules/field-differences.js';

/**
 * The inventory is every Shoot in garden-<project> carrying OWNERSHIP_LABEL=OWNERSHIP_VALUE. The applier adds the
 * label on every apply (it is part of the manifest it applies), so a Shoot kimops created or took over is found
 * again after a restart — no state outside the API. These two annotations are never compared as fields.
 */
const MARKERS = [APPLIED_COMMIT_ANNOTATION, APPLIED_TREE_ANNOTATION];

/**
 * - `create`: desired, not live.
 * - `update`: desired and in the inventory, and a server-side apply would change a field (`changes`).
 * - `take-over`: desired and live but without the ownership label (e.g. created by KIM): always a write, which
 *   adds the label; `changes` shows what the apply would change besides. (Not `adopt`: that change class means
 *   Git following Gardener, docs/design.md §1.5.)
 * - `delete`: in the inventory, not desired (its folder is gone from the commit).
 * - `unchanged`: no write at all.
 * - `blocked`: the commit's files for this Shoot have problems, or the live Shoot is being deleted while still
 *   desired; nothing is applied or deleted for it.
 * - `drifted`: an `update` that is drift (drift.ts) under kimops.yaml `drift: report` or `adopt`: no write.
 * - `shadow`: KIM leads the Shoot (`kimops.kyma-project.io/leader: kim` in main, ADR 0011): where main differs from
 *   the live Shoot is computed (`changes`), nothing is written, and it is never deleted.
 * - `hand-back`: KIM leads it, but the live Shoot still carries the ownership label: its fields go to KIM's field
 *   manager and kimops's ownership (label and fields) goes (`handBack`); the next plan is `shadow`.
 */
export type PlanAction =
  'create' | 'update' | 'take-over' | 'delete' | 'unchanged' | 'blocked' | 'drifted' | 'shadow' | 'hand-back';

/** The prefix of kimops's own labels and annotations (model/contract.ts). */
const KIMOPS_ANNOTATIONS = OWNERSHIP_LABEL.slice(0, OWNERSHIP_LABEL.indexOf('/') + 1);

type ObjectAction = 'create' | 'update' | 'delete' | 'unchanged';

export interface ObjectPlan {
  kind: string;
  name: string;
  /** The repo path; absent for an object that is no longer in the commit. */
  path?: string;
  action: ObjectAction;
  changes: FieldChange[];
  /** What to server-side apply (create/update): the desired object plus the ownership label. Absent when nothing is to be applied for the entry. */
  manifest?: KubeObject;
}

export interface PlanEntry {
  shoot: string;
  action: PlanAction;
  /** For a human, one line each: field paths that differ, why it is blocked, that a deletion is under way. */
  reasons: string[];
  /** The Shoot itself. */
  object: ObjectPlan;
  /** In apply order (sorted by path), all before the Shoot; for a delete, those to delete after the Shoot is gone. */
  companions: ObjectPlan[];
  /** A delete whose deletion Gardener is already carrying out: no DELETE to send, only the companions to clean up. */
  alreadyDeleting?: boolean;
  /** Where the live Shoot's value won over main's (rules/live-rules.ts): never a downgrade, a removed zone, a changed create-only field. */
  kept?: KeptLive[];
  /** The folder's git tree in this commit, and the one the live Shoot was last applied from (APPLIED_TREE_ANNOTATION). */
  tree?: string;
  appliedTree?: string;
  /**
   * Set on a live Shoot whose folder changed since it was applied although nothing of it is written (only a
   * companion, or only values the live Shoot keeps): the markers are moved after the entry's other writes.
   */
  moveMarkers?: Record<string, string>;
  /** Set by the seed check (sync-commit.ts) on a create it blocked: KIM's SeedNotFound message. */
  seedNotFound?: string;
  /** Set by drift.ts: the difference is the live Shoot's, not Git's. */
  drift?: boolean;
  /** The folder holds objects for the Shoot's cluster (`skr/`): skr-sync.ts applies them once the Shoot is reconciled. */
  skr?: true;
  /** The live Shoot, for what a sync reads besides the plan (health, force-deletion); absent when not live. */
  live?: Shoot;
  /**
   * A hand-back's two applies (sync.ts): `kim`, the fields kimops applied with their live values, applied with force
   * as KIM's field manager; then `release`, the Shoot's identity alone, applied as kimops's, so that kimops owns no
   * field any more and the API server drops those only kimops held (the ownership label, the markers).
   */
  handBack?: {
    manager: string;
    kim: KubeObject;
    release?: KubeObject;
    /** kimops's own annotations the applier set by merge patch (the SKR's tree, …): no apply removes them. */
    unannotate: string[];
  };
}

export interface SyncPlan {
  commit: string;
  fieldManager: string;
  /** Sorted by Shoot name. */
  entries: PlanEntry[];
  counts: Record<PlanAction, number>;
  /** Problems of the commit outside any Shoot folder (they block nothing, but are reported). */
  problems: DesiredProblem[];
  /** Set when the mass-deletion guard refused the plan: then nothing of it may be applied. */
  refused?: { message: string };
}

export interface PlanInput {
  desired: DesiredState;
  /**
   * Every Shoot in garden-<project>, from one LIST. Those carrying OWNERSHIP_LABEL=OWNERSHIP_VALUE are the
   * inventory; the others matter only when desired (take-over) and are otherwise never touched.
   */
  live: readonly Shoot[];
  /** The ConfigMaps in garden-<project> (those of the desired companions' names, and those with COMPANION_OF_LABEL). */
  liveCompanions: readonly KubeObject[];
  commit: string;
  /** Shoot name → the git tree of its folder in `commit` (the repo's shoots/ listing), for the markers. */
  trees?: ReadonlyMap<string, string>;
  fieldManager?: string;
  massDeletion: MassDeletionGuard;
  /** The number of deletions a human approved for this commit (`--allow-mass-deletion N`). */
  allowMassDeletion?: number;
  /**
   * `unchanged` entries of the previous plan by everything they were computed from (folder tree, live
   * resourceVersions, field manager): a watching applier plans only what moved, and need not even read the
   * folders whose entries it remembers (rememberedFolders: a folder of `trees` missing from `desired` is taken
   * from here). Left holding this plan's.
   */
  memo?: Map<string, PlanEntry>;
}

/** The live Shoots kimops owns. */
export function inventoryOf(live: readonly Shoot[]): Shoot[] {
  return live.filter(isOwned);
}

export function planSync({
  desired,
  live,
  liveCompanions,
  commit,
  trees = new Map(),
  fieldManager = FIELD_MANAGER,
  massDeletion,
  allowMassDeletion,
  memo,
}: PlanInput): SyncPlan {
  const liveByName = new Map(live.map((shoot) => [shoot.metadata.name, shoot]));
  const companionsByName = new Map(liveCompanions.map((object) => [`${object.kind}/${object.metadata.name}`, object]));
  const companionsByShoot = companionsPerShoot(liveCompanions);
  const blockedBy = new Map<string, DesiredProblem[]>();
  const unplaced: DesiredProblem[] = [];
  for (const problem of desired.problems) {
    if (problem.shoot === undefined) unplaced.push(problem);
    else blockedBy.set(problem.shoot, [...(blockedBy.get(problem.shoot) ?? []), problem]);
  }
  const entries: PlanEntry[] = [];
  const desiredNames = new Set(desired.shoots.map((d) => d.name));
  const remembered = new Map<string, PlanEntry>();
  const keyOf = (name: string) =>
    memo
      ? planMemoKey(name, trees.get(name), liveByName.get(name), companionsByShoot.get(name) ?? [], fieldManager)
      : undefined;
  for (const wanted of desired.shoots) {
    const liveShoot = liveByName.get(wanted.name);
    const key = keyOf(wanted.name);
    const entry =
      (key !== undefined && memo?.get(key)) ||
      planDesired(
        wanted,
        liveShoot,
        companionsByShoot.get(wanted.name) ?? [],
        companionsByName,
        { commit, tree: trees.get(wanted.name) },
        fieldManager,
      );
    // A shadow writes nothing either; a change of its leader changes its folder's tree, so the key moves with it.
    if (key !== undefined && (entry.action === 'unchanged' || entry.action === 'shadow') && !entry.moveMarkers)
      remembered.set(key, entry);
    entries.push(entry);
  }
  // Folders of the commit the caller did not read because their entry is remembered (rememberedFolders).
  for (const name of trees.keys()) {
    if (desiredNames.has(name) || blockedBy.has(name)) continue;
    const key = keyOf(name);
    const entry = key !== undefined ? memo?.get(key) : undefined;
    if (!entry || key === undefined) continue;
    desiredNames.add(name);
    remembered.set(key, entry);
    entries.push(entry);
  }
  if (memo) {
    memo.clear();
    for (const [key, entry] of remembered) memo.set(key, entry);
  }
  for (const [name, problems] of blockedBy) {
    if (desiredNames.has(name)) continue;
    const liveShoot = liveByName.get(name);
    entries.push({
      shoot: name,
      action: 'blocked',
      reasons: problems.map((p) => p.error.message),
      object: { kind: 'Shoot', name, action: 'unchanged', changes: [] },
      companions: [],
      ...(liveShoot && isDeleting(liveShoot) ? { alreadyDeleting: true } : {}),
    });
  }
  for (const shoot of inventoryOf(live)) {
    const name = shoot.metadata.name;
    if (desiredNames.has(name) || blockedBy.has(name)) continue;
    entries.push(planDelete(shoot, companionsByShoot.get(name) ?? []));
  }
  entries.sort((a, b) => (a.shoot < b.shoot ? -1 : a.shoot > b.shoot ? 1 : 0));
  const counts = {
    create: 0,
    update: 0,
    'take-over': 0,
    delete: 0,
    unchanged: 0,
    blocked: 0,
    drifted: 0,
    shadow: 0,
    'hand-back': 0,
  } satisfies Record<PlanAction, number>;
  for (const entry of entries) counts[entry.action]++;
  const deleting = entries.filter((entry) => entry.action === 'delete' && !entry.alreadyDeleting).length;
  const guard = massDeletionGuard({
    deleting,
    total: inventoryOf(live).length,
    policy: massDeletion,
    ...(allowMassDeletion !== undefined ? { override: allowMassDeletion } : {}),
    wording: {
      refusing: 'refusing to delete',
      approve: (n) =>
        `Check that main really means it; if so, approve it with a commit on main carrying the trailer "${MASS_DELETION_TRAILER}: ${n}" ` +
        `(an empty commit will do), or run kimops apply --once --allow-mass-deletion ${n}, or raise massDeletion in kimops.yaml.`,
    },
  });
  return {
    commit,
    fieldManager,
    entries,
    counts,
    problems: unplaced,
    ...(guard.allowed ? {} : { refused: { message: guard.message } }),
  };
}

/**
 * What an `unchanged` entry was computed from, all of which says when it changes: the folder's git tree, the
 * live Shoot's and its companions' resourceVersions, the field manager. Undefined where that is not known
 * (no live Shoot, no tree): such an entry is always planned.
 */
function planMemoKey(
  name: string,
  tree: string | undefined,
  liveShoot: Shoot | undefined,
  ownCompanions: readonly KubeObject[],
  fieldManager: string,
): string | undefined {
  if (!liveShoot || tree === undefined) return undefined;
  return [
    name,
    tree,
    liveShoot.metadata.resourceVersion,
    fieldManager,
    ...ownCompanions.map((c) => `${c.metadata.name}@${c.metadata.resourceVersion}`),
  ].join('\0');
}

/**
 * The folders of `trees` whose plan entry `memo` remembers for the same inputs: a watching applier need not
 * read or parse them (planSync takes their entries from the memo).
 */
export function rememberedFolders(
  memo: ReadonlyMap<string, PlanEntry>,
  trees: ReadonlyMap<string, string>,
  live: readonly Shoot[],
  liveCompanions: readonly KubeObject[],
  fieldManager = FIELD_MANAGER,
): Set<string> {
  const liveByName = new Map(live.map((shoot) => [shoot.metadata.name, shoot]));
  const companionsByShoot = companionsPerShoot(liveCompanions);
  const names = new Set<string>();
  for (const [name, tree] of trees) {
    const key = planMemoKey(name, tree, liveByName.get(name), companionsByShoot.get(name) ?? [], fieldManager);
    if (key !== undefined && memo.has(key)) names.add(name);
  }
  return names;
}

function planDesired(
  wanted: DesiredShoot,
  liveShoot: Shoot | undefined,
  /** The live companions labelled for this Shoot (companionsPerShoot). */
  ownCompanions: readonly KubeObject[],
  companionsByName: ReadonlyMap<string, KubeObject>,
  source: Source,
  fieldManager: string,
): PlanEntry {
  const name = wanted.name;
  // Before anything else: for a Shoot KIM leads nothing is written, not even a block's reason for a deleting one.
  if (shootLeader(wanted.shoot) === 'kim') return planKimLed(wanted, liveShoot, fieldManager);
  if (liveShoot && isDeleting(liveShoot)) {
    return {
      shoot: name,
      action: 'blocked',
      reasons: ['the live Shoot is being deleted; it is created again from this commit once Gardener has removed it'],
      object: { kind: 'Shoot', name, path: wanted.path, action: 'unchanged', changes: [] },
      companions: [],
      live: liveShoot,
    };
  }
  const companions: ObjectPlan[] = wanted.companions.map(({ path, object }) => {
    const manifest = owned(object, source, name);
    return planObject(manifest, path, companionsByName.get(`${object.kind}/${object.metadata.name}`), fieldManager);
  });
  const wantedNames = new Set(wanted.companions.map(({ object }) => `${object.kind}/${object.metadata.name}`));
  for (const stale of ownCompanions) {
    if (!wantedNames.has(`${stale.kind}/${stale.metadata.name}`)) companions.push(deleteObject(stale));
  }
  let held: { shoot: Shoot; kept: KeptLive[] } = { shoot: wanted.shoot, kept: [] };
  try {
    if (liveShoot) held = keepLive(wanted.shoot, liveShoot);
  } catch (error) {
    return {
      shoot: name,
      action: 'blocked',
      reasons: [
        `${wanted.path} cannot be held against the live Shoot (${error instanceof Error ? error.message : String(error)}): it is not a complete Shoot; run kimops validate on it and merge a fix`,
      ],
      object: { kind: 'Shoot', name, path: wanted.path, action: 'unchanged', changes: [] },
      companions: [],
      live: liveShoot,
    };
  }
  const object = planObject(owned(held.shoot, source), wanted.path, liveShoot, fieldManager);
  const takeOver = liveShoot !== undefined && !isOwned(liveShoot);
  const companionWrites = companions.filter((c) => c.action !== 'unchanged');
  const action: PlanAction = !liveShoot
    ? 'create'
    : takeOver
      ? 'take-over'
      : object.action !== 'unchanged' || companionWrites.length > 0
        ? 'update'
        : 'unchanged';
  const reasons = [
    ...(takeOver
      ? [
          `live Shoot has no ${OWNERSHIP_LABEL}=${OWNERSHIP_VALUE} label (created by KIM or by hand): kimops takes it over as field manager ${fieldManager}`,
        ]
      : []),
    ...(action === 'create' ? ['not live: created from this commit'] : []),
    ...(liveShoot ? object.changes.map(describeChange) : []),
    ...companionWrites.map((c) => `${c.kind} ${c.name}: ${companionVerb(c, takeOver)}`),
  ];
  const appliedTree = liveShoot?.metadata.annotations?.[APPLIED_TREE_ANNOTATION];
  const stale =
    liveShoot !== undefined &&
    !takeOver &&
    object.action === 'unchanged' &&
    source.tree !== undefined &&
    appliedTree !== source.tree;
  // Nothing is applied for an unchanged Shoot: its manifests (a copy of the Shoot each) are not kept, which at
  // 10,000 Shoots is most of what a plan (and a watching applier's memo of it) would hold.
  const keep = action !== 'unchanged';
  return {
    shoot: name,
    action,
    reasons,
    object: keep ? object : withoutManifest(object),
    companions: keep ? companions : companions.map(withoutManifest),
    ...(held.kept.length > 0 && { kept: held.kept }),
    ...(source.tree !== undefined && { tree: source.tree }),
    ...(appliedTree !== undefined && { appliedTree }),
    ...(stale && { moveMarkers: markersOf(source) }),
    ...(wanted.skr.length > 0 && { skr: true as const }),
    ...(liveShoot && { live: liveShoot }),
  };
}

/**
 * A folder main marks as KIM's (ADR 0011): `shadow`, or `hand-back` while the live Shoot still carries kimops's
 * ownership label. Its companions are left as they are.
 */
function planKimLed(wanted: DesiredShoot, liveShoot: Shoot | undefined, fieldManager: string): PlanEntry {
  const name = wanted.name;
  const object: ObjectPlan = { kind: 'Shoot', name, path: wanted.path, action: 'unchanged', changes: [] };
  const led = `KIM leads this Shoot (${LEADER_ANNOTATION}: kim in main)`;
  if (!liveShoot)
    return {
      shoot: name,
      action: 'shadow',
      reasons: [`${led}: not live, and kimops creates nothing`],
      object,
      companions: [],
    };
  // What an apply of main would change, as `kimops compare` says it: main's values against the live ones.
  const changes = differingFields(wanted.shoot, liveShoot).map(({ path, main, live }): FieldChange => ({
    path,
    kind: main === undefined ? 'removed' : live === undefined ? 'added' : 'changed',
    ...(live !== undefined && { before: live }),
    ...(main !== undefined && { after: main }),
  }));
  const shown = { ...object, changes };
  // A hand-back killed between its writes left kimops's markers behind: it is finished on the next sync.
  if (!isOwned(liveShoot) && kimopsAnnotationsOf(liveShoot).length === 0)
    return {
      shoot: name,
      action: 'shadow',
      reasons: [`${led}: nothing is written`, ...changes.map(describeChange)],
      object: shown,
      companions: [],
      live: liveShoot,
    };
  return {
    shoot: name,
    action: 'hand-back',
    reasons: [
      `${led}, and the live Shoot still carries ${OWNERSHIP_LABEL}=${OWNERSHIP_VALUE}: its fields go to field manager ${KIM_FIELD_MANAGER} with their live values, kimops's label and field ownership go`,
      ...changes.map(describeChange),
    ],
    object: shown,
    companions: [],
    live: liveShoot,
    handBack: handBackOf(wanted.shoot, liveShoot, fieldManager),
  };
}

/**
 * The two applies of a hand-back: the part of the live Shoot kimops manages (the fields main sets and those its
 * field manager applied) and the fields KIM applied before the take-over, with the live values so no field changes,
 * without kimops's label and markers; and the Shoot's identity alone. KIM's own fields are in the first apply because
 * a server-side apply drops what its manager applied before and applies no more: a field only KIM set (one kimops's
 * converter does not write) would otherwise vanish, and the Shoot's generation move.
 */
function handBackOf(main: Shoot, live: Shoot, fieldManager: string): NonNullable<PlanEntry['handBack']> {
  const kimopsOwned = ownedFields(live, fieldManager);
  const kimOwned = ownedFields(live, KIM_FIELD_MANAGER);
  const managed = managedPart(
    comparable(live),
    comparable(withLeader(main, 'kimops')),
    kimOwned ? mergeFields(kimopsOwned, kimOwned) : kimopsOwned,
  ) as Shoot;
  const labels = withoutKeys(managed.metadata.labels, [OWNERSHIP_LABEL]);
  const annotations = withoutKeys(managed.metadata.annotations, [LEADER_ANNOTATION]);
  const identity = { name: live.metadata.name, ...(live.metadata.namespace && { namespace: live.metadata.namespace }) };
  const { apiVersion, kind } = live;
  return {
    manager: KIM_FIELD_MANAGER,
    kim: {
      ...managed,
      apiVersion,
      kind,
      metadata: {
        ...managed.metadata,
        ...identity,
        ...(Object.keys(labels).length > 0 ? { labels } : {}),
        ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
      },
    } as KubeObject,
    // Applying as `kim` already (kimops.yaml apply.fieldManager): its own apply without the label drops it, and an
    // apply of the identity alone as `kim` would drop every field.
    ...(fieldManager !== KIM_FIELD_MANAGER && { release: { apiVersion, kind, metadata: identity } }),
    unannotate: kimopsAnnotationsOf(live),
  };
}

/** kimops's markers on a live Shoot (applied tree, SKR tree, timeout marks, …): none is left after a hand-back. */
function kimopsAnnotationsOf(live: Shoot): string[] {
  return Object.keys(live.metadata.annotations ?? {}).filter((key) => key.startsWith(KIMOPS_ANNOTATIONS));
}

function planDelete(shoot: Shoot, ownCompanions: readonly KubeObject[]): PlanEntry {
  const name = shoot.metadata.name;
  const alreadyDeleting = isDeleting(shoot);
  return {
    shoot: name,
    action: 'delete',
    reasons: [
      alreadyDeleting
        ? 'Gardener is already deleting it; its companions are deleted once it is gone'
        : 'no longer in the commit: deleted with confirmation, its companions after it',
    ],
    object: deleteObject(shoot),
    companions: ownCompanions.map(deleteObject),
    live: shoot,
    ...(alreadyDeleting ? { alreadyDeleting } : {}),
  };
}

function planObject(
  manifest: KubeObject,
  path: string,
  live: KubeObject | undefined,
  fieldManager: string,
): ObjectPlan {
  const base = { kind: manifest.kind, name: manifest.metadata.name, path, manifest };
  if (!live) return { ...base, action: 'create', changes: semanticDiff(undefined, comparable(manifest) as Shoot) };
  const changes = applyChanges(manifest, live, fieldManager);
  return { ...base, action: changes.length > 0 ? 'update' : 'unchanged', changes };
}

function withoutManifest({ manifest: _unused, ...rest }: ObjectPlan): ObjectPlan {
  return rest;
}

function deleteObject(live: KubeObject): ObjectPlan {
  return { kind: live.kind, name: live.metadata.name, action: 'delete', changes: [] };
}

/**
 * What a server-side apply of `manifest` as `fieldManager` would change on `live`: the manifest is compared
 * with the live object cut down to the fields the manifest sets (rules/managed-fields.ts, ADR 0009), plus the fields `fieldManager` applied
 * before (managedFields) — those an apply removes when the manifest no longer sets them. Everything else on
 * the live object (status, server-set metadata, Gardener's defaults, other managers' fields) is not kimops's
 * and never makes a write. The applied-commit annotation is left out on both sides.
 */
function applyChanges(manifest: KubeObject, live: KubeObject, fieldManager: string): FieldChange[] {
  const wanted = comparable(manifest);
  const owned = ownedFields(live, fieldManager);
  const projected = managedPart(comparable(live), wanted, owned) as KubeObject;
  return semanticDiff(projected as unknown as Shoot, wanted as unknown as Shoot);
}

/**
 * The union of the fields `fieldManager` applied (operation Apply; Update entries are never removed by an
 * apply). `fieldsV1` as the API serves it, or as its JSON text (how compactShoot keeps it).
 */
function ownedFields(live: KubeObject, fieldManager: string): OwnedFields {
  const entries = Array.isArray(live.metadata.managedFields) ? (live.metadata.managedFields as unknown[]) : [];
  let merged: OwnedFields;
  for (const entry of entries) {
    if (!isJsonObject(entry) || entry.manager !== fieldManager || entry.operation !== 'Apply') continue;
    const fields = fieldsOf(entry.fieldsV1);
    if (fields) merged = mergeFields(merged, fields);
  }
  return merged;
}

function fieldsOf(fieldsV1: unknown): Record<string, unknown> | undefined {
  if (typeof fieldsV1 !== 'string') return isJsonObject(fieldsV1) ? fieldsV1 : undefined;
  try {
    const parsed: unknown = JSON.parse(fieldsV1);
    return isJsonObject(parsed) ? parsed : undefined;
  } catch {
    return undefined; // not JSON: claims nothing, like a fieldsV1 that is no object
  }
}

function mergeFields(a: OwnedFields, b: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...(a ?? {}) };
  for (const [key, value] of Object.entries(b))
    out[key] = isJsonObject(out[key]) && isJsonObject(value) ? mergeFields(out[key] as OwnedFields, value) : value;
  return out;
}

/** Where a desired Shoot comes from: the commit, and its folder's tree there. */
interface Source {
  commit: string;
  tree?: string | undefined;
}

function markersOf({ commit, tree }: Source): Record<string, string> {
  return { [APPLIED_COMMIT_ANNOTATION]: commit, ...(tree !== undefined && { [APPLIED_TREE_ANNOTATION]: tree }) };
}

/** The manifest kimops applies: the desired object with the ownership label (and companion link) and the markers. */
function owned<T extends KubeObject>(object: T, source: Source, companionOf?: string): T {
  const labels = {
    ...object.metadata.labels,
    [OWNERSHIP_LABEL]: OWNERSHIP_VALUE,
    ...(companionOf ? { [COMPANION_OF_LABEL]: companionOf } : {}),
  };
  // The leader mark is main's alone: never written to the Garden (a Shoot kimops applies carries none anyway).
  const annotations = { ...withoutKeys(object.metadata.annotations, [LEADER_ANNOTATION]), ...markersOf(source) };
  return { ...object, metadata: { ...object.metadata, labels, annotations } };
}

function withoutKeys(map: Record<string, string> | undefined, keys: readonly string[]): Record<string, string> {
  return Object.fromEntries(Object.entries(map ?? {}).filter(([key]) => !keys.includes(key)));
}

/** Without the marker annotations (and without an annotations map they leave empty). */
function comparable(object: KubeObject): KubeObject {
  const annotations = object.metadata.annotations as Record<string, string> | undefined;
  if (!annotations || !MARKERS.some((key) => key in annotations)) return object;
  const rest = Object.fromEntries(Object.entries(annotations).filter(([key]) => !MARKERS.includes(key)));
  const metadata: Record<string, unknown> = { ...object.metadata, annotations: rest };
  if (Object.keys(rest).length === 0) delete metadata.annotations;
  return { ...object, metadata: metadata as KubeObject['metadata'] };
}

/** The live companions kimops labelled, by the Shoot they belong to, each list sorted by name: one pass, not one per Shoot. */
function companionsPerShoot(liveCompanions: readonly KubeObject[]): Map<string, KubeObject[]> {
  const byShoot = new Map<string, KubeObject[]>();
  for (const object of liveCompanions) {
    const shoot = object.metadata.labels?.[COMPANION_OF_LABEL];
    if (shoot === undefined || object.metadata.labels?.[OWNERSHIP_LABEL] !== OWNERSHIP_VALUE) continue;
    byShoot.set(shoot, [...(byShoot.get(shoot) ?? []), object]);
  }
  for (const list of byShoot.values())
    list.sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0));
  return byShoot;
}

function isOwned(object: KubeObject): boolean {
  return isManagedByKimops(object);
}

function isDeleting(object: KubeObject): boolean {
  return typeof object.metadata.deletionTimestamp === 'string' && object.metadata.deletionTimestamp !== '';
}

/**
 * What a companion's write is, in words. kimops lists only the ConfigMaps it labelled, so at a take-over KIM's
 * ConfigMap of the same name is not seen: the apply then takes it over (main's bytes, kimops's labels), which the
 * line says rather than claim a create.
 */
function companionVerb(c: ObjectPlan, takeOver: boolean): string {
  if (c.action === 'create' && takeOver) return "create, or take over the unlabelled one of that name (KIM's)";
  if (c.action === 'update' && c.changes.length > 0) return `update (${c.changes.map((x) => x.path).join(', ')})`;
  return c.action;
}
