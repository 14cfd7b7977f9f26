// Where and under which rules Gardener places the Shoot: seed selector, cloud profile,
// exposure class, EU access restriction, tolerations.
import { cloneJson } from '../../../model/clone.js';
import type { Extender } from '../context.js';
import { providerModule } from '../providers/index.js';
import { SEED_REGION_LABEL } from '../../../model/contract.js';

export const seedSelector: Extender = (draft, { runtime }) => {
  const { enforceSeedLocation, region } = runtime.spec.shoot;
  if (enforceSeedLocation && region) {
    draft.spec.seedSelector = { matchLabels: { [SEED_REGION_LABEL]: region } };
  }
};

export const cloudProfile: Extender = (draft, { runtime, ctx }) => {
  draft.spec.cloudProfile = {
    kind: 'CloudProfile',
    name: providerModule(runtime.spec.shoot.provider.type).cloudProfileName(ctx.config),
  };
};

export const exposureClass: Extender = (draft, { runtime }) => {
  const name = providerModule(runtime.spec.shoot.provider.type).exposureClassName;
  if (name) draft.spec.exposureClassName = name;
};

/** BTP platform regions whose clusters must stay in the EU (KIM's list). */
export const EU_ACCESS_PLATFORM_REGIONS = ['cf-eu11', 'cf-ch20', 'cf-eu01', 'cf-eu02', 'cf-eu31'];

export const accessRestrictions: Extender = (draft, { runtime }) => {
  if (!EU_ACCESS_PLATFORM_REGIONS.includes(runtime.spec.shoot.platformRegion)) return;
  draft.spec.accessRestrictions = [
    ...(draft.spec.accessRestrictions ?? []),
    {
      name: 'eu-access-only',
      options: {
        'support.gardener.cloud/eu-access-for-cluster-addons': 'true',
        'support.gardener.cloud/eu-access-for-cluster-nodes': 'true',
      },
    },
  ];
};

/** Create only: Gardener refuses to change tolerations KIM set at creation, so they are never re-rendered. */
export const tolerations: Extender = (draft, { runtime, ctx }) => {
  const { region } = runtime.spec.shoot;
  const forRegion =
    ctx.config.tolerations && Object.hasOwn(ctx.config.tolerations, region)
      ? ctx.config.tolerations[region]
      : undefined;
  if (forRegion && forRegion.length > 0) draft.spec.tolerations = cloneJson(forRegion);
};
