// Update mode: spec.resources keeps what others put there, and carries one Secret reference per
// registry cache with credentials (the garden Secret the applier copies them into, docs/skr.md "Registry cache").
import {
  REGISTRY_CACHE_EXTENSION,
  REGISTRY_CACHE_ROTATED_ANNOTATION_PREFIX,
  REGISTRY_CACHE_SECRET_PREFIX,
} from '../../../model/contract.js';
import { FieldError } from '../../../model/errors.js';
import { DNS_1123_LABEL } from '../../../model/names.js';
import { isJsonObject } from '../../../model/json.js';
import type { NamedResource, Shoot } from '../../../model/shoot.js';
import type { Extender } from '../context.js';

/**
 * The garden Secret of a cache with credentials, or undefined for a cache without. In this order: the name given
 * (`kimops render --registry-cache-secret`); the one the applier created when the SKR's credentials changed (it
 * records it on the live Shoot, REGISTRY_CACHE_ROTATED_ANNOTATION_PREFIX + uid); the one the live Shoot's
 * registry-cache extension already names for the same upstream (KIM's copy `reg-cache-<uuid>`); else
 * `reg-cache-<uid>`, the same on every render. No Secret is read: the applier creates a missing one from the SKR
 * before it writes the Shoot (its stub in the Shoot's folder says from where, registry-cache-stubs.ts).
 */
export function registryCacheSecret(
  cache: { uid: string; config: { upstream: string; secretReferenceName?: string } },
  secrets: Record<string, string> | undefined,
  live: Shoot | undefined,
): string | undefined {
  if (!cache.config.secretReferenceName) return undefined;
  const given = secrets && Object.hasOwn(secrets, cache.uid) ? secrets[cache.uid] : undefined;
  const name =
    given ??
    live?.metadata.annotations?.[`${REGISTRY_CACHE_ROTATED_ANNOTATION_PREFIX}${cache.uid}`] ??
    liveCacheSecret(live, cache.config.upstream) ??
    `${REGISTRY_CACHE_SECRET_PREFIX}${cache.uid}`;
  // Gardener would refuse the Shoot's reference, and the applier could not create the Secret; its stub's file and
  // the applier's check take a DNS-1123 label (at most 63), as KIM's names are.
  if (!DNS_1123_LABEL.test(name)) {
    const rule = 'lower-case letters, digits and "-", starting and ending with a letter or digit, at most 63';
    throw new FieldError(
      `spec.imageRegistryCache[uid=${cache.uid}]`,
      given !== undefined
        ? `--registry-cache-secret ${cache.uid}=${name}: the garden Secret name is no Kubernetes name (${rule}); give another name`
        : `the garden Secret name "${name}" is no Kubernetes name (${rule}); a cache's uid must be a lower-case UUID`,
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
  // The caches where the live Shoot lists its first cache Secret (appended when it lists none): the live order
  // stays, so a Shoot KIM wrote with its caches before its other resources is not rewritten for the order alone.
  const liveResources = live?.spec.resources ?? [];
  const at = liveResources.findIndex((r) => r.name.includes(REGISTRY_CACHE_SECRET_PREFIX));
  const before = at < 0 ? kept.length : liveResources.slice(0, at).filter((r) => kept.includes(r)).length;
  const resources = [...structuredClone(kept.slice(0, before)), ...caches, ...structuredClone(kept.slice(before))];
  if (resources.length > 0) draft.spec.resources = resources;
};
