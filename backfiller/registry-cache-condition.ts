// KIM's RegistryCacheConfigured (docs/skr.md "Registry cache"), said from what kimops's applier did: the copy of
// the caches' credentials before the Shoot write (its report's `registryCacheError`) and the cleanup of unused garden
// Secrets after the Shoot reconciled (an `skrError` of step `registry-cache`, or the SKR configured for the applied
// tree). Only for a Runtime with caches: otherwise nothing is said, and a condition from before stays as KIM leaves
// it. Pure: the Runtime, the live Shoot's markers and the applier's facts in, the condition (or none) out.
import {
  APPLIED_TREE_ANNOTATION,
  REGISTRY_CACHE_SYNCED_TREE_ANNOTATION,
  SKR_APPLIED_TREE_ANNOTATION,
} from '../model/contract.js';
import type { ObjectMeta } from '../model/kube-object.js';
import type { PipelineState } from '../model/pipeline-facts.js';
import {
  CONDITION_REGISTRY_CACHE_CONFIGURED,
  MSG_REGISTRY_CACHE_CONFIGURED,
  REASON_REGISTRY_CACHE_CONFIGURED,
  REASON_REGISTRY_CACHE_GARDEN_CLUSTER_CLEANUP_FAILED,
  REASON_REGISTRY_CACHE_GARDEN_CLUSTER_CONFIGURATION_FAILED,
  type RuntimeCondition,
} from '../model/runtime-status.js';

export interface RegistryCacheCondition extends Pick<RuntimeCondition, 'status' | 'reason' | 'message'> {
  type: typeof CONDITION_REGISTRY_CACHE_CONFIGURED;
}

/**
 * The condition for a Runtime with `spec.imageRegistryCache`, or undefined (leave the status as it is):
 * - the copy failed for the folder's tree the applier tried last → False, ConfigurationFailed, KIM's message;
 * - the cleanup failed for the applied tree (or no SKR client for it) → False, CleanupFailed / ConfigurationFailed;
 * - the SKR phase, cleanup included, done for the applied tree, and (a cache with credentials) its stubs copied
 *   for that tree (REGISTRY_CACHE_SYNCED_TREE_ANNOTATION) → True, `Registry cache configured successfully`;
 * - otherwise (the copy not yet tried for the applied tree) undefined: KIM has no pending row, and the applier
 *   tries the copy before its next write, so a False or True follows.
 */
export function registryCacheCondition(
  runtime: { spec?: object },
  shoot: { metadata: ObjectMeta } | undefined,
  pipeline: Pick<PipelineState, 'registryCacheError' | 'skrError'>,
): RegistryCacheCondition | undefined {
  const caches = (runtime.spec as { imageRegistryCache?: unknown } | undefined)?.imageRegistryCache;
  if (!Array.isArray(caches) || caches.length === 0) return undefined;
  const copy = pipeline.registryCacheError;
  if (copy) return condition('False', REASON_REGISTRY_CACHE_GARDEN_CLUSTER_CONFIGURATION_FAILED, copy.message);
  const annotations = shoot?.metadata.annotations ?? {};
  const tree = annotations[APPLIED_TREE_ANNOTATION];
  if (tree === undefined) return undefined;
  const skr = pipeline.skrError;
  if (skr?.tree === tree && skr.step === 'registry-cache')
    return condition('False', REASON_REGISTRY_CACHE_GARDEN_CLUSTER_CLEANUP_FAILED, skr.message);
  if (skr?.tree === tree && skr.step === 'client')
    return condition('False', REASON_REGISTRY_CACHE_GARDEN_CLUSTER_CONFIGURATION_FAILED, skr.message);
  const copied = !caches.some(hasCredentials) || annotations[REGISTRY_CACHE_SYNCED_TREE_ANNOTATION] === tree;
  if (copied && annotations[SKR_APPLIED_TREE_ANNOTATION] === tree)
    return condition('True', REASON_REGISTRY_CACHE_CONFIGURED, MSG_REGISTRY_CACHE_CONFIGURED);
  return undefined;
}

/** A cache whose credentials the applier copies (it has a stub): KIM's `config.secretReferenceName`. */
function hasCredentials(cache: unknown): boolean {
  const config = (cache as { config?: { secretReferenceName?: unknown } } | null)?.config;
  return typeof config?.secretReferenceName === 'string' && config.secretReferenceName !== '';
}

function condition(
  status: RegistryCacheCondition['status'],
  reason: RegistryCacheCondition['reason'],
  message: string,
): RegistryCacheCondition {
  return { type: CONDITION_REGISTRY_CACHE_CONFIGURED, status, reason, message };
}
