// Create-only networking choices Gardener cannot change later: IP families and GDCH's overlay.
import type { Extender } from '../context.js';
import { providerModule } from '../providers/index.js';

/** GDCH nodes need Calico's VXLAN overlay (KIM's fixed payload). */
const GDCH_CALICO_CONFIG = {
  apiVersion: 'calico.networking.extensions.gardener.cloud/v1alpha1',
  kind: 'NetworkConfig',
  vxlan: { enabled: true },
  overlay: { enabled: true },
};

export const networkingFamilies: Extender = (draft, { runtime, ctx }) => {
  const { provider, networking } = runtime.spec.shoot;
  if (providerModule(provider.type).dualStack && networking.dualStack && ctx.config.networking?.enableDualStackIP) {
    draft.spec.networking.ipFamilies = ['IPv4', 'IPv6'];
  }
  if (provider.type === 'gdch') draft.spec.networking.providerConfig = structuredClone(GDCH_CALICO_CONFIG);
};

export const credentialsBinding: Extender = (draft, { runtime, ctx }) => {
  const name = runtime.spec.shoot.secretBindingName;
  delete draft.spec.secretBindingName;
  delete draft.spec.credentialsBindingName;
  if (ctx.config.gardener?.enableCredentialBinding) draft.spec.credentialsBindingName = name;
  else draft.spec.secretBindingName = name;
};
