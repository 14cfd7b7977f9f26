// The rules GitHub enforces on a landscape repo's main, as `kimops init` sets them up: two repository rulesets,
// found again by name and updated (never duplicated), or classic branch protection where the ruleset API is
// refused (a GitHub Enterprise Server before rulesets, answering 404).
//
// - "kimops: main" binds everyone, kimops included: every required check green (kimops.yaml's requiredChecks and
//   the workflow's check, bound to GitHub Actions where its App is known, so that nobody with statuses access can
//   fake it with a status of that name), no force-push, no deletion of main.
// - "kimops: review" asks for code-owner approval before a merge. GitHub cannot tell change classes apart, so
//   kimops's own identity may merge without it (bypass mode `pull_request`: through a PR only, never a push): its
//   merge gate decides per class, auto-merging creates and waiting for approvals on disruptive updates and rollouts.
//   Anyone else merging needs the approval.
import type { GitHubForgeOptions } from './github.js';
import { githubClient, githubFailure } from './github.js';
import type { ForgeFailure, ForgeResult } from './forge.js';

export const CHECKS_RULESET = 'kimops: main';
export const REVIEW_RULESET = 'kimops: review';

/** The GitHub App that GitHub Actions reports check runs as on github.com (a GitHub Enterprise Server has its own). */
export const GITHUB_ACTIONS_APP_ID = 15368;

export interface BranchRulesRequest {
  /** The branch the rules protect: the landscape repo's main. */
  branch: string;
  /** Every check a merge needs, by name: kimops.yaml's requiredChecks (with the workflow's check). */
  requiredChecks: readonly string[];
  /**
   * Required checks only a workflow reports, each bound to the App that reports it (GitHub Actions): a status of
   * the same name posted by anyone with statuses access then satisfies nothing. Unbound where absent.
   */
  reportedBy?: { checks: readonly string[]; appId: number; app: string };
  /** Approvals a merge by anyone but kimops needs: the most any review class of kimops.yaml asks for. */
  approvals: number;
}

export interface BranchRulesOutcome {
  how: 'rulesets' | 'branch-protection';
  /** One line per rule set up, for the person running init. */
  lines: string[];
  /** What init could not set up and how to do it by hand. */
  notes: string[];
  /** A rule GitHub refused after the ones in `lines` were set up: which, and GitHub's answer. */
  missing?: { rule: string; failure: ForgeFailure };
}

/** Who kimops is on GitHub: an App (by id) or a user (by id and login), as the credentials say. */
type Identity = { type: 'Integration'; id: number; name: string } | { type: 'User'; id: number; name: string };

type Client = Awaited<ReturnType<typeof githubClient>>;

export async function setUpBranchRules(
  github: GitHubForgeOptions,
  request: BranchRulesRequest,
): Promise<ForgeResult<BranchRulesOutcome>> {
  const label = `GitHub ${github.baseUrl ?? 'https://api.github.com'} ${github.owner}/${github.repo}`;
  const where = { owner: github.owner, repo: github.repo };
  let client: Client;
  try {
    client = await githubClient(github);
  } catch (error) {
    return { ok: false, failure: githubFailure(label, error) };
  }
  const identity = await identityOf(client, github);
  const notes =
    identity === undefined
      ? [
          `kimops's own identity is unknown (its token may not read /user), so nobody may merge without code-owner approval: add kimops's App or bot user as a bypass actor of "${REVIEW_RULESET}" by hand, or its auto-merges wait for approvals (docs/github.md)`,
        ]
      : [];
  try {
    const lines = await withRulesets(client, where, request, identity, notes);
    return { ok: true, value: { how: 'rulesets', lines, notes } };
  } catch (error) {
    // "kimops: main" is in place, the review ruleset is not: said as such, never taken for no rules at all.
    if (error instanceof ReviewRulesetRefused)
      return {
        ok: true,
        value: {
          how: 'rulesets',
          lines: error.lines,
          notes,
          missing: { rule: `ruleset "${REVIEW_RULESET}"`, failure: rulesetsFailure(githubFailure(label, error.cause)) },
        },
      };
    const failure = githubFailure(label, error);
    if (!rulesetsMissing(error)) return { ok: false, failure: rulesetsFailure(failure) };
  }
  try {
    const lines = await withBranchProtection(client, where, request, identity);
    // Classic protection's `checks` could name the App, but GitHub refuses them beside `contexts`, which GitHub's
    // description requires: the binding is left to a person.
    if (request.reportedBy !== undefined)
      notes.push(
        `classic branch protection cannot bind ${request.reportedBy.checks.join(', ')} to ${request.reportedBy.app} through kimops: pick ${request.reportedBy.app} as the source of each in the protection of ${request.branch} by hand (docs/github.md)`,
      );
    if (identity?.type === 'Integration')
      notes.push(
        `classic branch protection names apps by slug, which an installation token cannot read: add the App to "Allow specified actors to bypass required pull requests" of ${request.branch} by hand (docs/github.md)`,
      );
    return { ok: true, value: { how: 'branch-protection', lines, notes } };
  } catch (error) {
    return { ok: false, failure: rulesetsFailure(githubFailure(label, error)) };
  }
}

/** The App from its credentials; a token's user from GET /user; undefined when neither can be told. */
async function identityOf(client: Client, github: GitHubForgeOptions): Promise<Identity | undefined> {
  if ('appId' in github.auth) {
    const id = Number(github.auth.appId);
    return Number.isInteger(id) ? { type: 'Integration', id, name: `App ${id}` } : undefined;
  }
  try {
    const { data } = await client.rest.users.getAuthenticated();
    return { type: 'User', id: data.id, name: data.login };
  } catch {
    return undefined;
  }
}

