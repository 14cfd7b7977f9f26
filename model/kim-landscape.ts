// KIM's configuration → kimops's landscape: the inverse of conversionSettingsOf (landscape.ts) for what KIM runs
// with, so a landscape taken over from KIM renders every Shoot as KIM's own files do (`kimops landscape from-kim`).
// Every setting that changes a Shoot is carried over; one the landscape cannot hold is an error naming it; what
// changes no Shoot is listed in the header. Pure: the caller reads KIM's files and writes the result.
import { ConfigError } from './errors.js';
import {
  ACL_NAME_KEY,
  settingsFromKim,
  TENANT_PATH_KEY,
  WINDOW_PATH_KEY,
  type KimConfiguration,
} from './kim-config.js';
import { LANDSCAPE_API_VERSION, type Landscape } from './landscape.js';
import { formatField, landscapeProblems, type Problem } from './landscape-parse.js';

export interface KimLandscape {
  landscape: Landscape;
  /** Comment lines for the top of the file: where it came from, and KIM's settings that change no Shoot. */
  header: string[];
}

/** `name` is the landscape's (KIM's config has none). Throws ConfigError as `render --kim-config` does, and for what a landscape cannot hold. */
export function landscapeFromKim(kim: KimConfiguration, name: string): KimLandscape {
  // KIM's startup checks, the same `render --kim-config` runs.
  const settings = settingsFromKim(kim.file, kim.flags, kim.tenants, kim.windows, kim.acl);
  const { config, flags } = settings;
  const kubernetes = config.kubernetes ?? {};
  const apiServer = kubernetes.kubeApiServer ?? {};
  const dns = config.dns;
  const worker = config.provider?.worker;
  const gdch = config.provider?.gdch;
  const parentReference = {
    ...(gdch?.parentReferenceName && { name: gdch.parentReferenceName }),
    ...(gdch?.parentReferenceNamespace && { namespace: gdch.parentReferenceNamespace }),
    ...(gdch?.parentReferenceType && { type: gdch.parentReferenceType }),
  };
  // Left out below: Go's zero values the converter reads as absent (an empty string, where it falls back to its
  // default alike). Everything else is copied as KIM has it, empty strings of the OIDC settings included (the
  // SKR's OpenIDConnect writes a set one).
  const landscape: Landscape = {
    apiVersion: LANDSCAPE_API_VERSION,
    kind: 'Landscape',
    name,
    gardener: { project: config.gardener?.projectName ?? '' },
    features: {
      networkRestriction: flags.networkRestrictionEnabled,
      apiServerAcl: flags.apiServerAclEnabled,
      auditLogMandatory: flags.auditLogMandatory,
      credentialsBinding: config.gardener?.enableCredentialBinding ?? false,
      dualStack: config.networking?.enableDualStackIP ?? false,
      awsIMDSv2: config.provider?.aws?.enableIMDSv2 ?? false,
      dedicatedAuditLogging: flags.dedicatedAuditLogging ?? false,
    },
    kubernetes: {
      defaultVersion: kubernetes.defaultVersion ?? '',
      autoUpdate: {
        kubernetesVersion: kubernetes.enableKubernetesVersionAutoUpdate ?? false,
        machineImageVersion: kubernetes.enableMachineImageVersionAutoUpdate ?? false,
      },
      ...(kubernetes.defaultOperatorOidc && { defaultOperatorOidc: kubernetes.defaultOperatorOidc }),
      ...(apiServer.maxTokenExpiration && { maxTokenExpiration: apiServer.maxTokenExpiration }),
      ...((apiServer.featureGates ?? apiServer.runtimeConfig) && {
        kubeApiServer: {
          ...(apiServer.featureGates && { featureGates: apiServer.featureGates }),
          ...(apiServer.runtimeConfig && { runtimeConfig: apiServer.runtimeConfig }),
        },
      }),
      ...(kubernetes.kubelet && { kubelet: kubernetes.kubelet }),
    },
    machineImage: { name: config.machineImage?.defaultName ?? '', version: config.machineImage?.defaultVersion ?? '' },
    // The converter uses KIM's DNS only when one of its three values is set (else Gardener-internal DNS).
    ...((dns?.secretName || dns?.domainPrefix || dns?.providerType) && {
      dns: {
        secretName: dns.secretName ?? '',
        domainPrefix: dns.domainPrefix ?? '',
        providerType: dns.providerType ?? '',
      },
    }),
    ...((worker?.defaultMaxEvictRetries || worker?.defaultMachineDrainTimeout) && {
      workers: {
        // settingsFromKim checked it is a whole number; the converter reads it as one.
        ...(worker.defaultMaxEvictRetries && { defaultMaxEvictRetries: Number(worker.defaultMaxEvictRetries) }),
        ...(worker.defaultMachineDrainTimeout && { defaultMachineDrainTimeout: worker.defaultMachineDrainTimeout }),
      },
    }),
    ...((gdch?.cloudProfileName || Object.keys(parentReference).length > 0) && {
      gdch: {
        ...(gdch?.cloudProfileName && { cloudProfileName: gdch.cloudProfileName }),
        ...(Object.keys(parentReference).length > 0 && { parentReference }),
      },
    }),
    auditLog: {
      policyConfigMapName: config.auditLogging?.policyConfigMapName ?? '',
      tenants: settings.auditLogTenants,
    },
    ...(Object.keys(settings.maintenanceWindows).length > 0 && { maintenanceWindows: settings.maintenanceWindows }),
    ...(settings.acl && { apiServerAcl: settings.acl }),
    ...(config.tolerations && { tolerations: config.tolerations }),
    ...(settings.skrDefaultOidc && { skrDefaultOidc: settings.skrDefaultOidc }),
  };
  const problems = landscapeProblems(landscape as unknown as Record<string, unknown>);
  if (problems.length > 0) throw inexpressible(kim, problems);
  return { landscape, header: headerOf(kim) };
}

