// Per-worker rules KIM applies on create and update alike: machine image defaults, machine
// controller manager defaults, maxPods caps, the provider's worker config.
import { FieldError } from '../../../model/errors.js';
import type { ConverterConfig } from '../../../model/converter-config.js';
import type { Worker } from '../../../model/shoot.js';
import { cloneJson } from '../../../model/clone.js';
import { formatGoDuration, parseGoDuration } from '../../../model/go-time.js';
import { applyTotalMaxPodsCap, maxPodsFromCidr, MAX_PODS_PER_NODE } from '../support/max-pods.js';
import type { ProviderModule } from '../providers/provider.js';

/** KIM's machine-controller-manager defaults when the landscape sets none. */
const DEFAULT_MACHINE_DRAIN_TIMEOUT = '15m';
const DEFAULT_MAX_EVICT_RETRIES = 2;

export function withDefaultImage(worker: Worker, config: ConverterConfig): Worker {
  const image = worker.machine.image;
  return {
    ...worker,
    machine: {
      ...worker.machine,
      image: {
        name: image?.name || (config.machineImage?.defaultName ?? ''),
        version: image?.version || (config.machineImage?.defaultVersion ?? ''),
      },
    },
  };
}

/**
 * The metav1.Duration fields of a Gardener worker. KIM decodes the Runtime into Gardener's Go types, so they reach
 * the Shoot as Go prints them (30m → 30m0s, 90s → 1m30s), as Gardener stores them: written so, a manifest equals
 * the live Shoot of a Runtime KIM converted, and a take-over changes nothing.
 */
const WORKER_DURATIONS: readonly (readonly string[])[] = [
  ...['scaleDownUnneededTime', 'scaleDownUnreadyTime', 'maxNodeProvisionTime'].map((f) => ['clusterAutoscaler', f]),
  ...['machineDrainTimeout', 'machineHealthTimeout', 'machineCreationTimeout', 'inPlaceUpdateTimeout'].map((f) => [
    'machineControllerManager',
    f,
  ]),
  ...[
    'evictionPressureTransitionPeriod',
    'streamingConnectionIdleTimeout',
    'imageMinimumGCAge',
    'imageMaximumGCAge',
  ].map((f) => ['kubernetes', 'kubelet', f]),
  ...['memoryAvailable', 'imageFSAvailable', 'imageFSInodesFree', 'nodeFSAvailable', 'nodeFSInodesFree'].map((f) => [
    'kubernetes',
    'kubelet',
    'evictionSoftGracePeriod',
    f,
  ]),
];

/** The worker with its durations in Go's form; `field` names it for an error (`spec.shoot.provider.workers[0]`). */
export function withGoDurations(worker: Worker, field: string): Worker {
  const copy = cloneJson(worker);
  for (const path of WORKER_DURATIONS) {
    const parent = path
      .slice(0, -1)
      .reduce<unknown>((at, key) => (at as Record<string, unknown> | undefined)?.[key], copy);
    const key = path.at(-1) as string;
    const text = (parent as Record<string, unknown> | undefined)?.[key];
    if (typeof text !== 'string') continue;
    const nanos = parseGoDuration(text);
    if (nanos === undefined) {
      throw new FieldError(`${field}.${path.join('.')}`, `"${text}" is no duration; write one like "30m" or "1h30m"`);
    }
    (parent as Record<string, unknown>)[key] = formatGoDuration(nanos);
  }
  return copy;
}

/** Fills only the MCM fields the Runtime leaves unset. */
export function withMachineControllerDefaults(worker: Worker, config: ConverterConfig): Worker {
  const settings = config.provider?.worker;
  const drainText = settings?.defaultMachineDrainTimeout || DEFAULT_MACHINE_DRAIN_TIMEOUT;
  const drain = parseGoDuration(drainText);
  if (drain === undefined) {
    throw new FieldError(
      'converter.provider.worker.defaultMachineDrainTimeout',
      `cannot parse drain timeout "${drainText}"; write a duration like "15m"`,
    );
  }
  const retriesText = settings?.defaultMaxEvictRetries || String(DEFAULT_MAX_EVICT_RETRIES);
  if (!/^[+-]?\d+$/.test(retriesText)) {
    throw new FieldError(
      'converter.provider.worker.defaultMaxEvictRetries',
      `cannot parse the value for evict retries "${retriesText}"; write a whole number like "2"`,
    );
  }
  const mcm = worker.machineControllerManager ?? {};
  return {
    ...worker,
    machineControllerManager: {
      ...mcm,
      machineDrainTimeout: mcm.machineDrainTimeout ?? formatGoDuration(drain),
      maxEvictRetries: mcm.maxEvictRetries ?? Number(retriesText),
    },
  };
}

export function withProviderWorkerConfig(worker: Worker, provider: ProviderModule, config: ConverterConfig): Worker {
  const providerConfig = provider.workerProviderConfig?.(config);
  return providerConfig ? { ...worker, providerConfig } : worker;
}

/** Caps each worker's maxPods at a /24, then the sum at what the pods CIDR offers. */
export function withMaxPodsCaps(workers: Worker[], podsCidr: string): Worker[] {
  const perNode = workers.map((w) => {
    const maxPods = w.kubernetes?.kubelet?.maxPods;
    return maxPods === undefined ? undefined : Math.min(maxPods, MAX_PODS_PER_NODE);
  });
  let capped = perNode;
  // KIM validates a non-empty pods CIDR even when no worker sets maxPods.
  if (podsCidr !== '') {
    let totalIPs: number;
    try {
      totalIPs = maxPodsFromCidr(podsCidr);
    } catch (error) {
      throw new FieldError(
        'spec.shoot.networking.pods',
        `invalid pods CIDR for maxPods calculation: ${(error as Error).message}`,
      );
    }
    try {
      capped = applyTotalMaxPodsCap(perNode, totalIPs);
    } catch (error) {
      throw new FieldError(
        'spec.shoot.provider.workers[].kubernetes.kubelet.maxPods',
        `${(error as Error).message}; lower maxPods or use a larger pods CIDR`,
      );
    }
  }
  return workers.map((w, i) => {
    const maxPods = capped[i];
    if (maxPods === undefined || maxPods === w.kubernetes?.kubelet?.maxPods) return w;
    const copy = cloneJson(w);
    copy.kubernetes = { ...copy.kubernetes, kubelet: { ...copy.kubernetes?.kubelet, maxPods } };
    return copy;
  });
}
