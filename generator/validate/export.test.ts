import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { toYamlStream } from '../../rules/canonical-yaml.js';
import { bindingName, exportFileName, exportPolicies, type ExportedObject } from './export.js';
import { PARAMS_CONFIG_MAP } from '../../model/contract.js';
import { packPolicies } from '../../test/helpers/policy-pack.js';
import { parsePolicyFile, parsePolicyFiles, type Policy } from './policy-file.js';

const pack = packPolicies;

/** A small policy of its own, restricted to `landscapes`, with the given severity. */
function policy(name: string, severity: 'deny' | 'warn', landscapes: string, params = false): Policy {
  return parsePolicyFile(
    `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: ${name}
  annotations:
    kimops.kyma-project.io/severity: ${severity}
    kimops.kyma-project.io/landscapes: "${landscapes}"
spec:
${params ? '  paramKind: {apiVersion: v1, kind: ConfigMap}\n' : ''}  matchConstraints:
    resourceRules:
    - {apiGroups: [core.gardener.cloud], apiVersions: [v1beta1], resources: [shoots], operations: [CREATE]}
  validations:
  - expression: "${params ? "params.data.x == 'y'" : 'true'}"
    message: never
`,
    `policies/test/${name}.yaml`,
  );
}

const params = { landscape: 'stage', minimumKubernetesVersion: '1.33.0', runtimeInventory: 'false' };

/** Exports, writes as YAML and reads back as Kubernetes (YAML 1.1) would. */
function roundTrip(policies: readonly Policy[], landscape = 'stage'): ExportedObject[] {
  const { objects } = exportPolicies({ landscape, project: 'kyma-stage', policies, params });
  return parseAllDocuments(toYamlStream(objects), { version: '1.1' }).map((d) => d.toJS() as ExportedObject);
}

const byKind = (objects: ExportedObject[], kind: string) => objects.filter((o) => o.kind === kind);

