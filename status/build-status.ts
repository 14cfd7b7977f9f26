// The landscape's status at one moment (status/landscape-status.ts), built from what the gatherer read: the rows,
// the open pull requests and rollouts, the latency histograms and the summary that counts them. The same input and
// `now` give the same document, so `kimops status` and the status page say the same. Pure.
import { FIELD_MANAGER } from '../model/contract.js';
import { cutCredentialShapes } from '../model/credential-shapes.js';
import { readPipelineAnnotation, type ProposalState } from '../model/pipeline-facts.js';
import { byCodeUnit } from '../rules/field-differences.js';
import { STATUS_API_VERSION, type LandscapeStatus, type RuntimeRow, type StatusSummary } from './landscape-status.js';
import { latencyHistograms } from './latency.js';
import { openPullRequests, pullRequestNumberOf } from './pull-requests.js';
import { rowContext, runtimeRow, shootRow } from './rows.js';
import type { StatusInput } from './status-input.js';

/** A kubeconfig that expires within this long counts as expiring. */
const EXPIRING_WITHIN_MS = 3_600_000;

/**
 * The field managers of kimops's own writes to a Runtime (the generator's annotation, the backfiller's finalizer;
 * its status is a subresource and never counts): `kimops` by name, and `unknown`, kube-apiserver's name for a write
 * that names no field manager from a client that sends no User-Agent, as kimops's client (adapters/kube/kube-client.ts)
 * does not. KEB's client names itself.
 */
const OWN_RUNTIME_MANAGERS = [FIELD_MANAGER, 'unknown'];

export function buildStatus(input: StatusInput, now: Date): LandscapeStatus {
  const context = rowContext(input, new Set([...OWN_RUNTIME_MANAGERS, input.fieldManager]));
  const runtimeRows = (input.runtimes ?? []).map((runtime) => runtimeRow(runtime, context));
  const named = new Set(runtimeRows.map((row) => row.shoot));
  const shootRows = (input.shoots ?? [])
    .filter((shoot) => !named.has(shoot.name))
    .map((shoot) => shootRow(shoot, context));
  const rows = [...runtimeRows, ...shootRows].sort((a, b) => byCodeUnit(a.key, b.key));
  const { pullRequests, rollouts } = openPullRequests(input.landscape, input.pullRequests ?? [], proposalStates(input));
  return {
    apiVersion: STATUS_API_VERSION,
    landscape: input.landscape,
    generatedAt: now.toISOString(),
    // A source's message quotes a client's error (a server, a URL): cut like every message the status shows.
    sources: input.sources.map((source) =>
      source.message === undefined ? { ...source } : { ...source, message: cutCredentialShapes(source.message) },
    ),
    ...(input.main && {
      main: {
        commit: input.main.commit,
        ...(input.main.committedAt !== undefined && { committedAt: input.main.committedAt }),
      },
    }),
    summary: summaryOf(rows, shootRows.length, pullRequests, now),
    pullRequests,
    rollouts,
    // A Runtime KIM leads went through KIM, one being deleted goes nowhere: neither times kimops's way to Ready.
    latency: latencyHistograms(
      rows.filter((row) => row.stage !== 'kim' && row.stage !== 'deleting').map((row) => row.timeline),
    ),
    rows,
  };
}

/** What each Runtime's proposal says of its PR: what an open PR waits for. */
function proposalStates(input: StatusInput): Map<number, ProposalState> {
  const states = new Map<number, ProposalState>();
  for (const runtime of input.runtimes ?? []) {
    const proposal = readPipelineAnnotation(runtime.annotations).proposal;
    const number = proposal && pullRequestNumberOf(proposal.url);
    if (proposal && number !== undefined) states.set(number, proposal.state);
  }
  return states;
}

function summaryOf(
  rows: readonly RuntimeRow[],
  orphanedShoots: number,
  pullRequests: LandscapeStatus['pullRequests'],
  now: Date,
): StatusSummary {
  const summary: StatusSummary = {
    runtimes: 0,
    orphanedShoots,
    byState: {},
    byStage: {},
    byClass: {},
    openPullRequests: pullRequests.length,
    drifted: 0,
    outOfSync: 0,
    failed: 0,
    kubeconfigsExpiring: 0,
  };
  const count = <K extends string>(record: Partial<Record<K, number>>, key: K) =>
    void (record[key] = (record[key] ?? 0) + 1);
  for (const row of rows) {
    if (row.runtime) {
      summary.runtimes += 1;
      count(summary.byState, row.runtime.state ?? 'Unknown');
    }
    count(summary.byStage, row.stage);
    if (row.sync === 'drifted') summary.drifted += 1;
    if (row.sync === 'out-of-sync') summary.outOfSync += 1;
    if (row.stage === 'failed') summary.failed += 1;
    if (row.kubeconfig && Date.parse(row.kubeconfig.expiresAt) - now.getTime() <= EXPIRING_WITHIN_MS)
      summary.kubeconfigsExpiring += 1;
  }
  for (const pr of pullRequests) if (pr.class !== undefined) count(summary.byClass, pr.class);
  const oldest = pullRequests
    .map((pr) => pr.openedAt)
    .filter((at): at is string => at !== undefined)
    .sort()[0];
  if (oldest !== undefined) summary.oldestPullRequestOpenedAt = oldest;
  return summary;
}
