// Runs policies against one object the way kube-apiserver runs ValidatingAdmissionPolicies:
// match constraints, then match conditions, then variables (lazily, each at most once) and the
// validations. An expression that errors is a failed check of its policy, never a crash of the run.
import { celMap, isCelError, parse, plan, type CelResult, type CelValue } from '@bufbuild/cel';
import { policyEnv, toCelValue } from './cel-env.js';
import type { LabelSelector, Operation, Policy, ResourceRule, Severity } from './policy-file.js';

export interface PolicyInput {
  /** The object after the change (the rendered Shoot); null on DELETE. */
  object: unknown;
  /** The object before the change (the live or previous Shoot); null or absent on CREATE. */
  oldObject?: unknown;
  operation: Operation;
  /** Landscape facts: a ConfigMap's `data` (see params.ts), read as `params.data.<key>`. */
  params?: Record<string, string>;
  /** The landscape's name, matched against a policy's landscapes annotation. */
  landscape: string;
}

export type PolicyStatus = 'passed' | 'failed' | 'error' | 'not-applicable';

export interface PolicyResult {
  policy: string;
  source: string;
  severity: Severity;
  /**
   * `failed`: a validation returned false; `error`: an expression could not be evaluated, which
   * counts as a failure too (as with failurePolicy Fail in a cluster); `not-applicable`: the match
   * constraints, match conditions or landscapes annotation exclude the object.
   */
  status: PolicyStatus;
  /** What is wrong and how to fix it, one per failing validation (failed and error only). */
  messages: string[];
  /** Why the policy does not apply (not-applicable only). */
  reason?: string;
}

/** Evaluates every policy against one object; the results come in the policies' order. */
export function evaluatePolicies(policies: readonly Policy[], input: PolicyInput): PolicyResult[] {
  const context = evaluationContext(input);
  return policies.map((policy) => evaluatePolicy(policy, input, context));
}

/** Whether a result should stop a change: a failed or errored deny policy. */
export function isDenied(result: PolicyResult): boolean {
  return result.severity === 'deny' && (result.status === 'failed' || result.status === 'error');
}

/** Whether a result should be shown as a warning: a failed or errored warn policy. */
export function isWarning(result: PolicyResult): boolean {
  return result.severity === 'warn' && (result.status === 'failed' || result.status === 'error');
}

// ---------------------------------------------------------------------------------------------

type Program = (bindings: Record<string, CelValue>) => CelResult;

interface CompiledPolicy {
  variables: { name: string; run: Program }[];
  matchConditions: { name: string; expression: string; run: Program }[];
  validations: { expression: string; message?: string; run: Program; messageRun?: Program }[];
}

interface EvaluationContext {
  object: CelValue;
  oldObject: CelValue;
  request: CelValue;
  params: CelValue | undefined;
  /** What the resource rules are matched against. */
  target: { group: string; version: string; resource: string; name: string; labels: Record<string, string>[] };
}

const compiled = new WeakMap<Policy, CompiledPolicy>();
const convertedParams = new WeakMap<Record<string, string>, CelValue>();

function compile(policy: Policy): CompiledPolicy {
  let result = compiled.get(policy);
  if (!result) {
    const program = (expression: string): Program => plan(policyEnv, parse(expression)) as Program;
    result = {
      variables: policy.variables.map((v) => ({ name: v.name, run: program(v.expression) })),
      matchConditions: policy.matchConditions.map((c) => ({ ...c, run: program(c.expression) })),
      validations: policy.validations.map((v) => ({
        expression: v.expression,
        ...(v.message && { message: v.message }),
        run: program(v.expression),
        ...(v.messageExpression && { messageRun: program(v.messageExpression) }),
      })),
    };
    compiled.set(policy, result);
  }
  return result;
}