// ---------------------------------------------------------------------------------------------
// A landscape field back to the KIM setting it came from, for the error.

type Segments = Problem['path'];

/** Landscape field prefix → where KIM holds it: converter_config.json, a mounted file, the ACL ConfigMap. */
function kimPlaceOf(kim: KimConfiguration, path: Segments): { source: string; field: string } {
  const config = (...field: Segments) => ({ source: kim.origin.config, field: formatField(field) });
  const [first, second, ...rest] = path;
  const afterFirst = path.slice(1);
  switch (first) {
    case 'name':
      return { source: '--name', field: '' };
    case 'gardener':
      return config('converter', 'gardener', 'projectName');
    case 'kubernetes':
      if (second === 'maxTokenExpiration') return config('converter', 'kubernetes', 'kubeApiServer', second);
      return config('converter', 'kubernetes', ...afterFirst);
    case 'machineImage':
      return config('converter', 'machineImage', second === 'name' ? 'defaultName' : 'defaultVersion', ...rest);
    case 'dns':
      return config('converter', 'dns', ...afterFirst);
    case 'workers':
      return config('converter', 'provider', 'worker', ...afterFirst);
    case 'gdch': {
      if (second !== 'parentReference') return config('converter', 'provider', 'gdch', ...afterFirst);
      const [key = 'name'] = rest;
      return config(
        'converter',
        'provider',
        'gdch',
        `parentReference${String(key)[0]?.toUpperCase()}${String(key).slice(1)}`,
      );
    }
    case 'auditLog':
      if (second === 'tenants') return { source: kim.origin.tenantFile.path, field: formatField(rest) };
      return config('converter', 'auditLogging', ...afterFirst);
    case 'maintenanceWindows':
      return { source: kim.origin.windowFile?.path ?? '', field: formatField(afterFirst) };
    case 'apiServerAcl':
      return {
        source: kim.origin.aclConfigMap?.source ?? '--kim-configmap',
        field: second === 'kcpIP' ? 'data["kcp-external-nat-ip.json"]' : 'data["acl-list.json"]',
      };
    case 'tolerations':
      return config('converter', 'tolerations', ...afterFirst);
    case 'skrDefaultOidc':
      return config('cluster', 'defaultSharedIASTenant', ...afterFirst);
    default:
      // features and the fixed keys are booleans and constants kimops writes itself.
      return config(...path);
  }
}

function inexpressible(kim: KimConfiguration, problems: Problem[]): ConfigError {
  const lines = problems.map((problem) => {
    const { source, field } = kimPlaceOf(kim, problem.path);
    return `${source}${field ? `: ${field}` : ''}: ${problem.detail} (landscape.yaml ${formatField(problem.path)})`;
  });
  const unique = [...new Set(lines)];
  return new ConfigError(
    kim.origin.config,
    '',
    `KIM's configuration cannot be written as a landscape.yaml; kimops's landscape does not allow ${
      unique.length === 1 ? 'this setting' : `these ${unique.length} settings`
    } (fix it in KIM's files, or write the landscape by hand):\n${unique.map((line) => `  - ${line}`).join('\n')}`,
  );
}

// ---------------------------------------------------------------------------------------------
// The header

function headerOf(kim: KimConfiguration): string[] {
  const { origin, file } = kim;
  const read = ({ path, local }: { path: string; local: string }) =>
    path === local ? path : `${path} (read from ${local})`;
  const aclName = file.converter.kubernetes?.kubeApiServer?.acl?.configMapName;
  const notes = [
    `${TENANT_PATH_KEY} ${origin.tenantFile.path}: where KIM reads the tenant file; its content is auditLog.tenants`,
    origin.windowFile
      ? `${WINDOW_PATH_KEY} ${origin.windowFile.path}: where KIM reads the window file; its content is maintenanceWindows`
      : `${WINDOW_PATH_KEY} is not set: KIM uses no maintenance windows, so none are written`,
    ...(aclName
      ? [
          origin.aclConfigMap
            ? `${ACL_NAME_KEY} ${aclName}: the KCP ConfigMap KIM reads the ACL from; its content is apiServerAcl`
            : `${ACL_NAME_KEY} ${aclName}: not read (no --kim-configmap with it), as KIM reads it only with api-server-acl-enabled`,
        ]
      : []),
    ...kim.warnings,
  ];
  return [
    "Generated by `kimops landscape from-kim` from KIM's configuration; from now on this file is the source:",
    `- converter config: ${origin.config}`,
    `- audit-log tenants: ${read(origin.tenantFile)}`,
    ...(origin.windowFile ? [`- maintenance windows: ${read(origin.windowFile)}`] : []),
    ...(origin.aclConfigMap
      ? [`- API-server ACL: ConfigMap kcp-system/${origin.aclConfigMap.name} (${origin.aclConfigMap.source})`]
      : []),
    `- KIM flags: ${origin.flags.length > 0 ? origin.flags.join(' ') : 'none'} (KIM's defaults for the others)`,
    '',
    "KIM's settings that change no Shoot, not carried over:",
    ...notes.map((note) => `- ${note}`),
  ];
}
