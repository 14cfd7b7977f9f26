// Annotations and labels: KIM replaces both maps wholesale on every conversion.
import {
  LABEL_GLOBAL_ACCOUNT_ID,
  LABEL_RUNTIME_ID,
  LABEL_SUBACCOUNT_ID,
  ANNOTATION_RUNTIME_ID,
  ANNOTATION_RUNTIME_GENERATION,
  ANNOTATION_LICENCE_TYPE,
} from '../../../model/contract.js';
import type { Extender } from '../context.js';

/** Gardener's cleanup grace periods, as KIM sets them (seconds, strings). */
const CLEANUP_GRACE_PERIODS: Record<string, string> = {
  'shoot.gardener.cloud/cleanup-extended-apis-finalize-grace-period-seconds': '120',
  'shoot.gardener.cloud/cleanup-kubernetes-resources-finalize-grace-period-seconds': '120',
  'shoot.gardener.cloud/cleanup-webhooks-finalize-grace-period-seconds': '60',
};

export const annotations: Extender = (draft, { runtime }) => {
  const licenceType = runtime.spec.shoot.licenceType;
  draft.metadata.annotations = {
    [ANNOTATION_RUNTIME_ID]: runtime.metadata.labels?.[LABEL_RUNTIME_ID] ?? '',
    [ANNOTATION_RUNTIME_GENERATION]: String(runtime.metadata.generation ?? 0),
    // KIM writes it only for a non-empty licence type.
    ...(licenceType && { [ANNOTATION_LICENCE_TYPE]: licenceType }),
    ...CLEANUP_GRACE_PERIODS,
  };
};

export const labels: Extender = (draft, { runtime }) => {
  draft.metadata.labels = {
    account: runtime.metadata.labels?.[LABEL_GLOBAL_ACCOUNT_ID] ?? '',
    subaccount: runtime.metadata.labels?.[LABEL_SUBACCOUNT_ID] ?? '',
  };
};