function evaluationContext(input: PolicyInput): EvaluationContext {
  const object = (input.object ?? null) as Record<string, unknown> | null;
  const oldObject = (input.oldObject ?? null) as Record<string, unknown> | null;
  const subject = object ?? oldObject ?? {};
  const [group, version] = groupVersion(subject.apiVersion);
  const kind = typeof subject.kind === 'string' ? subject.kind : '';
  const metadata = (subject.metadata ?? {}) as { name?: string; namespace?: string };
  const resource = resourceOf(kind);
  let params: CelValue | undefined;
  if (input.params) {
    params = convertedParams.get(input.params);
    if (params === undefined) {
      params = toCelValue({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'kimops-landscape-facts' },
        data: input.params,
      });
      convertedParams.set(input.params, params);
    }
  }
  return {
    object: toCelValue(object),
    oldObject: toCelValue(oldObject),
    // The request fields policies are likely to read; userInfo and options are cluster-only.
    request: toCelValue({
      operation: input.operation,
      name: metadata.name ?? '',
      namespace: metadata.namespace ?? '',
      kind: { group, version, kind },
      resource: { group, version, resource },
      dryRun: false,
    }),
    params,
    target: {
      group,
      version,
      resource,
      name: metadata.name ?? '',
      labels: [object, oldObject]
        .filter((o) => o !== null)
        .map((o) => (o.metadata as { labels?: Record<string, string> } | undefined)?.labels ?? {}),
    },
  };
}

function groupVersion(apiVersion: unknown): [string, string] {
  if (typeof apiVersion !== 'string') return ['', ''];
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? ['', apiVersion] : [apiVersion.slice(0, slash), apiVersion.slice(slash + 1)];
}

/**
 * The resource a kind is served as. kimops sees objects, not requests, so it derives the plural the
 * way every kind it writes is named (Shoot → shoots, ConfigMap → configmaps, Secret → secrets).
 */
function resourceOf(kind: string): string {
  return kind === '' ? '' : `${kind.toLowerCase()}s`;
}

function evaluatePolicy(policy: Policy, input: PolicyInput, context: EvaluationContext): PolicyResult {
  const exclusion = exclusionReason(policy, input, context);
  if (exclusion !== undefined) return result(policy, 'not-applicable', [], exclusion);
  if (policy.usesParams && context.params === undefined) {
    return result(policy, 'error', [
      `policy ${policy.name} needs landscape facts (params) but none were given; pass the landscape's params`,
    ]);
  }

  const program = compile(policy);
  const bindings: Record<string, CelValue> = {
    object: context.object,
    oldObject: context.oldObject,
    request: context.request,
  };
  if (context.params !== undefined) bindings.params = context.params;
  if (program.variables.length > 0) bindings.variables = celMap(new LazyVariables(program.variables, bindings));

  for (const condition of program.matchConditions) {
    const matched = runBool(condition.run, bindings);
    if (matched instanceof Error)
      return result(policy, 'error', [`matchConditions[${condition.name}]: ${matched.message}`]);
    if (!matched) return result(policy, 'not-applicable', [], `match condition ${condition.name} is false`);
  }

  const failures: string[] = [];
  const errors: string[] = [];
  for (const validation of program.validations) {
    const passed = runBool(validation.run, bindings);
    if (passed instanceof Error)
      errors.push(`expression '${oneLine(validation.expression)}' resulted in error: ${passed.message}`);
    else if (!passed) failures.push(failureMessage(validation, bindings));
  }
  if (errors.length > 0) return result(policy, 'error', [...errors, ...failures]);
  if (failures.length > 0) return result(policy, 'failed', failures);
  return result(policy, 'passed', []);
}

function result(policy: Policy, status: PolicyStatus, messages: string[], reason?: string): PolicyResult {
  return {
    policy: policy.name,
    source: policy.source,
    severity: policy.severity,
    status,
    messages,
    ...(reason !== undefined && { reason }),
  };
}

