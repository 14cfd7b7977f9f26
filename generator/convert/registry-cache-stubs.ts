// What Git says about a registry cache's credentials: one data-less Secret stub per cache with credentials,
// `shoots/<shoot>/registry-cache/secret-<garden secret>.yaml` (rules/landscape-layout.ts). The Shoot names only the
// garden Secret; the stub adds where its data comes from (the SKR Secret), which nothing else in Git says, so the
// applier can copy it there before it writes the Shoot (applier/registry-cache-sync.ts). Never any data: the
// credentials stay in the clusters. Update mode only, as KIM adds the registry-cache extension only to a live
// Shoot. Pure.
import {
  ANNOTATION_REGISTRY_CACHE_NAME,
  ANNOTATION_REGISTRY_CACHE_NAMESPACE,
  ANNOTATION_REGISTRY_CACHE_SOURCE,
  LABEL_APP_MANAGED_BY,
  LABEL_REGISTRY_CACHE_ID,
  LABEL_RUNTIME_ID,
  MANAGED_BY_KIM,
} from '../../model/contract.js';
import type { KubeObject } from '../../model/kube-object.js';
import type { Runtime } from '../../model/runtime.js';
import type { Shoot } from '../../model/shoot.js';
import { registryCacheSecret } from './extenders/resources.js';

/** A stub: the garden Secret's metadata as KIM writes it, `immutable`, and no data. */
export interface RegistryCacheStub extends KubeObject {
  apiVersion: 'v1';
  kind: 'Secret';
  immutable: true;
}

/**
 * The stubs of the Runtime's caches with credentials, named as the rendered Shoot names their Secrets (the same
 * inputs as the converter's: the given names, the live Shoot). `namespace` is garden-<project>. Create mode: none.
 */
export function registryCacheStubs(
  runtime: Runtime,
  namespace: string,
  secrets: Record<string, string> | undefined,
  live: Shoot | undefined,
): RegistryCacheStub[] {
  if (!live) return [];
  return (runtime.spec.imageRegistryCache ?? []).flatMap((cache) => {
    const name = registryCacheSecret(cache, secrets, live);
    if (name === undefined || !cache.config.secretReferenceName) return [];
    return [
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: {
          name,
          namespace,
          // KIM's copies carry the Runtime's name, and its lookup reads them by the Runtime's runtime-id label (the
          // two are equal for KEB's Runtimes): the label, as the Shoot's runtime-id annotation, which the cleanup reads.
          labels: {
            [LABEL_RUNTIME_ID]: runtime.metadata.labels?.[LABEL_RUNTIME_ID] ?? runtime.metadata.name,
            [LABEL_REGISTRY_CACHE_ID]: cache.uid,
            [LABEL_APP_MANAGED_BY]: MANAGED_BY_KIM,
          },
          annotations: {
            [ANNOTATION_REGISTRY_CACHE_NAME]: cache.name,
            [ANNOTATION_REGISTRY_CACHE_NAMESPACE]: cache.namespace,
            [ANNOTATION_REGISTRY_CACHE_SOURCE]: cache.config.secretReferenceName,
          },
        },
        immutable: true,
      },
    ];
  });
}
