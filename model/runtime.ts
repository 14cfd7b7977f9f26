// The Runtime custom resource as KEB writes it (crds/runtime.yaml, KIM's api/v1/runtime_types.go).
// Only the fields kimops reads are typed precisely; Gardener types embedded in the Runtime
// (workers, controlPlane) are typed as the Shoot's, because the converter copies them.
import type { ObjectMeta } from './kube-object.js';
import type { ControlPlane, Worker } from './shoot.js';
import {
  LABEL_INSTANCE_ID,
  LABEL_RUNTIME_ID,
  LABEL_REGION,
  LABEL_BROKER_PLAN_ID,
  LABEL_BROKER_PLAN_NAME,
  LABEL_GLOBAL_ACCOUNT_ID,
  LABEL_SUBACCOUNT_ID,
  LABEL_KYMA_NAME,
} from './contract.js';

export const RUNTIME_API_VERSION = 'infrastructuremanager.kyma-project.io/v1';

/** Labels KIM requires before it converts a Runtime (ValidateRequiredLabels). */
export const REQUIRED_RUNTIME_LABELS = [
  LABEL_INSTANCE_ID,
  LABEL_RUNTIME_ID,
  LABEL_REGION,
  LABEL_BROKER_PLAN_ID,
  LABEL_BROKER_PLAN_NAME,
  LABEL_GLOBAL_ACCOUNT_ID,
  LABEL_SUBACCOUNT_ID,
  LABEL_KYMA_NAME,
] as const;

export const PROVIDER_TYPES = ['aws', 'azure', 'gcp', 'openstack', 'alicloud', 'gdch'] as const;
export type ProviderType = (typeof PROVIDER_TYPES)[number];

export interface OidcConfig {
  clientID?: string;
  groupsClaim?: string;
  groupsPrefix?: string;
  issuerURL?: string;
  signingAlgs?: string[];
  usernameClaim?: string;
  usernamePrefix?: string;
  requiredClaims?: Record<string, string>;
  jwks?: string;
}

interface RuntimeKubeApiServer {
  oidcConfig?: OidcConfig;
  additionalOidcConfig?: OidcConfig[];
  acl?: { allowedCIDRs?: string[] };
}

interface RuntimeNetworking {
  type?: string;
  pods: string;
  nodes: string;
  services: string;
  dualStack?: boolean;
  vpcNetwork?: string;
}

interface RuntimeShoot {
  name: string;
  purpose: string;
  platformRegion: string;
  region: string;
  licenceType?: string;
  secretBindingName: string;
  enforceSeedLocation?: boolean;
  enableNvidiaOpenshell?: boolean;
  kubernetes?: { version?: string; kubeAPIServer?: RuntimeKubeApiServer };
  provider: {
    type: string;
    workers: Worker[];
    additionalWorkers?: Worker[];
    controlPlaneConfig?: unknown;
    infrastructureConfig?: unknown;
  };
  networking: RuntimeNetworking;
  controlPlane?: ControlPlane;
}

interface ImageRegistryCache {
  name: string;
  namespace: string;
  uid: string;
  config: {
    upstream: string;
    remoteURL?: string;
    volume?: { size?: string | number; storageClassName?: string };
    garbageCollection?: { ttl: string };
    secretReferenceName?: string;
    proxy?: { httpProxy?: string; httpsProxy?: string };
    http?: { tls?: boolean };
  };
}

interface RuntimeSpec {
  shoot: RuntimeShoot;
  security: {
    administrators: string[];
    networking: { filter: { egress: { enabled: boolean }; ingress?: { enabled: boolean } } };
  };
  imageRegistryCache?: ImageRegistryCache[];
  auditLogAccessEnabled?: boolean;
}

export interface Runtime {
  apiVersion: string;
  kind: 'Runtime';
  metadata: ObjectMeta;
  spec: RuntimeSpec;
  status?: Record<string, unknown>;
}

/** `<namespace>/<name>` as printed in every message about a Runtime; robust to malformed objects. */
export function runtimeRef(runtime: unknown): string {
  const metadata = (runtime as { metadata?: { namespace?: unknown; name?: unknown } } | null)?.metadata;
  const name = typeof metadata?.name === 'string' && metadata.name !== '' ? metadata.name : '<unnamed>';
  const ns = typeof metadata?.namespace === 'string' ? metadata.namespace : '';
  return ns ? `${ns}/${name}` : name;
}

/**
 * A Runtime as the API serves it, before anything checked it: what the backfiller reads of every Runtime, the
 * generator's refusals included, so only the fields it reads are typed and all of them may be missing.
 */
export interface LiveRuntime {
  metadata: ObjectMeta;
  spec?: { shoot?: { name?: string; platformRegion?: string; region?: string } };
  /** The current status, as the API serves it (read it with `readRuntimeStatus`). */
  status?: unknown;
}
