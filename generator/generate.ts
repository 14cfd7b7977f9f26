// One generator pass (issue 4, "Proposing changes"): Runtimes → rendered Shoots → pull requests on the
// landscape repo, merged per the repo's kimops.yaml. A change its Runtime asked for gets its Shoot's own
// branch and PR; a change nobody's Runtime asked for (the landscape config or kimops changed) joins the
// landscape's rollout, proposed in waves. The repo, remote and forge are passed in (adapters/ builds
// them); this module decides what to write where. Everything it needs to resume is in Git and the
// forge, so running it again with the same inputs writes nothing.
import { createHash } from 'node:crypto';
import type { Forge } from '../adapters/forge/forge.js';
import type { LandscapeRepo, Signature } from '../adapters/git/landscape-repo.js';
import { TransportError } from '../model/errors.js';
import type { ConversionSettings } from '../model/landscape.js';
import { ANNOTATION_FORCE_PATCH, ANNOTATION_SUSPEND_PATCH, runtimeRef, type Runtime } from '../model/runtime.js';
import { isManagedByKimops, type Shoot } from '../model/shoot.js';
import { branchSync, RejectedPush, type BranchSync, type LandscapeRemote } from './branch-sync.js';
import { ANNOTATION_RUNTIME_GENERATION, ANNOTATION_RUNTIME_ID } from './convert/extenders/metadata.js';
import { readMainSnapshot, type MainSnapshot } from './main-snapshot.js';
import { classifyChange, type ChangeClass } from './propose/classify.js';
import { waves } from './propose/clusters.js';
import { planDeletions } from './propose/deletions.js';
import type { ShootProposal } from './propose/pr-body.js';
import {
  closeStalePullRequests,
  ForgeRefusal,
  proposeBranch,
  type BranchContext,
  type BranchOutcome,
  type BranchProposal,
} from './propose-branch.js';
import { fileMapOf, SHOOT_FILE, SHOOTS_FOLDER } from './render/landscape-layout.js';
import {
  renderRuntimes,
  withoutSharedShootNames,
  type RenderBug,
  type RenderedRuntime,
  type RenderFailure,
  type RuntimeInput,
} from './render/render-runtimes.js';
import { digestOf, RenderMemo, renderKey } from './render-memo.js';
import type { ValidationContext, ValidationSource } from './validate/checks.js';
import { checkProposedShoot } from './validate/folder-check.js';

/** Runtimes rendered at once: bounds a cold pass's memory to a batch of Shoot objects. */
const RENDER_BATCH = 500;

/** A rejected push starts the pass over from a fresh fetch; past this many, the pass ends and the next one tries. */
const MAX_PASS_ATTEMPTS = 3;

export interface GenerateInput {
  /** The landscape's name (landscape.yaml); must match kimops.yaml on main. */
  landscape: string;
  settings: ConversionSettings;
  runtimes: readonly RuntimeInput[];
  /** False when some Runtimes could not be read: then no Shoot is proposed for deletion. */
  runtimesComplete: boolean;
  repo: LandscapeRepo;
  /** A remote landscape repo (fetched before, branches pushed after); absent when `repo` is the repo itself. */
  remote?: LandscapeRemote;
  forge: Forge;
  /** Live Shoots from the Garden (read-only), by name: update-mode renders start from them instead of main's. */
  gardenShoots?: ReadonlyMap<string, Shoot>;
  /** The landscape's policies and facts; without them a change is checked against the Shoot schema only. */
  validation?: ValidationSource;
  /** Kept across passes by a long-running generator, so unchanged Runtimes are not rendered again. */
  memo?: RenderMemo;
  /** Overrides kimops.yaml's commit author (tests pin the timestamp). */
  author?: Signature;
  /** Progress, one line each. */
  log: (line: string) => void;
  /** Deletions a human confirmed beyond the mass-deletion guard. */
  allowMassDeletion?: number;
}

