// The landscape's validation for the commands that check Shoots (generate, validate): the policy set
// kimops.yaml names, parsed once per set, and the landscape facts — zones from the Garden's
// CloudProfiles when a Garden is given (Gardener checks Shoots against those), else KEB's. The files and
// the Garden are read through ports (adapters/files/policies.ts, adapters/files/keb-zones.ts, a KubeClient).
import { LABEL_RUNTIME_ID } from '../../model/contract.js';
import { TransportError } from '../../model/errors.js';
import type { KubeObject } from '../../model/kube-object.js';
import type { Landscape, ZoneCatalog } from '../../model/landscape.js';
import type { ValidationSource } from './checks.js';
import { landscapeParams, zonesFromCloudProfiles } from './params.js';
import { parsePolicyFiles, type Policy } from './policy-file.js';

/** The shipped files the source reads. */
interface PolicyFiles {
  /** A policy set's files by name. */
  readPolicySet(set: string): Promise<{ path: string; text: string }[]>;
  /** KEB's zone catalogue: read once, and only without a Garden. */
  readKebZones(): Promise<ZoneCatalog>;
}

type CloudProfile = KubeObject & Parameters<typeof zonesFromCloudProfiles>[0][number];

/** The one call on the Garden: every CloudProfile; `label` names it in a transport failure. */
interface CloudProfiles {
  readonly label: string;
  listAll<T extends KubeObject>(ref: {
    apiVersion: string;
    kind: string;
  }): Promise<{ ok: true; items: T[] } | { ok: false; message: string }>;
}

/**
 * With a Garden, its CloudProfiles are listed for every pass (a few objects), so a zone Gardener adds
 * is known to a long-running generator without a restart.
 */
export async function policySource(
  landscape: Landscape,
  files: PolicyFiles,
  garden?: CloudProfiles,
): Promise<ValidationSource> {
  const kebZones = garden ? undefined : await files.readKebZones();
  const zonesNow = async () => kebZones ?? gardenZones(garden as CloudProfiles);
  const sets = new Map<string, Promise<readonly Policy[]>>();
  const policies = (set: string) => {
    const read = files.readPolicySet(set).then(parsePolicyFiles);
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

async function gardenZones(garden: CloudProfiles): Promise<ZoneCatalog> {
  const profiles = await garden.listAll<CloudProfile>({
    apiVersion: 'core.gardener.cloud/v1beta1',
    kind: 'CloudProfile',
  });
  if (!profiles.ok) throw new TransportError(`kubeconfig ${garden.label}`, profiles.message);
  return zonesFromCloudProfiles(profiles.items);
}
