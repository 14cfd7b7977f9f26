// Azure: VNet with one /(prefix+3) subnet and NAT gateway per numbered zone; Azure-lite has no zones.
import { FieldError } from '../../../model/errors.js';
import { asJsonObject } from '../../../model/json.js';
import type { JsonObject } from '../../../model/shoot.js';
import { subnet } from '../support/cidr.js';
import { cloneJson } from '../../../model/clone.js';
import { NODES_FIELD, ZONES_FIELD, type ProviderModule } from './provider.js';
import { requireUniqueZones, workerCidrWithin } from './zones.js';

const API_VERSION = 'azure.provider.extensions.gardener.cloud/v1alpha1';
/** KIM's NAT gateway idle timeout for every zone. */
const NAT_IDLE_TIMEOUT_MINUTES = 4;

function azureZoneNumber(zone: string): number {
  if (!/^-?\d+$/.test(zone))
    throw new FieldError(ZONES_FIELD, `failed to convert zone name ${zone} to int; Azure zones are "1" to "8"`);
  const n = Number(zone);
  if (n < 1 || n > 8) throw new FieldError(ZONES_FIELD, `zone name ${zone} is not valid, must be between 1 and 8`);
  return n;
}

/** Subnets follow the zones' input order: ["2","3","1"] gives zone 2 the first block. */
function azureZones(nodesCidr: string, zoneNames: string[]): JsonObject[] {
  if (nodesCidr === '')
    throw new FieldError(NODES_FIELD, 'the worker network CIDR is empty; set an IPv4 CIDR like 10.250.0.0/22');
  const cidr = workerCidrWithin(nodesCidr, 16, 24);
  requireUniqueZones(zoneNames, (zone) => `zone name ${zone} is duplicated`);
  const numbers = zoneNames.map(azureZoneNumber);
  return numbers.map((name, i) => ({
    name,
    cidr: subnet(cidr, cidr.prefix + 3, i),
    natGateway: { enabled: true, idleConnectionTimeoutMinutes: NAT_IDLE_TIMEOUT_MINUTES },
  }));
}

/** The live config's resource names and gateways survive a regeneration (KIM's Azure patch). */
function mergeAzure(generated: JsonObject, live: JsonObject): JsonObject {
  const merged = cloneJson(generated);
  if (live.resourceGroup !== undefined) merged.resourceGroup = cloneJson(live.resourceGroup);
  const networks = asJsonObject(merged.networks);
  const liveNetworks = asJsonObject(live.networks);
  for (const key of ['vnet', 'serviceEndpoints', 'natGateway', 'workers']) {
    if (liveNetworks[key] !== undefined) networks[key] = cloneJson(liveNetworks[key]);
  }
  const liveZones = Array.isArray(liveNetworks.zones) ? liveNetworks.zones.map(asJsonObject) : [];
  for (const zone of Array.isArray(networks.zones) ? networks.zones.map(asJsonObject) : []) {
    const liveZone = liveZones.find((z) => z.name === zone.name);
    for (const key of ['natGateway', 'serviceEndpoints']) {
      if (liveZone?.[key] !== undefined) zone[key] = cloneJson(liveZone[key]);
    }
  }
  return merged;
}

export const azure: ProviderModule = {
  cloudProfileName: () => 'az',
  dualStack: false,
  apiServerAcl: true,
  infrastructureConfig({ nodesCidr, zones }) {
    return {
      kind: 'InfrastructureConfig',
      apiVersion: API_VERSION,
      networks: { vnet: { cidr: nodesCidr }, zones: azureZones(nodesCidr, zones) },
      zoned: zones.length > 0,
    };
  },
  controlPlaneConfig() {
    return { kind: 'ControlPlaneConfig', apiVersion: API_VERSION };
  },
  mergeInfrastructureConfig: mergeAzure,
};
