// One generator pass as a value, decided before anything is written (gitops-engine's reconcile → diff → sync:
// this is the diff). Pure: the renders, main's folders as read, the Runtimes, kimops.yaml and the Garden's live
// Shoots in; the pull requests to open or update, the branches whose PRs stay, the failures, and why deletions
// wait out. Per rendered Shoot that differs from main: its own PR when its Runtime asked for the change; an
// adopt PR when only the Garden's live Shoot explains it; otherwise it joins the landscape's rollout, whose
// first wave is one PR. Which of the three is ADR 0005's rule (`originOf`, `sharedChangesJoinTheRollout`). Who
// leads the Runtime comes last (ADR 0011, `byLeader`): a Shoot KIM leads changes as a `shadow`, a change of
// leader is a `cut-over`.
// Shoots no Runtime asks for go only on proof (plan-deletions.ts). generate.ts gathers the inputs and executes
// the plan.
import {
  ANNOTATION_FORCE_PATCH,
  ANNOTATION_RUNTIME_GENERATION,
  branchOf,
  rolloutBranchOf,
  SHOOT_FILE,
  SHOOTS_FOLDER,
} from '../model/contract.js';
import { runtimeRef, type Runtime } from '../model/runtime.js';
import type { Shoot } from '../model/shoot.js';
import { auditLogTenantOf, sameAuditLogTenant } from '../rules/audit-log.js';
import { fileMapOf, isSkrPath } from '../rules/landscape-layout.js';
import { pendingRotations } from '../rules/registry-cache-rotation.js';
import { semanticDiff } from '../rules/semantic-diff.js';
import { rolloutName } from './branches.js';
import { planShootDeletions, type PlannedDeletions } from './plan-deletions.js';
import { brokenOnMain, mainFolder, requestedShoots, type PassInput, type Planning } from './plan-input.js';
import { classifyChange, reviewedChanges, type ChangeClass } from './propose/classify.js';
import { waves } from './propose/clusters.js';
import type { ShootProposal } from './propose/pr-body.js';
import { skrChanges, skrClass } from './propose/skr-changes.js';
import type { BranchProposal } from './propose-branch.js';
import type { RenderedChange } from './render-changes.js';
import { annotated } from './render-selection.js';
import { withMainCounter } from './force-patch.js';
import { renderRuntimes, type RenderBug, type RenderFailure, type RuntimeInput } from './render-runtimes.js';
import { checkProposedShoot } from './validate/folder-check.js';
import { leaderOf, markedForLeader } from './leaders.js';
import { leaderClass } from './propose/leader-class.js';

/** The name of the PR that gives Shoots written before kimops configured clusters their first skr/ objects. */
const FIRST_SKR_ROLLOUT = 'first-skr-objects';

/** A Shoot's own PR: the change its Runtime asked for, or git following what Gardener changed (an adoption). */
interface ShootPR extends BranchProposal {
  kind: 'runtime-change' | 'adoption';
}

/** The first wave of the landscape's rollout, as one PR; `later` Shoots wait for the waves after it. */
interface RolloutPR extends BranchProposal {
  rollout: { name: string; later: number };
}

export interface PassPlan extends PlannedDeletions {
  /** By Shoot name. */
  shoots: ShootPR[];
  rollout?: RolloutPR;
  /**
   * The first skr/ objects of every Shoot main holds without any (written by a kimops before it configured
   * clusters), as one PR of class `skr`: what KIM applies for those Runtimes, landed in one commit, not a PR each.
   */
  firstSkr?: RolloutPR;
  failures: RenderFailure[];
  bugs: RenderBug[];
  /** Runtimes (`<ns>/<name>`) whose Shoot main holds as rendered: their change is merged. */
  inMain: string[];
  /** Branches whose open PRs stay as they are; every other kimops PR is stale. */
  keep: ReadonlySet<string>;
  /** What the render memo learns: Shoots whose render main holds (with their render key), and those still asked for. */
  memo: { remember: [shoot: string, key: string][]; keepOnly: ReadonlySet<string> };
}

