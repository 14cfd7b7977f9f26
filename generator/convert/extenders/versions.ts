// Kubernetes version and maintenance: the landscape's defaults, never a downgrade of the live Shoot.
import { neverDowngrade } from '../../../model/semver.js';
import type { Extender } from '../context.js';

export const kubernetesVersion: Extender = (draft, { runtime, ctx, live }) => {
  const desired = runtime.spec.shoot.kubernetes?.version || (ctx.config.kubernetes?.defaultVersion ?? '');
  draft.spec.kubernetes.version = neverDowngrade(desired, live?.spec.kubernetes?.version);
};

export const maintenance: Extender = (draft, { ctx }) => {
  draft.spec.maintenance = {
    autoUpdate: {
      kubernetesVersion: ctx.config.kubernetes?.enableKubernetesVersionAutoUpdate ?? false,
      machineImageVersion: ctx.config.kubernetes?.enableMachineImageVersionAutoUpdate ?? false,
    },
    ...(ctx.maintenanceWindow && {
      timeWindow: { begin: ctx.maintenanceWindow.begin, end: ctx.maintenanceWindow.end },
    }),
  };
};
