import { describe, expect, it } from 'vitest';
import { evaluatePolicies, isDenied, isWarning, type PolicyInput } from './evaluate.js';
import { parsePolicyFile } from './policy-file.js';

function policy(
  spec: string,
  { severity = 'deny', landscapes = '*', operations = 'CREATE, UPDATE', params = false } = {},
) {
  return parsePolicyFile(
    `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: p
  annotations:
    kimops.kyma-project.io/severity: ${severity}
    kimops.kyma-project.io/landscapes: "${landscapes}"
spec:
${params ? '  paramKind: {apiVersion: v1, kind: ConfigMap}\n' : ''}  matchConstraints:
    resourceRules:
    - apiGroups: [core.gardener.cloud]
      apiVersions: [v1beta1]
      resources: [shoots]
      operations: [${operations}]
${spec}`,
    'p.yaml',
  );
}

const shoot = (spec: Record<string, unknown>) => ({
  apiVersion: 'core.gardener.cloud/v1beta1',
  kind: 'Shoot',
  metadata: { name: 's', namespace: 'garden-x', labels: { tier: 'a' } },
  spec,
});
const input = (object: unknown, extra: Partial<PolicyInput> = {}): PolicyInput => ({
  object,
  operation: 'CREATE',
  landscape: 'dev',
  ...extra,
});
const one = (p: ReturnType<typeof policy>, i: PolicyInput) => evaluatePolicies([p], i)[0];

const REGION_SET = `  validations:
  - expression: "object.spec.region != ''"
    messageExpression: "'region of ' + object.metadata.name + ' is empty'"
    message: region is empty`;