/** A rendered Shoot whose files differ from main. */
interface Change {
  proposal: ShootProposal;
  files: Map<string, string>;
  /**
   * `rollout`: nobody's Runtime asked for it (the landscape config or kimops changed); `first-skr`: only the first
   * skr/ objects of a Shoot written before kimops configured clusters.
   */
  kind: ShootPR['kind'] | 'rollout' | 'first-skr';
}

/** A change as `changeOf` sees it: `unknown` when its Runtime has no generation to tell (`originOf`). */
interface Candidate extends Omit<Change, 'kind'> {
  kind: Change['kind'] | 'unknown';
  /**
   * What changed, the Shoot's own name taken out: equal for Shoots a landscape change touched alike. Only
   * when some Runtime of the pass cannot tell (`unknown`): otherwise nothing compares them.
   */
  signature?: string;
}

export function planPass(input: PassInput): PassPlan {
  const { landscape, selection, renders } = input;
  const planning: Planning = { input, failures: [...selection.failures], keep: new Set() };
  const keepShoots = (shoots: readonly string[]) => shoots.forEach((s) => planning.keep.add(branchOf(landscape, s)));
  // Branches whose PRs stay as they are: suspended, or of a Runtime that failed (its change is unknown).
  keepShoots(shootsOf(selection.active, selection.failures));
  keepShoots(selection.suspended);
  // Runtimes no AuditLog could be reserved or claimed for: not rendered, their PRs stay (KIM fails them).
  keepShoots(selection.auditLogHeld);
  for (const { entry, error } of renders.brokenOnMain)
    brokenOnMain(planning, entry.runtime.spec.shoot.name, error, entry);
  planning.failures.push(...renders.failures);
  keepShoots(shootsOf(selection.toRender, [...renders.failures, ...renders.bugs]));

  // Only when a Runtime without a generation cannot tell are the changes compared with each other (ADR 0005).
  const undecided = renders.changed.some(({ entry, rendered }) => {
    const before = mainFolder(input.main, rendered.shootName)?.shoot;
    return before !== undefined && originOf(entry.runtime, before) === 'unknown';
  });
  const changes = sharedChangesJoinTheRollout(
    renders.changed.flatMap((change) => changeOf(planning, change, undecided) ?? []),
  );
  const shoots = changes.flatMap(({ kind, proposal, files }): ShootPR[] =>
    kind === 'rollout' || kind === 'first-skr'
      ? []
      : [{ kind, branch: branchOf(landscape, proposal.shoot), proposals: [proposal], files }],
  );
  for (const pr of shoots) planning.keep.add(pr.branch);
  const rollout = rolloutWave(
    planning,
    changes.filter((c) => c.kind === 'rollout'),
  );
  const firstSkr = firstSkrPR(
    planning,
    changes.filter((c) => c.kind === 'first-skr'),
  );

  const requested = requestedShoots(selection.active);
  const deletions = planShootDeletions(planning, requested);
  return {
    shoots,
    ...(rollout && { rollout }),
    ...(firstSkr && { firstSkr }),
    ...deletions,
    failures: planning.failures,
    bugs: renders.bugs,
    inMain: renders.inMain.map((r) => r.runtime),
    keep: planning.keep,
    memo: {
      remember: renders.inMain.map(({ shoot }) => [shoot, selection.keys.get(shoot) as string]),
      keepOnly: requested,
    },
  };
}

