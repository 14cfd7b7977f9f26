// What a provider module owns: the infrastructure and control-plane configs of one
// hyperscaler (zone maths included) and, where the provider has one, the worker providerConfig.
import type { ConverterConfig } from '../../../model/converter-config.js';
import type { JsonObject } from '../../../model/shoot.js';

interface ProviderConfigInput {
  /** Runtime `networking.nodes`: the CIDR all worker subnets are cut from. */
  nodesCidr: string;
  /** Unique worker zones, first-seen order. */
  zones: string[];
  /** Runtime asks for dual-stack and the landscape allows it. */
  dualStack: boolean;
  config: ConverterConfig;
}

/** Everything kimops knows about one hyperscaler; adding a provider means adding one of these. */
export interface ProviderModule {
  /** The Gardener CloudProfile its Shoots use (KIM's fixed names; GDCH's comes from the landscape). */
  cloudProfileName(config: ConverterConfig): string;
  /** The ExposureClass its Shoots are exposed through, if any. */
  exposureClassName?: string;
  /** Honours the Runtime's networking.dualStack (with the landscape's consent). */
  dualStack: boolean;
  /** Its load balancers show client IPs, so the API-server ACL extension works (KIM's list). */
  apiServerAcl: boolean;
  infrastructureConfig(input: ProviderConfigInput): JsonObject;
  controlPlaneConfig(input: ProviderConfigInput): JsonObject;
  /**
   * Update mode, after a zone was added: combine the regenerated config with the live one.
   * Absent → the regenerated config replaces the live one (KIM rebuilds GCP, OpenStack,
   * Alicloud and GDCH from scratch; it merges only AWS and Azure).
   */
  mergeInfrastructureConfig?(generated: JsonObject, live: JsonObject): JsonObject;
  /** A providerConfig every worker gets on this provider, or undefined to leave workers alone. */
  workerProviderConfig?(config: ConverterConfig): JsonObject | undefined;
}

/** Field path of the worker network in the Runtime, for messages. */
export const NODES_FIELD = 'spec.shoot.networking.nodes';
export const ZONES_FIELD = 'spec.shoot.provider.workers[].zones';
