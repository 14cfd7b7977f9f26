// A live Shoot that has no Runtime → the Runtime KEB would have written for it (`kimops import`, the job of KIM's
// removed runtime-migrator): its labels from the Shoot and the KCP's GardenerCluster, its spec from the Shoot, its
// structured-authentication ConfigMap and the landscape. A Runtime field the Shoot only carries as the landscape's
// default is left out, as KEB leaves it out; one nothing here tells is left out too and named in `unknown`, never
// guessed. Whether rendering the result changes the Shoot is the caller's check (cli/import-check.ts). Pure.
import {
  ACL_EXTENSION,
  ANNOTATION_LICENCE_TYPE,
  ANNOTATION_RUNTIME_ID,
  DEFAULT_KCP_NAMESPACE,
  LABEL_BROKER_PLAN_ID,
  LABEL_BROKER_PLAN_NAME,
  LABEL_GLOBAL_ACCOUNT_ID,
  LABEL_INSTANCE_ID,
  LABEL_KYMA_NAME,
  LABEL_PLATFORM_REGION,
  LABEL_PROVIDER,
  LABEL_RECONCILER_MANAGED_BY,
  LABEL_REGION,
  LABEL_RUNTIME_ID,
  LABEL_SHOOT_NAME,
  LABEL_SUBACCOUNT_ID,
  NETWORK_FILTER_EXTENSION,
  NVIDIA_OPENSHELL_EXTENSION,
  PROVISIONER_LICENCE_TYPE_ANNOTATION,
  PROVISIONER_RUNTIME_ID_ANNOTATION,
  REGISTRY_CACHE_EXTENSION,
  SEED_REGION_LABEL,
  SHOOT_LABEL_ACCOUNT,
  SHOOT_LABEL_SUBACCOUNT,
  STRUCTURED_AUTH_CONFIG_KEY,
} from '../model/contract.js';
import type { OidcProviderConfig } from '../model/converter-config.js';
import { asJsonObject, isJsonObject } from '../model/json.js';
import { lookupAuditLogTenant } from '../model/kim-config.js';
import type { ConversionSettings } from '../model/landscape.js';
import { DNS_1123_SUBDOMAIN } from '../model/names.js';
import { REQUIRED_RUNTIME_LABELS, RUNTIME_API_VERSION, type OidcConfig, type Runtime } from '../model/runtime.js';
import { neverDowngrade } from '../model/semver.js';
import type { ConfigMap, Shoot } from '../model/shoot.js';
import { parseYaml11 } from '../model/yaml-input.js';
import { auditLogTenantOf, hasDedicatedAuditLogMark, sameAuditLogTenant } from './audit-log.js';
import { runtimeWorkersFromShoot } from './runtime-from-shoot-workers.js';

/** KEB's names of the hyperscalers in its provider label, by Gardener provider type. */
const KEB_PROVIDER_NAMES: Record<string, string> = {
  aws: 'AWS',
  azure: 'Azure',
  gcp: 'GCP',
  alicloud: 'Alicloud',
  openstack: 'SapConvergedCloud',
  gdch: 'GDCH',
};

export interface ImportSources {
  shoot: Shoot;
  /** The Shoot's structured-authentication ConfigMap (`spec.kubernetes.kubeAPIServer.structuredAuthentication`). */
  structuredAuth?: ConfigMap;
  /** The KCP's GardenerCluster of the Runtime ID, when there is one: KEB's labels KIM copied onto it. */
  gardenerClusterLabels?: Record<string, string>;
  settings: ConversionSettings;
  /** Where the Runtime goes, and its GardenerCluster is (KEB's: kcp-system). */
  namespace?: string;
  /** What the Shoot's cluster told (runtime-from-skr.ts), or why it could not be read. */
  skr?: SkrFacts | { unreadable: string };
}

