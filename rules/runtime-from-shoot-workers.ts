// The Runtime's workers from a live Shoot's (runtime-from-shoot.ts): KEB's fields, and of what the converter adds
// on top (the landscape's machine image, machine-controller-manager defaults) only what differs from what it would
// add, so rendering the Runtime gives the live workers back. Pure.
import type { ConverterConfig } from '../model/converter-config.js';
import { parseGoDuration } from '../model/go-time.js';
import { neverDowngrade } from '../model/semver.js';
import type { Shoot, Worker } from '../model/shoot.js';

/** KEB's name for the Kyma worker pool, the Runtime's one `workers` entry; the others are `additionalWorkers`. */
const KYMA_WORKER_NAME = 'cpu-worker-0';

const GARDENER_DEFAULT_ARCHITECTURE = 'amd64';
/** KIM's machine-controller-manager defaults when the landscape sets none (generator/convert/extenders/workers.ts). */
const DEFAULT_MACHINE_DRAIN_TIMEOUT = '15m';
const DEFAULT_MAX_EVICT_RETRIES = 2;

export function runtimeWorkersFromShoot(
  shoot: Shoot,
  config: ConverterConfig,
  notes: string[],
): { workers: Worker[]; additionalWorkers: Worker[] } {
  const live = shoot.spec.provider.workers;
  const main = live.find((w) => w.name === KYMA_WORKER_NAME) ?? live[0];
  if (main && main.name !== KYMA_WORKER_NAME)
    notes.push(
      `spec.shoot.provider.workers: ${main.name} is the Kyma worker pool (the Shoot has no ${KYMA_WORKER_NAME})`,
    );
  const cut = (w: Worker) => runtimeWorker(w, config);
  return {
    workers: main ? [cut(main)] : [],
    additionalWorkers: live.filter((w) => w !== main).map(cut),
  };
}

/** A worker as KEB writes it, plus what the Runtime must say for the converter to give the live worker back. */
function runtimeWorker(live: Worker, config: ConverterConfig): Worker {
  const { name, minimum, maximum, maxSurge, maxUnavailable, zones, volume, kubernetes, cri, machine } = live;
  const mcm = ownMachineControllerManager(live, config);
  const rest = live as Record<string, unknown>;
  return {
    name,
    machine: {
      type: machine.type,
      image: ownImage(live, config),
      // Gardener's default, which KEB leaves to it.
      ...(machine.architecture &&
        machine.architecture !== GARDENER_DEFAULT_ARCHITECTURE && { architecture: machine.architecture }),
    },
    minimum,
    maximum,
    ...(maxSurge !== undefined && { maxSurge }),
    ...(maxUnavailable !== undefined && { maxUnavailable }),
    ...(zones && { zones: [...zones] }),
    ...(volume && { volume: structuredClone(volume) }),
    ...(kubernetes?.kubelet?.maxPods !== undefined && {
      kubernetes: { kubelet: { maxPods: kubernetes.kubelet.maxPods } },
    }),
    ...(cri?.containerRuntimes && { cri: structuredClone(cri) }),
    ...(mcm && { machineControllerManager: mcm }),
    // Fields a Runtime may set on a worker and Gardener does not default: the converter copies them.
    ...Object.fromEntries(
      ['labels', 'annotations', 'taints']
        .filter((key) => rest[key] !== undefined)
        .map((key) => [key, structuredClone(rest[key])]),
    ),
  };
}

/**
 * Empty (the landscape's default, as KEB writes it) when the converter's default image gives the live one back —
 * the same image, the live version not below the default —, else the live image.
 */
function ownImage(live: Worker, config: ConverterConfig): { name: string; version: string } {
  const image = live.machine.image ?? {};
  const defaultName = config.machineImage?.defaultName ?? '';
  const defaultVersion = config.machineImage?.defaultVersion ?? '';
  const liveVersion = image.version ?? '';
  const isDefault =
    image.name === defaultName && (!liveVersion || neverDowngrade(defaultVersion, liveVersion) === liveVersion);
  return isDefault ? { name: '', version: '' } : { name: image.name ?? '', version: liveVersion };
}

/** The live machine-controller-manager settings, unless they are exactly the landscape's defaults KIM fills in. */
function ownMachineControllerManager(live: Worker, config: ConverterConfig): Worker['machineControllerManager'] {
  const mcm = live.machineControllerManager;
  if (!mcm) return undefined;
  const settings = config.provider?.worker;
  const drain = parseGoDuration(settings?.defaultMachineDrainTimeout || DEFAULT_MACHINE_DRAIN_TIMEOUT);
  const retries = Number(settings?.defaultMaxEvictRetries || DEFAULT_MAX_EVICT_RETRIES);
  const { machineDrainTimeout, maxEvictRetries, ...others } = mcm;
  const liveDrain = machineDrainTimeout === undefined ? undefined : parseGoDuration(machineDrainTimeout);
  const isDefault =
    Object.keys(others).length === 0 && drain !== undefined && liveDrain === drain && maxEvictRetries === retries;
  if (isDefault) return undefined;
  return structuredClone(mcm);
}
