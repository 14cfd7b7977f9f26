// A policy file: one Kubernetes ValidatingAdmissionPolicy (admissionregistration.k8s.io/v1), so it
// can be exported into a cluster unchanged, with kimops's own metadata as annotations. Parsing checks
// everything kube-apiserver would refuse, and what kimops cannot evaluate like kube-apiserver does,
// and names the file and the field: `policies/default/x.yaml: spec.validations[1].expression: …`.
import { parse as parseCel } from '@bufbuild/cel';
import { ConfigError } from '../../model/errors.js';
import { isJsonObject } from '../../model/json.js';
import { parseYaml11 } from '../../model/yaml-input.js';
import { isKnownFunction, POLICY_VARIABLES } from './cel-env.js';
import { ANNOTATION_SEVERITY, ANNOTATION_LANDSCAPES, ANNOTATION_DESCRIPTION } from '../../model/contract.js';

/** A parsed CEL expression node (the type comes from @bufbuild/cel's own dependency, cel-spec). */
type Expr = ReturnType<typeof parseCel>['expr'];

export const POLICY_API_VERSION = 'admissionregistration.k8s.io/v1';
const POLICY_KIND = 'ValidatingAdmissionPolicy';

export type Severity = 'deny' | 'warn';
const SEVERITIES: readonly Severity[] = ['deny', 'warn'];
export type Operation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';
const OPERATIONS = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT', '*'];

export interface ResourceRule {
  apiGroups: string[];
  apiVersions: string[];
  resources: string[];
  operations: string[];
  resourceNames: string[];
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist'; values?: string[] }[];
}

interface NamedExpression {
  name: string;
  expression: string;
}

interface Validation {
  expression: string;
  message?: string;
  messageExpression?: string;
  reason?: string;
}

export interface Policy {
  name: string;
  /** Where the policy came from, e.g. `policies/default/ssh-access-disabled.yaml`. */
  source: string;
  severity: Severity;
  /** `'*'` for every landscape, else the landscape names it applies to. */
  landscapes: '*' | string[];
  description: string;
  /** Whether the policy reads landscape facts (`spec.paramKind` set: a ConfigMap's `params.data`). */
  usesParams: boolean;
  matchRules: ResourceRule[];
  excludeRules: ResourceRule[];
  objectSelector?: LabelSelector;
  matchConditions: NamedExpression[];
  variables: NamedExpression[];
  validations: Validation[];
  /** The file's object as read: what `kimops policies export` writes into a cluster. */
  manifest: Record<string, unknown>;
}

