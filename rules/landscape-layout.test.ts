import { describe, expect, it } from 'vitest';
import { ConfigError } from '../model/errors.js';
import type { ConfigMap, Shoot } from '../model/shoot.js';
import type { KubeObject } from '../model/kube-object.js';
import { isRegistryCachePath, isSkrPath, shootFiles, shootManifests, withoutServerFields } from './landscape-layout.js';

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

describe('shootManifests with the objects of the cluster (skr/)', () => {
  const namespace: KubeObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kyma-system', uid: 'u1' } };
  const binding: KubeObject = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: 'admin-0123456789' },
  };
  const infoMap = {
    ...configMap('kyma-provisioning-info'),
    metadata: { name: 'kyma-provisioning-info', namespace: 'kyma-system' },
  };

  it('writes them under skr/ by kind and name (cluster-scoped or not), sorted, after the companions and before the Shoot', () => {
    const manifests = shootManifests(
      shoot('c-1'),
      [configMap('structured-auth-config-c-1')],
      [namespace, infoMap, binding],
    );
    expect(manifests.map((m) => m.path)).toEqual([
      'shoots/c-1/configmap-structured-auth-config-c-1.yaml',
      'shoots/c-1/skr/clusterrolebinding-admin-0123456789.yaml',
      'shoots/c-1/skr/configmap-kyma-provisioning-info.yaml',
      'shoots/c-1/skr/namespace-kyma-system.yaml',
      'shoots/c-1/shoot.yaml',
    ]);
    expect(manifests[3]?.object.metadata).toEqual({ name: 'kyma-system' });
    expect(manifests.map((m) => isSkrPath(m.path))).toEqual([false, true, true, true, false]);
  });

  it('refuses an SKR object named outside DNS-1123 labels or twice; a companion and an SKR object may share a name', () => {
    expect(() => shootFiles(shoot('s'), [], [{ ...namespace, metadata: { name: '../x' } }])).toThrow(
      'Namespace "../x": metadata.name: must be a DNS-1123 label',
    );
    expect(() => shootFiles(shoot('s'), [], [namespace, namespace])).toThrow('is rendered twice for Shoot s');
    expect(shootFiles(shoot('s'), [infoMap], [infoMap]).map((f) => f.path)).toEqual([
      'shoots/s/configmap-kyma-provisioning-info.yaml',
      'shoots/s/skr/configmap-kyma-provisioning-info.yaml',
      'shoots/s/shoot.yaml',
    ]);
  });

  it('tells an SKR file from the rest of a Shoot folder', () => {
    expect(isSkrPath('shoots/s/skr/namespace-kyma-system.yaml')).toBe(true);
    expect(isSkrPath('shoots/s/shoot.yaml')).toBe(false);
    expect(isSkrPath('shoots/s/skr/deeper/x.yaml')).toBe(false);
    expect(isSkrPath('other/s/skr/x.yaml')).toBe(false);
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

describe('shootManifests with registry-cache stubs', () => {
  it('places each stub at shoots/<shoot>/registry-cache/secret-<name>.yaml, before the Shoot', () => {
    const stub = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'reg-cache-1', namespace: 'garden-p' },
      immutable: true,
    };
    const paths = shootManifests(shoot('s'), [], [], [stub]).map((m) => m.path);
    expect(paths).toEqual(['shoots/s/registry-cache/secret-reg-cache-1.yaml', 'shoots/s/shoot.yaml']);
    expect(paths.map(isRegistryCachePath)).toEqual([true, false]);
    expect(isRegistryCachePath('shoots/s/skr/secret-x.yaml')).toBe(false);
    expect(isRegistryCachePath('shoots/s/registry-cache/deeper/x.yaml')).toBe(false);
  });
});
