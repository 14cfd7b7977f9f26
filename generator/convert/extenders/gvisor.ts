// gVisor sandboxes get raw sockets by default (KIM's net-raw rule), unless the Runtime says otherwise.
import { FieldError } from '../../../model/errors.js';
import type { Json, JsonObject } from '../../../model/shoot.js';
import type { Extender } from '../context.js';

const GVISOR_KIND = 'GVisorConfiguration';
const GVISOR_API_VERSION = 'gvisor.runtime.extensions.config.gardener.cloud/v1alpha1';
const NET_RAW = 'net-raw';

/**
 * The gVisor providerConfig with `net-raw: "true"` unless the flag is already set. Like KIM it
 * re-encodes the config through the GVisorConfiguration type, so unknown fields are dropped.
 * Accepts raw JSON text as well, because that is how a RawExtension reaches KIM.
 */
export function ensureNetRawDefault(providerConfig: Json | undefined): JsonObject {
  let config: Json | undefined = providerConfig;
  if (typeof config === 'string') {
    if (config === '') config = undefined;
    else {
      try {
        config = JSON.parse(config) as Json;
      } catch (error) {
        throw new FieldError(
          'cri.containerRuntimes[type=gvisor].providerConfig',
          `failed to unmarshal gVisor providerConfig: ${(error as Error).message}`,
        );
      }
    }
  }
  if (config === undefined || config === null) {
    return { kind: GVISOR_KIND, apiVersion: GVISOR_API_VERSION, configFlags: { [NET_RAW]: 'true' } };
  }
  if (typeof config !== 'object' || Array.isArray(config)) {
    throw new FieldError(
      'cri.containerRuntimes[type=gvisor].providerConfig',
      'failed to unmarshal gVisor providerConfig: must be an object',
    );
  }
  const flags = config.configFlags;
  if (flags === undefined || flags === null) {
    return { kind: GVISOR_KIND, apiVersion: GVISOR_API_VERSION, configFlags: { [NET_RAW]: 'true' } };
  }
  if (typeof flags !== 'object' || Array.isArray(flags)) {
    throw new FieldError('cri.containerRuntimes[type=gvisor].providerConfig.configFlags', 'must be a map of strings');
  }
  const result: JsonObject = {};
  if (typeof config.kind === 'string' && config.kind !== '') result.kind = config.kind;
  if (typeof config.apiVersion === 'string' && config.apiVersion !== '') result.apiVersion = config.apiVersion;
  result.configFlags = NET_RAW in flags ? { ...flags } : { ...flags, [NET_RAW]: 'true' };
  return result;
}

export const gvisorNetRaw: Extender = (draft) => {
  for (const worker of draft.spec.provider.workers) {
    for (const runtime of worker.cri?.containerRuntimes ?? []) {
      if (runtime.type === 'gvisor') runtime.providerConfig = ensureNetRawDefault(runtime.providerConfig);
    }
  }
};
