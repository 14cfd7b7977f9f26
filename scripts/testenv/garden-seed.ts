// A realistic garden for tests: the Gardener objects the shipped landscapes and KEB's Runtimes need
// so that gardener-apiserver, with its admission plugins on, accepts the Shoots kimops renders.
// Everything is derived from the project's own data — landscapes/, KEB's plan values, the example
// Runtimes — so a new region or machine type in KEB's list reaches the test garden by itself.
import { readdirSync, readFileSync } from 'node:fs';
import { parse } from 'yaml';
import type { KubeObject } from '../../model/kube-object.js';
import { conversionSettingsOf, type Landscape } from '../../model/landscape.js';
import { parseLandscape } from '../../model/landscape-parse.js';
import type { Runtime } from '../../model/runtime.js';
import type { GardenerCondition, SeedStatus } from '../../model/seed.js';

const ROOT = new URL('../../', import.meta.url);
const FIXTURES = new URL('fixtures/', import.meta.url);

/** KEB's provider names → the Runtime's provider type and the Gardener CloudProfile. */
const PROVIDERS = {
  aws: {
    keb: 'aws',
    cloudProfiles: ['aws'],
    zone: (region: string, z: string) => `${region}${z}`,
    volumes: ['gp2', 'gp3', 'io1'],
  },
  azure: {
    keb: 'azure',
    cloudProfiles: ['az'],
    zone: (_region: string, z: string) => z,
    volumes: ['Standard_LRS', 'StandardSSD_LRS', 'Premium_LRS'],
  },
  gcp: {
    keb: 'gcp',
    cloudProfiles: ['gcp'],
    zone: (region: string, z: string) => `${region}-${z}`,
    volumes: ['pd-standard', 'pd-balanced', 'pd-ssd'],
  },
  openstack: {
    keb: 'sap-converged-cloud',
    cloudProfiles: ['converged-cloud-kyma'],
    zone: (region: string, z: string) => `${region}${z}`,
    volumes: [],
  },
  alicloud: {
    keb: 'alicloud',
    cloudProfiles: ['alicloud'],
    zone: (region: string, z: string) => `${region}${z}`,
    volumes: ['cloud_essd', 'cloud_efficiency'],
  },
  // KIM's default GDCH profile is `cat`; a landscape may name another one.
  gdch: {
    keb: 'gdch',
    cloudProfiles: ['cat'],
    zone: (region: string, z: string) => `${region}-${z}`,
    volumes: ['Standard'],
  },
} as const;
type ProviderType = keyof typeof PROVIDERS;

/** Extensions, networking and DNS provider types kimops's Shoots use; each needs a ControllerRegistration. */
const EXTENSION_TYPES = [
  'shoot-networking-filter',
  'shoot-cert-service',
  'shoot-dns-service',
  'shoot-oidc-service',
  'shoot-auditlog-service',
  'acl',
  'shoot-nvidia-openshell',
  'registry-cache',
];

/** Kubernetes versions every CloudProfile offers, beside the landscapes' defaults (older ones for update tests). */
const EXTRA_KUBERNETES_VERSIONS = ['1.32.5', '1.33.1', '1.34.1', '1.34.3'];
const EXTRA_IMAGE_VERSIONS = ['1592.1.0', '1443.9.0'];

interface KebProvider {
  machines: Record<string, string>;
  regions: Record<string, { zones: string[] }>;
}

export interface GardenSeedInput {
  landscapes: Landscape[];
  runtimes: Runtime[];
  keb: { providersConfiguration: Record<string, KebProvider> };
}

/** Reads the shipped landscapes, KEB's example Runtimes and KEB's plan values. */
export function loadGardenSeedInput(): GardenSeedInput {
  const landscapes = ['dev', 'stage', 'prod'].map((name) => {
    const path = new URL(`landscapes/${name}/landscape.yaml`, ROOT);
    return parseLandscape(readFileSync(path, 'utf8'), path.pathname, name);
  });
  const examples = new URL('examples/runtimes/keb/', ROOT);
  const runtimes = readdirSync(examples)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => parse(readFileSync(new URL(f, examples), 'utf8')) as Runtime);
  const keb = parse(readFileSync(new URL('keb/plans-and-regions.values.yaml', FIXTURES), 'utf8'), {
    merge: true,
  }) as GardenSeedInput['keb'];
  return { landscapes, runtimes, keb };
}

