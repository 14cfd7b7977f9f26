// Update mode: spec.resources keeps what others put there, and carries one Secret reference per
// registry cache with credentials (the garden Secret KIM copies them into).
import { REGISTRY_CACHE_EXTENSION, REGISTRY_CACHE_SECRET_PREFIX } from '../../../model/contract.js';
import { FieldError } from '../../../model/errors.js';
import { DNS_1123_SUBDOMAIN } from '../../../model/names.js';
import { isJsonObject } from '../../../model/json.js';
import type { NamedResource, Shoot } from '../../../model/shoot.js';
import type { Extender } from '../context.js';

/**
 * The garden Secret of a cache with credentials, or undefined for a cache without: the name given (`kimops render
 * --registry-cache-secret`), else the one the live Shoot's registry-cache extension already names for the same
 * upstream (KIM's copy `reg-cache-<uuid>`, found without reading a Secret). A cache no Secret is known for yet is
 * refused: gardener-apiserver would refuse a Shoot naming a Secret nobody has copied into the project (kimops does
 * not copy credentials from the SKR yet), so the Runtime says so instead of a Shoot write failing on every sync.
 */
export function registryCacheSecret(
  cache: { uid: string; config: { upstream: string; secretReferenceName?: string } },
  secrets: Record<string, string> | undefined,
  live: Shoot | undefined,
): string | undefined {
  if (!cache.config.secretReferenceName) return undefined;
  const name =
    (secrets && Object.hasOwn(secrets, cache.uid) ? secrets[cache.uid] : undefined) ??
    liveCacheSecret(live, cache.config.upstream);
  if (name === undefined) {
    throw new FieldError(
      `spec.imageRegistryCache[uid=${cache.uid}].config.secretReferenceName`,
      `no garden Secret holds the credentials "${cache.config.secretReferenceName}" of registry cache ${cache.uid} yet: ` +
        `the live Shoot names none for ${cache.config.upstream}; copy them into the project as reg-cache-<uuid> (KIM's ` +
        `registry-cache controller does) or pass its name (kimops render --registry-cache-secret ${cache.uid}=<name>)`,
    );
  }
  // Gardener would refuse the Shoot's reference, and the applier could not create the Secret.
  if (!DNS_1123_SUBDOMAIN.test(name)) {
    throw new FieldError(
      `spec.imageRegistryCache[uid=${cache.uid}]`,
      `the garden Secret name "${name}" is no Kubernetes object name (lower-case letters, digits, "-" and ".", at most 253); ` +
        `name the cache's garden Secret as Kubernetes names objects`,
    );
  }
  return name;
}

/** The Secret the live Shoot's cache of this upstream refers to, when it is one of the cache Secrets it lists. */
function liveCacheSecret(live: Shoot | undefined, upstream: string): string | undefined {
  const extension = live?.spec.extensions?.find((e) => e.type === REGISTRY_CACHE_EXTENSION);
  const caches: unknown = extension?.providerConfig?.caches;
  if (!Array.isArray(caches)) return undefined;
  const named: unknown = (caches as { upstream?: unknown; secretReferenceName?: unknown }[]).find(
    (entry) => isJsonObject(entry) && entry.upstream === upstream,
  )?.secretReferenceName;
  if (typeof named !== 'string' || !named.startsWith(REGISTRY_CACHE_SECRET_PREFIX)) return undefined;
  return live?.spec.resources?.some((resource) => resource.name === named) ? named : undefined;
}

export const patchResources: Extender = (draft, { runtime, ctx, live }) => {
  // Stale cache Secrets are dropped: every reference to one is written again below.
  const kept = (live?.spec.resources ?? []).filter((r) => !r.name.includes(REGISTRY_CACHE_SECRET_PREFIX));
  const caches: NamedResource[] = [];
  for (const cache of runtime.spec.imageRegistryCache ?? []) {
    const secret = registryCacheSecret(cache, ctx.registryCacheSecrets, live);
    if (secret) caches.push({ name: secret, resourceRef: { apiVersion: 'v1', kind: 'Secret', name: secret } });
  }
  const resources = [...structuredClone(kept), ...caches];
  if (resources.length > 0) draft.spec.resources = resources;
};
