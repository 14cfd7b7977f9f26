// One row per Runtime, and one per live Shoot no Runtime names (every Shoot when the KCP was not read): its stage,
// PR, main's tree against the applied one, drift, Gardener's last operation, kubeconfig expiry, why it failed, and
// the timeline of its newest change. Pure.
import type { PullRequest } from '../adapters/forge/forge.js';
import {
  ANNOTATION_RUNTIME_GENERATION,
  APPLIED_COMMIT_ANNOTATION,
  APPLIED_TREE_ANNOTATION,
  branchOf,
  LABEL_RUNTIME_ID,
} from '../model/contract.js';
import { cutCredentialShapes } from '../model/credential-shapes.js';
import { readPipelineAnnotation, type GeneratorFacts } from '../model/pipeline-facts.js';
import { CONDITION_READY, CONDITION_STALLED, type RuntimeShootLastOperation } from '../model/runtime-status.js';
import { runtimeLeader } from '../rules/leader.js';
import type { RowPullRequest, RuntimeRow, SyncState } from './landscape-status.js';
import { rowPullRequest } from './pull-requests.js';
import { currentPipelineError, runtimeStage, shootStage } from './stage.js';
import type { StatusInput, StatusRuntime, StatusShoot } from './status-input.js';
import { timelineOf } from './timeline.js';

/** Object ids as the rest of kimops prints them. */
const SHORT_OID = 12;
/** A message longer than this is cut: it is read in a table and on a page, not parsed. */
const MESSAGE_LIMIT = 2_000;

/** What every row is built with: the input, indexed once. */
export interface RowContext {
  input: StatusInput;
  shoots?: ReadonlyMap<string, StatusShoot>;
  byNumber: ReadonlyMap<number, PullRequest>;
  openByBranch: ReadonlyMap<string, PullRequest>;
  /** The field managers of kimops's own writes to a Runtime. */
  ownManagers: ReadonlySet<string>;
}

export function rowContext(input: StatusInput, ownManagers: ReadonlySet<string>): RowContext {
  const pullRequests = input.pullRequests ?? [];
  return {
    input,
    ...(input.shoots && { shoots: new Map(input.shoots.map((shoot) => [shoot.name, shoot])) }),
    byNumber: new Map(pullRequests.map((pr) => [pr.number, pr])),
    openByBranch: new Map(pullRequests.filter((pr) => pr.state === 'open').map((pr) => [pr.branch, pr])),
    ownManagers,
  };
}