export interface ShootOutcome extends BranchOutcome {
  shoot: string;
  class: ChangeClass['class'];
  disruptive: boolean;
  /** The Runtime the change is for, at the generation rendered. */
  runtime: ShootProposal['runtime'];
  /** The messages of the checks that failed (a deny policy, the Shoot schema): they block the merge. */
  failedChecks: string[];
  /** Part of the landscape's rollout: a change no Runtime asked for (its class may still be immutable). */
  rollout?: boolean;
}

export interface GenerateResult {
  proposed: ShootOutcome[];
  /** Runtimes converted in this pass; the rest were known unchanged (RenderMemo). */
  rendered: number;
  unchanged: number;
  closed: number[];
  /** Open PRs whose change disappeared but whose branch a human pushed to. */
  leftOpen: number[];
  failures: RenderFailure[];
  bugs: RenderBug[];
  /** Runtimes (`<ns>/<name>`) rendered in this pass whose Shoot main already holds: their change is merged. */
  inMain: string[];
  /** The commit of main the pass rendered against. */
  mainCommit?: string;
  /** Shoots of Runtimes annotated to suspend reconciliation: nothing proposed for them. */
  suspended: string[];
  /** The landscape's rollout, when one is pending: its PR and how many Shoots wait for later waves. */
  rollout?: { name: string; pr: number; shoots: number; later: number };
  /** Why Shoots whose Runtime was not found were not proposed for deletion (no proof, or the mass-deletion guard). */
  deletionRefused?: string;
  /** Deletions KEB asked for: proposed in this pass (kimops.yaml deprovisioning.batchSize), and left for later passes. */
  deprovisioning?: { proposed: number; later: number };
  /** Proposals the forge refused (a 404/409/422 on that PR), each with the forge's reason; the others went on. */
  refused: { branch: string; message: string }[];
}

/** A rendered Shoot whose files differ from main. */
interface Change {
  runtime: Runtime;
  proposal: ShootProposal;
  files: Map<string, string>;
  /** The Runtime did not ask for it: same generation as the Shoot on main records. */
  landscapeDriven: boolean;
}

export async function generate(input: GenerateInput): Promise<GenerateResult> {
  // One pass at a time per local repo, across processes: a pass reads main, the branches and the PRs,
  // then writes on what it read; `kimops pr` commands wait for it, and it for them (docs/reliability.md).
  // A remote repo's truth is the remote (pushes without force, the forge's own rules): its local cache
  // is locked per write only, so an applier fetching into the same cache does not wait for a pass.
  if (input.remote) return generateHoldingLock(input);
  return input.repo.withLock('generate', () => generateHoldingLock(input), {
    onWait: (holder) => input.log(`waiting for the landscape repo's lock, held by ${holder}`),
  });
}

async function generateHoldingLock(input: GenerateInput): Promise<GenerateResult> {
  const sync = branchSync(input.repo, input.remote);
  for (let attempt = 1; ; attempt++) {
    try {
      await sync.refresh();
      return await pass(input, sync);
    } catch (error) {
      if (!(error instanceof RejectedPush)) throw error;
      if (attempt >= MAX_PASS_ATTEMPTS)
        throw new TransportError(
          'landscape repo',
          `${error.message}; gave up after ${attempt} attempts, the next pass tries again`,
        );
      input.log(
        `${error.message}; fetching main again and re-rendering (attempt ${attempt + 1} of ${MAX_PASS_ATTEMPTS})`,
      );
    }
  }
}

