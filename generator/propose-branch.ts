// One branch, one pull request: commit the proposed files on the branch (from main, updated in place),
// open or update its PR with the rendered body, report the commit status and merge per kimops.yaml (counting the
// approvals of the PR's code owners, code-owner-approvals.ts).
// Used for a single Shoot's change and for a rollout wave alike. Everything needed to resume is in
// Git and the forge: the PR body hides the head kimops wrote, so a different head was pushed by a human.
import type { Forge, ForgeResult } from '../adapters/forge/forge.js';
import { VALIDATE_CONTEXT, MAIN_BRANCH, SHOOTS_FOLDER } from '../model/contract.js';
import type { LandscapeRepo, Signature } from '../adapters/git/landscape-repo.js';
import type { KimopsConfig } from '../model/kimops-config.js';
import { ConfigError, TransportError } from '../model/errors.js';
import type { LogFields, LogLine } from '../model/log.js';
import type { BranchSync } from './branch-sync.js';
import type { ChangeClassName } from './propose/classify.js';
import { deleteLeftoverBranches, deleteProposalBranch } from './branch-cleanup.js';
import { countApprovals, readCodeOwners } from './code-owner-approvals.js';
import type { ApprovalTally } from './propose/code-owners.js';
import { classLine } from './propose/merge-gate.js';
import {
  decideMerge,
  onlyKimopsReports,
  withRequiredChecks,
  type MergeAction,
  type MergeDecision,
} from './propose/merge-policy.js';
import { wroteByKimops, wroteLine } from './propose/written-heads.js';
import { labelsToSet } from './propose/labels.js';
import {
  GITHUB_BODY_LIMIT,
  pullRequestClass,
  renderPullRequest,
  rolloutWaveAfter,
  type ShootProposal,
} from './propose/pr-body.js';
import { checksSummary } from './validate/checks.js';

/**
 * Hidden in the PR body: the heads kimops wrote (propose/written-heads.ts), and the commit status kimops
 * posted for the head (so a pass that died before posting it posts it on the next one, and one that posted
 * it writes nothing again).
 */
/** Room in the body for those markers: the status and class lines and two heads while a push is under way. */
const MARKERS_RESERVE = 400;
const STATUS = /<!-- kimops:status ([0-9a-f]{40}) (\w+) -->/;
const statusLine = (sha: string, state: string) => `<!-- kimops:status ${sha} ${state} -->\n`;

export interface BranchContext {
  landscape: string;
  repo: LandscapeRepo;
  forge: Forge;
  sync: BranchSync;
  config: KimopsConfig;
  author: Signature;
  log: LogLine;
}

export interface BranchProposal {
  branch: string;
  proposals: ShootProposal[];
  rollout?: { name: string; later: number };
  /** Every file of the proposed Shoots' folders (none for a delete); what else is in those folders goes. */
  files: ReadonlyMap<string, string>;
}

export interface BranchOutcome {
  pr: number;
  /** Where a human reviews the PR. */
  url: string;
  /** merge-refused: the forge refused the auto-merge; left-to-human: someone else pushed to the branch. */
  action: MergeAction | 'merge-refused' | 'left-to-human';
  /** The merge commit on main, when this pass merged the PR. */
  mergeCommit?: string;
  /** The PR was open as it is already and still waits: nothing of it changed in this pass. */
  unchanged?: true;
  /** When the PR was opened, as the forge says (RFC 3339), where it says. */
  openedAt?: string;
}

