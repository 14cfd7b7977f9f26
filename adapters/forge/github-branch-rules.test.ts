// The branch rules init sets up, through octokit against the GitHub test server (each call checked against
// GitHub's OpenAPI description): the two rulesets, updated in place on a second run; classic branch protection
// where the ruleset API is missing; and what cannot be set up, named with the fix.
import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitHubTestServer } from '../../test/helpers/github-test-server.js';
import type { ForgeResult } from './forge.js';
import {
  CHECKS_RULESET,
  GITHUB_ACTIONS_APP_ID,
  REVIEW_RULESET,
  setUpBranchRules,
  type BranchRulesRequest,
} from './github-branch-rules.js';
import type { GitHubForgeOptions } from './github.js';

let server: GitHubTestServer;

beforeAll(async () => {
  server = await GitHubTestServer.start({ owner: 'acme' });
});

afterAll(async () => {
  await server.close(); // throws on any contract violation seen during the run
});

const REQUEST: BranchRulesRequest = { branch: 'main', requiredChecks: ['kimops/validate', 'validate'], approvals: 1 };

async function repoNamed(name: string): Promise<GitHubForgeOptions> {
  await server.createRepo(name, { 'kimops.yaml': 'landscape: dev\n' });
  return {
    owner: 'acme',
    repo: name,
    baseUrl: server.url,
    auth: { token: server.token },
    throttle: false,
    retry: false,
  };
}

function value<T>(result: ForgeResult<T>): T {
  if (!result.ok) throw new Error(`${result.failure.kind}: ${result.failure.message}`);
  return result.value;
}

