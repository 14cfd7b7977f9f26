// kyma-provisioning-info from the Runtime and its rendered Shoot, per KIM's pkg/gardener/skrdetails: which fields,
// from where, and which are left out. The YAML text of the aws case was checked against sigs.k8s.io/yaml v1.6.0.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import type { Runtime } from '../../../model/runtime.js';
import type { Shoot, Worker } from '../../../model/shoot.js';
import { testShoot } from '../../../test/helpers/test-shoot.js';
import { provisioningInfo, provisioningInfoConfigMap } from './provisioning-info.js';

const example = (plan: string) =>
  parse(readFileSync(new URL(`../../../examples/runtimes/keb/${plan}.yaml`, import.meta.url), 'utf8')) as Runtime;

const pool = (name: string, zones: string[], minimum = 1, maximum = 3): Worker => ({
  name,
  machine: { type: 'g5.xlarge' },
  minimum,
  maximum,
  zones,
});

/** KEB's aws Runtime with two additional pools, one across five zones, and the API-server ACL. */
function awsRuntime(): Runtime {
  const runtime = example('aws');
  runtime.spec.shoot.provider.additionalWorkers = [
    pool('gpu', ['eu-central-1a']),
    pool('wide', ['a', 'b', 'c', 'd', 'e'], 0, 5),
  ];
  runtime.spec.shoot.kubernetes = {
    ...runtime.spec.shoot.kubernetes,
    kubeAPIServer: { acl: { allowedCIDRs: ['10.0.0.0/8'] } },
  };
  return runtime;
}

function shoot(edit: (s: Shoot) => void = () => undefined): Shoot {
  const s = testShoot();
  s.spec.provider.infrastructureConfig = {
    apiVersion: 'aws.provider.extensions.gardener.cloud/v1alpha1',
    kind: 'InfrastructureConfig',
    networks: { vpc: { cidr: '10.250.0.0/16' } },
  };
  edit(s);
  return s;
}

describe('provisioningInfoConfigMap', () => {
  it("writes KIM's details for aws: HA zones, the additional pools, the ACL, dual-stack, sorted as KIM's YAML", () => {
    const configMap = provisioningInfoConfigMap(
      awsRuntime(),
      shoot((s) => (s.spec.networking.ipFamilies = ['IPv4', 'IPv6'])),
    );
    expect(configMap.metadata).toEqual({
      name: 'kyma-provisioning-info',
      namespace: 'kyma-system',
      labels: { 'reconciler.kyma-project.io/managed-by': 'infrastructure-manager' },
    });
    expect(configMap.data.details).toBe(
      [
        'environmentInstanceID: 99293481-E489-5969-98D6-C2E4F7F51CB2',
        'globalAccountID: d90f856e-6f54-579b-a12b-27abb6e4727e',
        'infrastructureConfig:',
        '  apiVersion: aws.provider.extensions.gardener.cloud/v1alpha1',
        '  kind: InfrastructureConfig',
        '  networks:',
        '    vpc:',
        '      cidr: 10.250.0.0/16',
        'instanceID: 99293481-E489-5969-98D6-C2E4F7F51CB2',
        'instanceName: 61dd7761-08dc-59ce-840d-342f5e487157',
        'networkDetails:',
        '  dualStackIPEnabled: true',
        '  kubeAPIServer:',
        '    acl:',
        '    - 10.0.0.0/8',
        'platformRegion: cf-eu11',
        'region: eu-central-1',
        'runtimeID: 61dd7761-08dc-59ce-840d-342f5e487157',
        'subaccountID: 3f569113-6971-51e1-9b5a-adb4a830c4ca',
        'workerPools:',
        '  custom:',
        '  - autoScalerMax: 3',
        '    autoScalerMin: 1',
        '    haZones: false',
        '    machineType: g5.xlarge',
        '    name: gpu',
        '  - autoScalerMax: 5',
        '    autoScalerMin: 0',
        '    haZones: true',
        '    machineType: g5.xlarge',
        '    name: wide',
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

  it('never writes the live fields: the applier adds seedRegion and lastReconcileTime', () => {
    const info = provisioningInfo(awsRuntime(), shoot());
    expect(info).not.toHaveProperty('seedRegion');
    expect(info).not.toHaveProperty('lastReconcileTime');
  });

  it('HA zones: three or more, an odd number (KIM); two or four are not', () => {
    const haOf = (zones: string[]) => {
      const runtime = example('aws');
      (runtime.spec.shoot.provider.workers[0] as Worker).zones = zones;
      return (provisioningInfo(runtime, shoot()).workerPools as { kyma: { haZones: boolean } }).kyma.haZones;
    };
    expect([['a'], ['a', 'b'], ['a', 'b', 'c'], ['a', 'b', 'c', 'd'], []].map(haOf)).toEqual([
      false,
      false,
      true,
      false,
      false,
    ]);
  });

  it('leaves out what KIM leaves out (omitzero): empty labels, no additional pools, an empty or ignored ACL', () => {
    const runtime = example('gcp');
    runtime.metadata.labels = { 'kyma-project.io/runtime-id': 'rt-1', 'kyma-project.io/subaccount-id': '' };
    runtime.spec.shoot.provider.additionalWorkers = [];
    // KIM reads the ACL for aws and azure only.
    runtime.spec.shoot.kubernetes = { kubeAPIServer: { acl: { allowedCIDRs: ['10.0.0.0/8'] } } };
    const info = provisioningInfo(runtime, shoot());
    expect(Object.keys(info).sort()).toEqual([
      'infrastructureConfig',
      'networkDetails',
      'platformRegion',
      'region',
      'runtimeID',
      'workerPools',
    ]);
    expect(info.networkDetails).toEqual({ dualStackIPEnabled: false });
    expect(info.workerPools).not.toHaveProperty('custom');
    const azure = example('azure');
    azure.spec.shoot.kubernetes = { kubeAPIServer: { acl: { allowedCIDRs: [] } } };
    expect(provisioningInfo(azure, shoot()).networkDetails).toEqual({ dualStackIPEnabled: false });
    azure.spec.shoot.kubernetes = { kubeAPIServer: { acl: { allowedCIDRs: ['192.0.2.0/24'] } } };
    expect(provisioningInfo(azure, shoot()).networkDetails).toEqual({
      dualStackIPEnabled: false,
      kubeAPIServer: { acl: ['192.0.2.0/24'] },
    });
  });

  it('dual-stack only with exactly IPv4 and IPv6 on the Shoot', () => {
    const dualStack = (families?: string[]) =>
      (
        provisioningInfo(
          example('aws'),
          shoot((s) => {
            if (families) s.spec.networking.ipFamilies = families;
            else delete s.spec.networking.ipFamilies;
          }),
        ).networkDetails as { dualStackIPEnabled: boolean }
      ).dualStackIPEnabled;
    expect([undefined, ['IPv4'], ['IPv6'], ['IPv6', 'IPv4'], ['IPv4', 'IPv6']].map(dualStack)).toEqual([
      false,
      false,
      false,
      true,
      true,
    ]);
  });
});
