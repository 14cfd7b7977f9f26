// spec.extensions: the Gardener extensions KIM manages, with KIM's payloads. On create they are
// listed in KIM's order; on update the live list (and its order) is the starting point and each
// managed extension is added, replaced, disabled or left alone by its own rule.
import { AUDITLOG_EXTENSION_TYPE } from '../../../rules/audit-log.js';
import {
  ACL_EXTENSION,
  NETWORK_FILTER_EXTENSION,
  NVIDIA_OPENSHELL_EXTENSION,
  REGISTRY_CACHE_EXTENSION,
} from '../../../model/contract.js';
import { FieldError } from '../../../model/errors.js';
import { OIDC_EXTENSION_TYPE, type Extension, type JsonObject } from '../../../model/shoot.js';
import { jsonEqual } from '../../../model/clone.js';
import { formatGoDuration, parseGoDuration } from '../../../model/go-time.js';
import type { ExtenderInput, Extender } from '../context.js';
import { providerModule } from '../providers/index.js';
import { externalDns, shootDomain } from './dns.js';
import { AUDITLOG_CREDENTIALS_RESOURCE } from './auditlog.js';
import { registryCacheSecret } from './resources.js';

const EXT_NETWORK_FILTER = NETWORK_FILTER_EXTENSION;
const EXT_CERT = 'shoot-cert-service';
const EXT_DNS = 'shoot-dns-service';
const EXT_OIDC = OIDC_EXTENSION_TYPE;
const EXT_AUDITLOG = AUDITLOG_EXTENSION_TYPE;
const EXT_ACL = ACL_EXTENSION;
const EXT_NVIDIA_OPENSHELL = NVIDIA_OPENSHELL_EXTENSION;
const EXT_REGISTRY_CACHE = REGISTRY_CACHE_EXTENSION;

function networkFilter({ runtime }: ExtenderInput): Extension {
  const filter = runtime.spec.security.networking.filter;
  const enabled = filter.egress.enabled;
  return {
    type: EXT_NETWORK_FILTER,
    disabled: !enabled,
    ...(enabled && filter.ingress?.enabled && { providerConfig: { egressFilter: { blackholingEnabled: true } } }),
  };
}

function cert(): Extension {
  return {
    type: EXT_CERT,
    providerConfig: {
      apiVersion: 'service.cert.extensions.gardener.cloud/v1alpha1',
      shootIssuers: { enabled: true },
      kind: 'CertConfig',
    },
  };
}

function dns({ runtime, ctx }: ExtenderInput): Extension {
  const external = externalDns(ctx.config);
  return {
    type: EXT_DNS,
    providerConfig: {
      apiVersion: 'service.dns.extensions.gardener.cloud/v1alpha1',
      kind: 'DNSConfig',
      dnsProviderReplication: { enabled: true },
      providers: external
        ? [
            {
              domains: { include: [shootDomain(runtime.spec.shoot.name, external.domainPrefix)] },
              credentials: `shoot-dns-service-${external.secretName}`,
              type: external.providerType,
            },
          ]
        : null,
      syncProvidersFromShootSpecDNS: true,
    },
  };
}

function oidc(): Extension {
  return { type: EXT_OIDC, disabled: false };
}

function auditLog({ ctx }: ExtenderInput): Extension | undefined {
  const tenant = ctx.auditLog;
  if (!tenant) return undefined;
  return {
    type: EXT_AUDITLOG,
    providerConfig: {
      kind: 'AuditlogConfig',
      apiVersion: 'service.auditlog.extensions.gardener.cloud/v1alpha1',
      type: 'standard',
      tenantID: tenant.tenantID,
      serviceURL: tenant.serviceURL,
      secretReferenceName: AUDITLOG_CREDENTIALS_RESOURCE,
    },
  };
}

/** The enabled ACL extension, or undefined when this Runtime wants none. */
function acl({ runtime, ctx }: ExtenderInput): Extension | undefined {
  const allowed = runtime.spec.shoot.kubernetes?.kubeAPIServer?.acl?.allowedCIDRs ?? [];
  if (
    !ctx.flags.apiServerAclEnabled ||
    !providerModule(runtime.spec.shoot.provider.type).apiServerAcl ||
    allowed.length === 0
  )
    return undefined;
  if (!ctx.acl) {
    throw new FieldError(
      'spec.shoot.kubernetes.kubeAPIServer.acl',
      'the landscape enables the API-server ACL but has no allow-list; set apiServerAcl.operatorCIDRs and apiServerAcl.kcpIP in the landscape',
    );
  }
  return {
    type: EXT_ACL,
    disabled: false,
    providerConfig: {
      rule: { action: 'ALLOW', cidrs: [...allowed, ...ctx.acl.operatorCIDRs, ctx.acl.kcpIP], type: 'remote_ip' },
    },
  };
}