function changeOf(
  planning: Planning,
  { entry, rendered: r, files }: RenderedChange,
  undecided: boolean,
): Candidate | undefined {
  const { input } = planning;
  const runtime = entry.runtime;
  const folder = mainFolder(input.main, r.shootName);
  if (folder?.broken) {
    brokenOnMain(planning, r.shootName, folder.broken, entry);
    return undefined;
  }
  const before = folder?.shoot;
  const beforeFiles = folder?.files;
  const after = r.manifests.at(-1)?.object as Shoot;
  let kind: Candidate['kind'] = before === undefined ? 'runtime-change' : originOf(runtime, before);
  // The tenant this pass claimed for the Runtime (audit-log-pass.ts) is its own change, as KIM's patch after a claim:
  // the Runtime's generation does not move when the generator claims.
  const claimed = input.selection.dedicatedAuditLogs.get(r.runtime);
  if (kind !== 'runtime-change' && before && claimed && !sameAuditLogTenant(auditLogTenantOf(before), claimed))
    kind = 'runtime-change';
  // Registry-cache credentials the customer rotated (the applier copied them and recorded the new Secret on the live
  // Shoot): the Runtime's own change too, though its generation did not move either.
  if (
    kind !== 'runtime-change' &&
    before &&
    pendingRotations(input.gardenShoots?.get(r.shootName), before, runtime.spec.imageRegistryCache).length > 0
  )
    kind = 'runtime-change';
  const skr = before === undefined ? [] : skrChanges(files, beforeFiles);
  const shootClass = classifyChange({ before, after });
  // Same Shoot, other companion bytes: still a change to propose, one that replaces no node. Only the objects inside
  // the cluster: their own class, by whether the Runtime asked (an `unknown` one is settled by sharedChangesJoinTheRollout).
  const skrOnly =
    skr.length > 0 && reviewedChanges(shootClass?.changes ?? []).length === 0 && !companionChanged(files, beforeFiles);
  // A Shoot main holds without any skr/ yet (written before kimops configured clusters): its first SKR objects are
  // what KIM applies for this Runtime, so they merge as the Runtime's own (`skr`), not as a rollout waiting for
  // review while the Runtime stays Pending; all such Shoots of the pass in one PR (docs/skr.md).
  if (skrOnly && ![...(beforeFiles?.keys() ?? [])].some(isSkrPath)) kind = 'first-skr';
  let classification = skrOnly
    ? skrClass(skr, kind === 'runtime-change' || kind === 'first-skr', shootClass?.changes ?? [])
    : (shootClass ?? companionsOnly(files, beforeFiles));
  let signature: string | undefined;
  if (kind !== 'runtime-change' && kind !== 'first-skr' && before) {
    // Rendered against main's Shoot, not the Garden's: what the Runtime and the landscape change, without Gardener.
    const again = input.gardenShoots?.has(r.shootName) ? renderAgainst(input, runtime, before) : undefined;
    if (again && input.main.holds(again.shootName, again.files)) {
      // Rendered against main the Shoot would not change: the difference is Gardener's own (a maintenance update).
      classification = {
        ...classification,
        class: 'adopt',
        reasons: [
          'the live Shoot in the Garden differs from main (Gardener changed it, e.g. a maintenance update): git follows it',
          ...classification.reasons,
        ],
      };
      kind = 'adoption';
    } else if (undecided) {
      signature = signatureOf(r.shootName, before, again?.shoot ?? after, again?.files ?? files, beforeFiles);
    }
  }
  ({ classification, kind } = byLeader(input, runtime, before, after, classification, kind));
  const [namespace = '', name = ''] = r.runtime.split('/');
  const generation = runtime.metadata.generation;
  const proposal: ShootProposal = {
    shoot: r.shootName,
    runtime: { namespace, name, ...(typeof generation === 'number' && { generation }) },
    classification,
    after,
    // The files it commits, as `kimops validate` checks them on a checkout of the PR (credentials included).
    checks: checkProposedShoot(input.validation, r.shootName, files, beforeFiles),
    ...(before && { before }),
    ...(skr.length > 0 && { skr }),
  };
  return { proposal, files, kind, ...(signature !== undefined && { signature }) };
}

/**
 * The landscape's pending rollout: the first wave (kimops.yaml rollout.waveSize Shoots, by name) as
 * one PR, so the same Shoots always form the next wave and a re-run proposes the same PR. Once it is
 * merged, the next pass proposes the next wave on the same branch.
 */
