// The Gardener Shoot fields kimops writes and reads (core.gardener.cloud/v1beta1).
// Provider-specific configs (RawExtension in Go) stay as plain JSON objects.
import type { ObjectMeta } from './kube-object.js';
import { OWNERSHIP_LABEL, OWNERSHIP_VALUE } from './contract.js';

export const SHOOT_API_VERSION = 'core.gardener.cloud/v1beta1';

export function isManagedByKimops(object: { metadata: { labels?: Record<string, string> | undefined } }): boolean {
  return object.metadata.labels?.[OWNERSHIP_LABEL] === OWNERSHIP_VALUE;
}

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

interface MachineImage {
  name?: string;
  version?: string;
}

export interface Worker {
  name: string;
  machine: { type: string; image?: MachineImage; architecture?: string };
  minimum: number;
  maximum: number;
  maxSurge?: number | string;
  maxUnavailable?: number | string;
  zones?: string[];
  volume?: { size: string; type?: string; name?: string; encrypted?: boolean };
  providerConfig?: JsonObject;
  kubernetes?: { kubelet?: { maxPods?: number; [key: string]: unknown }; version?: string };
  cri?: { name?: string; containerRuntimes?: { type: string; providerConfig?: JsonObject }[] };
  machineControllerManager?: {
    machineDrainTimeout?: string;
    maxEvictRetries?: number;
    [key: string]: unknown;
  };
  updateStrategy?: string;
  [key: string]: unknown;
}

export interface ControlPlane {
  highAvailability?: { failureTolerance: { type: string } };
}

export interface Extension {
  type: string;
  disabled?: boolean;
  providerConfig?: JsonObject;
}

/** Gardener's extension that serves OpenIDConnect resources inside the cluster (KIM's `extensions.OidcExtensionType`). */
export const OIDC_EXTENSION_TYPE = 'shoot-oidc-service';

/** KIM's isOidcExtensionEnabled: the first extension of its type decides; absent means off. */
export function oidcExtensionEnabled(shoot: {
  spec?: { extensions?: readonly { type: string; disabled?: boolean }[] };
}): boolean {
  const extension = shoot.spec?.extensions?.find((candidate) => candidate.type === OIDC_EXTENSION_TYPE);
  return extension !== undefined && extension.disabled !== true;
}

export interface NamedResource {
  name: string;
  resourceRef: { apiVersion: string; kind: string; name: string };
}

interface DnsProvider {
  domains?: { include?: string[] };
  primary?: boolean;
  type?: string;
  credentialsRef?: { apiVersion: string; kind: string; name: string };
}

export interface Toleration {
  key: string;
  value?: string;
}

interface ShootSpec {
  purpose?: string;
  region: string;
  secretBindingName?: string;
  credentialsBindingName?: string;
  cloudProfile?: { kind: string; name: string };
  exposureClassName?: string;
  /** Gardener's label selector: a hand-edited Shoot may carry only matchExpressions. */
  seedSelector?: { matchLabels?: Record<string, string>; matchExpressions?: unknown[] };
  accessRestrictions?: { name: string; options?: Record<string, string> }[];
  networking: {
    type?: string;
    nodes?: string;
    pods?: string;
    services?: string;
    ipFamilies?: string[];
    providerConfig?: JsonObject;
  };
  controlPlane?: ControlPlane;
  kubernetes: {
    version?: string;
    kubeAPIServer?: {
      featureGates?: Record<string, boolean>;
      runtimeConfig?: Record<string, boolean>;
      structuredAuthentication?: { configMapName: string };
      serviceAccountConfig?: { extendTokenExpiration?: boolean; maxTokenExpiration?: string };
      auditConfig?: { auditPolicy?: { configMapRef?: { name: string } } };
      [key: string]: unknown;
    };
    kubelet?: { featureGates?: Record<string, boolean>; [key: string]: unknown };
    [key: string]: unknown;
  };
  provider: {
    type: string;
    workers: Worker[];
    infrastructureConfig?: JsonObject;
    controlPlaneConfig?: JsonObject;
    workersSettings?: { sshAccess?: { enabled: boolean } };
  };
  dns?: { domain?: string; providers?: DnsProvider[] };
  extensions?: Extension[];
  resources?: NamedResource[];
  maintenance?: {
    autoUpdate?: { kubernetesVersion: boolean; machineImageVersion?: boolean };
    timeWindow?: { begin: string; end: string };
  };
  tolerations?: Toleration[];
  [key: string]: unknown;
}

/** The status fields the backfiller and the health rules read. */
export interface ShootStatus {
  observedGeneration?: number;
  lastOperation?: { type: string; state: string; progress?: number; description?: string; lastUpdateTime?: string };
  lastErrors?: { description: string; codes?: string[]; taskID?: string }[];
  [key: string]: unknown;
}

// A type alias, not an interface, so it counts as a KubeObject (interfaces lack an implicit index signature).
export type Shoot = {
  apiVersion: typeof SHOOT_API_VERSION;
  kind: 'Shoot';
  metadata: ObjectMeta;
  spec: ShootSpec;
  status?: ShootStatus;
};

// A type alias, not an interface, so it counts as a KubeObject (interfaces lack an implicit index signature).
export type ConfigMap = {
  apiVersion: 'v1';
  kind: 'ConfigMap';
  metadata: ObjectMeta;
  data: Record<string, string>;
};
