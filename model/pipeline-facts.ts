// What the GitOps side knows about one Runtime, carried to the backfiller on the Runtime itself: the
// generator writes it as one annotation (JSON), the backfiller reads it into the Runtime's status. On the
// Runtime because kimops keeps no state outside Git and the Kubernetes APIs, and because the backfiller
// already watches Runtimes: a changed annotation is a Runtime event, so its status follows within a second.
// Pure: values in, values out.
import { isJsonObject } from './json.js';
import { PIPELINE_ANNOTATION } from './contract.js';
import type { AuditLogFailure } from './audit-log.js';

export type ProposalState = 'open' | 'waiting-for-review' | 'merged' | 'blocked';
const PROPOSAL_STATES: readonly ProposalState[] = ['open', 'waiting-for-review', 'merged', 'blocked'];

export interface Proposal {
  /** Where a human reviews it (the PR). */
  url: string;
  state: ProposalState;
  /** The merge commit on main, once merged. */
  commit?: string;
}

/** What the GitOps side knows about the Runtime; every field optional. */
export interface PipelineState {
  /**
   * The Runtime generation these facts are about. When it is lower than the Runtime's, the generator has not
   * caught up with the newest change yet: the failures below are then stale and do not fail the Runtime (it is
   * Pending), so a failure of generation N never answers KEB's update to N+1. Omitted: the facts are current.
   */
  generation?: number;
  /** The generator could not convert the Runtime (the text after KIM's "Runtime conversion error "). */
  conversionError?: string;
  /** The rendered Shoot violates the landscape's policies. */
  validationError?: string;
  /**
   * The generator could not reserve or claim the Runtime's dedicated audit log (KALM's AuditLog pool, ADR 0003):
   * which step, and KIM's error text for the Runtime's condition.
   */
  auditLogError?: AuditLogFailure;
  proposal?: Proposal;
  /** applier/seeds.ts's `SeedNotFound` message (only meaningful before the Shoot exists). */
  seedNotFound?: string;
  /**
   * The applier's write was refused (create or update; during deletion the delete). Pass only errors the
   * applier will not get past by retrying (a rejection), not a passing 409 or 5xx.
   */
  applyError?: string;
  /** The applier could not configure the Shoot's cluster (the SKR objects of its folder): the step that failed. */
  skrError?: SkrError;
  /**
   * The applier could not copy a registry cache's credentials from the SKR into the garden Secret the Shoot names,
   * before writing the Shoot (KIM's message); keyed by the folder's tree it tried, like skrError.
   */
  registryCacheError?: RegistryCacheError;
}

export interface RegistryCacheError {
  /** KIM's: `failed to copy secret for registry cache <name>: <err>`, `failed to replace secret …`, or the SKR client's. */
  message: string;
  tree: string;
}

/** The SKR steps in KIM's order, after `client`: the short-lived admin kubeconfig Gardener issues for the Shoot. */
export type SkrStep = 'namespace' | 'provisioning-info' | 'oidc' | 'administrators';
export const SKR_ERROR_STEPS: readonly SkrError['step'][] = [
  'client',
  'namespace',
  'provisioning-info',
  'oidc',
  'administrators',
  'registry-cache',
];

export interface SkrError {
  /** `registry-cache`: KIM's cleanup of unused garden Secrets, after the Namespace (a Garden step, not the SKR's). */
  step: 'client' | SkrStep | 'registry-cache';
  message: string;
  /** The Shoot folder's tree whose SKR objects the applier tried: about the applied tree only while it is that one. */
  tree: string;
}

/** The generator's part of PipelineState: what its annotation may carry. */
export type GeneratorFacts = Pick<
  PipelineState,
  'generation' | 'conversionError' | 'validationError' | 'auditLogError' | 'proposal'
>;

const AUDIT_LOG_FAILURE_STEPS: readonly AuditLogFailure['step'][] = ['reserve', 'claim'];

/** Messages are cut here: an annotation is read on every status write, and KEB's operators read the first lines. */
const MESSAGE_LIMIT = 2_000;

/** The annotation's value: JSON with a fixed key order, so equal facts give equal text and no write. */
export function pipelineAnnotationValue(facts: GeneratorFacts): string {
  const cut = (text: string | undefined) =>
    text === undefined || text.length <= MESSAGE_LIMIT ? text : `${text.slice(0, MESSAGE_LIMIT - 1)}…`;
  const proposal = facts.proposal && {
    url: facts.proposal.url,
    state: facts.proposal.state,
    ...(facts.proposal.commit !== undefined && { commit: facts.proposal.commit }),
  };
  return JSON.stringify({
    ...(facts.generation !== undefined && { generation: facts.generation }),
    ...(facts.conversionError !== undefined && { conversionError: cut(facts.conversionError) }),
    ...(facts.validationError !== undefined && { validationError: cut(facts.validationError) }),
    ...(facts.auditLogError !== undefined && {
      auditLogError: { step: facts.auditLogError.step, message: cut(facts.auditLogError.message) },
    }),
    ...(proposal && { proposal }),
  });
}

/**
 * The generator's facts as the Runtime carries them. An annotation that is no such JSON (edited by hand, written
 * by another version) reads as no facts: the status then follows the Shoot alone, as without a generator.
 */
export function readPipelineAnnotation(annotations: Readonly<Record<string, string>> | undefined): GeneratorFacts {
  const text = annotations?.[PIPELINE_ANNOTATION];
  if (text === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return {};
  }
  if (!isJsonObject(value)) return {};
  const facts: GeneratorFacts = {};
  if (typeof value.generation === 'number' && Number.isSafeInteger(value.generation))
    facts.generation = value.generation;
  if (typeof value.conversionError === 'string') facts.conversionError = value.conversionError;
  if (typeof value.validationError === 'string') facts.validationError = value.validationError;
  const auditLogError = value.auditLogError;
  if (
    isJsonObject(auditLogError) &&
    AUDIT_LOG_FAILURE_STEPS.includes(auditLogError.step as AuditLogFailure['step']) &&
    typeof auditLogError.message === 'string'
  )
    facts.auditLogError = { step: auditLogError.step as AuditLogFailure['step'], message: auditLogError.message };
  const proposal = value.proposal;
  if (
    isJsonObject(proposal) &&
    typeof proposal.url === 'string' &&
    PROPOSAL_STATES.includes(proposal.state as ProposalState)
  ) {
    facts.proposal = {
      url: proposal.url,
      state: proposal.state as ProposalState,
      ...(typeof proposal.commit === 'string' && { commit: proposal.commit }),
    };
  }
  return facts;
}

/**
 * The generator's facts with the applier's (its report, rules/apply-report.ts) for the same Runtime. The
 * applier's are about the Runtime generation its desired Shoot was rendered from: older than the Runtime's,
 * they say nothing about KEB's newest change and are left out.
 */
export function withApplyFacts(
  generator: GeneratorFacts,
  apply:
    Pick<PipelineState, 'generation' | 'seedNotFound' | 'applyError' | 'skrError' | 'registryCacheError'> | undefined,
  runtimeGeneration: number | undefined,
): PipelineState {
  if (
    !apply ||
    (apply.generation !== undefined && runtimeGeneration !== undefined && apply.generation < runtimeGeneration)
  )
    return generator;
  return {
    ...generator,
    ...(apply.seedNotFound !== undefined && { seedNotFound: apply.seedNotFound }),
    ...(apply.applyError !== undefined && { applyError: apply.applyError }),
    ...(apply.skrError !== undefined && { skrError: apply.skrError }),
    ...(apply.registryCacheError !== undefined && { registryCacheError: apply.registryCacheError }),
  };
}