function rolloutWave(planning: Planning, changes: readonly Change[]): RolloutPR | undefined {
  if (changes.length === 0) return undefined;
  const { input } = planning;
  const [wave = []] = waves(
    changes.map((c) => c.proposal.shoot),
    input.main.config.rollout.waveSize,
  );
  const inWave = new Set(wave);
  const proposals = changes
    .filter((c) => inWave.has(c.proposal.shoot))
    .map((c) => ({
      ...c.proposal,
      // A blocked change stays blocked; one only inside the cluster keeps its class, which merges a wave of such alone.
      // A Shoot KIM leads keeps its class: merging its change changes nothing live.
      classification: ['immutable', 'skr-unrequested', 'shadow'].includes(c.proposal.classification.class)
        ? c.proposal.classification
        : { ...c.proposal.classification, class: 'rollout' as const },
    }));
  const files = new Map(changes.filter((c) => inWave.has(c.proposal.shoot)).flatMap((c) => [...c.files]));
  const name = rolloutName(input.settings);
  const branch = rolloutBranchOf(input.landscape, name);
  planning.keep.add(branch);
  return { branch, proposals, rollout: { name, later: changes.length - wave.length }, files };
}

/** The first skr/ objects of Shoots written by an older kimops: one PR, all of them (no waves: KIM applies them at once). */
function firstSkrPR(planning: Planning, changes: readonly Change[]): RolloutPR | undefined {
  if (changes.length === 0) return undefined;
  const branch = rolloutBranchOf(planning.input.landscape, FIRST_SKR_ROLLOUT);
  planning.keep.add(branch);
  return {
    branch,
    proposals: changes.map((c) => c.proposal),
    rollout: { name: FIRST_SKR_ROLLOUT, later: 0 },
    files: new Map(changes.flatMap((c) => [...c.files])),
  };
}

/**
 * Whether the Runtime asked for its Shoot's change, by KIM's applied-generation marker: main's Shoot records the
 * Runtime generation it was rendered from (`runtime-generation`, "0" for a Runtime without one). The Runtime's
 * own change (`runtime-change`) when forced (`force-patch-reconciliation`), or when its generation is not the one
 * recorded; the landscape's (`rollout`) when it is. A Runtime without a generation whose Shoot records "0" cannot
 * say (`unknown`): a Runtime read from a file, edited or not.
 */
function originOf(runtime: Runtime, before: Shoot): Candidate['kind'] {
  if (annotated(runtime, ANNOTATION_FORCE_PATCH)) return 'runtime-change';
  const recorded = before.metadata.annotations?.[ANNOTATION_RUNTIME_GENERATION];
  const generation = runtime.metadata.generation;
  if (typeof generation === 'number') return recorded === String(generation) ? 'rollout' : 'runtime-change';
  return recorded === '0' ? 'unknown' : 'runtime-change';
}

/**
 * A change whose Runtime cannot say joins the rollout when another Shoot of the pass, not changed by its own
 * Runtime, changes the same way (the same fields from the same values to the same values, the same companion
 * files, up to the Shoot's name): what a landscape change does to many Shoots alike. A change no other Shoot
 * shares is its Runtime's own (an edited Runtime file). ADR 0005.
 */
function sharedChangesJoinTheRollout(candidates: readonly Candidate[]): Change[] {
  const count = new Map<string, number>();
  for (const { kind, signature } of candidates)
    if (signature !== undefined && (kind === 'rollout' || kind === 'unknown'))
      count.set(signature, (count.get(signature) ?? 0) + 1);
  return candidates.map(({ proposal, files, kind, signature }): Change => {
    if (kind !== 'unknown') return { proposal, files, kind };
    const shared = (count.get(signature ?? '') ?? 0) > 1;
    if (shared) return { proposal, files, kind: 'rollout' };
    const { classification, skr = [] } = proposal;
    // Its Runtime's own after all: a change only inside the cluster is the Runtime's `skr`.
    return classification.class === 'skr-unrequested'
      ? {
          proposal: { ...proposal, classification: skrClass(skr, true, classification.changes) },
          files,
          kind: 'runtime-change',
        }
      : { proposal, files, kind: 'runtime-change' };
  });
}

