// Alicloud: VPC with one /(prefix+3) worker subnet per zone.
import { FieldError } from '../../../model/errors.js';
import { subnet } from '../support/cidr.js';
import { ZONES_FIELD, type ProviderModule } from './provider.js';
import { requireUniqueZones, workerCidrWithin } from './zones.js';

const API_VERSION = 'alicloud.provider.extensions.gardener.cloud/v1alpha1';
const MAX_ZONES = 8;

function alicloudZones(nodesCidr: string, zoneNames: string[]): { name: string; worker: ''; workers: string }[] {
  if (zoneNames.length > MAX_ZONES) {
    throw new FieldError(
      ZONES_FIELD,
      `Number of networking zones must be between 0 and ${MAX_ZONES}; got ${zoneNames.length}`,
    );
  }
  const cidr = workerCidrWithin(nodesCidr, 16, 24);
  requireUniqueZones(zoneNames, (zone) => `zone name ${zone} is duplicated`);
  // `worker: ""`: Gardener's deprecated field, which KIM's Go types always write (no omitempty); written too, so a
  // Shoot taken over from KIM keeps its bytes.
  return zoneNames.map((name, i) => ({ name, worker: '', workers: subnet(cidr, cidr.prefix + 3, i) }));
}

export const alicloud: ProviderModule = {
  cloudProfileName: () => 'alicloud',
  dualStack: false,
  apiServerAcl: false,
  infrastructureConfig({ nodesCidr, zones }) {
    return {
      kind: 'InfrastructureConfig',
      apiVersion: API_VERSION,
      networks: { vpc: { cidr: nodesCidr }, zones: alicloudZones(nodesCidr, zones) },
    };
  },
  controlPlaneConfig() {
    return { kind: 'ControlPlaneConfig', apiVersion: API_VERSION };
  },
};
