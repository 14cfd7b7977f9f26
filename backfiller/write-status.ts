// The Runtime's status written: what status.ts computes, through the status subresource with optimistic
// concurrency, only when it changed, with KIM's Events and what the metrics need.
import { readPipelineAnnotation, withApplyFacts, type PipelineState } from '../model/pipeline-facts.js';
import { readRuntimeStatus, type RuntimeStatus } from '../model/runtime-status.js';
import type { ApplyFacts } from '../rules/apply-report.js';
import { copyReadCredentials } from './audit-log-copy.js';
import { readyAfterSeconds, runtimeStateSeries, type RuntimeProgress } from './metrics.js';
import { RUNTIME_TYPE, type RuntimeObject, type ShootObject } from './objects.js';
import type { RuntimeOutcome } from './outcome.js';
import type { BackfillContext } from './ports.js';
import { recordEvent } from './runtime-events.js';
import {
  type AuditLogFacts,
  appliedRuntimeGeneration,
  conditionEvent,
  eventConditions,
  readCredentialsCopyFrom,
  runtimeStatus,
  statusChanged,
} from './status.js';
import { failure } from './step-error.js';

/**
 * `runtimeStatus` written through `/status` as a full replace carrying the Runtime's resourceVersion, only when
 * `statusChanged`. A 409: read the Runtime again, compute again, write once more; a second 409 is left to the
 * next pass. Returns the Runtime as written (or as last read). With the dedicated audit log (`auditLog`), a copy of
 * the read credentials the status says is due is made first, once per reconcile (its outcome is kept in
 * `auditLog.copied` for a second write of the same pass), and the status says how it went.
 */
export async function writeStatus(
  context: BackfillContext,
  read: RuntimeObject,
  shoot: ShootObject | undefined,
  kubeconfigReady: boolean,
  applied: ApplyFacts | undefined,
  now: () => Date,
  outcome: RuntimeOutcome,
  auditLog?: AuditLogFacts,
): Promise<RuntimeObject> {
  let runtime = read;
  for (let attempt = 0; attempt < 2; attempt++) {
    const at = now();
    // The generator's facts ride on the Runtime (the one read now is the newest); the applier's come from its report.
    const pipeline = withApplyFacts(
      readPipelineAnnotation(runtime.metadata.annotations),
      applied,
      runtime.metadata.generation,
    );
    const input = { runtime, shoot, kubeconfigReady, pipeline, now: at, ...(auditLog && { auditLog }) };
    const copyFrom = readCredentialsCopyFrom(input);
    const skr = context.dedicatedAuditLogging?.skr;
    if (copyFrom && shoot && auditLog && skr) {
      auditLog.copied = await copyReadCredentials(context, skr, shoot.metadata.name, copyFrom);
      if (auditLog.copied.failure)
        outcome.errors.push(
          `copy the dedicated audit log's read credentials ${copyFrom.namespace}/${copyFrom.name} to the SKR of Shoot ${shoot.metadata.name}: ${auditLog.copied.failure.message}`,
        );
      else outcome.readCredentialsCopied = true;
    }
    const next = runtimeStatus(input);
    outcome.state = next.state;
    // The metrics follow the status the Runtime has (unchanged, or written), never one a failed write meant.
    const progress = progressOf(outcome.runtime, runtime, shoot, pipeline, next);
    if (!statusChanged(runtime.status, next)) {
      outcome.observation = { series: runtimeStateSeries(runtime, next), ...(progress && { progress }) };
      return runtime;
    }
    const written = await context.kcp.replace<RuntimeObject>({ ...runtime, ...RUNTIME_TYPE, status: next }, 'status');
    if (written.ok) {
      outcome.statusWritten = true;
      const seconds = readyAfterSeconds(readRuntimeStatus(runtime.status), next, at);
      outcome.observation = {
        series: runtimeStateSeries(runtime, next),
        ...(seconds !== undefined && { readyAfterSeconds: seconds }),
        ...(progress && { progress }),
      };
      for (const condition of eventConditions(runtime.status, next)) {
        if (await recordEvent(context, runtime, conditionEvent(runtime, condition), now())) outcome.events++;
      }
      return { ...written.body, ...RUNTIME_TYPE };
    }
    if (written.status !== 409) throw failure(`write status of Runtime ${outcome.runtime}`, context.kcp, written);
    const again = await context.kcp.get<RuntimeObject>({
      ...RUNTIME_TYPE,
      namespace: runtime.metadata.namespace,
      name: runtime.metadata.name,
    });
    if (!again.ok) {
      if (again.status === 404) return runtime; // gone meanwhile: nothing to write
      throw failure(`read Runtime ${outcome.runtime}`, context.kcp, again);
    }
    runtime = { ...again.body, ...RUNTIME_TYPE };
  }
  outcome.conflict = true;
  return runtime;
}

/** Where the Runtime's newest generation is, for the per-stage latencies; none for a Runtime being deleted. */
function progressOf(
  key: string,
  runtime: RuntimeObject,
  shoot: ShootObject | undefined,
  pipeline: PipelineState,
  next: RuntimeStatus,
): RuntimeProgress | undefined {
  const generation = runtime.metadata.generation;
  if (typeof generation !== 'number' || runtime.metadata.deletionTimestamp) return undefined;
  const appliedGeneration = shoot ? appliedRuntimeGeneration(shoot) : undefined;
  return {
    runtime: key,
    generation,
    created: readRuntimeStatus(runtime.status)?.state === undefined,
    proposed: pipeline.proposal !== undefined && (pipeline.generation ?? generation) >= generation,
    merged: pipeline.proposal?.state === 'merged' && (pipeline.generation ?? generation) >= generation,
    applied: appliedGeneration !== undefined && appliedGeneration >= generation,
    ready: next.state === 'Ready',
  };
}
