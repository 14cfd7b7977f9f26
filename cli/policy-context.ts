// The landscape's validation for the commands that check Shoots (generate, validate): the policy set
// kimops.yaml names, parsed once per set, and the landscape facts — zones from the Garden's
// CloudProfiles when a Garden is given (Gardener checks Shoots against those), else KEB's.
import { readKebZones } from '../adapters/files/keb-zones.js';
import { readPolicySet } from '../adapters/files/policies.js';
import type { KubeClient } from '../adapters/kube/kube-client.js';
import type { KubeObject } from '../model/kube-object.js';
import type { ValidationSource } from '../generator/validate/checks.js';
import { landscapeParams, zonesFromCloudProfiles } from '../generator/validate/params.js';
import type { ZoneCatalog } from '../model/landscape.js';
import { parsePolicyFiles, type Policy } from '../generator/validate/policy-file.js';
import { TransportError } from '../model/errors.js';
import type { Landscape } from '../model/landscape.js';
import { LABEL_RUNTIME_ID } from '../model/contract.js';

/**
 * With a Garden, its CloudProfiles are listed for every pass (a few objects), so a zone Gardener adds
 * is known to a long-running generator without a restart.
 */
export async function policySource(landscape: Landscape, garden?: KubeClient): Promise<ValidationSource> {
  const kebZones = garden ? undefined : await readKebZones();
  const zonesNow = async () => kebZones ?? gardenZones(garden as KubeClient);
  const sets = new Map<string, Promise<readonly Policy[]>>();
  const policies = (set: string) => {
    const read = readPolicySet(set).then(parsePolicyFiles);
    // A set that could not be read is read again next time (kimops.yaml on main may be fixed meanwhile).
    read.catch(() => sets.delete(set));
    return read;
  };
  return {
    policies: (set) => sets.get(set) ?? (sets.set(set, policies(set)).get(set) as Promise<readonly Policy[]>),
    params: async (runtimes) =>
      landscapeParams({
        landscape,
        zones: await zonesNow(),
        ...(runtimes && {
          runtimes: runtimes.flatMap((runtime) => {
            const id = runtime.metadata.labels?.[LABEL_RUNTIME_ID];
            return id ? [{ id, platformRegion: runtime.spec?.shoot?.platformRegion ?? '' }] : [];
          }),
        }),
      }),
  };
}

async function gardenZones(garden: KubeClient): Promise<ZoneCatalog> {
  const profiles = await garden.listAll<KubeObject & Parameters<typeof zonesFromCloudProfiles>[0][number]>({
    apiVersion: 'core.gardener.cloud/v1beta1',
    kind: 'CloudProfile',
  });
  if (!profiles.ok) throw new TransportError(`kubeconfig ${garden.label}`, profiles.message);
  return zonesFromCloudProfiles(profiles.items);
}