describe('setUpBranchRules', () => {
  it('creates the two rulesets, kimops (the token user) bypassing review only, and updates them on a second run', async () => {
    const github = await repoNamed('rules-token');
    const first = value(await setUpBranchRules(github, REQUEST));
    expect(first.how).toBe('rulesets');
    expect(first.notes).toEqual([]);
    const [checks, review] = server.rulesets('rules-token');
    expect(checks).toMatchObject({
      name: CHECKS_RULESET,
      enforcement: 'active',
      bypass_actors: [],
      conditions: { ref_name: { include: ['refs/heads/main'], exclude: [] } },
      rules: [
        { type: 'deletion' },
        { type: 'non_fast_forward' },
        {
          type: 'required_status_checks',
          parameters: {
            strict_required_status_checks_policy: false,
            required_status_checks: [{ context: 'kimops/validate' }, { context: 'validate' }],
          },
        },
      ],
    });
    expect(review).toMatchObject({
      name: REVIEW_RULESET,
      bypass_actors: [{ actor_type: 'User', bypass_mode: 'pull_request' }],
      rules: [
        {
          type: 'pull_request',
          parameters: { required_approving_review_count: 1, require_code_owner_review: true },
        },
      ],
    });
    expect(first.lines).toEqual([
      `ruleset "kimops: main" (id ${checks?.id}, created): required checks kimops/validate, validate; no force-push or deletion of main`,
      `ruleset "kimops: review" (id ${review?.id}, created): 1 approval by code owners; kimops-bot, the identity init ran as, may merge without (kimops must run as it to auto-merge)`,
    ]);

    const second = value(
      await setUpBranchRules(github, { ...REQUEST, requiredChecks: ['kimops/validate'], approvals: 2 }),
    );
    expect(second.lines.map((line) => line.replace(/\(id \d+, /, '('))).toEqual([
      'ruleset "kimops: main" (updated): required checks kimops/validate; no force-push or deletion of main',
      `ruleset "kimops: review" (updated): 2 approvals by code owners; kimops-bot, the identity init ran as, may merge without (kimops must run as it to auto-merge)`,
    ]);
    const updated = server.rulesets('rules-token');
    expect(updated.map((ruleset) => ruleset.id)).toEqual([checks?.id, review?.id]);
    expect(JSON.stringify(updated[0]?.rules)).toContain('[{"context":"kimops/validate"}]');
  });

  it("binds the workflow's check to GitHub Actions, so that a status of the same name satisfies nothing", async () => {
    const github = await repoNamed('rules-pinned');
    const outcome = value(
      await setUpBranchRules(github, {
        ...REQUEST,
        reportedBy: { checks: ['validate'], appId: GITHUB_ACTIONS_APP_ID, app: 'GitHub Actions' },
      }),
    );
    expect(server.rulesets('rules-pinned')[0]).toMatchObject({
      rules: [
        { type: 'deletion' },
        { type: 'non_fast_forward' },
        {
          type: 'required_status_checks',
          parameters: {
            required_status_checks: [{ context: 'kimops/validate' }, { context: 'validate', integration_id: 15368 }],
          },
        },
      ],
    });
    expect(outcome.lines[0]).toMatch(
      /: required checks kimops\/validate, validate \(from GitHub Actions only\); no force-push or deletion of main$/,
    );
  });

  it('says which ruleset is in place when GitHub refuses the review ruleset after "kimops: main"', async () => {
    const github = await repoNamed('rules-half');
    // GET /user, the rulesets list and "kimops: main" pass; the review ruleset is refused.
    server.failNext(1, { status: 403, message: 'Resource not accessible by personal access token' }, 3);
    const outcome = value(await setUpBranchRules(github, REQUEST));
    expect(outcome.lines).toEqual([
      expect.stringMatching(/^ruleset "kimops: main" \(id \d+, created\): required checks/),
    ]);
    expect(outcome.missing?.rule).toBe('ruleset "kimops: review"');
    expect(outcome.missing?.failure.message).toMatch(/403 Resource not accessible.*administration: write permission/);
    expect(server.rulesets('rules-half').map((ruleset) => ruleset.name)).toEqual([CHECKS_RULESET]);
  });

  it('names a GitHub App by its id as the bypass actor', async () => {
    const github = await repoNamed('rules-app');
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    server.registerApp(5151, publicKey.export({ type: 'spki', format: 'pem' }).toString(), 88);
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const outcome = value(
      await setUpBranchRules({ ...github, auth: { appId: 5151, privateKey: pem, installationId: 88 } }, REQUEST),
    );
    expect(outcome.notes).toEqual([]);
    expect(server.rulesets('rules-app')[1]).toMatchObject({
      bypass_actors: [{ actor_type: 'Integration', actor_id: 5151, bypass_mode: 'pull_request' }],
    });
  });

  it('falls back to classic branch protection where the ruleset API is missing (an older GitHub Enterprise Server)', async () => {
    const github = await repoNamed('rules-classic');
    server.refuse = { rulesets: 404 };
    try {
      const outcome = value(await setUpBranchRules(github, REQUEST));
      expect(outcome).toEqual({
        how: 'branch-protection',
        lines: [
          'branch protection of main (the ruleset API is not available): required checks kimops/validate, validate; 1 approval by code owners, kimops-bot, the identity init ran as, may merge without; no force-push or deletion',
        ],
        notes: [],
      });
      expect(server.protection('rules-classic', 'main')).toEqual({
        required_status_checks: { strict: false, contexts: ['kimops/validate', 'validate'] },
        enforce_admins: true,
        required_pull_request_reviews: {
          require_code_owner_reviews: true,
          required_approving_review_count: 1,
          dismiss_stale_reviews: true,
          bypass_pull_request_allowances: { users: ['kimops-bot'] },
        },
        restrictions: null,
        allow_force_pushes: false,
        allow_deletions: false,
      });
      expect(server.rulesets('rules-classic')).toEqual([]);
    } finally {
      server.refuse = {};
    }
  });

  it('keeps the review rule without a bypass where no user may bypass, and says what to do', async () => {
    const github = await repoNamed('rules-no-user-bypass');
    server.refuse = { userBypass: 422 };
    try {
      const outcome = value(await setUpBranchRules(github, REQUEST));
      expect(outcome.lines[1]).toMatch(
        /"kimops: review" \(id \d+, created\): 1 approval by code owners; nobody may merge without$/,
      );
      expect(outcome.notes).toEqual([expect.stringContaining('run kimops as a GitHub App')]);
      expect(server.rulesets('rules-no-user-bypass')[1]).toMatchObject({ bypass_actors: [] });
    } finally {
      server.refuse = {};
    }
  });

  it('names the permission or plan when GitHub refuses the rules, and sets up nothing', async () => {
    const github = await repoNamed('rules-refused');
    server.refuse = { rulesets: 403, protection: 403 };
    try {
      const refused = await setUpBranchRules(github, REQUEST);
      expect(refused).toMatchObject({ ok: false, failure: { kind: 'unauthorized' } });
      expect(!refused.ok && refused.failure.message).toMatch(
        /403 Upgrade to GitHub Pro.*administration: write permission, and a plan with them for private repositories/,
      );
      expect(server.rulesets('rules-refused')).toEqual([]);
    } finally {
      server.refuse = {};
    }
  });
});
