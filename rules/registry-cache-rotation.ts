// A registry cache's credentials the customer rotated: the applier created the new garden Secret and recorded its
// name on the live Shoot (REGISTRY_CACHE_ROTATED_ANNOTATION_PREFIX + cache uid, docs/skr.md "Registry cache"); the
// Shoot main holds does not name it yet. Such a change is the Runtime's own (its customer's credentials), not a
// landscape rollout, although the Runtime's generation did not move: the generator's plan asks this. Pure.
import { REGISTRY_CACHE_ROTATED_ANNOTATION_PREFIX } from '../model/contract.js';
import type { Shoot } from '../model/shoot.js';

/** What pendingRotations reads of the Runtime's `spec.imageRegistryCache`. */
interface RuntimeCache {
  uid: string;
  config: { secretReferenceName?: string };
}

/**
 * The rotated Secret names the live Shoot records and main's Shoot does not name in spec.resources, sorted — only
 * those of the Runtime's current caches with credentials: a record left over from a cache removed (or whose
 * credentials were taken away) names nothing the Shoot will use, and must not make every later change the Runtime's.
 */
export function pendingRotations(
  live: Shoot | undefined,
  main: Shoot | undefined,
  caches: readonly RuntimeCache[] | undefined,
): string[] {
  const named = new Set((main?.spec.resources ?? []).map((resource) => resource.resourceRef.name));
  const current = new Set((caches ?? []).filter((cache) => cache.config.secretReferenceName).map((cache) => cache.uid));
  return Object.entries(live?.metadata.annotations ?? {})
    .filter(
      ([key, value]) =>
        key.startsWith(REGISTRY_CACHE_ROTATED_ANNOTATION_PREFIX) &&
        current.has(key.slice(REGISTRY_CACHE_ROTATED_ANNOTATION_PREFIX.length)) &&
        !named.has(value),
    )
    .map(([, value]) => value)
    .sort();
}

/**
 * `shoot` (the part of the live Shoot main manages, which the generator renders against) with the live Shoot's
 * records of rotated credentials: not fields main sets, yet what names a rotated cache's new Secret.
 */
export function withRotationsOf(shoot: Shoot, live: Shoot): Shoot {
  const rotations = Object.entries(live.metadata.annotations ?? {}).filter(([key]) =>
    key.startsWith(REGISTRY_CACHE_ROTATED_ANNOTATION_PREFIX),
  );
  if (rotations.length === 0) return shoot;
  return {
    ...shoot,
    metadata: { ...shoot.metadata, annotations: { ...shoot.metadata.annotations, ...Object.fromEntries(rotations) } },
  };
}
