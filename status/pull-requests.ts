// kimops's pull requests as the status shows them: the backlog of open ones (each with its change class from its
// `kimops:` label and the Shoot its branch names), the rollouts among them (`wave n/m` from the title), and the PR a
// Runtime's change is in. The branch names are the contract's (model/contract.ts), the titles the generator's
// (generator/propose/pr-body.ts); a title in another form reads as a rollout without a wave. Pure.
import type { PullRequest } from '../adapters/forge/forge.js';
import { bootstrapBranchOf, branchOf, PR_LABEL_PREFIX, rolloutBranchOf } from '../model/contract.js';
import { cutCredentialShapes } from '../model/credential-shapes.js';
import type { Proposal, ProposalState } from '../model/pipeline-facts.js';
import type { Rollout, RowPullRequest, StatusPullRequest } from './landscape-status.js';

/** `…, wave 2/3, 50 shoots` as the generator titles a rollout's PR: the last such part of the title. */
const WAVE_IN_TITLE = /, wave (\d+)\/(\d+), (\d[\d,]*) shoots?$/;

const WAITS_FOR: Record<ProposalState, string | undefined> = {
  // Open is also a merge the forge refused or one left to a person: the PR's checks and comments say which.
  open: 'checks or merge',
  'waiting-for-review': 'review',
  blocked: 'never merges: Gardener would reject it',
  merged: undefined,
};

/** The PR a proposal's URL names: GitHub's `…/pull/<n>`, the local forge's `kimops pr show <n> --repo …`. */
export function pullRequestNumberOf(url: string): number | undefined {
  const number = /\/pull\/(\d+)(?:[/?#]|$)/.exec(url)?.[1] ?? /^kimops pr show (\d+)\b/.exec(url)?.[1];
  return number === undefined ? undefined : Number(number);
}

/** The change class a PR's `kimops:` label names (`update-disruptive`), if it carries one. */
export function classOf(labels: readonly string[]): string | undefined {
  return labels.find((label) => label.startsWith(PR_LABEL_PREFIX))?.slice(PR_LABEL_PREFIX.length);
}

/** Only http(s) URLs are linked (the local forge's is a command line): anything else is left empty. */
function linkable(url: string): string {
  return /^https?:\/\//i.test(url) ? url : '';
}

/** Classes that always wait for a person, whatever the landscape's merge policy (generator/propose/merge-policy.ts). */
const REVIEWED_CLASSES: ReadonlySet<string> = new Set(['bootstrap', 'delete-runtime-absent']);

function waitsForOf(pr: PullRequest, state: ProposalState | undefined): string | undefined {
  if (state !== undefined) return WAITS_FOR[state];
  const prClass = classOf(pr.labels);
  if (prClass === 'blocked') return WAITS_FOR.blocked;
  return prClass !== undefined && REVIEWED_CLASSES.has(prClass) ? WAITS_FOR['waiting-for-review'] : undefined;
}

/** The open PRs of the landscape's branches, oldest first, and the rollouts among them. */
export function openPullRequests(
  landscape: string,
  pullRequests: readonly PullRequest[],
  proposalStates: ReadonlyMap<number, ProposalState>,
): { pullRequests: StatusPullRequest[]; rollouts: Rollout[] } {
  const shootBranch = branchOf(landscape, '');
  const rolloutBranch = rolloutBranchOf(landscape, '');
  const own = pullRequests
    .filter((pr) => pr.state === 'open' && isOwnBranch(landscape, pr.branch))
    .sort((a, b) => (a.createdAt ?? '').localeCompare(b.createdAt ?? '') || a.number - b.number);
  const listed = own.map((pr): StatusPullRequest => {
    const prClass = classOf(pr.labels);
    const waitsFor = waitsForOf(pr, proposalStates.get(pr.number));
    return {
      number: pr.number,
      url: linkable(pr.url),
      // A rollout's title names the values it changes: cut as every message is.
      title: cutCredentialShapes(pr.title),
      ...(prClass !== undefined && { class: prClass }),
      ...(pr.createdAt !== undefined && { openedAt: pr.createdAt }),
      ...(waitsFor !== undefined && { waitsFor }),
      ...(pr.branch.startsWith(shootBranch) && { shoot: pr.branch.slice(shootBranch.length) }),
    };
  });
  const rollouts = own
    .filter((pr) => pr.branch.startsWith(rolloutBranch))
    .map((pr): Rollout => {
      const wave = WAVE_IN_TITLE.exec(pr.title);
      const shoots = wave?.[3];
      return {
        name: pr.branch.slice(rolloutBranch.length),
        pr: pr.number,
        url: linkable(pr.url),
        ...(wave && { wave: { number: Number(wave[1]), of: Number(wave[2]) } }),
        ...(shoots !== undefined && { shoots: Number(shoots.replaceAll(',', '')) }),
        ...(pr.createdAt !== undefined && { openedAt: pr.createdAt }),
        ...(listed.find((entry) => entry.number === pr.number)?.waitsFor !== undefined && {
          waitsFor: listed.find((entry) => entry.number === pr.number)?.waitsFor,
        }),
      };
    });
  return { pullRequests: listed, rollouts };
}

function isOwnBranch(landscape: string, branch: string): boolean {
  return (
    branch.startsWith(branchOf(landscape, '')) ||
    branch.startsWith(rolloutBranchOf(landscape, '')) ||
    branch === bootstrapBranchOf(landscape)
  );
}

/**
 * The PR of a Runtime's newest change: the one its proposal names (any state), else the open PR of its Shoot's
 * branch (proposed, the Runtime not annotated yet). `byNumber` and `openByBranch` are the forge's, when read.
 */
export function rowPullRequest(
  proposal: Proposal | undefined,
  shootBranch: string,
  byNumber: ReadonlyMap<number, PullRequest>,
  openByBranch: ReadonlyMap<string, PullRequest>,
): RowPullRequest | undefined {
  const number = proposal && pullRequestNumberOf(proposal.url);
  const pr = number !== undefined ? byNumber.get(number) : openByBranch.get(shootBranch);
  if (number === undefined && pr === undefined) return undefined;
  // The forge's word first: a PR merged by a reviewer is merged before the generator's next pass says so.
  const state: RowPullRequest['state'] = pr?.merged
    ? 'merged'
    : (proposal?.state ?? (pr && classOf(pr.labels) === 'blocked' ? 'blocked' : 'open'));
  const prClass = pr && pr.state === 'open' ? classOf(pr.labels) : undefined;
  const waitsFor = WAITS_FOR[state];
  return {
    number: (number ?? pr?.number) as number,
    url: linkable(proposal?.url ?? pr?.url ?? ''),
    ...(prClass !== undefined && { class: prClass }),
    state,
    ...(pr?.createdAt !== undefined && { openedAt: pr.createdAt }),
    ...(waitsFor !== undefined && { waitsFor }),
  };
}
