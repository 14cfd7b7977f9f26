// A landscape (dev, stage, prod): everything that decides how a Runtime becomes a Shoot there.
// This is kimops's own, cleaner form of KIM's converter ConfigMap + controller flags + the mounted
// tenant/maintenance/ACL files, in one reviewable file: landscapes/<name>/landscape.yaml.
import type {
  AclAllowList,
  AuditLogTenantMap,
  ConversionFlags,
  ConverterConfig,
  MaintenanceWindowMap,
  OidcProviderConfig,
} from './converter-config.js';
import type { Toleration } from './shoot.js';

export const LANDSCAPE_API_VERSION = 'kimops.kyma-project.io/v1alpha1';

export interface Landscape {
  apiVersion: typeof LANDSCAPE_API_VERSION;
  kind: 'Landscape';
  /** dev | stage | prod | any name matching the folder. */
  name: string;
  /** Marks a landscape whose values are illustrative, not the production truth. */
  example?: boolean;
  /**
   * Who leads a Runtime without the `kimops.kyma-project.io/leader` label (rules/leader.ts): absent means kimops, as
   * before the marker; a landscape being taken over from KIM sets `kim` and moves Runtimes over by label.
   */
  defaultLeader?: 'kimops' | 'kim';
  gardener: {
    /** Gardener project; Shoots live in namespace `garden-<project>`. */
    project: string;
  };
  /** Switches that change what the converter writes (KIM flags and config booleans). */
  features: {
    /** KIM `-network-restriction-enabled` (default true): emit the shoot-networking-filter extension. */
    networkRestriction: boolean;
    /** KIM `-api-server-acl-enabled` (default false): emit the acl extension for aws/azure Runtimes with allowed CIDRs. */
    apiServerAcl: boolean;
    /** KIM `-audit-log-mandatory` (default true): a Runtime whose provider/region has no tenant fails to convert. */
    auditLogMandatory: boolean;
    /** converter.gardener.enableCredentialBinding: write credentialsBindingName instead of secretBindingName. */
    credentialsBinding: boolean;
    /** converter.networking.enableDualStackIP: honour Runtime networking.dualStack on aws/gcp. */
    dualStack: boolean;
    /** converter.provider.aws.enableIMDSv2: force IMDSv2 on every AWS worker. */
    awsIMDSv2: boolean;
    /**
     * KIM `-dedicated-audit-logging-enabled` (default false): the generator reserves, claims and releases KALM's
     * AuditLogs in kcp-system for Runtimes with `auditLogAccessEnabled` (docs/adr/0003-dedicated-audit-log-is-kept.md).
     */
    dedicatedAuditLogging?: boolean;
  };
  kubernetes: {
    defaultVersion: string;
    autoUpdate: { kubernetesVersion: boolean; machineImageVersion: boolean };
    /** Operator OIDC for the structured-auth ConfigMap when the Runtime brings none. */
    defaultOperatorOidc?: OidcProviderConfig;
    /** Clamped by the converter to 720h–2160h, like KIM. */
    maxTokenExpiration?: string;
    kubeApiServer?: { featureGates?: Record<string, boolean>; runtimeConfig?: Record<string, boolean> };
    kubelet?: { featureGates?: Record<string, boolean> };
  };
  machineImage: { name: string; version: string };
  /** Absent: Gardener-internal DNS. */
  dns?: { secretName: string; domainPrefix: string; providerType: string };
  workers?: { defaultMaxEvictRetries?: number; defaultMachineDrainTimeout?: string };
  gdch?: {
    cloudProfileName?: string;
    parentReference?: { name?: string; namespace?: string; type?: string };
  };
  auditLog: {
    policyConfigMapName: string;
    /** `{<provider type>: {<region>: tenant}}`, KIM's tenant config file inlined. */
    tenants: AuditLogTenantMap;
  };
  /** Region → maintenance time window for production Shoots (KIM's window map file inlined). */
  maintenanceWindows?: MaintenanceWindowMap;
  /** The API-server allow-list KIM reads from a KCP ConfigMap. Required when features.apiServerAcl. */
  apiServerAcl?: AclAllowList;
  /** Region → tolerations written on create (KSA: me-central2 → ksa-assured-workload). */
  tolerations?: Record<string, Toleration[]>;
  /** SKR-side default OIDC (KIM cluster.defaultSharedIASTenant): the SKR's OpenIDConnect, not the Shoot's. */
  skrDefaultOidc?: OidcProviderConfig;
}

