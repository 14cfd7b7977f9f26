// `kimops bootstrap` (issue 20): a landscape KIM runs, put into its landscape repo at once — every Runtime's live
// Shoot rendered in update mode against it, exactly as a generator pass with the Garden renders a Shoot main does not
// hold yet (render-selection.ts, render-changes.ts), marked with its leader (rules/leader.ts), checked as `kimops
// validate` checks a folder (validate/folder-check.ts), all in ONE commit on `kimops/<landscape>-bootstrap` and one PR
// that always waits for a person. Its body and a committed report say where each render differs from the Garden
// (bootstrap-report.ts). Live Shoots without a Runtime are listed, never written or deleted; Runtimes without a live
// Shoot are left to `kimops generate`. Only the landscape repo is written: nothing goes to the KCP or the Garden.
// Crash-safe as a generator pass: one pass at a time per local repo (its lock), the commit written as objects and
// its branch moved by compare-and-swap; a second run updates the open PR in place and, unchanged, writes nothing.
import type { Forge, ForgeResult } from '../adapters/forge/forge.js';
import type { LandscapeRepo, Signature } from '../adapters/git/landscape-repo.js';
import { bootstrapBranchOf, MAIN_BRANCH, PR_LABEL_PREFIX, SHOOTS_FOLDER, VALIDATE_CONTEXT } from '../model/contract.js';
import { ConfigError, TransportError } from '../model/errors.js';
import type { ConversionSettings, Landscape } from '../model/landscape.js';
import type { LogLine } from '../model/log.js';
import { runtimeRef } from '../model/runtime.js';
import type { Shoot } from '../model/shoot.js';
import {
  bootstrapPullRequest,
  bootstrapReport,
  fullReport,
  reportPathOf,
  type BootstrapReport,
  type LeftOut,
  type RenderedLive,
} from './bootstrap-report.js';
import { branchSync, RejectedPush, type BranchSync, type LandscapeRemote } from './branch-sync.js';
import { readMainSnapshot, type MainSnapshot } from './main-snapshot.js';
import { leaderOf, runtimeLeaders } from './leaders.js';
import { classLine, type RecordedClass } from './propose/merge-gate.js';
import type { CheckResult } from './propose/merge-policy.js';
import { wroteByKimops, wroteLine } from './propose/written-heads.js';
import { renderChanges } from './render-changes.js';
import type { RenderBug, RenderFailure, RuntimeInput } from './render-runtimes.js';
import { selectRenders } from './render-selection.js';
import { checksSummary, type ValidationContext, type ValidationSource } from './validate/checks.js';
import { checkProposedShoot } from './validate/folder-check.js';

/** A rejected push starts over from a fresh fetch, as a generator pass does; past this many, the run ends. */
const MAX_ATTEMPTS = 3;

/** Its PR's class (generator/propose/classify.ts): never auto-merged, always one approval (propose/merge-policy.ts). */
const BOOTSTRAP_CLASS: RecordedClass = { class: 'bootstrap', disruptive: false };
const BOOTSTRAP_LABEL = `${PR_LABEL_PREFIX}bootstrap`;

export interface BootstrapInput {
  landscape: Pick<Landscape, 'name' | 'defaultLeader'>;
  settings: ConversionSettings;
  runtimes: readonly RuntimeInput[];
  /** False when some Runtimes could not be read: the report says its Runtime-less Shoots may have one. */
  runtimesComplete: boolean;
  /** The Garden's Shoots of the landscape's project, by name (read only). */
  gardenShoots: ReadonlyMap<string, Shoot>;
  repo: LandscapeRepo;
  remote?: LandscapeRemote;
  forge: Forge;
  /** The landscape's policies and facts; without them a folder is checked against the Shoot schema only. */
  validation?: ValidationSource;
  /** Overrides kimops.yaml's commit author (tests and the benchmark pin the timestamp). */
  author?: Signature;
  log: LogLine;
}

export interface BootstrapResult {
  report: BootstrapReport;
  /** The PR, unless there was nothing to write. */
  pr?: { number: number; url: string; outcome: 'opened' | 'updated' | 'unchanged' | 'left-to-human' };
  /** The commit the PR's branch holds. */
  head?: string;
  /** Runtimes that failed to render or whose leader label cannot be read (`runtime <ns>/<name>: <field>: …`). */
  failures: RenderFailure[];
  bugs: RenderBug[];
}