/** `m6i.large (2vCPU, 8GB RAM)` → cpu 2, memory 8Gi; GPU machines carry `1GPU`. */
function machineType(name: string, description: string): Record<string, unknown> {
  const number = (unit: string) => Number(new RegExp(`(\\d+)${unit}`).exec(description)?.[1] ?? 0);
  return {
    name,
    cpu: String(number('vCPU') || 2),
    gpu: String(number('GPU')),
    memory: `${number('GB RAM') || 8}Gi`,
    usable: true,
    architecture: 'amd64',
  };
}

/**
 * Regions where Shoots of EU platform regions may run: Gardener refuses `eu-access-only` on a Shoot
 * whose CloudProfile region does not offer it.
 */
const EU_REGION = /^(eu-|europe-|westeurope$|northeurope$|switzerlandnorth$|uksouth$)/;

function cloudProfile(
  name: string,
  type: ProviderType,
  keb: KebProvider,
  kubernetesVersions: string[],
  images: { name: string; versions: string[] }[],
  /** Zones the example Runtimes use, beside the ones KEB picks from. */
  usedZones: Map<string, string[]>,
): KubeObject {
  const provider = PROVIDERS[type];
  return {
    apiVersion: 'core.gardener.cloud/v1beta1',
    kind: 'CloudProfile',
    metadata: { name },
    spec: {
      type,
      kubernetes: { versions: kubernetesVersions.map((version) => ({ version })) },
      machineImages: images.map((image) => ({
        name: image.name,
        updateStrategy: 'major',
        versions: image.versions.map((version) => ({
          version,
          cri: [{ name: 'containerd', containerRuntimes: [{ type: 'gvisor' }] }],
          architectures: ['amd64'],
        })),
      })),
      machineTypes: Object.entries(keb.machines).map(([machine, description]) => machineType(machine, description)),
      ...(provider.volumes.length > 0 && {
        volumeTypes: provider.volumes.map((v) => ({ name: v, class: 'standard', usable: true })),
      }),
      regions: Object.entries(keb.regions).map(([region, { zones }]) => ({
        name: region,
        zones: unique([
          ...zones.map((z) => provider.zone(region, z)),
          ...(usedZones.get(`${type}/${region}`) ?? []),
        ]).map((zone) => ({ name: zone })),
        ...(EU_REGION.test(region) && { accessRestrictions: [{ name: 'eu-access-only' }] }),
      })),
    },
  };
}

function secret(
  name: string,
  namespace: string,
  data: Record<string, string>,
  labels?: Record<string, string>,
): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace, ...(labels && { labels }) },
    type: 'Opaque',
    stringData: data,
  };
}

function unique<T>(values: T[]): T[] {
  return [...new Set(values)];
}

