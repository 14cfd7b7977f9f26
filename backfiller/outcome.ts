// What one reconcile of a Runtime reports, and the lines the command prints of it.
import type { RuntimeState } from '../model/runtime-status.js';
import type { KubeconfigObservation, RuntimeObservation } from './metrics.js';

export interface RuntimeOutcome {
  /** `<namespace>/<name>`. */
  runtime: string;
  /** The state now written (or already there). */
  state?: RuntimeState;
  statusWritten: boolean;
  /** The write met a 409 twice: left to the next pass (not a failure). */
  conflict: boolean;
  events: number;
  finalizer?: 'added' | 'released';
  kubeconfig?: 'created' | 'rotated';
  /** The dedicated audit log's read credentials were copied to the SKR. */
  readCredentialsCopied?: true;
  /** What went wrong, one line each (naming the object, the server's answer and the fix). */
  errors: string[];
  unreachable: boolean;
  /** For the metrics: the Runtime's series as its status now is, and how long its change took to be Ready. */
  observation?: RuntimeObservation;
  /** The Runtime's id (KIM's label), for the metrics of a released Runtime. */
  runtimeId?: string;
  /** For KIM's GardenerCluster and kubeconfig-expiration metrics: what this reconcile found or wrote. */
  kubeconfigMetrics?: KubeconfigObservation;
  /** KIM leads the Runtime (rules/leader.ts): nothing was read for it or written onto it. */
  ledByKim?: true;
}

export interface PassReport {
  outcomes: RuntimeOutcome[];
  /** Facts the pass had to do without (Lookup.warnings). */
  warnings?: string[];
}

/** One line for a Runtime whose pass did something or failed; undefined for a quiet one. */
export function outcomeLine(outcome: RuntimeOutcome): string | undefined {
  const parts: string[] = [];
  if (outcome.statusWritten)
    parts.push(`status ${outcome.state ?? ''} written${outcome.events > 0 ? `, ${outcome.events} Event(s)` : ''}`);
  if (outcome.conflict) parts.push('status changed concurrently twice; left to the next pass');
  if (outcome.finalizer) parts.push(`finalizer ${outcome.finalizer}`);
  if (outcome.kubeconfig) parts.push(`kubeconfig Secret ${outcome.kubeconfig}`);
  if (outcome.readCredentialsCopied) parts.push('audit-log read credentials copied to the SKR');
  if (parts.length === 0) return undefined;
  return `${outcome.runtime}: ${parts.join('; ')}`;
}

export function passSummary(report: PassReport): string {
  const count = (test: (o: RuntimeOutcome) => boolean) => report.outcomes.filter(test).length;
  return (
    `${report.outcomes.length} Runtime(s): ${count((o) => o.statusWritten)} status written, ` +
    `${count((o) => !o.statusWritten && o.errors.length === 0)} unchanged, ${count((o) => o.errors.length > 0)} failed` +
    `${count((o) => o.conflict) > 0 ? `, ${count((o) => o.conflict)} left to the next pass (conflict)` : ''}`
  );
}