export async function proposeBranch(context: BranchContext, proposal: BranchProposal): Promise<BranchOutcome> {
  const { repo, forge, landscape, sync } = context;
  const { branch, proposals } = proposal;
  // A rollout's wave follows the last closed PR of its branch: the wave before it (merged), or itself (closed).
  const previous = proposal.rollout ? unwrap(await forge.lastClosedPullRequest(branch), forge) : undefined;
  const wave = proposal.rollout && rolloutWaveAfter(previous, proposals.length, proposal.rollout.later);
  const pr = renderPullRequest({
    landscape,
    branch,
    proposals,
    ...(proposal.rollout && { rollout: { ...proposal.rollout, ...(wave && { wave }) } }),
    merge: { policy: context.config.mergePolicy, requiredChecks: context.config.requiredChecks },
    maxBodySize: GITHUB_BODY_LIMIT - MARKERS_RESERVE,
  });
  // The full report only where the body had to be shortened: a file on the branch, merged with it.
  const content = new Map([...proposal.files, ...(pr.truncated ? [[pr.reportPath, pr.fullReport] as const] : [])]);
  const folders = proposals.map((p) => `${SHOOTS_FOLDER}/${p.shoot}`);
  const prClass = pullRequestClass(proposals, proposal.rollout !== undefined);
  const what = `${label(prClass)} ${proposal.rollout ? `rollout ${proposal.rollout.name} (${proposals.length} shoots)` : proposals.map((p) => p.shoot).join(', ')}`;
  const about = (number: number): LogFields => ({ ...subjectOf(proposals), pr: number, branch });

  const open = unwrap(await forge.findOpenPullRequest(branch), forge);
  if (open !== undefined && !wroteByKimops(open)) {
    // Rewriting the branch would throw away someone's commit: they and the reviewers settle it first.
    context.log(
      `${what}: #${open.number} left as is: its head ${open.headSha.slice(0, 12)} is not what kimops wrote`,
      about(open.number),
    );
    return {
      pr: open.number,
      url: open.url,
      action: 'left-to-human',
      ...(open.createdAt !== undefined && { openedAt: open.createdAt }),
    };
  }
  if (open !== undefined) await sync.have(branch, open.headSha);

  // Updated in place: an open PR whose head already holds these bytes needs no new commit.
  const upToDate = open !== undefined && (await headHolds(repo, open.headSha, folders, content));
  let head = open?.headSha as string;
  if (!upToDate) {
    // The tree is always main's plus this change, so the PR shows only it and merges cleanly; an open
    // PR's old head is a second parent, so the push needs no force.
    const commit = await repo.commitFiles({
      branch,
      base: sync.baseRef,
      ...(open && { alsoParent: open.headSha }),
      files: content,
      deletions: folders,
      message: `${pr.title}\n\n${proposals
        .flatMap((p) => p.classification.reasons)
        .slice(0, 20)
        .join('\n')}`,
      author: context.author,
      detached: true,
    });
    head = commit.oid as string;
    if (commit.changed) {
      // Named in the body before the branch moves (or is pushed): a pass that dies right after still
      // knows the head for its own, instead of taking it for a human's and leaving the PR alone for good.
      if (open) unwrap(await forge.updatePullRequest(open.number, { body: `${open.body}${wroteLine(head)}` }), forge);
      await sync.publish(branch, head, { previous: open?.headSha });
    }
  }
  // The status before the PR (whose body records it): a branch protection that requires it sees it at once.
  const checks = proposals.flatMap((p) => p.checks);
  const state = checks.every((c) => c.passed) ? 'success' : 'failure';
  const posted = open !== undefined && STATUS.exec(open.body)?.slice(1).join(' ') === `${head} ${state}`;
  if (!posted)
    unwrap(
      await forge.setCommitStatus(head, { context: VALIDATE_CONTEXT, state, description: checksSummary(checks) }),
      forge,
    );
  // The class is recorded with its head: `kimops pr merge` decides on it, and a later pass may change it.
  const body = `${pr.body}${wroteLine(head)}${statusLine(head, state)}${classLine(head, prClass)}`;
  const labels = [pr.label];
  const { number, url, createdAt } =
    open ?? unwrap(await forge.openPullRequest({ branch, base: MAIN_BRANCH, title: pr.title, body, labels }), forge);
  // The label follows the class when a later pass changes it; a human's own labels stay.
  const relabel = open && labelsToSet(open.labels, pr.label);
  if (relabel) unwrap(await forge.setLabels(number, relabel), forge);
  if (open !== undefined && (open.title !== pr.title || open.body !== body))
    unwrap(await forge.updatePullRequest(number, { title: pr.title, body }), forge);

  const approvals = await approvalsOn(context, { number, head, folders, files: content });
  const decision = await withChecksOnHead(
    context,
    head,
    decideMerge({ ...prClass, checks, approvals, policy: context.config.mergePolicy }),
  );
  const verb = open ? (upToDate ? 'unchanged' : 'updated') : 'opened';
  if (decision.action !== 'auto-merge') {
    // A PR still waiting as it was is news once, not on every pass.
    context.log(
      `${what}: #${number} ${verb}, ${decision.action}: ${decision.reason}`,
      about(number),
      verb === 'unchanged' ? 'debug' : 'info',
    );
    return {
      pr: number,
      url,
      action: decision.action,
      ...(verb === 'unchanged' && { unchanged: true as const }),
      ...(createdAt !== undefined && { openedAt: createdAt }),
    };
  }
  const merged = await forge.mergePullRequest(number, { sha: head, method: 'merge' });
  context.log(
    `${what}: #${number} ${verb}, ${merged.ok ? 'merged' : `not merged: ${merged.failure.message}`}`,
    about(number),
    merged.ok ? 'info' : 'warn',
  );
  if (!merged.ok) return { pr: number, url, action: 'merge-refused' };
  await deleteProposalBranch(context, { number, branch, headSha: head, body }, [branch]);
  return { pr: number, url, action: 'auto-merge', mergeCommit: merged.value.sha };
}

