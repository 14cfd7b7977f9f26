// Where and under which rules Gardener places the Shoot: seed selector, cloud profile,
// exposure class, EU access restriction, tolerations.
import { FieldError } from '../../../model/errors.js';
import { cloneJson } from '../support/clone.js';
import type { Extender } from '../context.js';

export const SEED_REGION_LABEL = 'seed.gardener.cloud/region';

export const seedSelector: Extender = (draft, { runtime }) => {
  const { enforceSeedLocation, region } = runtime.spec.shoot;
  if (enforceSeedLocation && region) {
    draft.spec.seedSelector = { matchLabels: { [SEED_REGION_LABEL]: region } };
  }
};

/** KIM's provider → CloudProfile names; gdch's comes from the landscape. */
const CLOUD_PROFILES: Record<string, string> = {
  aws: 'aws',
  azure: 'az',
  gcp: 'gcp',
  openstack: 'converged-cloud-kyma',
  alicloud: 'alicloud',
};
const DEFAULT_GDCH_CLOUD_PROFILE = 'cat';

export const cloudProfile: Extender = (draft, { runtime, ctx }) => {
  const provider = runtime.spec.shoot.provider.type;
  const name =
    provider === 'gdch' ? ctx.config.provider?.gdch?.cloudProfileName || DEFAULT_GDCH_CLOUD_PROFILE : CLOUD_PROFILES[provider];
  if (name === undefined) {
    throw new FieldError(
      'spec.shoot.provider.type',
      `provider not supported: "${provider}"; use one of aws, azure, gcp, openstack, alicloud, gdch`,
    );
  }
  draft.spec.cloudProfile = { kind: 'CloudProfile', name };
};

/** SAP Converged Cloud shoots are exposed through this class (KIM hard-codes it). */
export const OPENSTACK_EXPOSURE_CLASS = 'converged-cloud-internet';

export const exposureClass: Extender = (draft, { runtime }) => {
  if (runtime.spec.shoot.provider.type === 'openstack') draft.spec.exposureClassName = OPENSTACK_EXPOSURE_CLASS;
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
  const forRegion = ctx.config.tolerations?.[runtime.spec.shoot.region];
  if (forRegion && forRegion.length > 0) draft.spec.tolerations = cloneJson(forRegion);
};