/** Every object of the test garden, in apply order (namespaces and cluster-scoped types first). */
export function gardenSeedObjects({ landscapes, runtimes, keb }: GardenSeedInput): KubeObject[] {
  const settings = landscapes.map((landscape) => ({ landscape, ...conversionSettingsOf(landscape) }));
  const kubernetesVersions = unique([
    ...settings.map((s) => s.config.kubernetes?.defaultVersion ?? ''),
    ...EXTRA_KUBERNETES_VERSIONS,
  ]).filter(Boolean);
  const images = unique(settings.map((s) => s.config.machineImage?.defaultName ?? 'gardenlinux')).map((name) => ({
    name,
    versions: unique([
      ...settings.map((s) => s.config.machineImage?.defaultVersion ?? ''),
      ...EXTRA_IMAGE_VERSIONS,
    ]).filter(Boolean),
  }));

  // KEB lists the zones it picks from; a Runtime may use another real zone of the region (trials do).
  const usedZones = new Map<string, string[]>();
  for (const { spec } of runtimes) {
    const key = `${spec.shoot.provider.type}/${spec.shoot.region}`;
    const zones = [spec.shoot.provider.workers, spec.shoot.provider.additionalWorkers ?? []]
      .flat()
      .flatMap((w) => w.zones ?? []);
    usedZones.set(key, unique([...(usedZones.get(key) ?? []), ...zones]));
  }

  /** Applied last: Gardener admits a Seed only once its DNS provider type is registered. */
  const seeds: KubeObject[] = [];
  const objects: KubeObject[] = [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'garden' } },
    secret(SEED_DNS_CREDENTIALS.name, SEED_DNS_CREDENTIALS.namespace, { credentials: 'test DNS credentials' }),
  ];

  for (const [type, provider] of Object.entries(PROVIDERS) as [ProviderType, (typeof PROVIDERS)[ProviderType]][]) {
    const kebProvider = keb.providersConfiguration[provider.keb];
    if (!kebProvider) throw new Error(`KEB's values have no providersConfiguration.${provider.keb}`);
    const names = unique([
      ...provider.cloudProfiles,
      ...(type === 'gdch' ? landscapes.map((l) => l.gdch?.cloudProfileName ?? '') : []),
    ]).filter(Boolean);
    for (const name of names)
      objects.push(cloudProfile(name, type, kebProvider, kubernetesVersions, images, usedZones));
    objects.push({
      apiVersion: 'core.gardener.cloud/v1beta1',
      kind: 'ControllerRegistration',
      metadata: { name: `provider-${type}` },
      spec: {
        resources: ['Infrastructure', 'ControlPlane', 'Worker', 'BackupBucket', 'BackupEntry', 'Bastion'].map(
          (kind) => ({ kind, type }),
        ),
      },
    });
    // One Seed per provider region of an example Runtime, so seed-aware code has something to find.
    for (const region of unique(
      runtimes.filter((r) => r.spec.shoot.provider.type === type).map((r) => r.spec.shoot.region),
    )) {
      seeds.push(seed(type, region));
    }
  }
  objects.push(
    {
      apiVersion: 'core.gardener.cloud/v1beta1',
      kind: 'ControllerRegistration',
      metadata: { name: 'kimops-extensions' },
      spec: {
        resources: [
          ...EXTENSION_TYPES.map((type) => ({ kind: 'Extension', type })),
          { kind: 'Network', type: 'calico' },
          { kind: 'OperatingSystemConfig', type: 'gardenlinux' },
          { kind: 'ContainerRuntime', type: 'gvisor' },
          ...unique(landscapes.map((l) => l.dns?.providerType ?? ''))
            .filter(Boolean)
            .map((type) => ({ kind: 'DNSRecord', type })),
        ],
      },
    },
    {
      apiVersion: 'core.gardener.cloud/v1beta1',
      kind: 'ExposureClass',
      metadata: { name: 'converged-cloud-internet' },
      handler: 'converged-cloud-internet',
      scheduling: { seedSelector: { matchLabels: { 'seed.gardener.cloud/provider': 'openstack' } } },
    },
  );

  const auditPolicy = parse(readFileSync(new URL('garden/audit-policy.configmap.yaml', FIXTURES), 'utf8')) as {
    data: Record<string, string>;
  };
  const bindings = unique(runtimes.map((r) => `${r.spec.shoot.provider.type}/${r.spec.shoot.secretBindingName}`));
  for (const { landscape, config, auditLogTenants } of settings) {
    const namespace = `garden-${landscape.gardener.project}`;
    objects.push(
      {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: {
          name: namespace,
          labels: { 'project.gardener.cloud/name': landscape.gardener.project, 'gardener.cloud/role': 'project' },
        },
      },
      {
        apiVersion: 'core.gardener.cloud/v1beta1',
        kind: 'Project',
        metadata: { name: landscape.gardener.project },
        // Gardener admits only tolerations the project allows; the landscape's (KSA) must be among them.
        spec: { namespace, tolerations: { whitelist: Object.values(landscape.tolerations ?? {}).flat() } },
      },
    );
    for (const policy of unique([
      config.auditLogging?.policyConfigMapName ?? 'audit-policy',
      'experimental-audit-policy',
    ])) {
      objects.push({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: policy, namespace },
        data: auditPolicy.data,
      });
    }
    for (const name of unique(
      Object.values(auditLogTenants).flatMap((regions) => Object.values(regions).map((t) => t.secretName)),
    )) {
      objects.push(secret(name, namespace, { auditlog: 'test credentials' }));
    }
    if (landscape.dns)
      objects.push(secret(landscape.dns.secretName, namespace, { credentials: 'test DNS credentials' }));
    // The binding kind the landscape's Shoots reference (Gardener admits each one slowly, ~350 ms).
    const credentialsBindings = config.gardener?.enableCredentialBinding ?? false;
    for (const binding of bindings) {
      const [type, name] = binding.split('/') as [ProviderType, string];
      objects.push(
        secret(name, namespace, { credentials: 'test cloud credentials' }),
        credentialsBindings
          ? {
              apiVersion: 'security.gardener.cloud/v1alpha1',
              kind: 'CredentialsBinding',
              metadata: { name, namespace },
              provider: { type },
              credentialsRef: { apiVersion: 'v1', kind: 'Secret', name, namespace },
            }
          : {
              apiVersion: 'core.gardener.cloud/v1beta1',
              kind: 'SecretBinding',
              metadata: { name, namespace },
              provider: { type },
              secretRef: { name, namespace },
            },
      );
    }
  }
  return [...objects, ...seeds];
}

