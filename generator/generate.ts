// One generator pass (issue 4, "Proposing changes"): Runtimes → rendered Shoots → pull requests on the
// landscape repo, merged per the repo's kimops.yaml. The pass gathers what it decides on — main
// (main-snapshot.ts), the renders (render-selection.ts, render-changes.ts), the landscape's policies — lets
// plan.ts decide, and executes the plan: one branch and PR per proposal (propose-branch.ts), then the stale
// PRs closed. The repo, remote and forge are passed in (adapters/ builds them). Everything it needs to resume
// is in Git and the forge, so running it again with the same inputs writes nothing.
import type { Forge } from '../adapters/forge/forge.js';
import type { LandscapeRepo, Signature } from '../adapters/git/landscape-repo.js';
import { bootstrapBranchOf, branchOf, FORCE_PATCH_ANNOTATION, rolloutBranchOf } from '../model/contract.js';
import { TransportError } from '../model/errors.js';
import type { ConversionSettings } from '../model/landscape.js';
import { runtimeRef } from '../model/runtime.js';
import type { Shoot } from '../model/shoot.js';
import type { AuditLogFailure, AuditLogPool } from '../model/audit-log.js';
import { settleAuditLogs } from './audit-log-pass.js';
import { gatherPassInput } from './gather.js';
import { branchSync, RejectedPush, type BranchSync, type LandscapeRemote } from './branch-sync.js';
import { forcePatchOutcomes, withForcePatchCounters, type ForcePatchOutcome } from './force-patch.js';
import { readMainSnapshot } from './main-snapshot.js';
import { planPass, type PassPlan } from './plan.js';
import type { ChangeClass } from './propose/classify.js';
import type { ShootProposal } from './propose/pr-body.js';
import {
  closeStalePullRequests,
  ForgeRefusal,
  proposeBranch,
  unwrap,
  type BranchContext,
  type BranchOutcome,
  type BranchProposal,
} from './propose-branch.js';
import type { RenderBug, RenderFailure, RuntimeInput } from './render-runtimes.js';
import { RenderMemo } from './render-memo.js';
import type { ValidationSource } from './validate/checks.js';
import type { LogLine } from '../model/log.js';
import type { Leader } from '../rules/leader.js';
import { leaderOf, runtimeLeaders } from './leaders.js';

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
  /**
   * The Runtimes' source cannot take force-patch-reconciliation off (a folder of files): a request counts as
   * answered once main holds a re-apply of that Shoot (force-patch.ts), instead of one re-apply per pass.
   */
  forcePatchStaysOn?: boolean;
  /** Overrides kimops.yaml's commit author (tests pin the timestamp). */
  author?: Signature;
  /** Progress, one line each. */
  log: LogLine;
  /** Deletions a human confirmed beyond the mass-deletion guard. */
  allowMassDeletion?: number;
  /**
   * KALM's AuditLog pool on the KCP: read and written each pass while the landscape's `features.dedicatedAuditLogging`
   * is on (audit-log-pass.ts); absent, or the switch off, Runtimes render with the landscape's tenants.
   */
  auditLogPool?: AuditLogPool;
  /**
   * landscape.yaml's defaultLeader: who leads a Runtime without the `kimops.kyma-project.io/leader` label (absent:
   * kimops). For a Runtime KIM leads the pass writes only the landscape repo (ADR 0011).
   */
  defaultLeader?: Leader;
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
  /** The forced Runtimes' re-applies (force-patch.ts): done once main holds their counter, else their PR waits. */
  forcePatch?: ForcePatchOutcome[];
  /** By Runtime (`<ns>/<name>`): what the pass could not reserve or claim of the AuditLog pool (audit-log-pass.ts). */
  auditLogFailures?: ReadonlyMap<string, AuditLogFailure>;
  /** Shoots not rendered because their Runtime got no dedicated audit log. */
  auditLogHeld?: string[];
  /**
   * Runtimes (`<ns>/<name>`) KIM leads, those with an unreadable leader label included: nothing of the pass is
   * written onto them (runtime-facts.ts).
   */
  kimLed?: string[];
  /**
   * `kimops bootstrap`'s PR, open while main holds no Shoot: the pass proposed nothing, or it would open a PR per
   * Shoot beside the one that writes them all.
   */
  bootstrapPending?: number;
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