/** What changed from main's Shoot folder to the render, as text in which the Shoot's own name reads `<shoot>`. */
function signatureOf(
  shoot: string,
  before: Shoot,
  after: Shoot,
  files: ReadonlyMap<string, string>,
  beforeFiles: ReadonlyMap<string, string> | undefined,
): string {
  const folder = `${SHOOTS_FOLDER}/${shoot}/`;
  const companions = [...new Set([...files.keys(), ...(beforeFiles?.keys() ?? [])])]
    .filter((path) => path !== `${folder}${SHOOT_FILE}` && files.get(path) !== beforeFiles?.get(path))
    .sort()
    .map((path) => [path.slice(folder.length), files.get(path) ?? null]);
  return JSON.stringify([semanticDiff(before, after), companions])
    .split(shoot)
    .join('<shoot>');
}

/** The Runtime rendered against main's Shoot (not the Garden's): its Shoot and files. */
function renderAgainst(
  input: PassInput,
  runtime: Runtime,
  before: Shoot,
): { shootName: string; shoot: Shoot; files: Map<string, string> } | undefined {
  const [again] = renderRuntimes(
    [{ source: 'main', runtime }],
    input.settings,
    new Map([[before.metadata.name, before]]),
    {},
    // With the claimed tenant too: rendered with the shared one, a claim would look like an adoption.
    input.selection.dedicatedAuditLogs,
  ).rendered;
  if (!again) return undefined;
  // main's force-patch counter carried, as by every render (force-patch.ts): without it no adoption would hold. So
  // is the mark of a Shoot KIM leads.
  const leader = leaderOf(input.leaders, runtime);
  const manifests = markedForLeader(withMainCounter(again.manifests, before), leader);
  return {
    shootName: again.shootName,
    shoot: manifests.at(-1)?.object as Shoot,
    files: fileMapOf(manifests),
  };
}

/**
 * The class by who leads the Runtime (propose/leader-class.ts); a change of leader is the Runtime's own PR, since a
 * label moves no generation.
 */
function byLeader(
  input: PassInput,
  runtime: Runtime,
  before: Shoot | undefined,
  after: Shoot,
  classification: ChangeClass,
  kind: Candidate['kind'],
): { classification: ChangeClass; kind: Candidate['kind'] } {
  const leader = leaderOf(input.leaders, runtime);
  const { gardenShoots } = input;
  const decided = leaderClass({
    leader,
    before,
    after,
    classification,
    ...(gardenShoots && { garden: { live: gardenShoots.get(after.metadata.name) } }),
  });
  return { classification: decided, kind: decided.class === 'cut-over' ? 'runtime-change' : kind };
}

/** Whether a file of the folder besides shoot.yaml and the cluster's objects (skr/) differs: a garden companion. */
function companionChanged(
  files: ReadonlyMap<string, string>,
  before: ReadonlyMap<string, string> | undefined,
): boolean {
  return [...new Set([...files.keys(), ...(before?.keys() ?? [])])].some(
    (path) => !path.endsWith(`/${SHOOT_FILE}`) && !isSkrPath(path) && files.get(path) !== before?.get(path),
  );
}

function companionsOnly(files: Map<string, string>, before: ReadonlyMap<string, string> | undefined): ChangeClass {
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

function shootsOf(runtimes: readonly RuntimeInput[], failed: readonly { runtime: string }[]): string[] {
  const refs = new Set(failed.map((f) => f.runtime));
  return runtimes
    .filter(({ runtime }) => refs.has(runtimeRef(runtime)))
    .map(({ runtime }) => runtime.spec?.shoot?.name)
    .filter((n): n is string => typeof n === 'string');
}