/** The Runtime's fields only its cluster holds. */
interface SkrFacts {
  /** Empty when the cluster binds no user to cluster-admin with KIM's (or the Provisioner's) label. */
  administrators: string[];
  /** Undefined while the Shoot's OIDC extension is off: KIM then applies none, whatever the Runtime says. */
  additionalOidcConfig?: OidcConfig[];
}

/** A Runtime field nothing read tells: left out of the file, named with where to find it. */
export interface UnknownField {
  field: string;
  fix: string;
}

/**
 * A Runtime as imported: KEB's shape, but the required fields nothing told (platformRegion, administrators) left
 * out, so that the API server refuses the file until someone fills them in.
 */
export type ImportedRuntime = Omit<Runtime, 'spec'> & {
  spec: Omit<Runtime['spec'], 'shoot' | 'security'> & {
    shoot: Omit<Runtime['spec']['shoot'], 'platformRegion'> & { platformRegion?: string };
    security: Omit<Runtime['spec']['security'], 'administrators'> & { administrators?: string[] };
  };
};

export type RuntimeImport =
  { ok: true; runtime: ImportedRuntime; unknown: UnknownField[]; notes: string[] } | { ok: false; reason: string };

/** The Runtime ID a Shoot names: KIM's annotation, else the Provisioner's (a Shoot made before KIM). */
export function runtimeIdOf(shoot: Shoot): string | undefined {
  const annotations = shoot.metadata.annotations ?? {};
  return annotations[ANNOTATION_RUNTIME_ID] || annotations[PROVISIONER_RUNTIME_ID_ANNOTATION] || undefined;
}