async function pass(given: GenerateInput, sync: BranchSync): Promise<GenerateResult> {
  const input = { ...given, runtimes: notBeingDeleted(given.runtimes) };
  const { landscape } = input;
  const snapshot = await readMainSnapshot(input.repo, sync.baseRef, landscape);
  const context: BranchContext = {
    landscape,
    repo: input.repo,
    forge: input.forge,
    sync,
    config: snapshot.config,
    author: input.author ?? snapshot.config.commit.author,
    log: input.log,
  };
  const validation: ValidationContext | undefined = input.validation && {
    policies: await input.validation.policies(snapshot.config.policySet),
    params: await input.validation.params(input.runtimesComplete ? input.runtimes.map((r) => r.runtime) : undefined),
    landscape,
  };
  const memo = input.memo ?? new RenderMemo();
  const { unique, failures } = withoutSharedShootNames(input.runtimes);
  const mainCommit = await input.repo.resolve(sync.baseRef);
  const result: GenerateResult = {
    proposed: [],
    rendered: 0,
    unchanged: 0,
    closed: [],
    leftOpen: [],
    failures,
    bugs: [],
    inMain: [],
    ...(mainCommit && { mainCommit }),
    suspended: [],
    refused: [],
  };
  // Branches whose PRs stay as they are: proposed now, suspended, or of a Runtime that failed (its change is unknown).
  const keep = new Set(shootsOf(input.runtimes, failures).map((shoot) => branchOf(landscape, shoot)));

  const changes = await renderChanges(input, snapshot, unique, memo, result, keep, validation);
  const rollout = changes.filter((c) => c.landscapeDriven);
  for (const change of changes.filter((c) => !c.landscapeDriven)) {
    const branch = branchOf(landscape, change.proposal.shoot);
    keep.add(branch);
    const outcome = await proposeOrRefuse(context, result, {
      branch,
      proposals: [change.proposal],
      files: change.files,
    });
    if (outcome) result.proposed.push(outcomeOf(change.proposal, outcome));
  }
  if (rollout.length > 0) await proposeRolloutWave(context, input, rollout, result, keep);

  const requested = requestedShoots(input.runtimes);
  // The Runtimes KEB is deleting too: their deletionTimestamp is what proves a deletion.
  result.deletionRefused = await proposeDeletions(context, given, snapshot, requested, result, keep, validation);
  const stale = await closeStalePullRequests(context, [branchOf(landscape, ''), rolloutBranchOf(landscape, '')], keep);
  result.closed = stale.closed;
  result.leftOpen = stale.leftOpen;
  memo.keepOnly(requested);
  return result;
}

/**
 * Renders what may have changed (the memo skips the rest) and returns the Shoots whose files differ from
 * main. A Shoot main holds exactly as a create-mode render writes it needs no update-mode render: update
 * mode on its own output gives that output back (property-tested in convert/), so main's Shoot is parsed
 * only for the Runtimes whose create-mode render differs from main.
 */