/** Kubernetes' CEL identifier rule for variable names (ValidatingAdmissionPolicy validation). */
const CEL_IDENTIFIER = /^[_a-zA-Z][_a-zA-Z0-9]*$/;
/** A DNS subdomain name, as metadata.name of a cluster-scoped object must be. */
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Parses and checks one policy file; every problem is a ConfigError naming the file and the field. */
export function parsePolicyFile(text: string, source: string): Policy {
  const doc = parseYaml11(text, source);
  const fail = (field: string, detail: string): never => {
    throw new ConfigError(source, field, detail);
  };
  if (!isJsonObject(doc)) return fail('', `expected a ${POLICY_KIND} object, got ${describe(doc)}`);
  if (doc.apiVersion !== POLICY_API_VERSION)
    fail('apiVersion', `must be "${POLICY_API_VERSION}", got ${JSON.stringify(doc.apiVersion)}`);
  if (doc.kind !== POLICY_KIND) fail('kind', `must be "${POLICY_KIND}", got ${JSON.stringify(doc.kind)}`);

  const metadata = isJsonObject(doc.metadata)
    ? doc.metadata
    : fail('metadata', 'missing; give the policy a metadata.name');
  const name =
    typeof metadata.name === 'string' && metadata.name
      ? metadata.name
      : fail('metadata.name', 'missing; name the policy');
  if (!DNS_SUBDOMAIN.test(name) || name.length > 253)
    fail('metadata.name', `"${name}" is not a valid Kubernetes name; use lower-case letters, digits and "-"`);
  const annotations = isJsonObject(metadata.annotations) ? metadata.annotations : {};

  const severity = annotations[ANNOTATION_SEVERITY];
  if (!SEVERITIES.includes(severity as Severity)) {
    fail(
      `metadata.annotations[${ANNOTATION_SEVERITY}]`,
      `must be one of ${SEVERITIES.join(', ')}, got ${JSON.stringify(severity)}`,
    );
  }
  const landscapesText = annotations[ANNOTATION_LANDSCAPES] ?? '*';
  if (typeof landscapesText !== 'string' || landscapesText.trim() === '') {
    fail(`metadata.annotations[${ANNOTATION_LANDSCAPES}]`, 'must be "*" or a comma-separated list of landscape names');
  }
  const landscapeNames = String(landscapesText)
    .split(',')
    .map((l) => l.trim())
    .filter(Boolean);
  const landscapes = landscapeNames.includes('*') ? '*' : landscapeNames;
  const description =
    typeof annotations[ANNOTATION_DESCRIPTION] === 'string' ? annotations[ANNOTATION_DESCRIPTION] : '';

  const spec = isJsonObject(doc.spec) ? doc.spec : fail('spec', 'missing');
  const usesParams = parseParamKind(spec.paramKind, fail);
  if (spec.failurePolicy !== undefined && spec.failurePolicy !== 'Fail') {
    fail(
      'spec.failurePolicy',
      `only "Fail" (the default) is supported: with "Ignore" a cluster would let an erroring check pass while kimops fails it; remove the field`,
    );
  }

  const constraints = isJsonObject(spec.matchConstraints)
    ? spec.matchConstraints
    : fail('spec.matchConstraints', 'missing; say which resources the policy matches (resourceRules)');
  if (constraints.namespaceSelector !== undefined && !isEmptySelector(constraints.namespaceSelector)) {
    fail(
      'spec.matchConstraints.namespaceSelector',
      'kimops cannot see namespace labels, so it cannot honour a namespaceSelector; remove it',
    );
  }
  const matchRules = parseRules(constraints.resourceRules, 'spec.matchConstraints.resourceRules', fail);
  if (matchRules.length === 0) fail('spec.matchConstraints.resourceRules', 'empty; the policy would match nothing');
  const excludeRules =
    constraints.excludeResourceRules === undefined
      ? []
      : parseRules(constraints.excludeResourceRules, 'spec.matchConstraints.excludeResourceRules', fail);
  const objectSelector =
    constraints.objectSelector === undefined
      ? undefined
      : parseSelector(constraints.objectSelector, 'spec.matchConstraints.objectSelector', fail);

  const variables = parseNamed(spec.variables, 'spec.variables', 'variable', fail);
  for (const [i, v] of variables.entries()) {
    if (!CEL_IDENTIFIER.test(v.name))
      fail(`spec.variables[${i}].name`, `"${v.name}" is not a CEL identifier; use letters, digits and "_"`);
    if (variables.findIndex((w) => w.name === v.name) !== i)
      fail(`spec.variables[${i}].name`, `"${v.name}" is defined twice; rename one`);
  }
  const matchConditions = parseNamed(spec.matchConditions, 'spec.matchConditions', 'match condition', fail);

  if (!Array.isArray(spec.validations) || spec.validations.length === 0)
    fail('spec.validations', 'missing or empty; add at least one validation with an expression and a message');
  const validations = (spec.validations as unknown[]).map((raw, i): Validation => {
    const field = `spec.validations[${i}]`;
    if (!isJsonObject(raw)) return fail(field, `expected an object, got ${describe(raw)}`);
    const expression = nonEmptyString(raw.expression, `${field}.expression`, fail);
    const optional = (key: string) =>
      raw[key] === undefined ? undefined : nonEmptyString(raw[key], `${field}.${key}`, fail);
    const message = optional('message');
    const messageExpression = optional('messageExpression');
    const reason = optional('reason');
    return {
      expression,
      ...(message && { message }),
      ...(messageExpression && { messageExpression }),
      ...(reason && { reason }),
    };
  });

  // Every expression must parse and use only what the environment declares, as kube-apiserver's
  // type check demands. Variables may use the ones defined before them; everything else may use all.
  const check = (expression: string, field: string, definedVariables: string[]) =>
    checkExpression(expression, field, definedVariables, usesParams, fail);
  variables.forEach((v, i) =>
    check(
      v.expression,
      `spec.variables[${i}].expression`,
      variables.slice(0, i).map((w) => w.name),
    ),
  );
  const allVariables = variables.map((v) => v.name);
  matchConditions.forEach((c, i) => check(c.expression, `spec.matchConditions[${i}].expression`, allVariables));
  validations.forEach((v, i) => {
    check(v.expression, `spec.validations[${i}].expression`, allVariables);
    if (v.messageExpression) check(v.messageExpression, `spec.validations[${i}].messageExpression`, allVariables);
  });

  return {
    name,
    source,
    severity: severity as Severity,
    landscapes,
    description,
    usesParams,
    matchRules,
    excludeRules,
    ...(objectSelector && { objectSelector }),
    matchConditions,
    variables,
    validations,
    manifest: doc,
  };
}

