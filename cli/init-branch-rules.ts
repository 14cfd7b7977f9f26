// `kimops init` for a repository on GitHub: kimops.yaml requires the validate workflow's check beside kimops's
// own status, and once main is pushed, GitHub's branch rules protect it (adapters/forge/github-branch-rules.ts:
// the required checks, code-owner approval, no force-push or deletion). A repository elsewhere gets neither; on
// GitHub Enterprise, --github-api-url says where its API is. Rules that cannot be set up are a warning with the
// fix: the repository exists by then, and docs/github.md has the same steps by hand.
import { CHECKS_RULESET, GITHUB_ACTIONS_APP_ID, setUpBranchRules } from '../adapters/forge/github-branch-rules.js';
import { GITHUB_API } from '../adapters/forge/github-api.js';
import { MAIN_BRANCH, VALIDATE_CONTEXT } from '../model/contract.js';
import { KIMOPS_YAML, parseKimopsConfig, withRequiredChecks } from '../model/kimops-config.js';
import type { CliIo } from './cli-io.js';
import { githubAuthFromEnv, githubRepoOf } from './landscape-target.js';

/** The check GitHub Actions reports for the validate workflow's job (repo-template/.github/workflows/validate.yml). */
export const WORKFLOW_CHECK = 'validate';

export interface GitHubInitOptions {
  /** GitHub Enterprise: `https://<host>/api/v3`; github.com's API when the URL is on github.com. */
  githubApiUrl?: string;
  /** `owner/name`, when the URL's last two path segments are not. */
  githubRepo?: string;
  /** False (`--no-branch-rules`): push only, set up no rules. */
  branchRules?: boolean;
}

interface GitHubTarget {
  owner: string;
  repo: string;
  baseUrl: string;
}

/** The GitHub repository a URL names: any URL on github.com, any other only with --github-api-url. */
export function githubTargetOf(url: string, options: GitHubInitOptions): GitHubTarget | undefined {
  const onGitHub = /^(www\.)?github\.com$/i.test(new URL(url).hostname);
  if (!onGitHub && options.githubApiUrl === undefined) return undefined;
  return { ...githubRepoOf(url, options.githubRepo), baseUrl: options.githubApiUrl ?? GITHUB_API };
}

/** kimops.yaml as init writes it for a GitHub repository: the workflow's check required too. */
export function requireWorkflowCheck(files: Map<string, string>): void {
  const text = files.get(KIMOPS_YAML) ?? '';
  const checks = parseKimopsConfig(text).requiredChecks;
  const wanted = [...new Set([...(checks.length > 0 ? checks : [VALIDATE_CONTEXT]), WORKFLOW_CHECK])];
  files.set(KIMOPS_YAML, withRequiredChecks(text, wanted));
}

/** Sets up the branch rules of main from the kimops.yaml just pushed; a failure is printed as a warning. */
export async function setUpInitBranchRules(target: GitHubTarget, files: Map<string, string>, io: CliIo): Promise<void> {
  const config = parseKimopsConfig(files.get(KIMOPS_YAML) ?? '');
  // Merges by anyone but kimops need as many approvals as kimops.yaml's strictest review class.
  const approvals = Math.max(
    1,
    ...Object.values(config.mergePolicy).map((policy) => (policy.mode === 'review' ? policy.approvals : 0)),
  );
  // GitHub Actions' App id is github.com's; a GitHub Enterprise Server's own is unknown here.
  const workflowCheck = config.requiredChecks.includes(WORKFLOW_CHECK);
  const onGitHubCom = target.baseUrl === GITHUB_API;
  const result = await setUpBranchRules(
    { ...target, auth: githubAuthFromEnv() },
    {
      branch: MAIN_BRANCH,
      requiredChecks: config.requiredChecks,
      approvals,
      ...(workflowCheck &&
        onGitHubCom && {
          reportedBy: { checks: [WORKFLOW_CHECK], appId: GITHUB_ACTIONS_APP_ID, app: 'GitHub Actions' },
        }),
    },
  );
  if (!result.ok) {
    io.stderr(
      `warning: branch rules of ${MAIN_BRANCH} not set up: ${result.failure.message}\n  the repository is created; set the rules up by hand as docs/github.md describes\n`,
    );
    return;
  }
  const { lines, notes, missing } = result.value;
  io.stdout(`\nbranch rules of ${MAIN_BRANCH} on GitHub:\n${lines.map((line) => `  ${line}\n`).join('')}`);
  if (missing !== undefined)
    io.stderr(
      `warning: ${missing.rule} of ${MAIN_BRANCH} not set up: ${missing.failure.message}\n  only ${lines.length === 1 ? 'the rule' : 'the rules'} above ${lines.length === 1 ? 'is' : 'are'} in place; set ${missing.rule} up by hand as docs/github.md describes\n`,
    );
  for (const note of notes) io.stderr(`note: ${note}\n`);
  if (workflowCheck && !onGitHubCom)
    io.stderr(
      `note: the required check "${WORKFLOW_CHECK}" is not bound to GitHub Actions (its App id on this GitHub is not known to kimops), so a commit status of that name would satisfy it too: pick GitHub Actions as its source in "${CHECKS_RULESET}" (docs/github.md)\n`,
    );
}