async function renderChanges(
  input: GenerateInput,
  snapshot: MainSnapshot,
  runtimes: readonly RuntimeInput[],
  memo: RenderMemo,
  result: GenerateResult,
  keep: Set<string>,
  validation: ValidationContext | undefined,
): Promise<Change[]> {
  const settingsKey = digestOf(input.settings);
  const keys = new Map<string, string>();
  const toRender: RuntimeInput[] = [];
  for (const entry of runtimes) {
    const shoot = entry.runtime.spec?.shoot?.name;
    if (typeof shoot !== 'string') {
      toRender.push(entry); // renders to the error that names the missing field
      continue;
    }
    if (annotated(entry.runtime, ANNOTATION_SUSPEND_PATCH)) {
      result.suspended.push(shoot);
      keep.add(branchOf(input.landscape, shoot));
      input.log(
        `suspended           ${shoot}: ${runtimeRef(entry.runtime)} has ${ANNOTATION_SUSPEND_PATCH}: "true"; nothing proposed`,
      );
      continue;
    }
    const garden = input.gardenShoots?.get(shoot);
    // A live Shoot's spec changes bump its generation; its annotations and labels the converter reads too.
    const gardenKey = garden
      ? JSON.stringify([garden.metadata.generation, garden.metadata.annotations, garden.metadata.labels])
      : '';
    const key = renderKey(entry.runtime, settingsKey, snapshot.folders.get(shoot) ?? '', gardenKey);
    if (!annotated(entry.runtime, ANNOTATION_FORCE_PATCH) && memo.isUnchanged(shoot, key)) {
      result.unchanged++;
      continue;
    }
    keys.set(shoot, key);
    toRender.push(entry);
  }
  result.rendered = toRender.length;

  const bySource = new Map(toRender.map((entry) => [entry.source + '\0' + runtimeRef(entry.runtime), entry]));
  const rendered: RenderedRuntime[] = [];
  // In batches, so only the changed Shoots of a 10,000-Shoot pass stay in memory.
  for (let i = 0; i < toRender.length; i += RENDER_BATCH) {
    rendered.push(
      ...(await renderBatch(input, snapshot, toRender.slice(i, i + RENDER_BATCH), keys, bySource, memo, result, keep)),
    );
  }

  const changes: Change[] = [];
  for (const r of rendered.sort((a, b) => (a.shootName < b.shootName ? -1 : a.shootName > b.shootName ? 1 : 0))) {
    const files = fileMapOf(r.manifests);
    if (snapshot.holds(r.shootName, files)) {
      result.unchanged++;
      result.inMain.push(r.runtime);
      memo.remember(r.shootName, keys.get(r.shootName) as string);
      continue;
    }
    const runtime = (bySource.get(r.source + '\0' + r.runtime) as RuntimeInput).runtime;
    const beforeFiles = snapshot.folders.has(r.shootName) ? await snapshot.files(r.shootName) : undefined;
    const before = await snapshot.shoot(r.shootName);
    if (brokenOnMain(input, snapshot, r.shootName, result, keep, bySource.get(r.source + '\0' + r.runtime))) continue;
    const after = r.manifests.at(-1)?.object as Shoot;
    // Same Shoot, other companion bytes: still a change to propose, one that replaces no node.
    let classification = classifyChange({ before, after }) ?? companionsOnly(files, beforeFiles);
    let landscapeDriven = before !== undefined && notAskedForByRuntime(runtime, before);
    if (
      landscapeDriven &&
      input.gardenShoots?.has(r.shootName) &&
      before &&
      rendersLikeMain(runtime, input.settings, before, snapshot)
    ) {
      // Rendered against main the Shoot would not change: the difference is Gardener's own (a maintenance update).
      classification = {
        ...classification,
        class: 'adopt',
        reasons: [
          'the live Shoot in the Garden differs from main (Gardener changed it, e.g. a maintenance update): git follows it',
          ...classification.reasons,
        ],
      };
      landscapeDriven = false;
    }
    const [namespace = '', name = ''] = r.runtime.split('/');
    const generation = runtime.metadata.generation;
    const proposal: ShootProposal = {
      shoot: r.shootName,
      runtime: { namespace, name, ...(typeof generation === 'number' && { generation }) },
      classification,
      after,
      // The files it commits, as `kimops validate` checks them on a checkout of the PR (credentials included).
      checks: checkProposedShoot(validation, r.shootName, files, beforeFiles),
      ...(before && { before }),
    };
    changes.push({ runtime, proposal, files, landscapeDriven });
  }
  return changes;
}

/**
 * One batch: rendered against the Garden's live Shoot where there is one, else in create mode; a Shoot
 * whose create-mode render differs from main is rendered again against main's copy. Returns the renders
 * that differ from main (or are new); the unchanged ones are counted and remembered.
 */
async function renderBatch(
  input: GenerateInput,
  snapshot: MainSnapshot,
  batch: readonly RuntimeInput[],
  keys: ReadonlyMap<string, string>,
  bySource: ReadonlyMap<string, RuntimeInput>,
  memo: RenderMemo,
  result: GenerateResult,
  keep: Set<string>,
): Promise<RenderedRuntime[]> {
  const gardenLive = new Map(
    batch.flatMap(({ runtime }) => {
      const shoot = input.gardenShoots?.get(runtime.spec?.shoot?.name);
      return shoot ? [[shoot.metadata.name, shoot] as const] : [];
    }),
  );
  const first = renderRuntimes(batch, input.settings, gardenLive);
  const isFinal = (r: RenderedRuntime) => gardenLive.has(r.shootName) || !snapshot.folders.has(r.shootName);
  const rendered = first.rendered.filter(isFinal);
  const againstMain: RuntimeInput[] = [];
  for (const r of first.rendered.filter((r) => !isFinal(r))) {
    if (snapshot.holds(r.shootName, fileMapOf(r.manifests))) {
      result.unchanged++;
      result.inMain.push(r.runtime);
      memo.remember(r.shootName, keys.get(r.shootName) as string);
    } else {
      againstMain.push(bySource.get(r.source + '\0' + r.runtime) as RuntimeInput);
    }
  }
  const mainLive = new Map<string, Shoot>();
  const readable: RuntimeInput[] = [];
  for (const entry of againstMain) {
    const shoot = await snapshot.shoot(entry.runtime.spec.shoot.name);
    if (brokenOnMain(input, snapshot, entry.runtime.spec.shoot.name, result, keep, entry)) continue;
    readable.push(entry);
    if (shoot) mainLive.set(shoot.metadata.name, shoot);
  }
  const second = renderRuntimes(readable, input.settings, mainLive);
  for (const { failures, bugs } of [first, second]) {
    result.failures.push(...failures);
    result.bugs.push(...bugs);
    for (const shoot of shootsOf(batch, [...failures, ...bugs])) keep.add(branchOf(input.landscape, shoot));
  }
  return [...rendered, ...second.rendered];
}

