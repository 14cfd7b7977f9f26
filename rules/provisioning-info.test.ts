// kyma-provisioning-info's details as KIM writes them (sigs.k8s.io/yaml v1.6.0: JSON → go-yaml v2). The expected
// texts below were checked byte for byte against sigs.k8s.io/yaml's JSONToYAML on the same JSON.
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../model/errors.js';
import type { ConfigMap } from '../model/shoot.js';
import { provisioningDetails, withLiveDetails } from './provisioning-info.js';

describe('provisioningDetails', () => {
  it('sorts the keys of every map, nests maps by two spaces and lists flush under their key', () => {
    const details = {
      workerPools: {
        kyma: { name: 'cpu-worker-0', machineType: 'm6i.large', haZones: true, autoScalerMin: 3, autoScalerMax: 20 },
        custom: [{ name: 'gpu', machineType: 'g5.xlarge', haZones: false, autoScalerMin: 0, autoScalerMax: 2 }],
      },
      region: 'eu-central-1',
      networkDetails: { dualStackIPEnabled: true, kubeAPIServer: { acl: ['10.0.0.0/8', '192.168.0.0/16'] } },
      infrastructureConfig: {
        kind: 'InfrastructureConfig',
        networks: { zones: [{ name: 'a', workers: '10.0.0.0/19' }] },
      },
    };
    expect(provisioningDetails(details)).toBe(
      [
        'infrastructureConfig:',
        '  kind: InfrastructureConfig',
        '  networks:',
        '    zones:',
        '    - name: a',
        '      workers: 10.0.0.0/19',
        'networkDetails:',
        '  dualStackIPEnabled: true',
        '  kubeAPIServer:',
        '    acl:',
        '    - 10.0.0.0/8',
        '    - 192.168.0.0/16',
        'region: eu-central-1',
        'workerPools:',
        '  custom:',
        '  - autoScalerMax: 2',
        '    autoScalerMin: 0',
        '    haZones: false',
        '    machineType: g5.xlarge',
        '    name: gpu',
        '  kyma:',
        '    autoScalerMax: 20',
        '    autoScalerMin: 3',
        '    haZones: true',
        '    machineType: m6i.large',
        '    name: cpu-worker-0',
        '',
      ].join('\n'),
    );
  });

  it('writes what YAML would read as something else quoted, empty collections inline, lists of lists as go-yaml', () => {
    expect(
      provisioningDetails({
        a: '2026-01-01T00:00:00Z',
        b: { e: {}, l: [], ll: [[1, 2], [3]] },
        n: null,
        t: 'true',
        z: '',
      }),
    ).toBe(
      [
        'a: "2026-01-01T00:00:00Z"',
        'b:',
        '  e: {}',
        '  l: []',
        '  ll:',
        '  - - 1',
        '    - 2',
        '  - - 3',
        '"n": null',
        't: "true"',
        'z: ""',
        '',
      ].join('\n'),
    );
  });
});

describe('withLiveDetails', () => {
  const configMap = (details: string): ConfigMap => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'kyma-provisioning-info', namespace: 'kyma-system' },
    data: { details },
  });

  it("adds the Seed's region and the last operation's time (RFC 3339, UTC, whole seconds) in their sorted places", () => {
    const filled = withLiveDetails(configMap('region: eu-central-1\nworkerPools:\n  kyma:\n    name: w\n'), {
      seedRegion: 'eu-west-1',
      lastReconcileTime: '2026-01-01T10:00:00.123+01:00',
    });
    expect(filled.data.details).toBe(
      [
        'lastReconcileTime: "2026-01-01T09:00:00Z"',
        'region: eu-central-1',
        'seedRegion: eu-west-1',
        'workerPools:',
        '  kyma:',
        '    name: w',
        '',
      ].join('\n'),
    );
    expect(filled.metadata).toEqual(configMap('').metadata);
  });

  it('leaves an unknown or empty live field out, as KIM leaves a zero value out (omitzero)', () => {
    const text = 'region: eu-central-1\n';
    expect(withLiveDetails(configMap(text), {}).data.details).toBe(text);
    expect(withLiveDetails(configMap(text), { seedRegion: '', lastReconcileTime: '' }).data.details).toBe(text);
  });

  it('does not change the ConfigMap it is given', () => {
    const given = configMap('region: a\n');
    withLiveDetails(given, { seedRegion: 'b' });
    expect(given.data.details).toBe('region: a\n');
  });

  it('refuses details that are no YAML map', () => {
    expect(() => withLiveDetails(configMap('- a\n'), { seedRegion: 'b' })).toThrow(ConfigError);
    expect(() => withLiveDetails(configMap(''), { seedRegion: 'b' })).toThrow(ConfigError);
  });
});