export function runtimeRow(runtime: StatusRuntime, context: RowContext): RuntimeRow {
  const { input } = context;
  const shootName = runtime.shootName ?? '';
  const shoot = context.shoots?.get(shootName);
  const facts = readPipelineAnnotation(runtime.annotations);
  const { leader, problem: leaderProblem } = runtimeLeader(
    { metadata: { ...(runtime.labels && { labels: { ...runtime.labels } }) } },
    { ...(input.defaultLeader && { defaultLeader: input.defaultLeader }) },
  );
  const place = placeOf(shootName, shoot, context);
  const pr = rowPullRequest(
    facts.proposal,
    branchOf(input.landscape, shootName),
    context.byNumber,
    context.openByBranch,
  );
  const mergeCommit = facts.proposal?.state === 'merged' ? facts.proposal.commit : undefined;
  const mergedAt = mergeCommit === undefined ? undefined : input.mergedAt.get(mergeCommit);
  const id = runtime.labels?.[LABEL_RUNTIME_ID];
  const syncedAt = id === undefined ? undefined : input.kubeconfigSyncs?.get(id);
  const expiresAt = syncedAt === undefined ? undefined : plusSeconds(syncedAt, input.kubeconfigExpirationSeconds);
  const lastOperation = shoot?.lastOperation ?? runtime.status.shootLastOperation;
  // A leader label kimops cannot read: the Runtime is left to KIM, which the row says with the fix.
  const failure = leaderProblem
    ? { reason: 'LeaderLabel', message: `${leaderProblem.field}: ${leaderProblem.detail}` }
    : runtimeFailure(runtime, facts, shoot);
  return {
    key: `${runtime.namespace}/${runtime.name}`,
    runtime: {
      namespace: runtime.namespace,
      name: runtime.name,
      ...(id !== undefined && { id }),
      ...(runtime.generation !== undefined && { generation: runtime.generation }),
      ...(runtime.status.state !== undefined && { state: runtime.status.state }),
      leader,
    },
    shoot: shootName,
    stage: runtimeStage({
      deleting: runtime.deletionTimestamp !== undefined,
      leader,
      ...(runtime.status.state !== undefined && { state: runtime.status.state }),
      ...(runtime.generation !== undefined && { generation: runtime.generation }),
      facts: mergedByForge(facts, pr),
      ...place.stageFacts,
      ...(appliedGeneration(shoot) !== undefined && { appliedGeneration: appliedGeneration(shoot) }),
    }),
    ...(pr && { pr }),
    ...place.fields,
    ...(lastOperation && { lastOperation: lastOperationOf(lastOperation) }),
    ...(syncedAt !== undefined && expiresAt !== undefined && { kubeconfig: { syncedAt, expiresAt } }),
    ...(failure && { failure: cut(failure) }),
    timeline: timelineOf({
      runtime,
      ownManagers: context.ownManagers,
      ...(pr?.openedAt !== undefined && { proposedAt: pr.openedAt }),
      ...(mergedAt !== undefined && { mergedAt }),
      mergeCommits: [mergeCommit, pr && context.byNumber.get(pr.number)?.mergeCommitSha].filter(
        (commit): commit is string => commit !== undefined,
      ),
      ...(shoot?.annotations?.[APPLIED_COMMIT_ANNOTATION] !== undefined && {
        appliedCommit: shoot.annotations[APPLIED_COMMIT_ANNOTATION],
      }),
      ...(shoot && { shoot }),
      fieldManager: input.fieldManager,
    }),
  };
}

export function shootRow(shoot: StatusShoot, context: RowContext): RuntimeRow {
  const place = placeOf(shoot.name, shoot, context);
  const operation = shoot.lastOperation;
  const failure = shootFailure(shoot);
  return {
    key: `shoot/${shoot.name}`,
    shoot: shoot.name,
    stage: shootStage({
      deleting: shoot.deletionTimestamp !== undefined,
      ...place.stageFacts,
      ...(operation && { operationState: operation.state }),
    }),
    ...place.fields,
    ...(operation && { lastOperation: lastOperationOf(operation) }),
    ...(failure && { failure: cut(failure) }),
    timeline: timelineOf({ ownManagers: context.ownManagers, shoot, fieldManager: context.input.fieldManager }),
  };
}

/** The Shoot against main: the row's fields and what the stage rule needs of them. */
function placeOf(shootName: string, shoot: StatusShoot | undefined, context: RowContext) {
  const { main } = context.input;
  const mainTree = main?.folders.get(shootName);
  const appliedTree = shoot?.annotations?.[APPLIED_TREE_ANNOTATION];
  const appliedCommit = shoot?.annotations?.[APPLIED_COMMIT_ANNOTATION];
  const known = main !== undefined && context.shoots !== undefined;
  const sync = syncOf(known, mainTree, shoot, appliedTree);
  return {
    stageFacts: {
      ...(main && { inMain: mainTree !== undefined }),
      ...(known && { appliedFromMain: appliedTree !== undefined && appliedTree === mainTree }),
    },
    fields: {
      ...(mainTree !== undefined && { mainTree: mainTree.slice(0, SHORT_OID) }),
      ...((appliedTree !== undefined || appliedCommit !== undefined) && {
        applied: {
          ...(appliedCommit !== undefined && { commit: appliedCommit.slice(0, SHORT_OID) }),
          ...(appliedTree !== undefined && { tree: appliedTree.slice(0, SHORT_OID) }),
        },
      }),
      sync,
      ...(sync === 'drifted' && { drift: [...(shoot?.drift ?? [])] }),
    },
  };
}