/**
 * The landscape's pending rollout: the first wave (kimops.yaml rollout.waveSize Shoots, by name) as
 * one PR, so the same Shoots always form the next wave and a re-run proposes the same PR. Once it is
 * merged, the next pass proposes the next wave on the same branch.
 */
async function proposeRolloutWave(
  context: BranchContext,
  input: GenerateInput,
  changes: Change[],
  result: GenerateResult,
  keep: Set<string>,
): Promise<void> {
  const [wave = []] = waves(
    changes.map((c) => c.proposal.shoot),
    context.config.rollout.waveSize,
  );
  const inWave = new Set(wave);
  const proposals = changes
    .filter((c) => inWave.has(c.proposal.shoot))
    .map((c) => ({
      ...c.proposal,
      classification:
        c.proposal.classification.class === 'immutable'
          ? c.proposal.classification
          : { ...c.proposal.classification, class: 'rollout' as const },
    }));
  const files = new Map(changes.filter((c) => inWave.has(c.proposal.shoot)).flatMap((c) => [...c.files]));
  const name = rolloutName(input.settings);
  const branch = rolloutBranchOf(input.landscape, name);
  keep.add(branch);
  const later = changes.length - wave.length;
  const outcome = await proposeOrRefuse(context, result, { branch, proposals, rollout: { name, later }, files });
  if (!outcome) return;
  result.proposed.push(...proposals.map((p) => ({ ...outcomeOf(p, outcome), rollout: true })));
  result.rollout = { name, pr: outcome.pr, shoots: wave.length, later };
}

/**
 * Shoots on main no Runtime asks for, one delete PR each, proposed only on proof (propose/deletions.ts): those KEB
 * is deleting in batches, merged per the delete policy; those whose Runtime is absent for a human's approval,
 * under the mass-deletion guard. Returns why Shoots were held back.
 */