/**
 * The policy's decision held against the checks kimops.yaml requires on `head` (statuses and check runs): a
 * merge waits while one is pending or missing, and is blocked by a failed one. Checks the forge will not show
 * (a token that may not read check runs) are a wait, named with the fix; an unreachable forge ends the pass.
 */
async function withChecksOnHead(context: BranchContext, head: string, policy: MergeDecision): Promise<MergeDecision> {
  const { forge, config } = context;
  if (policy.action !== 'auto-merge' || config.requiredChecks.length === 0) return policy;
  const reported = await forge.checksOf(head, { checkRunsFor: config.requiredChecks });
  if (!reported.ok && (reported.failure.kind === 'transport' || reported.failure.kind === 'rate-limited'))
    unwrap(reported, forge);
  if (!reported.ok)
    return {
      action: 'await-checks',
      reason: `${policy.reason}, but the required checks of ${head.slice(0, 12)} cannot be read: ${reported.failure.message}`,
    };
  return withRequiredChecks(policy, {
    required: config.requiredChecks,
    reported: reported.value,
    ...(forge.checkReporters === 'kimops' && { unreportable: onlyKimopsReports }),
  });
}

/**
 * The approvals on `head` that count: by the code owners CODEOWNERS on main names for the files the PR changes
 * (the files it proposes and those its folders hold on main), or by collaborators where it names none.
 */
async function approvalsOn(
  context: BranchContext,
  pr: { number: number; head: string; folders: readonly string[]; files: ReadonlyMap<string, string> },
): Promise<ApprovalTally> {
  const { forge, repo, sync } = context;
  const approvals = unwrap(await forge.approvals(pr.number), forge);
  const rules = await readCodeOwners(repo, sync.baseRef);
  const paths = new Set(rules.length === 0 ? [] : pr.files.keys());
  if (rules.length > 0)
    for (const folder of pr.folders)
      for (const path of (await repo.readFiles(sync.baseRef, folder)).keys()) paths.add(path);
  return unwrap(await countApprovals(forge, { rules, paths: [...paths], approvals, head: pr.head }), forge);
}

