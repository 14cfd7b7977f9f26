// Google Distributed Cloud Hosted: the node CIDR split evenly over one to three zones, inside a
// parent network the landscape names.
import { FieldError } from '../../../model/errors.js';
import type { JsonObject } from '../../../model/shoot.js';
import { parseIpv4Cidr, subnet } from '../support/cidr.js';
import { NODES_FIELD, ZONES_FIELD, type ProviderModule } from './provider.js';
import { requireUniqueZones } from './zones.js';

const API_VERSION = 'gdch.provider.extensions.gardener.gdc.goog/v1alpha1';
/** KIM's CloudProfile for GDCH when the landscape names none. */
const DEFAULT_GDCH_CLOUD_PROFILE = 'cat';

/** Extra prefix bits needed to give each of n zones an equal subnet (1 → 0, 2 → 1, 3 → 2). */
export function subnetShiftForZoneCount(zoneCount: number): number {
  return Math.ceil(Math.log2(zoneCount));
}

export function gdchZones(nodesCidr: string, zoneNames: string[]): { name: string; CIDR: string }[] {
  const cidr = parseIpv4Cidr(nodesCidr);
  if (!cidr) throw new FieldError(NODES_FIELD, `invalid nodeCIDR: must be a parseable IPv4 CIDR; got "${nodesCidr}"`);
  if (zoneNames.length < 1 || zoneNames.length > 3) {
    throw new FieldError(ZONES_FIELD, `zone count must be between 1 and 3; got ${zoneNames.length}`);
  }
  requireUniqueZones(zoneNames, (zone) => `zone names must be unique; "${zone}" appears twice`);
  const prefix = cidr.prefix + subnetShiftForZoneCount(zoneNames.length);
  if (prefix > 32) {
    throw new FieldError(
      NODES_FIELD,
      `nodeCIDR prefix too small for requested zone count: /${cidr.prefix} cannot be split into ${zoneNames.length} zones`,
    );
  }
  return zoneNames.map((name, i) => ({ name, CIDR: subnet(cidr, prefix, i) }));
}

export const gdch: ProviderModule = {
  cloudProfileName: (config) => config.provider?.gdch?.cloudProfileName || DEFAULT_GDCH_CLOUD_PROFILE,
  dualStack: false,
  apiServerAcl: false,
  infrastructureConfig({ nodesCidr, zones, config }) {
    const ref = config.provider?.gdch;
    const parentReference: JsonObject = { name: ref?.parentReferenceName ?? '' };
    if (ref?.parentReferenceNamespace) parentReference.namespace = ref.parentReferenceNamespace;
    if (ref?.parentReferenceType) parentReference.type = ref.parentReferenceType;
    return {
      kind: 'InfrastructureConfig',
      apiVersion: API_VERSION,
      enableEgress: true,
      networks: { nodeCIDR: nodesCidr, zones: gdchZones(nodesCidr, zones), parentReference },
    };
  },
  controlPlaneConfig() {
    return { kind: 'ControlPlaneConfig', apiVersion: API_VERSION };
  },
};