async function pass(input: GenerateInput, sync: BranchSync): Promise<GenerateResult> {
  const snapshot = await readMainSnapshot(input.repo, sync.baseRef, input.landscape);
  const mainCommit = await input.repo.resolve(snapshot.ref);
  const bootstrapping = snapshot.folders.size === 0 ? await openBootstrap(input) : undefined;
  if (bootstrapping !== undefined) return heldForBootstrap(input, bootstrapping, mainCommit);
  const memo = input.memo ?? new RenderMemo();
  const leaders = runtimeLeaders(input.runtimes, input.defaultLeader);
  const kimLed = input.runtimes.filter(({ runtime }) => leaderOf(leaders, runtime) === 'kim');
  // Before the renders: a reservation, claim or release is decided on what main and the Garden hold now, and the
  // renders take the tenants claimed.
  const auditLogs =
    input.auditLogPool && input.settings.flags.dedicatedAuditLogging === true
      ? await settleAuditLogs({
          // KIM reserves and claims the AuditLogs of the Runtimes it leads.
          runtimes: input.runtimes.filter(({ runtime }) => leaderOf(leaders, runtime) === 'kimops'),
          pool: input.auditLogPool,
          shootExists: (shoot) => snapshot.folders.has(shoot) || input.gardenShoots?.has(shoot) === true,
          now: new Date(),
          log: input.log,
        })
      : undefined;
  const forced = await withForcePatchCounters(
    await gatherPassInput(input, snapshot, memo, { ...(auditLogs && { auditLogs }) }),
    snapshot,
    input.forcePatchStaysOn,
  );
  const gathered = forced.input;
  const plan = planPass(gathered);
  for (const [shoot, key] of plan.memo.remember) memo.remember(shoot, key);

  const { selection, renders } = gathered;
  const result: GenerateResult = {
    proposed: [],
    rendered: selection.toRender.length,
    unchanged: selection.unchanged + renders.inMain.length,
    closed: [],
    leftOpen: [],
    failures: plan.failures,
    bugs: plan.bugs,
    inMain: plan.inMain,
    ...(mainCommit && { mainCommit }),
    suspended: selection.suspended,
    deletionRefused: plan.deletionRefused,
    ...(plan.deprovisioning && { deprovisioning: plan.deprovisioning }),
    refused: [],
    ...(auditLogs && { auditLogFailures: auditLogs.failures, auditLogHeld: selection.auditLogHeld }),
    kimLed: kimLed.map(({ runtime }) => runtimeRef(runtime)),
  };
  const context: BranchContext = {
    landscape: input.landscape,
    repo: input.repo,
    forge: input.forge,
    sync,
    config: snapshot.config,
    author: input.author ?? snapshot.config.commit.author,
    log: input.log,
  };
  await execute(plan, { context, result });
  memo.keepOnly(plan.memo.keepOnly);
  if (forced.requests.length > 0) result.forcePatch = forcePatchOutcomes(forced.requests, result.proposed);
  for (const { runtime, shoot, counter, done } of result.forcePatch ?? []) {
    const ref = runtimeRef(runtime);
    const what = done
      ? `main holds its re-apply (${FORCE_PATCH_ANNOTATION}: "${counter}"), the applier applies the whole Shoot; force-patch-reconciliation is taken off the Runtime`
      : `its re-apply (${FORCE_PATCH_ANNOTATION}: "${counter}") waits for its PR to merge`;
    // A PR that waits says so itself each pass; the line is news where it settles the request.
    input.log(`force-patch         ${shoot}: ${ref}: ${what}`, { runtime: ref, shoot }, done ? 'info' : 'debug');
  }
  return result;
}

/** The open PR of `kimops bootstrap` for this landscape, if any. */
async function openBootstrap(input: GenerateInput): Promise<number | undefined> {
  return unwrap(await input.forge.findOpenPullRequest(bootstrapBranchOf(input.landscape)), input.forge)?.number;
}

/** A pass that proposes nothing while the bootstrap PR is open, and says so every time. */
function heldForBootstrap(input: GenerateInput, pr: number, mainCommit: string | undefined): GenerateResult {
  input.log(
    `bootstrap PR #${pr} (${bootstrapBranchOf(input.landscape)}) is open and main holds no Shoot yet: nothing proposed until it is merged or closed (docs/migration.md)`,
    { pr },
    'warn',
  );
  return {
    proposed: [],
    rendered: 0,
    unchanged: 0,
    closed: [],
    leftOpen: [],
    failures: [],
    bugs: [],
    inMain: [],
    ...(mainCommit && { mainCommit }),
    suspended: [],
    refused: [],
    bootstrapPending: pr,
  };
}

/** Where a plan is carried out, and the result its outcomes go into. */
interface Execution {
  context: BranchContext;
  result: GenerateResult;
}

/**
 * The plan's PRs in its order — the Shoots' own, the rollout wave, the first skr/ objects of older Shoots, the
 * deletions — then the stale PRs closed.
 */
async function execute(plan: PassPlan, run: Execution): Promise<void> {
  const { context, result } = run;
  for (const pr of plan.shoots) await propose(run, pr);
  if (plan.rollout) {
    const { name, later } = plan.rollout.rollout;
    const outcome = await propose(run, plan.rollout, { rollout: true });
    if (outcome) result.rollout = { name, pr: outcome.pr, shoots: plan.rollout.proposals.length, later };
  }
  if (plan.firstSkr) await propose(run, plan.firstSkr, { rollout: true });
  if (plan.deprovisioningNote) context.log(plan.deprovisioningNote);
  for (const pr of plan.deletions) await propose(run, pr);
  const prefixes = [branchOf(context.landscape, ''), rolloutBranchOf(context.landscape, '')];
  const stale = await closeStalePullRequests(context, prefixes, plan.keep);
  result.closed = stale.closed;
  result.leftOpen = stale.leftOpen;
}

/**
 * One branch's proposal, its Shoots' outcomes recorded; a forge that refuses it for good fails that proposal,
 * not the pass.
 */
async function propose(
  { context, result }: Execution,
  pr: BranchProposal,
  extra: Pick<ShootOutcome, 'rollout'> = {},
): Promise<BranchOutcome | undefined> {
  let outcome: BranchOutcome;
  try {
    outcome = await proposeBranch(context, pr);
  } catch (error) {
    if (!(error instanceof ForgeRefusal)) throw error;
    result.refused.push({ branch: pr.branch, message: error.message });
    context.log(`${pr.branch}: the forge refused it: ${error.message}; the next pass tries again`);
    return undefined;
  }
  result.proposed.push(...pr.proposals.map((proposal) => ({ ...outcomeOf(proposal, outcome), ...extra })));
  return outcome;
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