export async function bootstrap(input: BootstrapInput): Promise<BootstrapResult> {
  // As a generator pass: a local repo is locked from the first read to the last write; a remote's truth is the
  // remote (a push without force), whose local cache is locked per write only.
  if (input.remote) return withRetries(input);
  return input.repo.withLock('bootstrap', () => withRetries(input), {
    onWait: (holder) => input.log(`waiting for the landscape repo's lock, held by ${holder}`),
  });
}

async function withRetries(input: BootstrapInput): Promise<BootstrapResult> {
  const sync = branchSync(input.repo, input.remote);
  for (let attempt = 1; ; attempt++) {
    try {
      await sync.refresh();
      return await run(input, sync);
    } catch (error) {
      if (!(error instanceof RejectedPush)) throw error;
      if (attempt >= MAX_ATTEMPTS)
        throw new TransportError('landscape repo', `${error.message}; gave up after ${attempt} attempts, run again`);
      input.log(`${error.message}; fetching main again (attempt ${attempt + 1} of ${MAX_ATTEMPTS})`);
    }
  }
}

async function run(input: BootstrapInput, sync: BranchSync): Promise<BootstrapResult> {
  const name = input.landscape.name;
  const snapshot = await readMainSnapshot(input.repo, sync.baseRef, name);
  refuseShootsOnMain(snapshot);
  const rendered = await renderAll(input, snapshot);
  const report = bootstrapReport({
    landscape: name,
    rendered: rendered.shoots.map(({ files: _files, checks: _checks, ...shoot }) => shoot),
    withoutRuntime: rendered.withoutRuntime,
    withoutShoot: rendered.withoutShoot,
    leftOut: rendered.leftOut,
    runtimesComplete: input.runtimesComplete,
  });
  const result: BootstrapResult = { report, failures: rendered.failures, bugs: rendered.bugs };
  if (rendered.shoots.length === 0) {
    input.log('bootstrap: no Runtime has a live Shoot to write; nothing proposed');
    return result;
  }
  const branch = bootstrapBranchOf(name);
  const pr = bootstrapPullRequest(report, { branch, requiredChecks: snapshot.config.requiredChecks });
  const files = new Map(rendered.shoots.flatMap((s) => [...s.files]));
  files.set(reportPathOf(name), fullReport(report));
  const checks = rendered.shoots.flatMap((s) => s.checks);
  const author = input.author ?? snapshot.config.commit.author;
  const proposed = await propose(
    { ...input, sync, author },
    { branch, title: pr.title, body: pr.body, files, checks, count: rendered.shoots.length },
  );
  return { ...result, ...proposed };
}

/** A bootstrap starts a landscape's shoots/; once main holds Shoots, `kimops generate` proposes their changes. */
function refuseShootsOnMain(snapshot: MainSnapshot): void {
  const held = [...snapshot.folders.keys()].sort();
  if (held.length === 0) return;
  const named = held
    .slice(0, 3)
    .map((shoot) => `${SHOOTS_FOLDER}/${shoot}`)
    .join(', ');
  throw new ConfigError(
    '--repo',
    '',
    `the landscape repo's ${MAIN_BRANCH} already holds ${held.length} Shoot ${held.length === 1 ? 'folder' : 'folders'} (${named}${held.length > 3 ? ', …' : ''}): ` +
      'a bootstrap writes a landscape into an empty shoots/ once (and is merged then); from here on kimops generate proposes each change',
  );
}

interface RenderedShoot extends RenderedLive {
  files: Map<string, string>;
  checks: CheckResult[];
}

interface Renders {
  shoots: RenderedShoot[];
  withoutRuntime: string[];
  withoutShoot: { runtime: string; shoot: string }[];
  leftOut: LeftOut[];
  failures: RenderFailure[];
  bugs: RenderBug[];
}

/**
 * Every Runtime with a live Shoot rendered against it, as a generator pass renders a Shoot main does not hold; what
 * is left out and why. The same selection as a pass: not a Runtime KEB is deleting, not two naming one Shoot, not a
 * suspended one.
 */
