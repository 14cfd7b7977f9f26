// SAP Converged Cloud (OpenStack): one worker network behind KIM's floating pool and F5 load balancers.
import type { ProviderModule } from './provider.js';

const API_VERSION = 'openstack.provider.extensions.gardener.cloud/v1alpha1';
const OPENSTACK_FLOATING_POOL = 'FloatingIP-external-kyma-01';
const OPENSTACK_LOAD_BALANCER_PROVIDER = 'f5';

export const openstack: ProviderModule = {
  cloudProfileName: () => 'converged-cloud-kyma',
  // SAP Converged Cloud Shoots are reachable only through this class (KIM hard-codes it).
  exposureClassName: 'converged-cloud-internet',
  dualStack: false,
  apiServerAcl: false,
  infrastructureConfig({ nodesCidr }) {
    return {
      kind: 'InfrastructureConfig',
      apiVersion: API_VERSION,
      floatingPoolName: OPENSTACK_FLOATING_POOL,
      // `worker: ""`: the deprecated field KIM's Go types always write (no omitempty); kept for a byte-equal take-over.
      networks: { worker: '', workers: nodesCidr },
    };
  },
  controlPlaneConfig() {
    return {
      kind: 'ControlPlaneConfig',
      apiVersion: API_VERSION,
      loadBalancerProvider: OPENSTACK_LOAD_BALANCER_PROVIDER,
    };
  },
};
