// Where a Runtime's newest change is (status/landscape-status.ts `Stage`), decided from what the three components
// wrote: the Runtime's deletion, leader and state, the generator's facts on it, main's folder and the Shoot's applied
// tree. The rules are taken in order; the first that holds names the stage. Pure.
import type { GeneratorFacts } from '../model/pipeline-facts.js';
import type { RuntimeState } from '../model/runtime-status.js';
import type { Leader } from '../rules/leader.js';
import type { Stage } from './landscape-status.js';

export interface RuntimeStageFacts {
  deleting: boolean;
  leader: Leader;
  state?: RuntimeState;
  generation?: number;
  facts: GeneratorFacts;
  /** Whether main holds the Shoot's folder; undefined when main was not read. */
  inMain?: boolean;
  /**
   * Whether the live Shoot was last applied from main's folder as it is now (false: no Shoot yet, or applied from
   * another tree); undefined when main or the Garden was not read.
   */
  appliedFromMain?: boolean;
  /**
   * The Runtime generation the live Shoot was last rendered from (its runtime-generation annotation): a newer
   * Runtime with no proposal of its own yet is a change, even where the generator wrote no facts (a Runtime
   * bootstrapped or imported into the repo never gets them until its first change is proposed).
   */
  appliedGeneration?: number;
}

export function runtimeStage(runtime: RuntimeStageFacts): Stage {
  if (runtime.deleting) return 'deleting';
  if (runtime.leader === 'kim') return 'kim';
  if (runtime.state === 'Failed' || currentPipelineError(runtime.facts, runtime.generation) !== undefined)
    return 'failed';
  const { facts, generation } = runtime;
  const newer = (than: number | undefined) => than !== undefined && generation !== undefined && than < generation;
  if (newer(facts.generation)) return 'change';
  if (facts.proposal === undefined && runtime.inMain === false) return 'change';
  if (facts.proposal !== undefined && facts.proposal.state !== 'merged') return 'pr';
  if (runtime.appliedFromMain === false) return 'merged';
  if (facts.generation === undefined && newer(runtime.appliedGeneration)) return 'change';
  return runtime.state === 'Ready' ? 'ready' : 'applied';
}

export interface ShootStageFacts {
  deleting: boolean;
  inMain?: boolean;
  appliedFromMain?: boolean;
  /** Gardener's `status.lastOperation.state`. */
  operationState?: string;
}

/** A row of a live Shoot no Runtime names (or every row, when the KCP was not read): Gardener's word decides. */
export function shootStage(shoot: ShootStageFacts): Stage {
  if (shoot.deleting) return 'deleting';
  if (shoot.inMain === true && shoot.appliedFromMain === false) return 'merged';
  if (shoot.operationState === 'Failed') return 'failed';
  return shoot.operationState === 'Succeeded' ? 'ready' : 'applied';
}

/**
 * The generator's error about the Runtime's newest generation, in words: none when the facts are about an older
 * generation (the generator has not caught up; its old error does not answer the new change).
 */
export function currentPipelineError(
  facts: GeneratorFacts,
  generation: number | undefined,
): { reason: string; message: string } | undefined {
  if (facts.generation !== undefined && generation !== undefined && facts.generation < generation) return undefined;
  if (facts.conversionError !== undefined) return { reason: 'ConversionError', message: facts.conversionError };
  if (facts.validationError !== undefined) return { reason: 'ValidationError', message: facts.validationError };
  if (facts.auditLogError !== undefined)
    return { reason: 'AuditLogError', message: `${facts.auditLogError.step}: ${facts.auditLogError.message}` };
  return undefined;
}