/** Everything the converter needs from a landscape, in KIM's own shapes. */
export interface ConversionSettings {
  config: ConverterConfig;
  flags: ConversionFlags;
  auditLogTenants: AuditLogTenantMap;
  maintenanceWindows: MaintenanceWindowMap;
  acl?: AclAllowList;
  /** The SKR's OpenIDConnect when the Runtime brings none (generator/convert/skr/); no input of the Shoot. */
  skrDefaultOidc?: OidcProviderConfig;
}

/** Maps the landscape file onto KIM's config shapes; the inverse of how KIM splits them across mounts. */
export function conversionSettingsOf(landscape: Landscape): ConversionSettings {
  const { features, kubernetes } = landscape;
  const config: ConverterConfig = {
    kubernetes: {
      defaultVersion: kubernetes.defaultVersion,
      enableKubernetesVersionAutoUpdate: kubernetes.autoUpdate.kubernetesVersion,
      enableMachineImageVersionAutoUpdate: kubernetes.autoUpdate.machineImageVersion,
      ...(kubernetes.defaultOperatorOidc && { defaultOperatorOidc: kubernetes.defaultOperatorOidc }),
      kubeApiServer: {
        ...(kubernetes.maxTokenExpiration && { maxTokenExpiration: kubernetes.maxTokenExpiration }),
        ...(kubernetes.kubeApiServer?.featureGates && { featureGates: kubernetes.kubeApiServer.featureGates }),
        ...(kubernetes.kubeApiServer?.runtimeConfig && { runtimeConfig: kubernetes.kubeApiServer.runtimeConfig }),
      },
      ...(kubernetes.kubelet && { kubelet: kubernetes.kubelet }),
    },
    ...(landscape.dns && { dns: landscape.dns }),
    provider: {
      aws: { enableIMDSv2: features.awsIMDSv2 },
      ...(landscape.gdch && {
        gdch: {
          cloudProfileName: landscape.gdch.cloudProfileName,
          parentReferenceName: landscape.gdch.parentReference?.name,
          parentReferenceNamespace: landscape.gdch.parentReference?.namespace,
          parentReferenceType: landscape.gdch.parentReference?.type,
        },
      }),
      ...(landscape.workers && {
        worker: {
          defaultMaxEvictRetries: landscape.workers.defaultMaxEvictRetries?.toString(),
          defaultMachineDrainTimeout: landscape.workers.defaultMachineDrainTimeout,
        },
      }),
    },
    machineImage: { defaultName: landscape.machineImage.name, defaultVersion: landscape.machineImage.version },
    gardener: { projectName: landscape.gardener.project, enableCredentialBinding: features.credentialsBinding },
    auditLogging: { policyConfigMapName: landscape.auditLog.policyConfigMapName },
    ...(landscape.tolerations && { tolerations: landscape.tolerations }),
    networking: { enableDualStackIP: features.dualStack },
  };
  return {
    config,
    flags: {
      networkRestrictionEnabled: features.networkRestriction,
      apiServerAclEnabled: features.apiServerAcl,
      auditLogMandatory: features.auditLogMandatory,
      // Only when on: a landscape without the switch keeps the settings (and their render keys) it had.
      ...(features.dedicatedAuditLogging === true && { dedicatedAuditLogging: true }),
    },
    auditLogTenants: landscape.auditLog.tenants,
    maintenanceWindows: landscape.maintenanceWindows ?? {},
    ...(landscape.apiServerAcl && { acl: landscape.apiServerAcl }),
    ...(landscape.skrDefaultOidc && { skrDefaultOidc: landscape.skrDefaultOidc }),
  };
}

/** `{<provider type>: {<region>: [zone names as the Shoot writes them]}}`. */
export type ZoneCatalog = Record<string, Record<string, string[]>>;