/** Parses a set of policy files and refuses two policies with one name (a cluster would keep only one). */
export function parsePolicyFiles(files: { path: string; text: string }[]): Policy[] {
  const policies = files.map((f) => parsePolicyFile(f.text, f.path));
  const seen = new Map<string, string>();
  for (const p of policies) {
    const other = seen.get(p.name);
    if (other)
      throw new ConfigError(
        p.source,
        'metadata.name',
        `"${p.name}" is also the name of ${other}; policy names must be unique`,
      );
    seen.set(p.name, p.source);
  }
  return policies;
}

type Fail = (field: string, detail: string) => never;

function parseParamKind(paramKind: unknown, fail: Fail): boolean {
  if (paramKind === undefined) return false;
  if (!isJsonObject(paramKind) || paramKind.apiVersion !== 'v1' || paramKind.kind !== 'ConfigMap') {
    fail(
      'spec.paramKind',
      'kimops provides landscape facts as a ConfigMap; use {apiVersion: v1, kind: ConfigMap} or remove paramKind',
    );
  }
  return true;
}

function parseRules(raw: unknown, field: string, fail: Fail): ResourceRule[] {
  if (!Array.isArray(raw)) return fail(field, `expected a list of rules, got ${describe(raw)}`);
  return raw.map((rule, i) => {
    const at = `${field}[${i}]`;
    if (!isJsonObject(rule)) return fail(at, `expected an object, got ${describe(rule)}`);
    const list = (key: string, required: boolean) => {
      const value = rule[key];
      if (value === undefined && !required) return [];
      if (!Array.isArray(value) || value.length === 0 || !value.every((v) => typeof v === 'string' && v !== '')) {
        return fail(`${at}.${key}`, 'must be a non-empty list of strings ("*" for all)');
      }
      return value as string[];
    };
    const operations = list('operations', true);
    for (const op of operations)
      if (!OPERATIONS.includes(op)) fail(`${at}.operations`, `unknown operation "${op}"; use ${OPERATIONS.join(', ')}`);
    return {
      apiGroups: list('apiGroups', true),
      apiVersions: list('apiVersions', true),
      resources: list('resources', true),
      operations,
      resourceNames: list('resourceNames', false),
    };
  });
}

function isEmptySelector(raw: unknown): boolean {
  return (
    isJsonObject(raw) &&
    Object.values(raw).every(
      (v) => v === undefined || (Array.isArray(v) ? v.length === 0 : isJsonObject(v) && Object.keys(v).length === 0),
    )
  );
}

function parseSelector(raw: unknown, field: string, fail: Fail): LabelSelector {
  if (!isJsonObject(raw)) return fail(field, `expected a label selector, got ${describe(raw)}`);
  const selector: LabelSelector = {};
  if (raw.matchLabels !== undefined) {
    if (!isJsonObject(raw.matchLabels) || !Object.values(raw.matchLabels).every((v) => typeof v === 'string'))
      fail(`${field}.matchLabels`, 'must map label keys to string values');
    selector.matchLabels = raw.matchLabels as Record<string, string>;
  }
  if (raw.matchExpressions !== undefined) {
    if (!Array.isArray(raw.matchExpressions)) fail(`${field}.matchExpressions`, 'must be a list');
    selector.matchExpressions = (raw.matchExpressions as unknown[]).map((e, i) => {
      const at = `${field}.matchExpressions[${i}]`;
      if (!isJsonObject(e) || typeof e.key !== 'string') return fail(at, 'needs a key and an operator');
      if (!['In', 'NotIn', 'Exists', 'DoesNotExist'].includes(e.operator as string))
        fail(`${at}.operator`, 'must be In, NotIn, Exists or DoesNotExist');
      const values = Array.isArray(e.values) ? e.values.map(String) : [];
      return { key: e.key, operator: e.operator as 'In', values };
    });
  }
  return selector;
}

function parseNamed(raw: unknown, field: string, what: string, fail: Fail): NamedExpression[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) return fail(field, `expected a list of ${what}s, got ${describe(raw)}`);
  return raw.map((item, i) => {
    if (!isJsonObject(item)) return fail(`${field}[${i}]`, `expected an object, got ${describe(item)}`);
    return {
      name: nonEmptyString(item.name, `${field}[${i}].name`, fail),
      expression: nonEmptyString(item.expression, `${field}[${i}].expression`, fail),
    };
  });
}

