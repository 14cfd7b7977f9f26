// kyma-system/kyma-provisioning-info: facts about the cluster for the Kyma modules inside it, as KIM's
// pkg/gardener/skrdetails (at f271b80a) gathers them from the Runtime and its Shoot: the worker pools, the account
// labels, the regions, the Shoot's infrastructure config, dual-stack and the API-server ACL. Its two live fields
// (seedRegion, lastReconcileTime) are the applier's to add (rules/provisioning-info.ts withLiveDetails).
import {
  KYMA_SYSTEM_NAMESPACE,
  LABEL_GLOBAL_ACCOUNT_ID,
  LABEL_INSTANCE_ID,
  LABEL_KYMA_NAME,
  LABEL_RECONCILER_MANAGED_BY,
  LABEL_RUNTIME_ID,
  LABEL_SUBACCOUNT_ID,
  MANAGED_BY_KIM,
  PROVISIONING_INFO_CONFIG_MAP,
} from '../../../model/contract.js';
import type { Runtime } from '../../../model/runtime.js';
import type { ConfigMap, Shoot, Worker } from '../../../model/shoot.js';
import { PROVISIONING_DETAILS_KEY, provisioningDetails } from '../../../rules/provisioning-info.js';

export function provisioningInfoConfigMap(runtime: Runtime, shoot: Shoot): ConfigMap {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: PROVISIONING_INFO_CONFIG_MAP,
      namespace: KYMA_SYSTEM_NAMESPACE,
      labels: { [LABEL_RECONCILER_MANAGED_BY]: MANAGED_BY_KIM },
    },
    data: { [PROVISIONING_DETAILS_KEY]: provisioningDetails(provisioningInfo(runtime, shoot)) },
  };
}

/**
 * KIM's ToKymaProvisioningInfo without the live fields, as JSON: a string field tagged `omitzero` is left out
 * when empty; the worker pools, their numbers and flags and networkDetails.dualStackIPEnabled are always there;
 * `custom` only with additional workers, `kubeAPIServer` only with an ACL.
 */
export function provisioningInfo(runtime: Runtime, shoot: Shoot): Record<string, unknown> {
  const { labels = {} } = runtime.metadata;
  const { shoot: spec } = runtime.spec;
  const ifSet = (key: string, value: string | undefined) => (value ? { [key]: value } : {});
  const [kyma] = spec.provider.workers;
  const custom = spec.provider.additionalWorkers ?? [];
  const acl = appliedAcl(runtime);
  const infrastructureConfig = shoot.spec.provider.infrastructureConfig;
  return {
    workerPools: { kyma: workerPool(kyma), ...(custom.length > 0 && { custom: custom.map(workerPool) }) },
    ...ifSet('globalAccountID', labels[LABEL_GLOBAL_ACCOUNT_ID]),
    ...ifSet('subaccountID', labels[LABEL_SUBACCOUNT_ID]),
    ...ifSet('environmentInstanceID', labels[LABEL_INSTANCE_ID]),
    ...ifSet('instanceName', labels[LABEL_KYMA_NAME]),
    ...ifSet('runtimeID', labels[LABEL_RUNTIME_ID]),
    ...ifSet('instanceID', labels[LABEL_INSTANCE_ID]),
    ...ifSet('region', spec.region),
    ...ifSet('platformRegion', spec.platformRegion),
    // Not copied: the details are only ever written out as text.
    ...(infrastructureConfig !== undefined && { infrastructureConfig }),
    networkDetails: {
      dualStackIPEnabled: dualStack(shoot),
      ...(acl.length > 0 && { kubeAPIServer: { acl: [...acl] } }),
    },
  };
}

/** KIM's WorkerPool: a Runtime without workers still gets a `kyma` pool of zero values. */
function workerPool(worker: Worker | undefined): Record<string, unknown> {
  return {
    name: worker?.name ?? '',
    machineType: worker?.machine?.type ?? '',
    haZones: highAvailability(worker?.zones ?? []),
    autoScalerMin: worker?.minimum ?? 0,
    autoScalerMax: worker?.maximum ?? 0,
  };
}

/** KIM's IsHighAvailability: three or more zones, an odd number of them. */
function highAvailability(zones: readonly string[]): boolean {
  return zones.length >= 3 && zones.length % 2 !== 0;
}

/** KIM's IsDualStackEnabled: exactly IPv4 and IPv6. */
function dualStack(shoot: Shoot): boolean {
  const families = shoot.spec.networking.ipFamilies ?? [];
  return families.length === 2 && families.includes('IPv4') && families.includes('IPv6');
}

/** KIM's AppliedACL: the Runtime's allowed CIDRs, for aws and azure only. */
function appliedAcl(runtime: Runtime): string[] {
  const { provider, kubernetes } = runtime.spec.shoot;
  if (provider.type !== 'aws' && provider.type !== 'azure') return [];
  return kubernetes?.kubeAPIServer?.acl?.allowedCIDRs ?? [];
}
