// Update mode: spec.resources keeps what others put there, and carries one Secret reference per
// registry cache with credentials (the garden Secret KIM copies them into).
import { FieldError } from '../../../model/errors.js';
import type { NamedResource } from '../../../model/shoot.js';
import type { Extender } from '../context.js';

/** Garden Secrets of registry caches are named reg-cache-<uuid>; stale ones are dropped. */
const REGISTRY_CACHE_RESOURCE_MARKER = 'reg-cache-';

/** The garden Secret of a cache with credentials, or undefined for a cache without. */
export function registryCacheSecret(
  cache: { uid: string; config: { secretReferenceName?: string } },
  secrets: Record<string, string> | undefined,
): string | undefined {
  if (!cache.config.secretReferenceName) return undefined;
  const name = secrets && Object.hasOwn(secrets, cache.uid) ? secrets[cache.uid] : undefined;
  if (!name) {
    throw new FieldError(
      `spec.imageRegistryCache[uid=${cache.uid}].config.secretReferenceName`,
      `the garden Secret holding the credentials "${cache.config.secretReferenceName}" of registry cache ${cache.uid} is not known; ` +
        `the registry-cache controller creates it (reg-cache-<uuid>, labelled with the cache id) — pass its name (kimops render --registry-cache-secret ${cache.uid}=<name>)`,
    );
  }
  return name;
}

export const patchResources: Extender = (draft, { runtime, ctx, live }) => {
  const kept = (live?.spec.resources ?? []).filter((r) => !r.name.includes(REGISTRY_CACHE_RESOURCE_MARKER));
  const caches: NamedResource[] = [];
  for (const cache of runtime.spec.imageRegistryCache ?? []) {
    const secret = registryCacheSecret(cache, ctx.registryCacheSecrets);
    if (secret) caches.push({ name: secret, resourceRef: { apiVersion: 'v1', kind: 'Secret', name: secret } });
  }
  const resources = [...structuredClone(kept), ...caches];
  if (resources.length > 0) draft.spec.resources = resources;
};