function nvidiaOpenshell({ runtime }: ExtenderInput): Extension | undefined {
  return runtime.spec.shoot.enableNvidiaOpenshell ? { type: EXT_NVIDIA_OPENSHELL, disabled: false } : undefined;
}

function registryCache({ runtime, ctx, live }: ExtenderInput): Extension | undefined {
  const caches = runtime.spec.imageRegistryCache ?? [];
  if (caches.length === 0) return undefined;
  return {
    type: EXT_REGISTRY_CACHE,
    disabled: false,
    providerConfig: {
      kind: 'RegistryConfig',
      apiVersion: 'registry.extensions.gardener.cloud/v1alpha3',
      caches: caches.map((cache) => {
        const { upstream, remoteURL, volume, garbageCollection, proxy } = cache.config;
        const entry: JsonObject = { upstream };
        if (remoteURL) entry.remoteURL = remoteURL;
        if (volume) entry.volume = structuredClone(volume) as JsonObject;
        if (garbageCollection) entry.garbageCollection = { ttl: goDurationOf(garbageCollection.ttl, cache.uid) };
        const secret = registryCacheSecret(cache, ctx.registryCacheSecrets, live);
        if (secret) entry.secretReferenceName = secret;
        if (proxy) entry.proxy = structuredClone(proxy) as JsonObject;
        return entry;
      }),
    },
  };
}

function goDurationOf(text: string, uid: string): string {
  const nanos = parseGoDuration(text);
  if (nanos === undefined) {
    throw new FieldError(
      `spec.imageRegistryCache[uid=${uid}].config.garbageCollection.ttl`,
      `"${text}" is not a duration; write it like "168h"`,
    );
  }
  return formatGoDuration(nanos);
}

export const createExtensions: Extender = (draft, input) => {
  const candidates = [
    input.ctx.flags.networkRestrictionEnabled ? networkFilter(input) : undefined,
    cert(),
    dns(input),
    oidc(),
    auditLog(input),
    acl(input),
    nvidiaOpenshell(input),
  ];
  draft.spec.extensions = candidates.filter((e): e is Extension => e !== undefined);
};

/** Replace in place, or append when absent. */
function put(list: Extension[], extension: Extension): void {
  const index = list.findIndex((e) => e.type === extension.type);
  if (index < 0) list.push(extension);
  else list[index] = extension;
}

/** An extension that is no longer wanted is switched off, not removed: Gardener then cleans up. */
function disableIfPresent(list: Extension[], type: string): void {
  const index = list.findIndex((e) => e.type === type);
  if (index >= 0) list[index] = { type, disabled: true };
}

function hasDnsProviders(extension: Extension): boolean {
  const providers = extension.providerConfig?.providers;
  return Array.isArray(providers) && providers.length > 0;
}

export const patchExtensions: Extender = (draft, input) => {
  const list = structuredClone(input.live?.spec.extensions ?? []);

  if (input.ctx.flags.networkRestrictionEnabled) put(list, networkFilter(input));

  // Internal (provider-less) DNS stays as it is: Gardener cannot move a Shoot's domain.
  const currentDns = list.find((e) => e.type === EXT_DNS);
  if (!currentDns || hasDnsProviders(currentDns)) put(list, dns(input));

  const audit = auditLog(input);
  if (audit) {
    const current = list.find((e) => e.type === EXT_AUDITLOG);
    if (!current || !jsonEqual(current.providerConfig, audit.providerConfig)) put(list, audit);
  }

  const cache = registryCache(input);
  if (cache) put(list, cache);
  else {
    const index = list.findIndex((e) => e.type === EXT_REGISTRY_CACHE);
    if (index >= 0) list.splice(index, 1);
  }

  const wantedAcl = acl(input);
  if (wantedAcl) put(list, wantedAcl);
  else disableIfPresent(list, EXT_ACL);

  const nvidia = nvidiaOpenshell(input);
  if (nvidia) put(list, nvidia);
  else disableIfPresent(list, EXT_NVIDIA_OPENSHELL);

  draft.spec.extensions = list;
};
