import { describe, expect, it } from 'vitest';
import { ConfigError } from '../model/errors.js';
import type { ConfigMap, Shoot } from '../model/shoot.js';
import { shootFiles, shootManifests, withoutServerFields } from './landscape-layout.js';

function shoot(name: string): Shoot {
  return {
    apiVersion: 'core.gardener.cloud/v1beta1',
    kind: 'Shoot',
    metadata: {
      name,
      namespace: 'garden-kyma-dev',
      uid: '1b2c',
      resourceVersion: '42',
      generation: 3,
      creationTimestamp: '2025-01-01T00:00:00Z',
      managedFields: [{ manager: 'kim' }],
      selfLink: '/apis/x',
      labels: { 'kyma-project.io/runtime-id': 'r1' },
    },
    spec: { region: 'eu-central-1', networking: {}, kubernetes: {}, provider: { type: 'aws', workers: [] } },
    status: { observedGeneration: 3 },
  };
}

function configMap(name: string): ConfigMap {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'garden-kyma-dev' },
    data: { 'config.yaml': 'apiVersion: apiserver.config.k8s.io/v1beta1\nkind: AuthenticationConfiguration\n' },
  };
}

describe('shootFiles', () => {
  it('puts the companions first and the Shoot last, in the Shoot folder', () => {
    const files = shootFiles(shoot('c-78fcc25'), [configMap('structured-auth-config-c-78fcc25')]);
    expect(files.map((f) => f.path)).toEqual([
      'shoots/c-78fcc25/configmap-structured-auth-config-c-78fcc25.yaml',
      'shoots/c-78fcc25/shoot.yaml',
    ]);
    expect(files[0]?.content).toContain('data:\n  config.yaml: |\n    apiVersion: apiserver.config.k8s.io/v1beta1\n');
  });

  it('writes no status and no server-set metadata', () => {
    const [file] = shootFiles(shoot('c-1'), []);
    expect(file?.content).toBe(
      [
        'apiVersion: core.gardener.cloud/v1beta1',
        'kind: Shoot',
        'metadata:',
        '  name: c-1',
        '  namespace: garden-kyma-dev',
        '  labels:',
        '    kyma-project.io/runtime-id: r1',
        'spec:',
        '  kubernetes: {}',
        '  networking: {}',
        '  provider:',
        '    type: aws',
        '    workers: []',
        '  region: eu-central-1',
        '',
      ].join('\n'),
    );
  });

  it('orders companions by path whatever order they come in', () => {
    const paths = (names: string[]) => shootManifests(shoot('s'), names.map(configMap)).map((m) => m.path);
    expect(paths(['b', 'a'])).toEqual(paths(['a', 'b']));
  });

  it.each(['', '..', '../x', 'a/b', 'Upper', '-lead', 'trail-', 'a.b', 'x'.repeat(64)])(
    'refuses the Shoot name %j, which could leave shoots/',
    (name) => {
      expect(() => shootFiles(shoot(name), [])).toThrow(ConfigError);
      expect(() => shootFiles(shoot(name), [])).toThrow('metadata.name: must be a DNS-1123 label');
    },
  );

  it('refuses a companion name that is not a DNS-1123 label and two companions with the same name', () => {
    expect(() => shootFiles(shoot('s'), [configMap('../../etc')])).toThrow(
      'ConfigMap "garden-kyma-dev/../../etc": metadata.name',
    );
    expect(() => shootFiles(shoot('s'), [configMap('a'), configMap('a')])).toThrow('is rendered twice for Shoot s');
  });
});

describe('withoutServerFields', () => {
  it('does not change the object it is given', () => {
    const original = shoot('s');
    const copy = withoutServerFields(original);
    expect(copy.metadata.uid).toBeUndefined();
    expect(copy.status).toBeUndefined();
    expect(original.metadata.uid).toBe('1b2c');
    expect(original.status).toEqual({ observedGeneration: 3 });
  });
});
