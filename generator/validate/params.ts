// Landscape facts as policy params: the `data` of the ConfigMap a policy with
// `paramKind: {apiVersion: v1, kind: ConfigMap}` reads as `params.data.<key>`. Pure: the caller
// brings the landscape, the zone catalogue (CloudProfiles or KEB's values) and, where it knows them,
// the Runtimes that exist. Every value is a string, as a ConfigMap holds them. The keys are listed in
// docs/validation.md ("Policies"); policies in policies/default/ depend on them.
import { ConfigError } from '../../model/errors.js';
import type { Landscape, ZoneCatalog } from '../../model/landscape.js';
import { EU_ACCESS_PLATFORM_REGIONS } from '../convert/extenders/placement.js';

export interface RuntimeFact {
  /** The Runtime's id (label kyma-project.io/runtime-id), which the Shoot carries as an annotation. */
  id: string;
  /** The Runtime's BTP platform region (spec.shoot.platformRegion); empty when it has none. */
  platformRegion?: string;
}

export interface LandscapeFactsInput {
  landscape: Landscape;
  zones: ZoneCatalog;
  /**
   * Every Runtime that exists now, when the caller knows them (the generator lists them from KCP).
   * Absent: `runtimeInventory` is "false" and the policies that need it do not apply.
   */
  runtimes?: readonly RuntimeFact[];
}

/** Kubernetes' ConfigMap key rule (IsConfigMapKey). */
const CONFIG_MAP_KEY = /^[-._a-zA-Z0-9]+$/;
const MAX_KEY_LENGTH = 253;

const PARAM_KEYS = {
  landscape: 'landscape',
  auditLogMandatory: 'auditLogMandatory',
  awsIMDSv2: 'awsIMDSv2',
  networkRestriction: 'networkRestriction',
  minimumKubernetesVersion: 'minimumKubernetesVersion',
  euAccessPlatformRegions: 'euAccessPlatformRegions',
  runtimeInventory: 'runtimeInventory',
  /** Prefix: `zones.<provider type>.<region>` → comma list of zones. */
  zones: 'zones.',
  /** Prefix: `runtime.<runtime id>` → the Runtime's platform region ("" for none); present iff the Runtime exists. */
  runtime: 'runtime.',
} as const;

/** The landscape facts a policy reads as `params.data`. */
export function landscapeParams({ landscape, zones, runtimes }: LandscapeFactsInput): Record<string, string> {
  const source = `landscape ${landscape.name}`;
  const data: Record<string, string> = {
    [PARAM_KEYS.landscape]: landscape.name,
    [PARAM_KEYS.auditLogMandatory]: String(landscape.features.auditLogMandatory),
    [PARAM_KEYS.awsIMDSv2]: String(landscape.features.awsIMDSv2),
    [PARAM_KEYS.networkRestriction]: String(landscape.features.networkRestriction),
    [PARAM_KEYS.minimumKubernetesVersion]: minimumKubernetesVersion(landscape.kubernetes.defaultVersion, source),
    [PARAM_KEYS.euAccessPlatformRegions]: EU_ACCESS_PLATFORM_REGIONS.join(','),
    [PARAM_KEYS.runtimeInventory]: String(runtimes !== undefined),
  };
  const put = (key: string, value: string, what: string) => {
    if (!CONFIG_MAP_KEY.test(key) || key.length > MAX_KEY_LENGTH) {
      throw new ConfigError(
        source,
        what,
        `"${key}" is not a valid ConfigMap key (letters, digits, "-", "_", "." only, at most ${MAX_KEY_LENGTH} characters)`,
      );
    }
    data[key] = value;
  };
  for (const [provider, regions] of Object.entries(zones).sort(([a], [b]) => a.localeCompare(b))) {
    for (const [region, names] of Object.entries(regions).sort(([a], [b]) => a.localeCompare(b))) {
      put(`${PARAM_KEYS.zones}${provider}.${region}`, names.join(','), `zones of ${provider} region ${region}`);
    }
  }
  for (const runtime of runtimes ?? []) {
    const key = `${PARAM_KEYS.runtime}${runtime.id}`;
    // A Runtime id no ConfigMap key can hold is no Runtime kimops can propose for (its conversion fails
    // on the id): it is left out of the inventory rather than failing the landscape's facts.
    if (CONFIG_MAP_KEY.test(key) && key.length <= MAX_KEY_LENGTH) data[key] = runtime.platformRegion ?? '';
  }
  return data;
}