export function runtimeFromShoot(sources: ImportSources): RuntimeImport {
  const { shoot, settings } = sources;
  const id = runtimeIdOf(shoot);
  if (!id)
    return {
      ok: false,
      reason: `metadata.annotations["${ANNOTATION_RUNTIME_ID}"]: the Shoot names no Runtime ID (nor the Provisioner's "${PROVISIONER_RUNTIME_ID_ANNOTATION}"); it is no Kyma runtime, or annotate it with its ID from KEB`,
    };
  // The ID becomes the Runtime's name and its file's name: KEB's are UUIDs, anything else was written by hand.
  if (!DNS_1123_SUBDOMAIN.test(id))
    return {
      ok: false,
      reason: `metadata.annotations: the Runtime ID ${JSON.stringify(id)} is no Kubernetes object name (KEB's are UUIDs); correct the Shoot's annotation to its Runtime's ID from KEB`,
    };
  const binding = shoot.spec.secretBindingName ?? shoot.spec.credentialsBindingName;
  const { pods, nodes, services } = shoot.spec.networking;
  if (!binding || !pods || !nodes || !services)
    return {
      ok: false,
      reason:
        'spec: the Shoot lacks its secret binding or a networking CIDR (nodes, pods, services); Gardener sets them on every Shoot it reconciled — check the Shoot',
    };
  const unknown: UnknownField[] = [];
  const notes: string[] = [];
  const labels = runtimeLabels(sources, id, unknown);
  const licenceType =
    shoot.metadata.annotations?.[ANNOTATION_LICENCE_TYPE] ||
    shoot.metadata.annotations?.[PROVISIONER_LICENCE_TYPE_ANNOTATION];
  const platformRegion = sources.gardenerClusterLabels?.[LABEL_PLATFORM_REGION];
  if (!platformRegion)
    unknown.push({
      field: 'spec.shoot.platformRegion',
      fix: "KEB's instance (the BTP region, e.g. cf-eu10); required, so kubectl apply refuses the file until it is set",
    });
  const skr = sources.skr && 'administrators' in sources.skr ? sources.skr : undefined;
  const unread = sources.skr && 'unreadable' in sources.skr ? ` (the SKR: ${sources.skr.unreadable})` : '';
  const administrators = skr?.administrators.length ? skr.administrators : undefined;
  if (!administrators)
    unknown.push({
      field: 'spec.security.administrators',
      fix: `KEB's instance, or the SKR's cluster-admin ClusterRoleBindings labelled ${LABEL_RECONCILER_MANAGED_BY} (--skr reads them)${skr ? ' (the SKR has none)' : unread}; required, so kubectl apply refuses the file until it is set`,
    });
  const additionalOidcConfig = skr?.additionalOidcConfig;
  if (!additionalOidcConfig)
    unknown.push({
      field: 'spec.shoot.kubernetes.kubeAPIServer.additionalOidcConfig',
      fix: `KEB's instance, or the SKR's OpenIDConnect objects kyma-oidc-<i> (--skr reads them)${skr ? " (the Shoot's OIDC extension is off)" : unread}; left unset the landscape's skrDefaultOidc is applied in the cluster`,
    });
  let oidcConfig: OidcConfig | undefined;
  try {
    oidcConfig = ownOidc(sources, notes);
  } catch (error) {
    // Not YAML: what KIM wrote there is unknown, so is the Runtime's OIDC.
    return { ok: false, reason: `${(error as Error).message}; check the Shoot's structured-authentication ConfigMap` };
  }
  const acl = aclOf(shoot, settings);
  const version = versionOf(shoot, settings, notes);
  const filter = extension(shoot, NETWORK_FILTER_EXTENSION);
  const egress = filter !== undefined && filter.disabled !== true;
  const { workers, additionalWorkers } = runtimeWorkersFromShoot(shoot, settings.config, notes);
  const ha = shoot.spec.controlPlane?.highAvailability;
  const registryCache = extension(shoot, REGISTRY_CACHE_EXTENSION);
  if (registryCache && registryCache.disabled !== true)
    unknown.push({
      field: 'spec.imageRegistryCache',
      fix: "the SKR's RegistryCache objects (name, namespace, uid); without them the render removes the Shoot's registry-cache extension",
    });
  const runtime: ImportedRuntime = {
    apiVersion: RUNTIME_API_VERSION,
    kind: 'Runtime',
    metadata: { name: id, namespace: sources.namespace ?? DEFAULT_KCP_NAMESPACE, labels },
    spec: {
      shoot: {
        name: shoot.metadata.name,
        purpose: shoot.spec.purpose ?? '',
        ...(platformRegion && { platformRegion }),
        region: shoot.spec.region,
        ...(licenceType && { licenceType }),
        secretBindingName: binding,
        enforceSeedLocation: shoot.spec.seedSelector?.matchLabels?.[SEED_REGION_LABEL] === shoot.spec.region,
        enableNvidiaOpenshell: enabled(shoot, NVIDIA_OPENSHELL_EXTENSION),
        ...((version || oidcConfig || acl || additionalOidcConfig) && {
          kubernetes: {
            ...(version && { version }),
            ...((oidcConfig || acl || additionalOidcConfig) && {
              kubeAPIServer: {
                ...(oidcConfig && { oidcConfig }),
                ...(additionalOidcConfig && { additionalOidcConfig }),
                ...(acl && { acl: { allowedCIDRs: acl } }),
              },
            }),
          },
        }),
        provider: { type: shoot.spec.provider.type, workers, additionalWorkers },
        networking: {
          ...(shoot.spec.networking.type !== undefined && { type: shoot.spec.networking.type }),
          nodes,
          pods,
          services,
          ...(shoot.spec.networking.ipFamilies?.includes('IPv6') && { dualStack: true }),
        },
        ...(ha && { controlPlane: { highAvailability: { failureTolerance: { type: ha.failureTolerance.type } } } }),
      },
      security: {
        ...(administrators && { administrators }),
        networking: {
          filter: {
            egress: { enabled: egress },
            ingress: {
              enabled: egress && asJsonObject(filter?.providerConfig?.egressFilter).blackholingEnabled === true,
            },
          },
        },
      },
      ...(auditLogAccess(shoot, settings, notes) && { auditLogAccessEnabled: true }),
    },
  };
  return { ok: true, runtime, unknown, notes };
}