async function proposeDeletions(
  context: BranchContext,
  input: GenerateInput,
  snapshot: MainSnapshot,
  requested: ReadonlySet<string>,
  result: GenerateResult,
  keep: Set<string>,
  validation: ValidationContext | undefined,
): Promise<string | undefined> {
  const gone = new Map<string, Shoot>();
  for (const name of snapshot.folders.keys()) {
    if (requested.has(name)) continue;
    const before = await snapshot.shoot(name);
    if (brokenOnMain(input, snapshot, name, result, keep)) continue;
    if (before) gone.set(name, before);
  }
  if (gone.size === 0) return undefined;
  // Open delete PRs stay while their Shoot waits (a later batch, a held-back pass).
  for (const name of gone.keys()) keep.add(branchOf(input.landscape, name));
  // Failures of Runtimes read this pass; the others are main's broken files, of no Runtime.
  const read = new Set(input.runtimes.map(({ runtime }) => runtimeRef(runtime)));
  const failed = new Set([...result.failures, ...result.bugs].map((f) => f.runtime).filter((ref) => read.has(ref)));
  const plan = planDeletions({
    unasked: [...gone].map(([name, shoot]) => {
      const runtimeId = shoot.metadata.annotations?.[ANNOTATION_RUNTIME_ID];
      return runtimeId ? { name, runtimeId } : { name };
    }),
    runtimes: input.runtimes.map(({ runtime }) => runtime),
    runtimesComplete: input.runtimesComplete,
    failed: [...failed],
    total: snapshot.folders.size,
    config: snapshot.config,
    ...(input.allowMassDeletion !== undefined && { allowMassDeletion: input.allowMassDeletion }),
    ...(input.gardenShoots && { garden: gardenDeletions(input.gardenShoots, snapshot) }),
  });
  const proposed = plan.deletions.filter((d) => d.askedByKeb).length;
  if (proposed + plan.later > 0) result.deprovisioning = { proposed, later: plan.later };
  if (plan.later > 0) {
    const limit = plan.batchLimit ?? `kimops.yaml deprovisioning.batchSize ${snapshot.config.deprovisioning.batchSize}`;
    input.log(
      `deprovisioning: ${proposed} of ${proposed + plan.later} deletions KEB asked for proposed in this pass (${limit}); ${plan.later} more ${plan.later === 1 ? 'follows' : 'follow'} in later passes`,
    );
  }
  for (const deletion of plan.deletions) {
    const before = gone.get(deletion.shoot) as Shoot;
    const classification = {
      ...(classifyChange({ before, runtimeDeleted: deletion.askedByKeb }) as ChangeClass),
      reasons: [deletion.reason],
    };
    const proposal: ShootProposal = {
      shoot: deletion.shoot,
      runtime: deletion.runtime,
      classification,
      before,
      checks: checkProposedShoot(validation, deletion.shoot, new Map(), await snapshot.files(deletion.shoot)),
    };
    const outcome = await proposeOrRefuse(context, result, {
      branch: branchOf(input.landscape, deletion.shoot),
      proposals: [proposal],
      files: new Map(),
    });
    if (outcome) result.proposed.push(outcomeOf(proposal, outcome));
  }
  return plan.withheld;
}

/** What the applier's mass-deletion guard will count: the live Shoots, and those main dropped whose deletion it has not started. */
function gardenDeletions(
  live: ReadonlyMap<string, Shoot>,
  snapshot: MainSnapshot,
): { unapplied: number; total: number } {
  const owned = [...live.values()].filter(isManagedByKimops);
  const unapplied = owned.filter(
    (shoot) => !snapshot.folders.has(shoot.metadata.name) && !shoot.metadata.deletionTimestamp,
  ).length;
  return { unapplied, total: owned.length };
}

/**
 * A Shoot whose file on main cannot be read gets nothing proposed this pass — not rendered as a create
 * over it, not deleted — and is reported with the fix; its open PR stays as it is.
 */
function brokenOnMain(
  input: GenerateInput,
  snapshot: MainSnapshot,
  shoot: string,
  result: GenerateResult,
  keep: Set<string>,
  entry?: RuntimeInput,
): boolean {
  const error = snapshot.broken.get(shoot);
  if (error === undefined) return false;
  result.failures.push({
    source: entry?.source ?? snapshot.ref,
    runtime: entry ? runtimeRef(entry.runtime) : '(none)',
    field: `${SHOOTS_FOLDER}/${shoot}/${SHOOT_FILE}`,
    message: `${error.message}; restore the file on main (git revert the commit that broke it): kimops proposes nothing for ${shoot} meanwhile`,
  });
  keep.add(branchOf(input.landscape, shoot));
  return true;
}

/** One branch's proposal; a forge that refuses it for good fails that proposal, not the pass. */
async function proposeOrRefuse(
  context: BranchContext,
  result: GenerateResult,
  proposal: BranchProposal,
): Promise<BranchOutcome | undefined> {
  try {
    return await proposeBranch(context, proposal);
  } catch (error) {
    if (!(error instanceof ForgeRefusal)) throw error;
    result.refused.push({ branch: proposal.branch, message: error.message });
    context.log(`${proposal.branch}: the forge refused it: ${error.message}; the next pass tries again`);
    return undefined;
  }
}

