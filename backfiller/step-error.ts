// How a failed API call travels through a reconcile: thrown as a StepError, caught where the Runtime's outcome is
// written, so one Runtime's failure never stops the others.
import { describeFailure, type KubeResult } from '../model/kube-result.js';

/** A failed call: `unreachable` when the API did not answer at all (the command then exits 69). */
export class StepError extends Error {
  override readonly name = 'StepError';
  constructor(
    message: string,
    readonly unreachable: boolean,
  ) {
    super(message);
  }
}

/** `what` failed on `api`, in one line: the server's answer and which kubeconfig asked. */
export function failure(
  what: string,
  api: { server: string; label: string },
  result: Extract<KubeResult<unknown>, { ok: false }>,
): StepError {
  return new StepError(
    `${what} on ${api.server} (kubeconfig ${api.label}): ${describeFailure(result)}`,
    result.status === 0,
  );
}