describe('evaluatePolicies', () => {
  it('passes and fails with the messageExpression, falling back to message', () => {
    const p = policy(REGION_SET);
    expect(one(p, input(shoot({ region: 'eu' })))).toMatchObject({ status: 'passed', messages: [] });
    expect(one(p, input(shoot({ region: '' })))).toMatchObject({
      status: 'failed',
      messages: ['region of s is empty'],
    });
    const broken = policy(
      `  validations:\n  - expression: "object.spec.region != ''"\n    messageExpression: "object.nope"\n    message: region is empty`,
    );
    expect(one(broken, input(shoot({ region: '' })))?.messages).toEqual(['region is empty']);
  });

  it('turns an evaluation error into an error result of that policy, never a throw', () => {
    const results = evaluatePolicies(
      [policy(REGION_SET), policy(`  validations:\n  - expression: "object.spec.missing.field == 1"`)],
      input(shoot({ region: 'eu' })),
    );
    expect(results.map((r) => r.status)).toEqual(['passed', 'error']);
    expect(results[1]?.messages[0]).toMatch(/object.spec.missing.field == 1' resulted in error/);
    expect(results[1] && isDenied(results[1])).toBe(true);
  });

  it('treats a non-bool validation result as an error', () => {
    expect(
      one(policy(`  validations:\n  - expression: "object.spec.region"`), input(shoot({ region: 'eu' }))),
    ).toMatchObject({ status: 'error', messages: [expect.stringMatching(/must return a bool, got string/)] });
  });

  it('is not applicable outside its landscapes, operations and resources', () => {
    const p = policy(REGION_SET, { landscapes: 'prod,stage', operations: 'UPDATE' });
    expect(one(p, input(shoot({ region: '' }), { landscape: 'dev', operation: 'UPDATE' }))).toMatchObject({
      status: 'not-applicable',
      reason: expect.stringMatching(/landscape dev/),
    });
    expect(one(p, input(shoot({ region: '' }), { landscape: 'prod' }))?.status).toBe('not-applicable');
    expect(
      one(p, input(shoot({ region: '' }), { landscape: 'prod', operation: 'UPDATE', oldObject: shoot({}) }))?.status,
    ).toBe('failed');
    expect(
      one(policy(REGION_SET), input({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } }))?.status,
    ).toBe('not-applicable');
  });

  it('honours matchConditions: false → not applicable, error → error', () => {
    const p = policy(
      `  matchConditions:\n  - name: aws\n    expression: "object.spec.provider.type == 'aws'"\n${REGION_SET}`,
    );
    expect(one(p, input(shoot({ region: '', provider: { type: 'gcp' } })))).toMatchObject({
      status: 'not-applicable',
      reason: 'match condition aws is false',
    });
    expect(one(p, input(shoot({ region: '', provider: { type: 'aws' } })))?.status).toBe('failed');
    expect(one(p, input(shoot({ region: '' })))?.status).toBe('error');
  });

  it('evaluates variables lazily: an erroring variable fails only the expressions that read it', () => {
    const p = policy(`  variables:
  - name: bad
    expression: "object.spec.nope"
  - name: workers
    expression: "object.spec.workers.size()"
  validations:
  - expression: "true || variables.bad == 1"
  - expression: "object.spec.workers.all(w, w.min <= w.max)"
    message: min above max`);
    expect(one(p, input(shoot({ workers: [{ min: 1, max: 2 }] })))?.status).toBe('passed');
    const failing = policy(
      `  variables:\n  - name: bad\n    expression: "object.spec.nope"\n  validations:\n  - expression: "variables.bad == 1"`,
    );
    expect(one(failing, input(shoot({})))?.messages[0]).toMatch(/composited variable "bad" fails to evaluate/);
  });

  it('types whole numbers as int and int-or-string values as they come', () => {
    const p = policy(
      `  validations:\n  - expression: "object.spec.w.all(w, (type(w.s) == int ? w.s : int(string(w.s).replace('%', ''))) + w.u > 0)"`,
    );
    expect(one(p, input(shoot({ w: [{ s: 1, u: 0 }] })))?.status).toBe('passed');
    expect(one(p, input(shoot({ w: [{ s: '0%', u: 0 }] })))?.status).toBe('failed');
    expect(one(p, input(shoot({ w: [{ s: '10%', u: 0 }] })))?.status).toBe('passed');
  });

  it('gives oldObject null on CREATE and object null on DELETE, and request.operation', () => {
    const p = policy(
      `  validations:\n  - expression: "request.operation == 'DELETE' ? object == null && oldObject.spec.region == 'eu' : oldObject == null"`,
      { operations: '"*"' },
    );
    expect(one(p, input(shoot({ region: 'eu' })))?.status).toBe('passed');
    expect(
      one(p, { object: null, oldObject: shoot({ region: 'eu' }), operation: 'DELETE', landscape: 'dev' })?.status,
    ).toBe('passed');
  });

  it('reads params.data, and errors when a params policy gets none', () => {
    const p = policy(`  validations:\n  - expression: "object.spec.region in params.data.regions.split(',')"`, {
      params: true,
    });
    expect(one(p, input(shoot({ region: 'eu' }), { params: { regions: 'us,eu' } }))?.status).toBe('passed');
    expect(one(p, input(shoot({ region: 'ap' }), { params: { regions: 'us,eu' } }))?.status).toBe('failed');
    expect(one(p, input(shoot({ region: 'eu' })))).toMatchObject({
      status: 'error',
      messages: [expect.stringMatching(/landscape facts/)],
    });
  });

  it('honours objectSelector on the new or the old object', () => {
    const p = policy(REGION_SET.replace('  validations:', '  validations:'));
    const selected = { ...p, objectSelector: { matchLabels: { tier: 'b' } } };
    expect(one(selected, input(shoot({ region: '' })))?.status).toBe('not-applicable');
    expect(
      one(
        { ...p, objectSelector: { matchExpressions: [{ key: 'tier', operator: 'In' as const, values: ['a'] }] } },
        input(shoot({ region: '' })),
      )?.status,
    ).toBe('failed');
  });

  it('reports warn policies as warnings, not denials', () => {
    const [r] = evaluatePolicies([policy(REGION_SET, { severity: 'warn' })], input(shoot({ region: '' })));
    if (!r) throw new Error('no result');
    expect([isDenied(r), isWarning(r)]).toEqual([false, true]);
  });
});
