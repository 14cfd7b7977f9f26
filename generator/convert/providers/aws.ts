// AWS: VPC with workers/public/internal subnets per zone, IMDSv2 worker config, dual-stack.
import { FieldError } from '../../../model/errors.js';
import { asJsonObject } from '../../../model/json.js';
import type { JsonObject } from '../../../model/shoot.js';
import { blockSize, parseIpv4Cidr, subnet } from '../support/cidr.js';
import { cloneJson } from '../../../model/clone.js';
import { NODES_FIELD, ZONES_FIELD, type ProviderModule } from './provider.js';
import { requireUniqueZones } from './zones.js';

const API_VERSION = 'aws.provider.extensions.gardener.cloud/v1alpha1';
const MAX_ZONES = 8;

interface AwsZone {
  name: string;
  workers: string;
  public: string;
  internal: string;
}

/**
 * KIM's split of the worker CIDR: with p = prefix + 3, the first three zones take a /p for
 * workers and two /(p+1) for public and internal, four blocks of 2^(31-p) each; zones four to
 * eight share the remaining quarter as three /(p+3) subnets each.
 */
export function awsZones(nodesCidr: string, zoneNames: string[]): AwsZone[] {
  if (zoneNames.length < 1 || zoneNames.length > MAX_ZONES) {
    throw new FieldError(
      ZONES_FIELD,
      `Number of networking zones must be between 1 and ${MAX_ZONES}; got ${zoneNames.length}`,
    );
  }
  requireUniqueZones(zoneNames, (zone) => `zone name ${zone} is duplicated`);
  const cidr = parseIpv4Cidr(nodesCidr);
  if (!cidr)
    throw new FieldError(
      NODES_FIELD,
      `failed to parse worker network CIDR "${nodesCidr}"; use an IPv4 CIDR like 10.250.0.0/16`,
    );
  if (cidr.prefix < 16 || cidr.prefix > 24) {
    throw new FieldError(NODES_FIELD, `CIDR prefix length must be between 16 and 24; got /${cidr.prefix}`);
  }
  const p = cidr.prefix + 3;
  const quarter = blockSize(p + 1); // d in KIM's terms
  return zoneNames.map((name, i) => {
    if (i < 3) {
      const start = cidr.base + i * 4 * quarter;
      return {
        name,
        workers: subnet({ base: start, prefix: p }, p, 0),
        public: subnet({ base: start + 2 * quarter, prefix: p + 1 }, p + 1, 0),
        internal: subnet({ base: start + 3 * quarter, prefix: p + 1 }, p + 1, 0),
      };
    }
    const start = cidr.base + 12 * quarter + (i - 3) * 3 * blockSize(p + 3);
    const small = { base: start, prefix: p + 3 };
    return {
      name,
      workers: subnet(small, p + 3, 0),
      public: subnet(small, p + 3, 1),
      internal: subnet(small, p + 3, 2),
    };
  });
}

/** What a live AWS config owns that KIM's regeneration must not lose. */
function mergeAws(generated: JsonObject, live: JsonObject): JsonObject {
  const merged = cloneJson(generated);
  for (const key of ['ignoreTags', 'enableECRAccess', 'dualStack']) {
    if (live[key] !== undefined) merged[key] = cloneJson(live[key]);
  }
  const liveNetworks = asJsonObject(live.networks);
  const networks = asJsonObject(merged.networks);
  const liveVpc = asJsonObject(liveNetworks.vpc);
  const vpc = asJsonObject(networks.vpc);
  for (const key of ['id', 'gatewayEndpoints']) {
    if (liveVpc[key] !== undefined) vpc[key] = cloneJson(liveVpc[key]);
  }
  const liveZones = Array.isArray(liveNetworks.zones) ? liveNetworks.zones.map(asJsonObject) : [];
  for (const zone of Array.isArray(networks.zones) ? networks.zones.map(asJsonObject) : []) {
    const eip = liveZones.find((z) => z.name === zone.name)?.elasticIPAllocationID;
    if (eip !== undefined) zone.elasticIPAllocationID = cloneJson(eip);
  }
  return merged;
}

export const aws: ProviderModule = {
  cloudProfileName: () => 'aws',
  dualStack: true,
  apiServerAcl: true,
  infrastructureConfig({ nodesCidr, zones, dualStack }) {
    const config: JsonObject = {
      kind: 'InfrastructureConfig',
      apiVersion: API_VERSION,
      networks: { vpc: { cidr: nodesCidr }, zones: awsZones(nodesCidr, zones).map((z) => ({ ...z })) },
    };
    if (dualStack) config.dualStack = { enabled: true };
    return config;
  },
  controlPlaneConfig({ dualStack }) {
    return {
      kind: 'ControlPlaneConfig',
      apiVersion: API_VERSION,
      ...(dualStack && { loadBalancerController: { enabled: true } }),
    };
  },
  mergeInfrastructureConfig: mergeAws,
  workerProviderConfig(config) {
    if (!config.provider?.aws?.enableIMDSv2) return undefined;
    // Instance metadata only with session tokens, and reachable from pods (hop limit 2).
    return {
      kind: 'WorkerConfig',
      apiVersion: API_VERSION,
      instanceMetadataOptions: { httpTokens: 'required', httpPutResponseHopLimit: 2 },
    };
  },
};
