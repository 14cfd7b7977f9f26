// The text of kyma-provisioning-info's `details` (docs/skr.md): KIM's KymaProvisioningInfo as sigs.k8s.io/yaml
// writes it (pkg/gardener/skrdetails/configmap.go at f271b80a), byte for byte (go-yaml.ts). The generator writes it
// without the two live fields; the applier adds them from the Garden when it applies the ConfigMap. Pure.
import { ConfigError } from '../model/errors.js';
import { isJsonObject } from '../model/json.js';
import type { KubeObject } from '../model/kube-object.js';
import { parseYaml11 } from '../model/yaml-input.js';
import { toGoYaml } from './go-yaml.js';

/** The ConfigMap's one key. */
export const PROVISIONING_DETAILS_KEY = 'details';

/** What only the Garden knows when the applier applies: the Seed's region, the Shoot's last operation's time. */
export interface LiveDetails {
  /** The Seed's spec.provider.region for the live Shoot's spec.seedName. */
  seedRegion?: string;
  /** The live Shoot's status.lastOperation.lastUpdateTime (RFC 3339). */
  lastReconcileTime?: string;
}

/** The details as KIM's YAML (sigs.k8s.io/yaml of its KymaProvisioningInfo). */
export function provisioningDetails(details: Record<string, unknown>): string {
  return toGoYaml(details);
}

/**
 * A copy of the ConfigMap whose details carry the live fields (an empty or missing one stays out, as KIM's
 * `omitzero` leaves a zero value out). Throws ConfigError when its details are not a YAML map.
 */
export function withLiveDetails<T extends KubeObject>(configMap: T, live: LiveDetails): T {
  const source = `ConfigMap ${configMap.metadata.namespace ?? ''}/${configMap.metadata.name} data.${PROVISIONING_DETAILS_KEY}`;
  const data = isJsonObject(configMap['data']) ? configMap['data'] : {};
  const text = data[PROVISIONING_DETAILS_KEY];
  const details = typeof text === 'string' ? parseYaml11(text, source) : undefined;
  if (!isJsonObject(details)) throw new ConfigError(source, '', 'is no YAML map of provisioning details');
  const { seedRegion, lastReconcileTime } = live;
  const filled = {
    ...details,
    ...(seedRegion && { seedRegion }),
    ...(lastReconcileTime && { lastReconcileTime: metav1Time(lastReconcileTime) }),
  };
  return { ...configMap, data: { ...data, [PROVISIONING_DETAILS_KEY]: provisioningDetails(filled) } };
}

/** metav1.Time's JSON form: RFC 3339 in UTC, whole seconds. Text that is no time stays as given. */
function metav1Time(text: string): string {
  const time = new Date(text);
  return Number.isNaN(time.getTime()) ? text : time.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
