// Generated Runtimes of every provider, with the landscape settings they convert under: the space the converter's
// property tests draw from (fast-check arbitraries). Test code.
import fc from 'fast-check';
import type { ConversionSettings } from '../../model/landscape.js';
import type { Runtime } from '../../model/runtime.js';

export const SETTINGS: ConversionSettings = {
  config: {
    kubernetes: {
      defaultVersion: '1.33.3',
      enableKubernetesVersionAutoUpdate: true,
      defaultOperatorOidc: { clientID: 'c', issuerURL: 'https://issuer.example' },
    },
    dns: { secretName: 'dns-secret', domainPrefix: 'dev.example.com', providerType: 'aws-route53' },
    provider: { aws: { enableIMDSv2: true }, gdch: { parentReferenceName: 'parent' } },
    machineImage: { defaultName: 'gardenlinux', defaultVersion: '1877.4.0' },
    gardener: { projectName: 'kyma-dev', enableCredentialBinding: true },
    auditLogging: { policyConfigMapName: 'audit-policy' },
    tolerations: { 'me-central2': [{ key: 'ksa-assured-workload' }] },
    networking: { enableDualStackIP: true },
  },
  flags: { networkRestrictionEnabled: true, apiServerAclEnabled: true, auditLogMandatory: false },
  auditLogTenants: { aws: { 'eu-central-1': { tenantID: 't', serviceURL: 'https://audit.example', secretName: 's' } } },
  maintenanceWindows: { 'eu-central-1': { begin: '200000+0000', end: '000000+0000' } },
  acl: { operatorCIDRs: ['192.0.2.0/24'], kcpIP: '198.51.100.1/32' },
  skrDefaultOidc: { clientID: 'skr', issuerURL: 'https://skr.example' },
};

const PROVIDERS = {
  aws: { region: 'eu-central-1', zones: ['eu-central-1a', 'eu-central-1b', 'eu-central-1c'] },
  azure: { region: 'westeurope', zones: ['1', '2', '3'] },
  gcp: { region: 'me-central2', zones: ['me-central2-a', 'me-central2-b', 'me-central2-c'] },
  openstack: { region: 'eu-de-1', zones: ['eu-de-1a', 'eu-de-1b', 'eu-de-1d'] },
  alicloud: { region: 'eu-central-1', zones: ['eu-central-1a', 'eu-central-1b'] },
  gdch: { region: 'us-west16', zones: ['us-west16-a', 'us-west16-b', 'us-west16-c'] },
} as const;

const name = fc.stringMatching(/^[a-z][a-z0-9]{2,10}$/);

const worker = (zones: readonly string[]) =>
  fc.record({
    name,
    machine: fc.record({
      type: fc.constantFrom('m6i.large', 'n2-standard-4'),
      image: fc.record({
        name: fc.constantFrom('', 'gardenlinux'),
        version: fc.constantFrom('', '1877.4.0', '1592.1.0'),
      }),
    }),
    minimum: fc.integer({ min: 1, max: 3 }),
    maximum: fc.integer({ min: 3, max: 20 }),
    zones: fc.subarray([...zones], { minLength: 1 }),
  });

export const runtime: fc.Arbitrary<Runtime> = fc
  .constantFrom(...(Object.keys(PROVIDERS) as (keyof typeof PROVIDERS)[]))
  .chain((provider) => {
    const { region, zones } = PROVIDERS[provider];
    return fc
      .record({
        shootName: name,
        generation: fc.integer({ min: 1, max: 50 }),
        workers: fc.array(worker(zones), { minLength: 1, maxLength: 3 }),
        purpose: fc.constantFrom('production', 'development', 'evaluation'),
        platformRegion: fc.constantFrom('cf-eu10', 'cf-eu11', 'cf-us10', 'cf-ch20'),
        egress: fc.boolean(),
        ingress: fc.boolean(),
        acl: fc.option(fc.constant(['203.0.113.0/24']), { nil: undefined }),
        version: fc.option(fc.constantFrom('1.32.5', '1.33.3', '1.34'), { nil: undefined }),
        dualStack: fc.boolean(),
      })
      .map((r): Runtime => ({
        apiVersion: 'infrastructuremanager.kyma-project.io/v1',
        kind: 'Runtime',
        metadata: {
          name: `rt-${r.shootName}`,
          namespace: 'kcp-system',
          generation: r.generation,
          labels: Object.fromEntries(
            [
              'instance-id',
              'runtime-id',
              'region',
              'broker-plan-id',
              'broker-plan-name',
              'global-account-id',
              'subaccount-id',
            ]
              .map((l) => [`kyma-project.io/${l}`, l])
              .concat([['operator.kyma-project.io/kyma-name', 'k']]),
          ),
        },
        spec: {
          shoot: {
            name: r.shootName,
            purpose: r.purpose,
            platformRegion: r.platformRegion,
            region,
            secretBindingName: 'binding',
            kubernetes: {
              ...(r.version && { version: r.version }),
              kubeAPIServer: r.acl ? { acl: { allowedCIDRs: [...r.acl] } } : {},
            },
            provider: {
              type: provider,
              workers: [r.workers[0] as never],
              additionalWorkers: r.workers.slice(1) as never[],
            },
            networking: {
              type: 'calico',
              nodes: '10.250.0.0/16',
              pods: '10.96.0.0/13',
              services: '10.104.0.0/13',
              dualStack: r.dualStack,
            },
          },
          security: {
            administrators: ['admin@example.com'],
            networking: { filter: { egress: { enabled: r.egress }, ingress: { enabled: r.ingress } } },
          },
        },
      }));
  });