function nonEmptyString(value: unknown, field: string, fail: Fail): string {
  if (typeof value !== 'string' || value.trim() === '') return fail(field, 'missing or empty; write it');
  return value;
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return 'nothing';
  return Array.isArray(value) ? 'a list' : typeof value;
}

// ---------------------------------------------------------------------------------------------
// Expression checks: parse, then walk the tree for undeclared names, variables and functions.

function checkExpression(
  expression: string,
  field: string,
  definedVariables: string[],
  usesParams: boolean,
  fail: Fail,
): void {
  let root: Expr;
  try {
    root = parseCel(expression).expr;
  } catch (err) {
    return fail(field, `${(err as Error).message.replace(/^<input>:/, 'at ')}; fix the expression`);
  }
  walk(root, new Set(), (node, scope) => {
    const kind = node.exprKind;
    if (kind.case === 'identExpr') {
      const name = kind.value.name;
      if (scope.has(name)) return;
      if (name === 'params' && !usesParams)
        fail(
          field,
          'uses params but the policy has no spec.paramKind; add paramKind {apiVersion: v1, kind: ConfigMap}',
        );
      if (!(POLICY_VARIABLES as readonly string[]).includes(name) && !CEL_TYPE_NAMES.has(name)) {
        fail(
          field,
          `unknown name "${name}"; a policy sees ${POLICY_VARIABLES.join(', ')} (and the loop variable of all/exists/map/filter)`,
        );
      }
    } else if (kind.case === 'selectExpr' || (kind.case === 'callExpr' && kind.value.function === '_[_]')) {
      const variable = variableReference(node);
      if (variable !== undefined && !definedVariables.includes(variable)) {
        fail(
          field,
          `variables.${variable} is not defined${definedVariables.length ? ` (defined before this point: ${definedVariables.join(', ')})` : ''}; add it to spec.variables or fix the name`,
        );
      }
    }
    if (kind.case === 'callExpr' && !isKnownFunction(kind.value.function)) {
      fail(
        field,
        `unknown function "${kind.value.function}"; see docs/validation.md for the functions policies may use`,
      );
    }
  });
}

/** CEL's type identifiers, usable as values: `type(x) == int`. */
const CEL_TYPE_NAMES = new Set([
  'int',
  'uint',
  'double',
  'bool',
  'string',
  'bytes',
  'list',
  'map',
  'null_type',
  'type',
  'dyn',
]);

/** `variables.x` or `variables['x']` → "x". */
function variableReference(node: Expr): string | undefined {
  const kind = node.exprKind;
  if (kind.case === 'selectExpr') {
    const operand = kind.value.operand?.exprKind;
    return operand?.case === 'identExpr' && operand.value.name === 'variables' ? kind.value.field : undefined;
  }
  if (kind.case === 'callExpr') {
    const [target, key] = kind.value.args.map((a) => a.exprKind);
    if (
      target?.case === 'identExpr' &&
      target.value.name === 'variables' &&
      key?.case === 'constExpr' &&
      key.value.constantKind.case === 'stringValue'
    ) {
      return key.value.constantKind.value;
    }
  }
  return undefined;
}

/** Visits every node; comprehension variables (and the parser's `@result` accumulator) are in scope inside. */
function walk(node: Expr | undefined, scope: Set<string>, visit: (node: Expr, scope: Set<string>) => void): void {
  if (!node) return;
  visit(node, scope);
  const kind = node.exprKind;
  switch (kind.case) {
    case 'selectExpr':
      walk(kind.value.operand, scope, visit);
      break;
    case 'callExpr':
      walk(kind.value.target, scope, visit);
      for (const arg of kind.value.args) walk(arg, scope, visit);
      break;
    case 'listExpr':
      for (const e of kind.value.elements) walk(e, scope, visit);
      break;
    case 'structExpr':
      for (const entry of kind.value.entries) {
        if (entry.keyKind.case === 'mapKey') walk(entry.keyKind.value, scope, visit);
        walk(entry.value, scope, visit);
      }
      break;
    case 'comprehensionExpr': {
      const c = kind.value;
      walk(c.iterRange, scope, visit);
      walk(c.accuInit, scope, visit);
      const inner = new Set([...scope, c.iterVar, c.accuVar, ...(c.iterVar2 ? [c.iterVar2] : [])]);
      walk(c.loopCondition, inner, visit);
      walk(c.loopStep, inner, visit);
      walk(c.result, inner, visit);
      break;
    }
    default:
      break;
  }
}
