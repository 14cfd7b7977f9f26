// A human's merge of a pull request (`kimops pr merge`): kimops's own merge gate (propose/merge-gate.ts) for
// the recorded head — the class recorded for it, the approvals on it that count (its code owners'), its
// kimops/validate status, the checks the base's kimops.yaml requires and its merge policy — then the sha-guarded
// merge, or past the gate with who and why, and the branch deleted when it is kimops's and still at the head
// kimops wrote.
// The gate's inputs are read and the merge done under one hold of the repo's lock: an approval or status
// that changes in between cannot slip past the decision. The forge and repo are handed in.
import type { ForgeFailure } from '../adapters/forge/forge.js';
import type { LocalForge } from '../adapters/forge/local.js';
import type { PullRecord } from '../adapters/forge/pull-record.js';
import type { LandscapeRepo } from '../adapters/git/landscape-repo.js';
import { BRANCH_PREFIX, VALIDATE_CONTEXT } from '../model/contract.js';
import { ConfigError } from '../model/errors.js';
import { KIMOPS_YAML, parseKimopsConfig, type KimopsConfig } from '../model/kimops-config.js';
import type { LogLine } from '../model/log.js';
import { deleteProposalBranch } from './branch-cleanup.js';
import { countApprovals, filesChanged, readCodeOwners } from './code-owner-approvals.js';
import { mergeGate, recordedClass } from './propose/merge-gate.js';
import { onlyKimopsReports, type MergeDecision } from './propose/merge-policy.js';

/** What the merge reads and writes on the forge. */
type MergeForge = Pick<
  LocalForge,
  | 'pullRecord'
  | 'statuses'
  | 'checksOf'
  | 'checkReporters'
  | 'approvals'
  | 'isTeamMember'
  | 'mergePullRequest'
  | 'deleteBranch'
>;
/**
 * The repo whose lock the merge holds and whose base branch holds kimops.yaml and CODEOWNERS; `firstParent` (the
 * main a head kimops wrote was written on) tells which files the PR changes.
 */
type MergeRepo = Pick<LandscapeRepo, 'withLock' | 'readFile' | 'listFolder' | 'gitdir'> & {
  firstParent(commit: string): Promise<string | undefined>;
};

interface MergeRequest {
  number: number;
  /** Merge past the gate: who overrides it and why, recorded in the PR and the merge commit. */
  force?: { by: string; reason: string };
  /** Where a branch that could not be deleted after the merge is reported; the merge stands either way. */
  log?: LogLine;
}

type MergeOutcome =
  | { outcome: 'merged'; record: PullRecord; sha: string; branchDeleted: boolean }
  /** The gate said no (await-review, await-checks or blocked): nothing was merged. */
  | { outcome: 'refused'; decision: MergeDecision }
  /** The forge refused or failed (no such PR, a moved head, not mergeable). */
  | { outcome: 'failed'; failure: ForgeFailure };

export async function mergePullRequest(
  forge: MergeForge,
  repo: MergeRepo,
  { number, force, log = () => undefined }: MergeRequest,
): Promise<MergeOutcome> {
  return repo.withLock(`pr merge #${number}`, async (): Promise<MergeOutcome> => {
    const found = await forge.pullRecord(number);
    if (!found.ok) return { outcome: 'failed', failure: found.failure };
    const record = found.value;
    // Past the gate, kimops.yaml is not read: a break-glass merge works even when the file is what is broken.
    if (force === undefined) {
      const config = configOf(repo, await repo.readFile(record.base, KIMOPS_YAML), record.base);
      const gate = await gateOf(forge, repo, config, record);
      if ('failure' in gate) return { outcome: 'failed', failure: gate.failure };
      if (gate.action !== 'auto-merge') return { outcome: 'refused', decision: gate };
    }
    // The recorded head is what kimops validated and reviewers saw; a later push must be re-validated first.
    const merged = await forge.mergePullRequest(number, {
      sha: record.headSha,
      method: 'merge',
      ...(force && { breakGlass: force }),
    });
    if (!merged.ok) return { outcome: 'failed', failure: merged.failure };
    const branchDeleted = await deleteProposalBranch(
      { forge, log },
      { number, branch: record.branch, headSha: record.headSha, body: record.body },
      [BRANCH_PREFIX],
    );
    return { outcome: 'merged', record, sha: merged.value.sha, branchDeleted };
  });
}

function configOf(repo: MergeRepo, text: string | undefined, base: string): KimopsConfig {
  if (text === undefined)
    throw new ConfigError(
      `${base}:${KIMOPS_YAML}`,
      '',
      `not found in ${repo.gitdir}; the merge policy lives there (create the repo with kimops init)`,
    );
  return parseKimopsConfig(text, `${base}:${KIMOPS_YAML}`);
}

/** kimops's own merge decision for the recorded head: its class, approvals, validation and required checks. */
async function gateOf(
  forge: MergeForge,
  repo: MergeRepo,
  config: KimopsConfig,
  record: PullRecord,
): Promise<MergeDecision | { failure: ForgeFailure }> {
  const statuses = await forge.statuses(record.headSha);
  const validation = statuses.ok ? statuses.value.find((status) => status.context === VALIDATE_CONTEXT) : undefined;
  const reported = await forge.checksOf(record.headSha, { checkRunsFor: config.requiredChecks });
  if (!reported.ok) return { failure: reported.failure };
  const approved = await forge.approvals(record.number);
  if (!approved.ok) return { failure: approved.failure };
  // Whose approvals count: the code owners of the files the head changes, by CODEOWNERS on the base.
  const rules = await readCodeOwners(repo, record.base);
  const paths =
    rules.length === 0 ? [] : await filesChanged(repo, await repo.firstParent(record.headSha), record.headSha);
  const approvals = await countApprovals(forge, { rules, paths, approvals: approved.value, head: record.headSha });
  if (!approvals.ok) return { failure: approvals.failure };
  return mergeGate({
    recorded: recordedClass(record.body, record.headSha),
    approvals: approvals.value,
    validation,
    policy: config.mergePolicy,
    checks: {
      required: config.requiredChecks,
      reported: reported.value,
      ...(forge.checkReporters === 'kimops' && { unreportable: onlyKimopsReports }),
    },
  });
}