function runtimeLabels(sources: ImportSources, id: string, unknown: UnknownField[]): Record<string, string> {
  const { shoot } = sources;
  const cluster = sources.gardenerClusterLabels ?? {};
  const ref = `${sources.namespace ?? DEFAULT_KCP_NAMESPACE}/${id}`;
  const candidates: Record<string, string | undefined> = {
    [LABEL_INSTANCE_ID]: cluster[LABEL_INSTANCE_ID],
    [LABEL_RUNTIME_ID]: id,
    [LABEL_BROKER_PLAN_ID]: cluster[LABEL_BROKER_PLAN_ID],
    [LABEL_BROKER_PLAN_NAME]: cluster[LABEL_BROKER_PLAN_NAME],
    // KIM writes them onto the Shoot as `account` and `subaccount`.
    [LABEL_GLOBAL_ACCOUNT_ID]: shoot.metadata.labels?.[SHOOT_LABEL_ACCOUNT] || cluster[LABEL_GLOBAL_ACCOUNT_ID],
    [LABEL_SUBACCOUNT_ID]: shoot.metadata.labels?.[SHOOT_LABEL_SUBACCOUNT] || cluster[LABEL_SUBACCOUNT_ID],
    [LABEL_SHOOT_NAME]: shoot.metadata.name,
    [LABEL_REGION]: shoot.spec.region,
    [LABEL_PLATFORM_REGION]: cluster[LABEL_PLATFORM_REGION],
    [LABEL_PROVIDER]: KEB_PROVIDER_NAMES[shoot.spec.provider.type],
    [LABEL_KYMA_NAME]: cluster[LABEL_KYMA_NAME],
  };
  const labels = Object.fromEntries(
    Object.entries(candidates).filter((entry): entry is [string, string] => Boolean(entry[1])),
  );
  const where = sources.gardenerClusterLabels
    ? `KEB's instance (the GardenerCluster ${ref} has it empty)`
    : `KEB's instance, or the GardenerCluster ${ref} (none was read: not on the KCP, or no --kcp-kubeconfig)`;
  for (const label of REQUIRED_RUNTIME_LABELS)
    if (!labels[label])
      unknown.push({
        field: `metadata.labels["${label}"]`,
        fix: `${where}; KIM and kimops refuse a Runtime without it`,
      });
  return labels;
}

function extension(shoot: Shoot, type: string) {
  return shoot.spec.extensions?.find((e) => e.type === type);
}

function enabled(shoot: Shoot, type: string): boolean {
  const found = extension(shoot, type);
  return found !== undefined && found.disabled !== true;
}

/**
 * The OIDC provider of the structured-authentication ConfigMap, unless it is the landscape's operator default (the
 * one KIM writes for a Runtime without its own: KEB sets none). The ConfigMap holds only what the API server reads.
 */
function ownOidc({ shoot, structuredAuth, settings }: ImportSources, notes: string[]): OidcConfig | undefined {
  const text = structuredAuth?.data?.[STRUCTURED_AUTH_CONFIG_KEY];
  if (typeof text !== 'string') {
    const legacy = shoot.spec.kubernetes.kubeAPIServer?.oidcConfig;
    if (isJsonObject(legacy))
      notes.push(
        "OIDC read from the Shoot's spec.kubernetes.kubeAPIServer.oidcConfig (no structured-authentication ConfigMap)",
      );
    return isJsonObject(legacy) ? (oidcFields(legacy as OidcConfig) ?? undefined) : undefined;
  }
  const config = asJsonObject(parseYaml11(text, `ConfigMap ${structuredAuth?.metadata.name ?? ''}`));
  const [jwt] = Array.isArray(config.jwt) ? config.jwt : [];
  const issuer = asJsonObject(asJsonObject(jwt).issuer);
  const claims = asJsonObject(asJsonObject(jwt).claimMappings);
  const username = asJsonObject(claims.username);
  const groups = asJsonObject(claims.groups);
  const audiences = Array.isArray(issuer.audiences) ? issuer.audiences : [];
  const found = oidcFields({
    issuerURL: String(issuer.url ?? ''),
    clientID: String(audiences[0] ?? ''),
    usernameClaim: String(username.claim ?? ''),
    usernamePrefix: String(username.prefix ?? ''),
    groupsClaim: String(groups.claim ?? ''),
    groupsPrefix: String(groups.prefix ?? ''),
  });
  const operator = oidcFields(settings.config.kubernetes?.defaultOperatorOidc ?? {});
  if (!found?.issuerURL || !found.clientID || sameOidc(found, operator)) return undefined;
  return found;
}

