import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../model/errors.js';
import { parsePolicyFile, parsePolicyFiles } from './policy-file.js';

const SOURCE = 'policies/default/x.yaml';

function policyText({ annotations = 'kimops.kyma-project.io/severity: deny', spec = '' } = {}): string {
  return `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: x
  annotations:
    ${annotations}
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: [core.gardener.cloud]
      apiVersions: [v1beta1]
      resources: [shoots]
      operations: [CREATE, UPDATE]
${spec}`;
}

const VALID_SPEC = `  validations:
  - expression: "object.spec.region != ''"
    message: set spec.region`;

function errorOf(text: string): ConfigError {
  try {
    parsePolicyFile(text, SOURCE);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('parsePolicyFile', () => {
  it('reads a valid policy with kimops metadata and defaults', () => {
    const policy = parsePolicyFile(policyText({ spec: VALID_SPEC }), SOURCE);
    expect(policy).toMatchObject({
      name: 'x',
      source: SOURCE,
      severity: 'deny',
      landscapes: '*',
      usesParams: false,
      validations: [{ expression: "object.spec.region != ''", message: 'set spec.region' }],
    });
    expect(policy.matchRules[0]?.resources).toEqual(['shoots']);
  });

  it('reads a landscape list', () => {
    const policy = parsePolicyFile(
      policyText({
        annotations: 'kimops.kyma-project.io/severity: warn\n    kimops.kyma-project.io/landscapes: "dev, stage"',
        spec: VALID_SPEC,
      }),
      SOURCE,
    );
    expect(policy.landscapes).toEqual(['dev', 'stage']);
    expect(policy.severity).toBe('warn');
  });

  it.each([
    ['bad YAML', 'kind: [unclosed', 'line 1', /./],
    [
      'wrong kind',
      policyText({ spec: VALID_SPEC }).replace('kind: ValidatingAdmissionPolicy', 'kind: MutatingAdmissionPolicy'),
      'kind',
      /ValidatingAdmissionPolicy/,
    ],
    [
      'wrong apiVersion',
      policyText({ spec: VALID_SPEC }).replace(
        'admissionregistration.k8s.io/v1',
        'admissionregistration.k8s.io/v1beta1',
      ),
      'apiVersion',
      /admissionregistration.k8s.io\/v1/,
    ],
    [
      'unknown severity',
      policyText({ annotations: 'kimops.kyma-project.io/severity: block', spec: VALID_SPEC }),
      'metadata.annotations[kimops.kyma-project.io/severity]',
      /deny, warn/,
    ],
    [
      'missing severity',
      policyText({ annotations: 'other: x', spec: VALID_SPEC }),
      'metadata.annotations[kimops.kyma-project.io/severity]',
      /deny, warn/,
    ],
    ['no validations', policyText({ spec: '' }), 'spec.validations', /at least one/],
    [
      'missing expression',
      policyText({ spec: '  validations:\n  - message: m' }),
      'spec.validations[0].expression',
      /missing/,
    ],
    [
      'expression that does not parse',
      policyText({ spec: `${VALID_SPEC}\n  - expression: "object.spec +"\n    message: m` }),
      'spec.validations[1].expression',
      /fix the expression/,
    ],
    [
      'undefined variable',
      policyText({ spec: '  validations:\n  - expression: "variables.zones == 1"' }),
      'spec.validations[0].expression',
      /variables.zones is not defined/,
    ],
    [
      'variable used before it is defined',
      policyText({
        spec:
          '  variables:\n  - name: a\n    expression: "variables.b"\n  - name: b\n    expression: "1"\n' + VALID_SPEC,
      }),
      'spec.variables[0].expression',
      /variables.b is not defined/,
    ],
    [
      'params without paramKind',
      policyText({ spec: '  validations:\n  - expression: "params.data.x == \'1\'"' }),
      'spec.validations[0].expression',
      /paramKind/,
    ],
    [
      'unknown name',
      policyText({ spec: '  validations:\n  - expression: "objct.spec.region == \'x\'"' }),
      'spec.validations[0].expression',
      /unknown name "objct"/,
    ],
    [
      'unknown function',
      policyText({ spec: '  validations:\n  - expression: "object.spec.region.reverse() == \'x\'"' }),
      'spec.validations[0].expression',
      /unknown function "reverse"/,
    ],
    [
      'bad messageExpression',
      policyText({ spec: `${VALID_SPEC}\n    messageExpression: "'a' +"` }),
      'spec.validations[0].messageExpression',
      /fix the expression/,
    ],
    [
      'failurePolicy Ignore',
      policyText({ spec: `  failurePolicy: Ignore\n${VALID_SPEC}` }),
      'spec.failurePolicy',
      /Fail/,
    ],
    [
      'namespaceSelector',
      policyText({ spec: VALID_SPEC }).replace(
        '  matchConstraints:\n',
        '  matchConstraints:\n    namespaceSelector: {matchLabels: {a: b}}\n',
      ),
      'spec.matchConstraints.namespaceSelector',
      /namespace labels/,
    ],
    [
      'paramKind not a ConfigMap',
      policyText({ spec: `  paramKind: {apiVersion: v1, kind: Secret}\n${VALID_SPEC}` }),
      'spec.paramKind',
      /ConfigMap/,
    ],
    [
      'duplicate variable',
      policyText({
        spec: '  variables:\n  - name: a\n    expression: "1"\n  - name: a\n    expression: "2"\n' + VALID_SPEC,
      }),
      'spec.variables[1].name',
      /twice/,
    ],
  ])('refuses %s, naming the file and the field', (_case, text, field, detail) => {
    const error = errorOf(text);
    expect(error.source).toBe(SOURCE);
    expect(error.field).toBe(field);
    expect(error.message).toMatch(detail);
    expect(error.message.startsWith(`${SOURCE}: `)).toBe(true);
  });

  it('allows comprehension variables and type names, and variables in later variables', () => {
    const spec = `  variables:
  - name: pools
    expression: "object.spec.provider.workers.map(w, w.name)"
  - name: count
    expression: "size(variables.pools)"
  validations:
  - expression: "variables.count > 0 && object.spec.provider.workers.all(w, type(w.minimum) == int)"`;
    expect(parsePolicyFile(policyText({ spec }), SOURCE).variables.map((v) => v.name)).toEqual(['pools', 'count']);
  });

  it('refuses two policies with one name', () => {
    const text = policyText({ spec: VALID_SPEC });
    expect(() =>
      parsePolicyFiles([
        { path: 'a.yaml', text },
        { path: 'b.yaml', text },
      ]),
    ).toThrow(/b.yaml: metadata.name: "x" is also the name of a.yaml/);
  });
});
