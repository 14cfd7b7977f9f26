// What a generator pass learned about each Runtime, as the annotation the backfiller turns into the
// Runtime's status (model/pipeline-facts.ts): a conversion error, the PR of its change and whether it waits,
// is blocked or merged, and that main holds its Shoot. Pure: the pass's result and the Runtimes in, the
// annotation writes out — only where the text would change, so a pass that learned nothing new writes nothing.
// With them the writes that settle force-patch-reconciliation requests (force-patch.ts). Nothing for a Runtime KIM
// leads: KIM writes onto it, and kimops only shadows it (ADR 0011).
import {
  pipelineAnnotationValue,
  readPipelineAnnotation,
  type GeneratorFacts,
  type Proposal,
  type ProposalState,
} from '../model/pipeline-facts.js';
import { PIPELINE_ANNOTATION } from '../model/contract.js';
import { runtimeRef, type Runtime } from '../model/runtime.js';
import { forcePatchWrites, type ForcePatchWrite } from './force-patch.js';
import type { GenerateResult, ShootOutcome } from './generate.js';

/** One write onto a Runtime: its pipeline annotation, or the settling of its force-patch request. */
export type FactsWrite = PipelineWrite | ForcePatchWrite;

interface PipelineWrite {
  runtime: Runtime;
  /** The annotation's new text; null removes it. */
  value: string | null;
}

/**
 * The change classes a Runtime asks for, outside a rollout; a rollout, an adopt or a delete is not the Runtime's
 * change. metadata-only is, when no rollout carries it: a forced re-apply, or a generation that changes nothing else.
 */
const RUNTIME_CLASSES: ReadonlySet<ShootOutcome['class']> = new Set([
  'create',
  'update',
  'immutable',
  'metadata-only',
  'skr',
]);

const STATE_OF: Record<ShootOutcome['action'], ProposalState> = {
  'auto-merge': 'merged',
  'await-review': 'waiting-for-review',
  // Open, its merge due once CI reports: not waiting for a person.
  'await-checks': 'open',
  blocked: 'blocked',
  'merge-refused': 'open',
  'left-to-human': 'open',
};

type PassFacts = Pick<
  GenerateResult,
  'failures' | 'proposed' | 'inMain' | 'mainCommit' | 'forcePatch' | 'auditLogFailures' | 'kimLed'
>;

export function runtimeFactWrites(runtimes: readonly Runtime[], result: PassFacts): FactsWrite[] {
  const failures = new Map(result.failures.map((failure) => [failure.runtime, failure]));
  const refOf = (p: ShootOutcome) => `${p.runtime.namespace}/${p.runtime.name}`;
  const own = (p: ShootOutcome) => !p.rollout && RUNTIME_CLASSES.has(p.class);
  const proposals = new Map(result.proposed.filter(own).map((p) => [refOf(p), p]));
  // A change no Runtime asked for (a rollout wave, even a blocked one; an adoption) says the Runtime's own change
  // is on main, like a render main holds: it never fails the Runtime, and earlier errors are gone.
  const inMain = new Set([
    ...result.inMain,
    ...result.proposed.filter((p) => !own(p) && p.class !== 'delete').map(refOf),
  ]);
  const writes: PipelineWrite[] = [];
  const kimLed = new Set(result.kimLed ?? []);
  for (const runtime of runtimes) {
    const ref = runtimeRef(runtime);
    if (kimLed.has(ref)) continue;
    const current = runtime.metadata.annotations?.[PIPELINE_ANNOTATION];
    const generation = typeof runtime.metadata.generation === 'number' ? runtime.metadata.generation : undefined;
    const at = generation !== undefined ? { generation } : {};
    const failure = failures.get(ref);
    const proposal = proposals.get(ref);
    let facts: GeneratorFacts | undefined;
    if (failure) {
      // RenderFailure's message is `runtime <ns>/<name>: <field>: <reason>`: the Runtime is the status's own.
      facts = { ...at, conversionError: failure.message.replace(`runtime ${ref}: `, '') };
    } else if (proposal) {
      facts = {
        ...at,
        proposal: proposalOf(proposal),
        ...(proposal.failedChecks.length > 0 && { validationError: proposal.failedChecks.join('; ') }),
      };
    } else if (inMain.has(ref)) {
      // Main holds its Shoot: an open or blocked proposal of an earlier pass has been merged (by a reviewer);
      // errors of earlier generations are gone. Nothing to say for a Runtime that never had facts.
      if (current !== undefined) {
        const earlier = readPipelineAnnotation(runtime.metadata.annotations).proposal;
        facts = { ...at, ...(earlier && { proposal: merged(earlier, result.mainCommit) }) };
      }
    } else if (current !== undefined) {
      // Nothing else learned (the render memo skipped the Runtime): an audit-log failure of an earlier pass that this
      // one no longer has (the pool served it, or the switch went off) must not keep the Runtime Failed.
      const { auditLogError: stale, ...earlier } = readPipelineAnnotation(runtime.metadata.annotations);
      if (stale !== undefined) facts = earlier;
    }
    // What the pass could not do with the AuditLog pool comes with whatever else it learned (a claim that failed
    // leaves the Shoot as main holds it); a Runtime it held has nothing else to say.
    const auditLogError = result.auditLogFailures?.get(ref);
    if (auditLogError) facts = { ...at, ...facts, auditLogError };
    if (!facts) continue;
    // Facts that say nothing but the generation: the annotation goes (absent means all is in main).
    const value = Object.keys(facts).some((key) => key !== 'generation') ? pipelineAnnotationValue(facts) : null;
    if (value !== (current ?? null)) writes.push({ runtime, value });
  }
  return [...writes, ...forcePatchWrites(runtimes, result.forcePatch ?? [])];
}

function proposalOf(outcome: ShootOutcome): Proposal {
  return {
    url: outcome.url,
    state: STATE_OF[outcome.action],
    ...(outcome.mergeCommit !== undefined && { commit: outcome.mergeCommit }),
  };
}

/** A proposal main now holds; the merge commit where this pass merged it, else the main it found it on. */
function merged(proposal: Proposal, mainCommit: string | undefined): Proposal {
  if (proposal.state === 'merged') return proposal;
  return { url: proposal.url, state: 'merged', ...(mainCommit !== undefined && { commit: mainCommit }) };
}