/** The fields the ConfigMap carries, empty ones left out. */
function oidcFields(oidc: OidcProviderConfig): OidcConfig | undefined {
  const keys = ['clientID', 'issuerURL', 'usernameClaim', 'usernamePrefix', 'groupsClaim', 'groupsPrefix'] as const;
  const out: OidcConfig = {};
  for (const key of keys) if (oidc[key]) out[key] = oidc[key];
  return Object.keys(out).length > 0 ? out : undefined;
}

function sameOidc(a: OidcConfig | undefined, b: OidcConfig | undefined): boolean {
  return JSON.stringify(a ?? {}, Object.keys(a ?? {}).sort()) === JSON.stringify(b ?? {}, Object.keys(b ?? {}).sort());
}

/** The ACL extension's CIDRs without the landscape's operator CIDRs and KCP IP, which KIM appends. */
function aclOf(shoot: Shoot, settings: ConversionSettings): string[] | undefined {
  const acl = extension(shoot, ACL_EXTENSION);
  if (!acl || acl.disabled === true) return undefined;
  const cidrs = asJsonObject(acl.providerConfig?.rule).cidrs;
  if (!Array.isArray(cidrs)) return undefined;
  const added = settings.acl ? [...settings.acl.operatorCIDRs, settings.acl.kcpIP] : [];
  const tail = cidrs.slice(cidrs.length - added.length);
  const own =
    added.length > 0 && JSON.stringify(tail) === JSON.stringify(added) ? cidrs.slice(0, -added.length) : cidrs;
  return own.map(String);
}

/** The live version when the landscape's default is higher (rendering without it would upgrade the Shoot). */
function versionOf(shoot: Shoot, settings: ConversionSettings, notes: string[]): string | undefined {
  const live = shoot.spec.kubernetes.version;
  const fallback = settings.config.kubernetes?.defaultVersion ?? '';
  if (!live || neverDowngrade(fallback, live) === live) return undefined;
  notes.push(
    `spec.shoot.kubernetes.version: ${live}, the Shoot's (the landscape's default ${fallback} would upgrade it); remove it to follow the landscape`,
  );
  return live;
}

/**
 * Whether the Shoot reports to an audit-log tenant other than the landscape's for its region without the dedicated
 * mark: only a Runtime with auditLogAccessEnabled keeps such a tenant (ADR 0003).
 */
function auditLogAccess(shoot: Shoot, settings: ConversionSettings, notes: string[]): boolean {
  const live = auditLogTenantOf(shoot);
  if (!live || hasDedicatedAuditLogMark(shoot)) return false;
  let landscape;
  try {
    landscape = lookupAuditLogTenant(settings.auditLogTenants, shoot.spec.provider.type, shoot.spec.region);
  } catch {
    landscape = undefined;
  }
  if (sameAuditLogTenant(live, landscape)) return false;
  notes.push(
    `spec.auditLogAccessEnabled: true, because the Shoot reports to audit-log tenant ${live.tenantID}, not the landscape's for ${shoot.spec.provider.type}/${shoot.spec.region}`,
  );
  return true;
}