function syncOf(
  known: boolean,
  mainTree: string | undefined,
  shoot: StatusShoot | undefined,
  appliedTree: string | undefined,
): SyncState {
  if (!known) return 'unknown';
  if (mainTree === undefined) return 'not-in-main';
  if (shoot === undefined || appliedTree === undefined) return 'not-applied';
  if (appliedTree !== mainTree) return 'out-of-sync';
  // Drift not told (main's file unreadable): unknown, never in sync by default.
  if (shoot.drift === undefined) return 'unknown';
  return shoot.drift.length > 0 ? 'drifted' : 'in-sync';
}

/**
 * Why a Runtime fails or is stuck: the backfiller's Stalled condition (its message names the fix), else the
 * generator's error about its newest generation (the backfiller has not written it yet), else the condition that
 * decided a Failed state, else Gardener's failed operation.
 */
function runtimeFailure(
  runtime: StatusRuntime,
  facts: GeneratorFacts,
  shoot: StatusShoot | undefined,
): { reason: string; message: string } | undefined {
  const conditions = runtime.status.conditions ?? [];
  const stalled = conditions.find((c) => c.type === CONDITION_STALLED && c.status === 'True');
  if (stalled) return { reason: stalled.reason, message: stalled.message };
  const pipeline = currentPipelineError(facts, runtime.generation);
  if (pipeline) return pipeline;
  const failing =
    runtime.status.state === 'Failed'
      ? (conditions.find((c) => c.type === CONDITION_READY && c.status === 'False') ??
        conditions.find((c) => c.status === 'False'))
      : undefined;
  if (failing) return { reason: failing.reason, message: failing.message };
  return shoot ? shootFailure(shoot) : undefined;
}

/** The Runtime generation the Shoot was last rendered from (its KIM annotation), when it carries a number. */
function appliedGeneration(shoot: StatusShoot | undefined): number | undefined {
  const text = shoot?.annotations?.[ANNOTATION_RUNTIME_GENERATION];
  return text !== undefined && /^\d+$/.test(text) ? Number(text) : undefined;
}

function shootFailure(shoot: StatusShoot): { reason: string; message: string } | undefined {
  const operation = shoot.lastOperation;
  if (operation?.state !== 'Failed' && operation?.state !== 'Error') return undefined;
  return { reason: `Shoot ${operation.type} ${operation.state}`, message: textOf(operation.description) };
}

function cut(failure: { reason: string; message: string }): { reason: string; message: string } {
  const message = cutCredentialShapes(failure.message);
  return {
    reason: cutCredentialShapes(failure.reason),
    message: message.length <= MESSAGE_LIMIT ? message : `${message.slice(0, MESSAGE_LIMIT - 1)}…`,
  };
}

function lastOperationOf(
  operation: NonNullable<StatusShoot['lastOperation']> | RuntimeShootLastOperation,
): NonNullable<RuntimeRow['lastOperation']> {
  // Read as Gardener's API promises it, whatever a Shoot holds: a wrong type is no value, never a crash of the status.
  const description = textOf(operation.description);
  return {
    type: textOf(operation.type),
    state: textOf(operation.state),
    progress: typeof operation.progress === 'number' ? operation.progress : 0,
    ...(textOf(operation.lastUpdateTime) !== '' && { at: textOf(operation.lastUpdateTime) }),
    ...(description !== '' && { description: cutCredentialShapes(description) }),
  };
}

function textOf(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** Undefined for a time that is none (an annotation written by hand): no expiry is better than a wrong one. */
function plusSeconds(time: string, seconds: number): string | undefined {
  const at = Date.parse(time);
  return Number.isNaN(at) ? undefined : new Date(at + seconds * 1000).toISOString().replace(/\.000Z$/, 'Z');
}

/** The generator's facts with its proposal merged where the forge says so already (a merge since its last pass). */
function mergedByForge(facts: GeneratorFacts, pr: RowPullRequest | undefined): GeneratorFacts {
  if (pr?.state !== 'merged' || facts.proposal === undefined || facts.proposal.state === 'merged') return facts;
  return { ...facts, proposal: { ...facts.proposal, state: 'merged' } };
}
