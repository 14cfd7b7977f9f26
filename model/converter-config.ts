// KIM's converter configuration (pkg/config/config.go), key for key, so a landscape can be
// compared with — and built from — the ConfigMap KIM runs with today. The landscape file has its
// own cleaner shape (landscape.ts); both end up as this value, which is what the converter reads.
import type { OidcConfig } from './runtime.js';
import type { Toleration } from './shoot.js';

/** An OIDC provider in KIM's config: the Runtime's OIDC shape without the per-Runtime extras. */
export type OidcProviderConfig = Omit<OidcConfig, 'requiredClaims' | 'jwks'>;

// Every field is optional, as in KIM where a missing key is Go's zero value; which keys a
// landscape must set is the landscape schema's business, not the converter's.
export interface ConverterConfig {
  kubernetes?: {
    defaultVersion?: string;
    enableKubernetesVersionAutoUpdate?: boolean;
    enableMachineImageVersionAutoUpdate?: boolean;
    defaultOperatorOidc?: OidcProviderConfig;
    kubeApiServer?: {
      acl?: { configMapName?: string };
      maxTokenExpiration?: string;
      runtimeConfig?: Record<string, boolean>;
      featureGates?: Record<string, boolean>;
    };
    kubelet?: { featureGates?: Record<string, boolean> };
  };
  dns?: { secretName?: string; domainPrefix?: string; providerType?: string };
  provider?: {
    aws?: { enableIMDSv2?: boolean };
    gdch?: {
      cloudProfileName?: string;
      parentReferenceName?: string;
      parentReferenceNamespace?: string;
      parentReferenceType?: string;
    };
    worker?: { defaultMaxEvictRetries?: string; defaultMachineDrainTimeout?: string };
  };
  machineImage?: { defaultName?: string; defaultVersion?: string };
  gardener?: { projectName?: string; enableCredentialBinding?: boolean };
  auditLogging?: { policyConfigMapName?: string; tenantConfigPath?: string };
  maintenanceWindow?: { windowMapPath?: string };
  tolerations?: Record<string, Toleration[]>;
  networking?: { enableDualStackIP?: boolean };
}

/** KIM's whole config file: the converter part plus the SKR-side OIDC default. */
export interface KimConfigFile {
  cluster?: { defaultSharedIASTenant?: OidcProviderConfig };
  converter: ConverterConfig;
}

/** KIM's command-line flags that change what the converter writes. Defaults are KIM's. */
export interface ConversionFlags {
  networkRestrictionEnabled: boolean;
  apiServerAclEnabled: boolean;
  auditLogMandatory: boolean;
  /**
   * KIM `-dedicated-audit-logging-enabled` (default false): a Runtime with `auditLogAccessEnabled` gets a tenant of
   * KALM's AuditLog pool (ADR 0003). The generator's pass reads it; the converter only renders the tenant it is given.
   */
  dedicatedAuditLogging?: boolean;
}

export const DEFAULT_CONVERSION_FLAGS: ConversionFlags = {
  networkRestrictionEnabled: true,
  apiServerAclEnabled: false,
  auditLogMandatory: true,
};

/** One entry of the audit-log tenant map: `{<providerType>: {<region>: AuditLogTenant}}`. */
export interface AuditLogTenant {
  tenantID: string;
  serviceURL: string;
  secretName: string;
}
export type AuditLogTenantMap = Record<string, Record<string, AuditLogTenant>>;

export interface MaintenanceWindow {
  begin: string;
  end: string;
}
export type MaintenanceWindowMap = Record<string, MaintenanceWindow>;

/** The API-server ACL inputs KIM reads from a KCP ConfigMap (acl-list.json, kcp-external-nat-ip.json). */
export interface AclAllowList {
  operatorCIDRs: string[];
  kcpIP: string;
}