async function renderAll(input: BootstrapInput, snapshot: MainSnapshot): Promise<Renders> {
  const { gardenShoots, settings } = input;
  // Who leads each Runtime, as a generator pass decides it: a Runtime whose label cannot be read is not written.
  const leaders = runtimeLeaders(input.runtimes, input.landscape.defaultLeader);
  const selection = selectRenders({
    runtimes: input.runtimes,
    settings,
    folders: snapshot.folders,
    gardenShoots,
    memo: { isUnchanged: () => false },
    leaders,
  });
  for (const line of selection.log) input.log(line);
  const named = (entry: RuntimeInput) => entry.runtime.spec?.shoot?.name as unknown;
  const isLive = (entry: RuntimeInput) => typeof named(entry) === 'string' && gardenShoots.has(named(entry) as string);
  const renders = await renderChanges({
    // A Runtime without a shoot name is rendered too: it fails naming the field.
    runtimes: selection.toRender.filter((entry) => typeof named(entry) !== 'string' || isLive(entry)),
    settings,
    gardenShoots,
    main: snapshot,
    leaders,
  });
  const leftOut: LeftOut[] = [];
  const byShoot = new Map(input.runtimes.map((entry) => [named(entry), runtimeRef(entry.runtime)]));
  for (const shoot of selection.suspended)
    if (gardenShoots.has(shoot))
      leftOut.push({ shoot, runtime: byShoot.get(shoot) ?? '', why: 'suspended (suspend-patch-reconciliation)' });
  for (const entry of input.runtimes)
    if (entry.runtime.metadata?.deletionTimestamp && isLive(entry))
      leftOut.push({
        shoot: named(entry) as string,
        runtime: runtimeRef(entry.runtime),
        why: 'KEB is deleting its Runtime',
      });
  const failures = [...selection.failures, ...renders.failures];
  const shootOf = new Map(input.runtimes.map((entry) => [runtimeRef(entry.runtime), named(entry)]));
  for (const failure of [...failures, ...renders.bugs.map((bug) => ({ ...bug, message: 'a bug in kimops' }))]) {
    const shoot = shootOf.get(failure.runtime);
    if (typeof shoot === 'string' && gardenShoots.has(shoot))
      leftOut.push({ shoot, runtime: failure.runtime, why: failure.message });
  }

  const context = await validationContext(input, snapshot, selection.active);
  const runtimeOf = new Map(input.runtimes.map((entry) => [runtimeRef(entry.runtime), entry.runtime]));
  const shoots: RenderedShoot[] = [];
  for (const { rendered, files } of renders.changed) {
    const runtime = runtimeOf.get(rendered.runtime);
    // What `kimops validate` says of this folder on a checkout of the PR: a new folder on main.
    const checks = checkProposedShoot(context, rendered.shootName, files, undefined);
    shoots.push({
      shoot: rendered.shootName,
      runtime: rendered.runtime,
      leader: runtime ? leaderOf(leaders, runtime) : 'kimops',
      // The Shoot comes last, marked for its leader (leaders.ts) as main will hold it.
      render: rendered.manifests.at(-1)?.object as unknown as Shoot,
      live: gardenShoots.get(rendered.shootName) as Shoot,
      files,
      checks,
      failedChecks: checks
        .filter((check) => !check.passed)
        .flatMap((check) => (check.messages.length > 0 ? check.messages : [check.name])),
    });
  }

  const asked = new Set(input.runtimes.map(named));
  return {
    shoots,
    withoutRuntime: [...gardenShoots.keys()].filter((shoot) => !asked.has(shoot)),
    withoutShoot: selection.toRender
      .filter((entry) => typeof named(entry) === 'string' && !isLive(entry))
      .map((entry) => ({ runtime: runtimeRef(entry.runtime), shoot: named(entry) as string })),
    leftOut,
    failures,
    bugs: renders.bugs,
  };
}

async function validationContext(
  input: BootstrapInput,
  snapshot: MainSnapshot,
  active: readonly RuntimeInput[],
): Promise<ValidationContext | undefined> {
  if (!input.validation) return undefined;
  return {
    policies: await input.validation.policies(snapshot.config.policySet),
    params: await input.validation.params(input.runtimesComplete ? active.map((entry) => entry.runtime) : undefined),
    landscape: input.landscape.name,
  };
}

