// spec.provider: workers and the provider's infrastructure/control-plane configs.
// Create renders them from the Runtime; update aligns them with the live Shoot so that nothing
// Gardener would refuse or a customer would feel (lost zones, downgraded images) is proposed.
import { FieldError } from '../../../model/errors.js';
import { isJsonObject } from '../../../model/json.js';
import type { Runtime } from '../../../model/runtime.js';
import type { Shoot, Worker } from '../../../model/shoot.js';
import { cloneJson } from '../../../model/clone.js';
import {
  keepsLiveProviderConfigs,
  workersAlignedWithLive,
  zonesAdded,
  uniqueZones,
} from '../../../rules/live-rules.js';
import type { ConverterContext, Extender } from '../context.js';
import { providerModule } from '../providers/index.js';
import type { ProviderModule } from '../providers/provider.js';
import {
  withDefaultImage,
  withGoDurations,
  withMachineControllerDefaults,
  withMaxPodsCaps,
  withProviderWorkerConfig,
} from './workers.js';

function runtimeWorkers(runtime: Runtime): Worker[] {
  const { workers, additionalWorkers } = runtime.spec.shoot.provider;
  if (workers.length !== 1) {
    throw new FieldError(
      'spec.shoot.provider.workers',
      `must hold exactly one main worker; got ${workers.length} (put further workers in additionalWorkers)`,
    );
  }
  return [
    ...workers.map((w, i) => withGoDurations(w, `spec.shoot.provider.workers[${i}]`)),
    ...(additionalWorkers ?? []).map((w, i) => withGoDurations(w, `spec.shoot.provider.additionalWorkers[${i}]`)),
  ];
}

/** The per-worker rules both modes re-apply (KIM re-runs them on every patch). */
function finishWorkers(workers: Worker[], runtime: Runtime, ctx: ConverterContext, provider: ProviderModule): Worker[] {
  const prepared = workers.map((w) =>
    withProviderWorkerConfig(withMachineControllerDefaults(w, ctx.config), provider, ctx.config),
  );
  return withMaxPodsCaps(prepared, runtime.spec.shoot.networking.pods);
}

function dualStackWanted(runtime: Runtime, ctx: ConverterContext): boolean {
  return Boolean(runtime.spec.shoot.networking.dualStack && ctx.config.networking?.enableDualStackIP);
}

export const createProvider: Extender = (draft, { runtime, ctx }) => {
  const type = runtime.spec.shoot.provider.type;
  const provider = providerModule(type);
  const workers = runtimeWorkers(runtime).map((w) => withDefaultImage(w, ctx.config));
  const input = {
    nodesCidr: runtime.spec.shoot.networking.nodes,
    zones: uniqueZones(workers),
    dualStack: dualStackWanted(runtime, ctx),
    config: ctx.config,
  };
  draft.spec.provider = {
    type,
    workers: finishWorkers(workers, runtime, ctx, provider),
    infrastructureConfig: provider.infrastructureConfig(input),
    controlPlaneConfig: provider.controlPlaneConfig(input),
    workersSettings: { sshAccess: { enabled: false } },
  };
};

export const patchProvider: Extender = (draft, { runtime, ctx, live }) => {
  const liveProvider = (live as Shoot).spec.provider;
  const type = runtime.spec.shoot.provider.type;
  const provider = providerModule(type);
  const liveWorkers = liveProvider.workers ?? [];
  const workers = workersAlignedWithLive(
    runtimeWorkers(runtime).map((w) => withDefaultImage(w, ctx.config)),
    liveWorkers,
  );

  const liveInfra = liveProvider.infrastructureConfig;
  if (!liveInfra) {
    throw new FieldError(
      'live Shoot spec.provider.infrastructureConfig',
      'is missing; the live Shoot cannot be updated safely — check it in Gardener',
    );
  }
  const addedZones = zonesAdded(workers, liveWorkers);
  let infrastructureConfig = cloneJson(liveInfra);
  let controlPlaneConfig = cloneJson(liveProvider.controlPlaneConfig);
  if (!keepsLiveProviderConfigs(type, liveInfra, addedZones)) {
    // Dual-stack is decided at creation. KIM regenerates without it, which drops a dual-stack AWS
    // Shoot's load-balancer controller; kimops keeps what the live config says (ADR 0002).
    const liveDualStack = isJsonObject(liveInfra.dualStack) && liveInfra.dualStack.enabled === true;
    const input = {
      nodesCidr: runtime.spec.shoot.networking.nodes,
      zones: [...uniqueZones(liveWorkers), ...addedZones],
      dualStack: liveDualStack,
      config: ctx.config,
    };
    const generated = provider.infrastructureConfig(input);
    infrastructureConfig = provider.mergeInfrastructureConfig
      ? provider.mergeInfrastructureConfig(generated, liveInfra)
      : generated;
    controlPlaneConfig = provider.controlPlaneConfig(input);
  }

  draft.spec.provider = {
    type,
    workers: finishWorkers(workers, runtime, ctx, provider),
    infrastructureConfig,
    ...(controlPlaneConfig && { controlPlaneConfig }),
    workersSettings: { sshAccess: { enabled: false } },
  };
};
