// What kimops checks about one Shoot change, as the PR shows it and the merge policy weighs it: the
// Shoot against gardener-apiserver's schema, and the landscape's policies with the change's operation
// (CREATE, UPDATE against the Shoot on main or live, DELETE). One CheckResult per check that applies.
import { validateShootSchema } from '../../model/schemas/shoot-schema.js';
import type { Runtime } from '../../model/runtime.js';
import type { Shoot } from '../../model/shoot.js';
import type { CheckResult } from '../propose/merge-policy.js';
import { evaluatePolicies, isDenied, isWarning } from './evaluate.js';
import type { Operation, Policy } from './policy-file.js';

/** The check the Shoot's schema reports under. */
const SCHEMA_CHECK = 'shoot-schema';

export interface ValidationContext {
  policies: readonly Policy[];
  /** Landscape facts (params.ts), read by policies as `params.data`. */
  params: Record<string, string>;
  /** The landscape's name, matched against each policy's landscapes annotation. */
  landscape: string;
}

/**
 * Where a pass gets its ValidationContext: the policy set kimops.yaml names on main, and the landscape
 * facts for the Runtimes of this pass (which of them exist decides the deletion policy).
 */
export interface ValidationSource {
  policies(set: string): Promise<readonly Policy[]>;
  /** `runtimes` is absent when some could not be read: then no inventory is claimed. */
  params(runtimes: readonly Runtime[] | undefined): Promise<Record<string, string>>;
}

export interface ShootChange {
  before?: Shoot | undefined;
  after?: Shoot | undefined;
}

export function operationOf({ before, after }: ShootChange): Operation {
  return after === undefined ? 'DELETE' : before === undefined ? 'CREATE' : 'UPDATE';
}

/** The schema check (when there is a Shoot after the change) and every applicable policy. */
export function checkShootChange(context: ValidationContext | undefined, change: ShootChange): CheckResult[] {
  const checks: CheckResult[] = [];
  if (change.after !== undefined) {
    const problems = validateShootSchema(change.after);
    checks.push({
      name: SCHEMA_CHECK,
      passed: problems.length === 0,
      messages: problems.map((p) => `${p.path}: ${p.message}${p.fix ? ` (${p.fix})` : ''}`),
    });
  }
  if (context === undefined) return checks;
  const results = evaluatePolicies(context.policies, {
    object: change.after ?? null,
    oldObject: change.before ?? null,
    operation: operationOf(change),
    params: context.params,
    landscape: context.landscape,
  });
  for (const result of results) {
    if (result.status === 'not-applicable') continue;
    checks.push({
      name: result.policy,
      passed: !isDenied(result),
      messages: result.messages,
      ...(isWarning(result) && { warning: true }),
    });
  }
  return checks;
}

/** One line for a commit status (GitHub caps descriptions at 140 characters; the adapter shortens). */
export function checksSummary(checks: readonly CheckResult[]): string {
  const failed = checks.filter((c) => !c.passed).map((c) => c.name);
  const warned = checks.filter((c) => c.passed && c.warning).map((c) => c.name);
  if (failed.length > 0) return `${failed.length} of ${checks.length} checks failed: ${failed.join(', ')}`;
  return `${checks.length} checks passed${warned.length > 0 ? `, ${warned.length} with warnings: ${warned.join(', ')}` : ''}`;
}
