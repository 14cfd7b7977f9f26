// GCP: one worker subnet; the control plane lives in the first worker zone.
import { FieldError } from '../../../model/errors.js';
import { ZONES_FIELD, type ProviderModule } from './provider.js';

const API_VERSION = 'gcp.provider.extensions.gardener.cloud/v1alpha1';

export const gcp: ProviderModule = {
  cloudProfileName: () => 'gcp',
  dualStack: true,
  apiServerAcl: false,
  infrastructureConfig({ nodesCidr }) {
    // `worker` is deprecated in Gardener's GCP API but KIM still writes both.
    return {
      kind: 'InfrastructureConfig',
      apiVersion: API_VERSION,
      networks: { worker: nodesCidr, workers: nodesCidr },
    };
  },
  controlPlaneConfig({ zones }) {
    const zone = zones[0];
    if (zone === undefined)
      throw new FieldError(
        ZONES_FIELD,
        'GCP needs at least one worker zone for the control plane; add a zone to the worker',
      );
    return { kind: 'ControlPlaneConfig', apiVersion: API_VERSION, zone };
  },
};
