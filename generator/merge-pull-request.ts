// A human's merge of a pull request (`kimops pr merge`): kimops's own merge gate (propose/merge-gate.ts) for
// the recorded head — the class recorded for it, the approvals on it, its kimops/validate status and the
// merge policy of the base's kimops.yaml — then the sha-guarded merge, or past the gate with who and why.
// The gate's inputs are read and the merge done under one hold of the repo's lock: an approval or status
// that changes in between cannot slip past the decision. The forge and repo are handed in.
import type { ForgeFailure } from '../adapters/forge/forge.js';
import type { LocalForge } from '../adapters/forge/local.js';
import type { PullRecord } from '../adapters/forge/pull-record.js';
import type { LandscapeRepo } from '../adapters/git/landscape-repo.js';
import { VALIDATE_CONTEXT } from '../model/contract.js';
import { ConfigError } from '../model/errors.js';
import { KIMOPS_YAML, parseKimopsConfig } from '../model/kimops-config.js';
import { mergeGate, recordedClass } from './propose/merge-gate.js';
import type { MergeDecision } from './propose/merge-policy.js';

/** What the merge reads and writes on the forge. */
type MergeForge = Pick<LocalForge, 'pullRecord' | 'statuses' | 'approvals' | 'mergePullRequest'>;
/** The repo whose lock the merge holds and whose base branch holds kimops.yaml. */
type MergeRepo = Pick<LandscapeRepo, 'withLock' | 'readFile' | 'gitdir'>;

interface MergeRequest {
  number: number;
  /** Merge past the gate: who overrides it and why, recorded in the PR and the merge commit. */
  force?: { by: string; reason: string };
}

type MergeOutcome =
  | { outcome: 'merged'; record: PullRecord; sha: string }
  /** The gate said no (await-review or blocked): nothing was merged. */
  | { outcome: 'refused'; decision: MergeDecision }
  /** The forge refused or failed (no such PR, a moved head, not mergeable). */
  | { outcome: 'failed'; failure: ForgeFailure };

export async function mergePullRequest(
  forge: MergeForge,
  repo: MergeRepo,
  { number, force }: MergeRequest,
): Promise<MergeOutcome> {
  return repo.withLock(`pr merge #${number}`, async (): Promise<MergeOutcome> => {
    const found = await forge.pullRecord(number);
    if (!found.ok) return { outcome: 'failed', failure: found.failure };
    const record = found.value;
    if (force === undefined) {
      const gate = await gateOf(forge, repo, record);
      if ('failure' in gate) return { outcome: 'failed', failure: gate.failure };
      if (gate.action !== 'auto-merge') return { outcome: 'refused', decision: gate };
    }
    // The recorded head is what kimops validated and reviewers saw; a later push must be re-validated first.
    const merged = await forge.mergePullRequest(number, {
      sha: record.headSha,
      method: 'merge',
      ...(force && { breakGlass: force }),
    });
    return merged.ok
      ? { outcome: 'merged', record, sha: merged.value.sha }
      : { outcome: 'failed', failure: merged.failure };
  });
}

/** kimops's own merge decision for the recorded head: the class recorded for it, approvals on it, its validation. */
async function gateOf(
  forge: MergeForge,
  repo: MergeRepo,
  record: PullRecord,
): Promise<MergeDecision | { failure: ForgeFailure }> {
  const configText = await repo.readFile(record.base, KIMOPS_YAML);
  if (configText === undefined)
    throw new ConfigError(
      `${record.base}:${KIMOPS_YAML}`,
      '',
      `not found in ${repo.gitdir}; the merge policy lives there (create the repo with kimops init)`,
    );
  const policy = parseKimopsConfig(configText, `${record.base}:${KIMOPS_YAML}`).mergePolicy;
  const statuses = await forge.statuses(record.headSha);
  const validation = statuses.ok ? statuses.value.find((status) => status.context === VALIDATE_CONTEXT) : undefined;
  const approved = await forge.approvals(record.number);
  if (!approved.ok) return { failure: approved.failure };
  const approvals = approved.value.filter((approval) => approval.commitSha === record.headSha).length;
  return mergeGate({ recorded: recordedClass(record.body, record.headSha), approvals, validation, policy });
}