async function withRulesets(
  client: Client,
  where: { owner: string; repo: string },
  request: BranchRulesRequest,
  identity: Identity | undefined,
  notes: string[],
): Promise<string[]> {
  const existing = await client.paginate(client.rest.repos.getRepoRulesets, { ...where, per_page: 100 });
  const conditions = { ref_name: { include: [`refs/heads/${request.branch}`], exclude: [] } };
  const checks = {
    name: CHECKS_RULESET,
    target: 'branch' as const,
    enforcement: 'active' as const,
    bypass_actors: [],
    conditions,
    rules: [
      { type: 'deletion' as const },
      { type: 'non_fast_forward' as const },
      {
        type: 'required_status_checks' as const,
        parameters: {
          // Not strict: a PR need not be rebased after every other merge; kimops's branches merge main in anyway.
          strict_required_status_checks_policy: false,
          required_status_checks: request.requiredChecks.map((context) =>
            request.reportedBy?.checks.includes(context)
              ? { context, integration_id: request.reportedBy.appId }
              : { context },
          ),
        },
      },
    ],
  };
  // octokit's types predate the `User` actor type, which api.github.com's description has (not GitHub Enterprise Server's).
  const bypass =
    identity === undefined
      ? []
      : [{ actor_type: identity.type as 'Integration', actor_id: identity.id, bypass_mode: 'pull_request' as const }];
  const review = {
    name: REVIEW_RULESET,
    target: 'branch' as const,
    enforcement: 'active' as const,
    bypass_actors: bypass,
    conditions,
    rules: [
      {
        type: 'pull_request' as const,
        parameters: {
          required_approving_review_count: request.approvals,
          require_code_owner_review: true,
          dismiss_stale_reviews_on_push: true,
          require_last_push_approval: false,
          required_review_thread_resolution: false,
        },
      },
    ],
  };
  const save = async (ruleset: typeof checks | typeof review): Promise<string> => {
    const found = existing.find((candidate) => candidate.name === ruleset.name);
    const { data } =
      found === undefined
        ? await client.rest.repos.createRepoRuleset({ ...where, ...ruleset })
        : await client.rest.repos.updateRepoRuleset({ ...where, ruleset_id: found.id, ...ruleset });
    return `ruleset "${ruleset.name}" (id ${data.id}, ${found === undefined ? 'created' : 'updated'})`;
  };
  const lines = [
    `${await save(checks)}: required checks ${checksText(request)}; no force-push or deletion of ${request.branch}`,
  ];
  const reviewed = `${approvalsText(request.approvals)} by code owners`;
  try {
    try {
      lines.push(
        `${await save(review)}: ${reviewed}${identity === undefined ? '' : `; ${identity.name}, the identity init ran as, may merge without (kimops must run as it to auto-merge)`}`,
      );
    } catch (error) {
      // GitHub Enterprise Server lets no single user bypass a ruleset (422): the rule goes in without the bypass.
      if ((error as { status?: number }).status !== 422 || identity?.type !== 'User') throw error;
      lines.push(`${await save({ ...review, bypass_actors: [] })}: ${reviewed}; nobody may merge without`);
      notes.push(
        `this GitHub lets no user bypass a ruleset, so kimops's merges wait for code-owner approval too: run kimops as a GitHub App (then re-run the branch rules), or drop "${REVIEW_RULESET}" (docs/github.md)`,
      );
    }
  } catch (error) {
    throw new ReviewRulesetRefused(lines, error);
  }
  return lines;
}

/** GitHub refused the review ruleset once "kimops: main" was in place: the lines say what is. */
class ReviewRulesetRefused extends Error {
  constructor(
    readonly lines: string[],
    cause: unknown,
  ) {
    super(`ruleset "${REVIEW_RULESET}" refused`, { cause });
  }
}

/** The required checks, each bound one with the App that must report it. */
function checksText(request: BranchRulesRequest): string {
  return request.requiredChecks
    .map((name) => (request.reportedBy?.checks.includes(name) ? `${name} (from ${request.reportedBy.app} only)` : name))
    .join(', ');
}

async function withBranchProtection(
  client: Client,
  where: { owner: string; repo: string },
  request: BranchRulesRequest,
  identity: Identity | undefined,
): Promise<string[]> {
  await client.rest.repos.updateBranchProtection({
    ...where,
    branch: request.branch,
    required_status_checks: { strict: false, contexts: [...request.requiredChecks] },
    // Admins too: otherwise an admin token (kimops's, often) would pass the required checks by.
    enforce_admins: true,
    required_pull_request_reviews: {
      require_code_owner_reviews: true,
      required_approving_review_count: request.approvals,
      dismiss_stale_reviews: true,
      ...(identity?.type === 'User' && { bypass_pull_request_allowances: { users: [identity.name] } }),
    },
    restrictions: null,
    allow_force_pushes: false,
    allow_deletions: false,
  });
  return [
    `branch protection of ${request.branch} (the ruleset API is not available): required checks ${request.requiredChecks.join(', ')}; ${approvalsText(request.approvals)} by code owners${identity?.type === 'User' ? `, ${identity.name}, the identity init ran as, may merge without` : ''}; no force-push or deletion`,
  ];
}

/** The ruleset API is not there (an older GitHub Enterprise Server answers 404): classic protection instead. */
function rulesetsMissing(error: unknown): boolean {
  return (error as { status?: number }).status === 404;
}

function rulesetsFailure(failure: ReturnType<typeof githubFailure>): ReturnType<typeof githubFailure> {
  if (failure.kind !== 'unauthorized' && failure.kind !== 'not-found') return failure;
  return {
    ...failure,
    message: `${failure.message} (branch rules need the token's or App's administration: write permission, and a plan with them for private repositories)`,
  };
}

const approvalsText = (count: number) => `${count} ${count === 1 ? 'approval' : 'approvals'}`;