/**
 * The lowest Kubernetes version a Shoot of the landscape may run: the minor of the landscape's
 * default version, as a full semver ("1.33.3" → "1.33.0"), so policies compare with `semver()`.
 * kimops renders every Shoot at the default version or higher (never downgrading live), so anything
 * below the default's minor was asked for by hand or by a Runtime and is refused. A landscape that
 * needs an older floor would need its own field (kubernetes.minimumVersion) — there is none yet.
 */
export function minimumKubernetesVersion(defaultVersion: string, source = 'landscape'): string {
  const match = /^(\d+)\.(\d+)(\.\d+)?$/.exec(defaultVersion);
  if (!match)
    throw new ConfigError(
      source,
      'kubernetes.defaultVersion',
      `"${defaultVersion}" is not a Kubernetes version like 1.33.3`,
    );
  return `${Number(match[1])}.${Number(match[2])}.0`;
}

// ---------------------------------------------------------------------------------------------
// Zone catalogues.

interface CloudProfileLike {
  spec?: { type?: string; regions?: { name: string; zones?: { name: string }[] }[] };
}

/** Zones from Gardener CloudProfiles: the authority Gardener itself checks Shoots against. */
export function zonesFromCloudProfiles(profiles: readonly CloudProfileLike[]): ZoneCatalog {
  const catalog: ZoneCatalog = {};
  for (const profile of profiles) {
    const type = profile.spec?.type;
    if (!type) continue;
    const regions = (catalog[type] ??= {});
    for (const region of profile.spec?.regions ?? []) {
      const known = regions[region.name] ?? [];
      regions[region.name] = [...new Set([...known, ...(region.zones ?? []).map((z) => z.name)])];
    }
  }
  return catalog;
}

/**
 * How each provider names a zone from KEB's zone letter, as KEB and the Shoot write it
 * (aws eu-central-1a, gcp europe-west3-a, azure "1"). Same rule as scripts/testenv/garden-seed.ts.
 */
/**
 * KEB's provider names and how it spells zones. AWS and Azure are missing on purpose: KEB discovers
 * their zones from the provider when it provisions (DiscoverAvailableZonesCB), so its values list only
 * fallbacks (aws eu-west-1: "a") and would refuse the real zones it picks.
 */
const KEB_PROVIDERS: Record<string, { keb: string; zone: (region: string, z: string) => string }> = {
  gcp: { keb: 'gcp', zone: (region, z) => `${region}-${z}` },
  openstack: { keb: 'sap-converged-cloud', zone: (region, z) => `${region}${z}` },
  alicloud: { keb: 'alicloud', zone: (region, z) => `${region}${z}` },
  gdch: { keb: 'gdch', zone: (region, z) => `${region}-${z}` },
};

/**
 * Zones from KEB's plan values (`providersConfiguration.<provider>.regions.<region>.zones`): the
 * zones KEB picks from, for the providers whose zones it does not discover. Narrower than the
 * CloudProfiles, so prefer zonesFromCloudProfiles where the garden is reachable; a region missing
 * from the catalogue is not checked.
 */
export function zonesFromKeb(keb: {
  providersConfiguration: Record<string, { regions?: Record<string, { zones?: (string | number)[] }> }>;
}): ZoneCatalog {
  const catalog: ZoneCatalog = {};
  for (const [type, { keb: name, zone }] of Object.entries(KEB_PROVIDERS)) {
    const regions = keb.providersConfiguration[name]?.regions;
    if (!regions) continue;
    catalog[type] = Object.fromEntries(
      Object.entries(regions).map(([region, { zones }]) => [region, (zones ?? []).map((z) => zone(region, String(z)))]),
    );
  }
  return catalog;
}