/** Why the landscapes annotation or the match constraints exclude the object; undefined when they match. */
function exclusionReason(policy: Policy, input: PolicyInput, context: EvaluationContext): string | undefined {
  if (policy.landscapes !== '*' && !policy.landscapes.includes(input.landscape))
    return `not enforced in landscape ${input.landscape}`;
  const { target } = context;
  if (!policy.matchRules.some((rule) => matchesRule(rule, target, input.operation)))
    return `does not match ${input.operation} of ${target.resource || 'this object'}`;
  if (policy.excludeRules.some((rule) => matchesRule(rule, target, input.operation)))
    return 'excluded by spec.matchConstraints.excludeResourceRules';
  const selector = policy.objectSelector;
  if (selector && !target.labels.some((labels) => selectorMatches(selector, labels)))
    return 'labels do not match spec.matchConstraints.objectSelector';
  return undefined;
}

function matchesRule(rule: ResourceRule, target: EvaluationContext['target'], operation: Operation): boolean {
  const has = (list: string[], value: string) => list.includes('*') || list.includes(value);
  return (
    has(rule.operations, operation) &&
    has(rule.apiGroups, target.group) &&
    has(rule.apiVersions, target.version) &&
    has(rule.resources, target.resource) &&
    (rule.resourceNames.length === 0 || rule.resourceNames.includes(target.name))
  );
}

function selectorMatches(selector: LabelSelector, labels: Record<string, string>): boolean {
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) if (labels[key] !== value) return false;
  for (const e of selector.matchExpressions ?? []) {
    const present = Object.hasOwn(labels, e.key);
    const value = labels[e.key] ?? '';
    const ok =
      e.operator === 'Exists'
        ? present
        : e.operator === 'DoesNotExist'
          ? !present
          : e.operator === 'In'
            ? present && (e.values ?? []).includes(value)
            : !present || !(e.values ?? []).includes(value);
    if (!ok) return false;
  }
  return true;
}

/**
 * `variables` as Kubernetes composes it: each variable is evaluated on first use and at most once;
 * one that errors fails only the expressions that read it. Wrapped in a CelMap, so every lookup goes
 * through get().
 */
class LazyVariables extends Map<string, CelValue> {
  readonly #cache = new Map<string, CelResult>();
  constructor(
    private readonly variables: CompiledPolicy['variables'],
    private readonly bindings: Record<string, CelValue>,
  ) {
    super();
  }

  override get(name: string): CelValue | undefined {
    let value = this.#cache.get(name);
    if (value === undefined) {
      const run = this.variables.find((v) => v.name === name)?.run;
      if (!run) return undefined;
      value = safeRun(run, this.bindings);
      this.#cache.set(name, value);
    }
    if (isCelError(value)) throw new Error(`composited variable "${name}" fails to evaluate: ${value.message}`);
    return value;
  }

  override has(name: string): boolean {
    return this.variables.some((v) => v.name === name);
  }
}

function safeRun(run: Program, bindings: Record<string, CelValue>): CelResult {
  try {
    return run(bindings);
  } catch (err) {
    return err as CelResult;
  }
}

function runBool(run: Program, bindings: Record<string, CelValue>): boolean | Error {
  const result = safeRun(run, bindings);
  if (isCelError(result) || result instanceof Error) return result;
  if (typeof result !== 'boolean') return new Error(`the expression must return a bool, got ${describeValue(result)}`);
  return result;
}

function failureMessage(validation: CompiledPolicy['validations'][number], bindings: Record<string, CelValue>): string {
  if (validation.messageRun) {
    const message = safeRun(validation.messageRun, bindings);
    // Kubernetes falls back to the static message when messageExpression errors or gives no usable string.
    if (typeof message === 'string' && message.trim() !== '' && !message.includes('\n')) return message;
  }
  return validation.message ?? `failed expression: ${oneLine(validation.expression)}`;
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'bigint') return 'int';
  if (typeof value === 'number') return 'double';
  return typeof value;
}

function oneLine(expression: string): string {
  return expression.trim().replace(/\s+/g, ' ');
}