interface Proposal {
  branch: string;
  title: string;
  body: string;
  files: ReadonlyMap<string, string>;
  checks: readonly CheckResult[];
  count: number;
}

type Context = Pick<BootstrapInput, 'repo' | 'forge' | 'log'> & { sync: BranchSync; author: Signature };

/**
 * The one commit and the one PR: main plus every folder, updated in place on an open bootstrap PR (its old head a
 * second parent, so the push needs no force), never merged by kimops. A head someone else pushed is left alone.
 */
async function propose(context: Context, proposal: Proposal): Promise<Pick<BootstrapResult, 'pr' | 'head'>> {
  const { repo, forge, sync, log } = context;
  const { branch } = proposal;
  const open = value(await forge.findOpenPullRequest(branch), forge);
  if (open !== undefined && !wroteByKimops(open)) {
    log(`bootstrap: #${open.number} left as is: its head ${open.headSha.slice(0, 12)} is not what kimops wrote`);
    return { pr: { number: open.number, url: open.url, outcome: 'left-to-human' }, head: open.headSha };
  }
  if (open !== undefined) await sync.have(branch, open.headSha);
  const commit = await repo.commitFiles({
    branch,
    base: sync.baseRef,
    ...(open && { alsoParent: open.headSha }),
    files: proposal.files,
    message: `${proposal.title}\n\nEvery Runtime's live Shoot, rendered in update mode against it (kimops bootstrap).`,
    author: context.author,
    detached: true,
  });
  const head = commit.oid as string;
  if (commit.changed) {
    // Named in the body before the branch moves: a run that dies right after still knows the head for its own.
    if (open) value(await forge.updatePullRequest(open.number, { body: `${open.body}${wroteLine(head)}` }), forge);
    await sync.publish(branch, head, { previous: open?.headSha });
  }
  await postStatus(forge, head, proposal.checks);
  const body = `${proposal.body}${wroteLine(head)}${classLine(head, BOOTSTRAP_CLASS)}`;
  const pr =
    open ??
    value(
      await forge.openPullRequest({
        branch,
        base: MAIN_BRANCH,
        title: proposal.title,
        body,
        labels: [BOOTSTRAP_LABEL],
      }),
      forge,
    );
  if (open && (open.title !== proposal.title || open.body !== body))
    value(await forge.updatePullRequest(open.number, { title: proposal.title, body }), forge);
  if (open && !open.labels.includes(BOOTSTRAP_LABEL))
    value(await forge.setLabels(open.number, [...open.labels, BOOTSTRAP_LABEL]), forge);
  const outcome = !open ? 'opened' : commit.changed ? 'updated' : 'unchanged';
  log(
    `bootstrap ${proposal.count} shoots: #${pr.number} ${outcome}, waits for 1 approval (a bootstrap is always reviewed)`,
    { pr: pr.number, branch },
    outcome === 'unchanged' ? 'debug' : 'info',
  );
  return { pr: { number: pr.number, url: pr.url, outcome }, head };
}

/** kimops/validate on the head, unless the head already has it in that state (a re-run posts nothing). */
async function postStatus(forge: Forge, head: string, checks: readonly CheckResult[]): Promise<void> {
  const state = checks.every((check) => check.passed) ? 'success' : 'failure';
  const reported = value(await forge.checksOf(head), forge);
  if (reported.some((check) => check.name === VALIDATE_CONTEXT && check.state === state)) return;
  value(
    await forge.setCommitStatus(head, { context: VALIDATE_CONTEXT, state, description: checksSummary(checks) }),
    forge,
  );
}

/**
 * A forge answer's value; refused credentials are configuration (exit 2), anything else ends the run (exit 69):
 * nothing is lost, the next run carries on from what Git and the forge hold.
 */
function value<T>(result: ForgeResult<T>, forge: Forge): T {
  if (result.ok) return result.value;
  const { kind, message } = result.failure;
  if (kind === 'unauthorized')
    throw new ConfigError(
      forge.label,
      'credentials',
      `${message}; renew the token or the App's key, and check it may write pull requests, statuses and contents`,
    );
  throw new TransportError(forge.label, `${kind}: ${message}`);
}