/** Seeds need DNS credentials; nothing reads them here. */
const SEED_DNS_CREDENTIALS = { apiVersion: 'v1', kind: 'Secret', name: 'seed-dns', namespace: 'garden' };

function seed(type: string, region: string): KubeObject {
  const name = `${type}-${region}`.slice(0, 63);
  return {
    apiVersion: 'core.gardener.cloud/v1beta1',
    kind: 'Seed',
    metadata: { name, labels: { 'seed.gardener.cloud/region': region, 'seed.gardener.cloud/provider': type } },
    spec: {
      provider: { type, region },
      dns: {
        provider: { type: 'aws-route53', credentialsRef: SEED_DNS_CREDENTIALS },
        internal: {
          type: 'aws-route53',
          domain: `internal.${name}.seed.example.invalid`,
          credentialsRef: SEED_DNS_CREDENTIALS,
        },
      },
      ingress: { domain: `ingress.${name}.seed.example.invalid`, controller: { kind: 'nginx' } },
      networks: { nodes: '10.240.0.0/16', pods: '10.241.0.0/16', services: '10.242.0.0/16' },
      settings: { scheduling: { visible: true } },
    },
  };
}

/**
 * What a gardenlet reports for a healthy Seed. No gardenlet runs in the test garden, so the seeding writes it
 * through the status subresource: KIM's seed check (applier/seeds.ts) counts a Seed only once it was reconciled
 * (`lastOperation`) and its gardenlet is ready. These Seeds have no `spec.backup`, so `BackupBucketsReady` is
 * not needed. `at` is an RFC 3339 time in seconds, as Kubernetes writes it.
 */
export function readySeedStatus(at: string): SeedStatus {
  return {
    conditions: [gardenletReadyCondition(true, at)],
    lastOperation: {
      type: 'Reconcile',
      state: 'Succeeded',
      progress: 100,
      description: 'Seed reconciled (test garden seeding).',
      lastUpdateTime: at,
    },
  };
}

/** The condition a gardenlet keeps up to date on its Seed while it runs (and Gardener sets Unknown when it stops). */
export function gardenletReadyCondition(ready: boolean, at: string): GardenerCondition {
  return {
    type: 'GardenletReady',
    status: ready ? 'True' : 'False',
    reason: ready ? 'GardenletReady' : 'GardenletNotReady',
    message: ready ? 'Gardenlet is posting ready status (test garden).' : 'Gardenlet is not ready (set by a test).',
    lastTransitionTime: at,
    lastUpdateTime: at,
  };
}

/**
 * The SKR side: the plane's kube-apiserver also plays every Shoot's own cluster (the gardenlet simulator's
 * adminkubeconfig points there), so it serves the OpenIDConnect API that Gardener's shoot-oidc-service extension
 * installs in a Shoot (fixtures/skr/, see its README).
 */
export function skrSeedObjects(): KubeObject[] {
  return [
    parse(
      readFileSync(new URL('skr/authentication.gardener.cloud_openidconnects.yaml', FIXTURES), 'utf8'),
    ) as KubeObject,
  ];
}

/** The KCP side: the namespace KEB uses and the CRDs it talks through. */
export function kcpSeedObjects(): KubeObject[] {
  const crd = (file: string) => parse(readFileSync(new URL(`crds/${file}`, ROOT), 'utf8')) as KubeObject;
  return [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kcp-system' } },
    crd('runtime.yaml'),
    crd('gardenercluster.yaml'),
  ];
}