describe('exportPolicies', () => {
  const objects = roundTrip(pack);
  const bindings = byKind(objects, 'ValidatingAdmissionPolicyBinding');

  it('writes the params ConfigMap, then every policy as in its file, then one binding per policy', () => {
    expect(objects.map((o) => o.kind)).toEqual([
      'ConfigMap',
      ...pack.map(() => 'ValidatingAdmissionPolicy'),
      ...pack.map(() => 'ValidatingAdmissionPolicyBinding'),
    ]);
    expect(byKind(objects, 'ValidatingAdmissionPolicy')).toEqual(pack.map((p) => p.manifest));
    expect(bindings.map((b) => (b.spec as { policyName: string }).policyName)).toEqual(pack.map((p) => p.name));
    expect(bindings.map((b) => b.metadata.name)).toEqual(pack.map((p) => bindingName(p.name, 'stage')));
  });

  it('puts the landscape facts into kimops-policy-params in garden-<project>, every value a string', () => {
    const [configMap] = objects;
    expect(configMap).toMatchObject({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: PARAMS_CONFIG_MAP, namespace: 'garden-kyma-stage' },
      data: params,
    });
  });

  it('binds each policy in the project namespace, with a paramRef exactly when the policy reads params', () => {
    for (const p of pack) {
      const spec = bindings.find((b) => (b.spec as { policyName: string }).policyName === p.name)?.spec as Record<
        string,
        unknown
      >;
      expect(spec.matchResources).toEqual({
        namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'garden-kyma-stage' } },
      });
      if (p.usesParams)
        expect(spec.paramRef).toEqual({
          name: PARAMS_CONFIG_MAP,
          namespace: 'garden-kyma-stage',
          parameterNotFoundAction: 'Deny',
        });
      else expect(spec).not.toHaveProperty('paramRef');
    }
    expect(pack.some((p) => p.usesParams) && pack.some((p) => !p.usesParams)).toBe(true);
  });

  it('maps severity to validation actions: deny → [Deny], warn → [Warn, Audit]', () => {
    const exported = roundTrip([policy('must', 'deny', '*'), policy('should', 'warn', '*', true)]);
    expect(
      byKind(exported, 'ValidatingAdmissionPolicyBinding').map((b) => [
        b.metadata.name,
        (b.spec as { validationActions: string[] }).validationActions,
      ]),
    ).toEqual([
      ['must.stage', ['Deny']],
      ['should.stage', ['Warn', 'Audit']],
    ]);
  });

  it('leaves out a policy restricted to other landscapes, and says so', () => {
    const policies = [
      policy('everywhere', 'deny', '*'),
      policy('prod-only', 'deny', 'prod'),
      policy('stage-and-prod', 'warn', 'stage, prod'),
    ];
    const names = (landscape: string) =>
      exportPolicies({ landscape, project: 'p', policies, params })
        .objects.filter((o) => o.kind !== 'ConfigMap')
        .map((o) => o.metadata.name);
    expect(names('dev')).toEqual(['everywhere', 'everywhere.dev']);
    expect(names('stage')).toEqual(['everywhere', 'stage-and-prod', 'everywhere.stage', 'stage-and-prod.stage']);
    expect(names('prod')).toHaveLength(6);
    expect(exportPolicies({ landscape: 'dev', project: 'p', policies, params }).skipped).toEqual([
      { policy: 'prod-only', source: 'policies/test/prod-only.yaml', reason: 'applies only to landscape prod' },
      {
        policy: 'stage-and-prod',
        source: 'policies/test/stage-and-prod.yaml',
        reason: 'applies only to landscapes stage, prod',
      },
    ]);
  });

  it('keeps the "*" landscapes annotation a string through YAML (an unquoted * would be an alias)', () => {
    const yaml = toYamlStream(
      exportPolicies({ landscape: 'stage', project: 'kyma-stage', policies: pack, params }).objects,
    );
    expect(yaml).toContain('kimops.kyma-project.io/landscapes: "*"');
    for (const p of byKind(objects, 'ValidatingAdmissionPolicy'))
      expect(p.metadata.annotations?.['kimops.kyma-project.io/landscapes']).toBe('*');
    // and the exported policies parse as policies again, same verdict-relevant content
    const reparsed = parsePolicyFiles(
      byKind(objects, 'ValidatingAdmissionPolicy').map((o) => ({ path: o.metadata.name, text: toYamlStream([o]) })),
    );
    expect(reparsed.map((p) => [p.name, p.severity, p.landscapes, p.validations])).toEqual(
      pack.map((p) => [p.name, p.severity, p.landscapes, p.validations]),
    );
  });

  it('does not share objects with the parsed policies (a caller may change the export)', () => {
    const { objects: exported } = exportPolicies({ landscape: 'stage', project: 'kyma-stage', policies: pack, params });
    const first = exported.find((o) => o.kind === 'ValidatingAdmissionPolicy');
    expect(first).not.toBe(pack[0]?.manifest);
    expect(first).toEqual(pack[0]?.manifest);
  });

  it('binds another namespace when asked (a test plane, a second garden project)', () => {
    const { objects: exported } = exportPolicies({
      landscape: 'stage',
      project: 'kyma-stage',
      policies: [policy('p', 'deny', '*', true)],
      params,
      namespace: 'policy-test',
    });
    expect(exported.map((o) => o.metadata.namespace)).toEqual(['policy-test', undefined, undefined]);
    expect(JSON.stringify(exported)).not.toContain('garden-kyma-stage');
  });

  it('names one file per object by kind and name', () => {
    const { objects: exported } = exportPolicies({
      landscape: 'stage',
      project: 'kyma-stage',
      policies: [policy('p', 'deny', '*')],
      params,
    });
    expect(exported.map(exportFileName)).toEqual([
      'configmap-kimops-policy-params.yaml',
      'validatingadmissionpolicy-p.yaml',
      'validatingadmissionpolicybinding-p.stage.yaml',
    ]);
  });
});