export function branchOf(landscape: string, shoot: string): string {
  return `kimops/${landscape}/${shoot}`;
}

/** Apart from the Shoots' branches, so no Shoot name can collide with a rollout's. */
export function rolloutBranchOf(landscape: string, name: string): string {
  return `kimops/${landscape}-rollout/${name}`;
}

/** Names a rollout after the settings that cause it, so a further config change starts a new rollout. */
function rolloutName(settings: ConversionSettings): string {
  return `landscape-${createHash('sha256').update(JSON.stringify(settings)).digest('hex').slice(0, 8)}`;
}

/**
 * KIM's applied-generation marker: the Shoot on main records the Runtime generation it was rendered
 * from. Equal generations mean the Runtime did not ask for this change (unless forced); an unknown
 * generation (a Runtime from a file without one) counts as asked for.
 */
function notAskedForByRuntime(runtime: Runtime, before: Shoot): boolean {
  const generation = runtime.metadata.generation;
  if (typeof generation !== 'number' || annotated(runtime, ANNOTATION_FORCE_PATCH)) return false;
  return before.metadata.annotations?.[ANNOTATION_RUNTIME_GENERATION] === String(generation);
}

/** Whether the Runtime rendered against main's Shoot (not the Garden's) gives main's files. */
function rendersLikeMain(
  runtime: Runtime,
  settings: ConversionSettings,
  before: Shoot,
  snapshot: MainSnapshot,
): boolean {
  const [again] = renderRuntimes(
    [{ source: 'main', runtime }],
    settings,
    new Map([[before.metadata.name, before]]),
  ).rendered;
  return again !== undefined && snapshot.holds(again.shootName, fileMapOf(again.manifests));
}

function annotated(runtime: Runtime, annotation: string): boolean {
  return runtime.metadata.annotations?.[annotation] === 'true';
}

function outcomeOf(proposal: ShootProposal, outcome: BranchOutcome): ShootOutcome {
  const failedChecks = proposal.checks
    .filter((check) => !check.passed)
    .flatMap((check) => (check.messages.length > 0 ? check.messages : [check.name]));
  return {
    shoot: proposal.shoot,
    class: proposal.classification.class,
    disruptive: proposal.classification.disruptive,
    runtime: proposal.runtime,
    failedChecks,
    ...outcome,
  };
}

function companionsOnly(files: Map<string, string>, before: Map<string, string> | undefined): ChangeClass {
  const paths = [...new Set([...files.keys(), ...(before?.keys() ?? [])])]
    .filter((p) => files.get(p) !== before?.get(p))
    .sort();
  return {
    class: 'update',
    disruptive: false,
    reasons: [`only companion files change: ${paths.join(', ')}`],
    changes: [],
  };
}

/**
 * A Runtime KEB deleted stays in KCP until its Shoot is gone (KIM's finalizer, which the backfiller holds and
 * releases): like KIM, kimops takes it as deleted — nothing is rendered for it, its Shoot is proposed for
 * deletion, and the deletion policy's Runtime inventory leaves it out.
 */
function notBeingDeleted(runtimes: readonly RuntimeInput[]): RuntimeInput[] {
  return runtimes.filter(({ runtime }) => !runtime.metadata?.deletionTimestamp);
}

/** Every Shoot a Runtime asks for, rendered or not: those are never proposed for deletion. */
function requestedShoots(runtimes: readonly RuntimeInput[]): Set<string> {
  return new Set(
    runtimes.map(({ runtime }) => runtime.spec?.shoot?.name).filter((n): n is string => typeof n === 'string'),
  );
}

function shootsOf(runtimes: readonly RuntimeInput[], failed: readonly { runtime: string }[]): string[] {
  const refs = new Set(failed.map((f) => f.runtime));
  return runtimes
    .filter(({ runtime }) => refs.has(runtimeRef(runtime)))
    .map(({ runtime }) => runtime.spec?.shoot?.name)
    .filter((n): n is string => typeof n === 'string');
}