/** An open kimops PR on a branch not in `keep` is closed, unless someone else pushed to it. */
export async function closeStalePullRequests(
  context: Pick<BranchContext, 'forge' | 'log'>,
  prefixes: readonly string[],
  keep: ReadonlySet<string>,
): Promise<{ closed: number[]; leftOpen: number[] }> {
  const { forge } = context;
  const result = { closed: [] as number[], leftOpen: [] as number[] };
  const pulls = unwrap(await forge.listOpenPullRequests(), forge);
  for (const pr of pulls) {
    if (!prefixes.some((prefix) => pr.branch.startsWith(prefix)) || keep.has(pr.branch)) continue;
    if (!wroteByKimops(pr)) {
      result.leftOpen.push(pr.number);
      context.log(
        `#${pr.number} ${pr.branch}: no change left, but its head ${pr.headSha.slice(0, 12)} is not what kimops wrote; left open for whoever pushed it`,
        { pr: pr.number, branch: pr.branch },
      );
      continue;
    }
    try {
      unwrap(
        await forge.closePullRequest(
          pr.number,
          'Closed by kimops: main already holds what this branch proposed, or the change is no longer wanted.',
        ),
        forge,
      );
    } catch (error) {
      if (!(error instanceof ForgeRefusal)) throw error;
      context.log(
        `#${pr.number} ${pr.branch}: could not be closed: ${error.message}; the next pass tries again`,
        { pr: pr.number, branch: pr.branch },
        'warn',
      );
      continue;
    }
    result.closed.push(pr.number);
    context.log(`#${pr.number} ${pr.branch}: closed, its change is on main already or no longer wanted`, {
      pr: pr.number,
      branch: pr.branch,
    });
    await deleteProposalBranch(context, pr, prefixes);
  }
  // Branches of PRs merged or closed earlier whose deletion failed or never ran (kimops stopped in between).
  const open = new Set([...keep, ...pulls.filter((pr) => !result.closed.includes(pr.number)).map((pr) => pr.branch)]);
  await deleteLeftoverBranches(context, prefixes, open);
  return result;
}

/** Whether the commit has exactly these files in the proposed folders, and the other files as given. */
async function headHolds(
  repo: LandscapeRepo,
  head: string,
  folders: readonly string[],
  content: ReadonlyMap<string, string>,
): Promise<boolean> {
  for (const folder of folders) {
    const files = await repo.readFiles(head, folder);
    const expected = [...content.keys()].filter((path) => path.startsWith(`${folder}/`));
    if (files.size !== expected.length) return false;
    for (const [path, file] of files) if (content.get(path) !== (await file.read())) return false;
  }
  for (const [path, text] of content) {
    if (folders.some((folder) => path.startsWith(`${folder}/`))) continue;
    if ((await repo.readFile(head, path)) !== text) return false;
  }
  return true;
}

function label({ class: name, disruptive }: { class: ChangeClassName; disruptive: boolean }): string {
  return (name === 'update' && disruptive ? 'update (disruptive)' : name).padEnd(19);
}

/**
 * The forge refused one branch's PR for good (a 404, 409 or 422: the branch, the PR or the merge is not
 * what kimops expected). It fails that proposal only; the pass goes on with the others.
 */
export class ForgeRefusal extends TransportError {}

/**
 * A forge failure as the error that says what to do: refused credentials are configuration (exit 2);
 * an unreachable or rate-limited forge ends the pass (nothing is lost, the next pass starts from what
 * Git and the forge hold); anything else the forge refused fails the one proposal (ForgeRefusal).
 */
export function unwrap<T>(result: ForgeResult<T>, forge: Forge): T {
  if (result.ok) return result.value;
  const { kind, message } = result.failure;
  if (kind === 'unauthorized')
    throw new ConfigError(
      forge.label,
      'credentials',
      `${message}; renew the token or the App's key, and check it may write pull requests, statuses and contents`,
    );
  if (kind === 'transport' || kind === 'rate-limited') throw new TransportError(forge.label, `${kind}: ${message}`);
  throw new ForgeRefusal(forge.label, `${kind}: ${message}`);
}

/** The Shoot and Runtime a PR is about, when it is about one (a rollout's PR names neither). */
function subjectOf(proposals: readonly ShootProposal[]): LogFields {
  const [only, ...others] = proposals;
  if (!only || others.length > 0) return {};
  return { shoot: only.shoot, runtime: `${only.runtime.namespace}/${only.runtime.name}` };
}
