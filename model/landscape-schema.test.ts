import { describe, expect, it } from 'vitest';
import { LANDSCAPE_API_VERSION, type Landscape } from './landscape.js';
import { isCidr, LANDSCAPE_SCHEMA, PATTERNS, validateLandscapeSchema } from './landscape-schema.js';
import { parseGoDuration } from './go-time.js';

/** Every optional field set: the schema must accept all of what the type allows. */
const FULL: Required<Landscape> = {
  apiVersion: LANDSCAPE_API_VERSION,
  kind: 'Landscape',
  name: 'full',
  example: true,
  defaultLeader: 'kim',
  gardener: { project: 'kyma-full' },
  features: {
    networkRestriction: true,
    apiServerAcl: true,
    auditLogMandatory: true,
    credentialsBinding: true,
    dualStack: true,
    awsIMDSv2: true,
  },
  kubernetes: {
    defaultVersion: '1.33.3',
    autoUpdate: { kubernetesVersion: true, machineImageVersion: false },
    defaultOperatorOidc: {
      clientID: 'abc',
      groupsClaim: 'groups',
      groupsPrefix: 'g:',
      issuerURL: 'https://issuer.example.com',
      signingAlgs: ['RS256'],
      usernameClaim: 'sub',
      usernamePrefix: '-',
    },
    maxTokenExpiration: '720h',
    kubeApiServer: {
      featureGates: { ClusterTrustBundle: true },
      runtimeConfig: { 'certificates.k8s.io/v1beta1/clustertrustbundles': true },
    },
    kubelet: { featureGates: { ClusterTrustBundleProjection: true } },
  },
  machineImage: { name: 'gardenlinux', version: '1877.4.0' },
  dns: { secretName: 'aws-route53-secret-dev', domainPrefix: 'dev.kyma.ondemand.com', providerType: 'aws-route53' },
  workers: { defaultMaxEvictRetries: 2, defaultMachineDrainTimeout: '15m' },
  gdch: { cloudProfileName: 'gdch', parentReference: { name: 'subnet', namespace: 'gdch-ns', type: 'SingleSubnet' } },
  auditLog: {
    policyConfigMapName: 'audit-policy',
    tenants: {
      aws: {
        'eu-central-1': {
          tenantID: '79c64792-9c1e-4c1b-9941-ef7560dd3eae',
          serviceURL: 'https://auditlog.example.com:3001',
          secretName: 'auditlog-secret',
        },
      },
    },
  },
  maintenanceWindows: { 'eu-central-1': { begin: '200000+0000', end: '000000+0000' } },
  apiServerAcl: { operatorCIDRs: ['192.0.2.0/24', '2001:db8::/32'], kcpIP: '203.0.113.7/32' },
  tolerations: { 'me-central2': [{ key: 'ksa-assured-workload' }, { key: 'k', value: 'v' }] },
  skrDefaultOidc: { clientID: 'abc', issuerURL: 'https://issuer.example.com' },
};

describe('LANDSCAPE_SCHEMA', () => {
  it('accepts a landscape that sets every field of the type', () => {
    expect(validateLandscapeSchema(FULL), JSON.stringify(validateLandscapeSchema.errors)).toBe(true);
  });

  it('describes exactly the top-level fields of the Landscape type', () => {
    expect(Object.keys(LANDSCAPE_SCHEMA.properties).sort()).toEqual(Object.keys(FULL).sort());
  });

  it('rejects unknown keys, but not in the free maps', () => {
    expect(validateLandscapeSchema({ ...FULL, extra: 1 })).toBe(false);
    expect(validateLandscapeSchema({ ...FULL, gardener: { project: 'p', typo: 1 } })).toBe(false);
    const gates = { ...FULL.kubernetes, kubeApiServer: { featureGates: { AnyGate: false, Other: true } } };
    expect(validateLandscapeSchema({ ...FULL, kubernetes: gates })).toBe(true);
  });

  it('only accepts Runtime provider types as tenant keys', () => {
    const tenants = { 'sap-converged-cloud': FULL.auditLog.tenants['aws'] };
    expect(validateLandscapeSchema({ ...FULL, auditLog: { ...FULL.auditLog, tenants } })).toBe(false);
  });

  it('refuses Gardener project names longer than 10 characters', () => {
    expect(validateLandscapeSchema({ ...FULL, gardener: { project: 'kyma-stage' } })).toBe(true);
    expect(validateLandscapeSchema({ ...FULL, gardener: { project: 'kyma-staging' } })).toBe(false);
  });
});

describe('PATTERNS', () => {
  const matches = (pattern: string, text: string) => new RegExp(pattern, 'u').test(text);
  it.each([
    ['kubernetesVersion', '1.33.3', true],
    ['kubernetesVersion', '1.33', false],
    ['kubernetesVersion', 'v1.33.3', false],
    ['duration', '720h', true],
    ['duration', '1h30m', true],
    ['duration', '1.5h', true],
    ['duration', '30 days', false],
    ['duration', '1d', false],
    ['maintenanceTime', '220000+0000', true],
    ['maintenanceTime', '013000-0530', true],
    ['maintenanceTime', '240000+0000', false],
    ['maintenanceTime', '2200+0000', false],
    ['dnsLabel', 'kyma-dev', true],
    ['dnsLabel', 'Kyma', false],
    ['dnsLabel', '-kyma', false],
    ['httpsUrl', 'https://auditlog.example.com:8081', true],
    ['httpsUrl', 'http://auditlog.example.com', false],
  ] as const)('%s %s → %s', (name, text, ok) => {
    expect(matches(PATTERNS[name], text)).toBe(ok);
  });
});

describe('isCidr', () => {
  it.each([
    ['192.0.2.0/24', true],
    ['203.0.113.7/32', true],
    ['2001:db8::/48', true],
    ['192.0.2.0/33', false],
    ['192.0.2.0', false],
    ['192.0.2/24', false],
    ['2001:db8::/129', false],
    ['192.0.2.0/024', false],
  ])('%s → %s', (text, ok) => {
    expect(isCidr(text)).toBe(ok);
  });
});

describe('parseGoDuration', () => {
  it.each([
    ['720h', 720 * 3600e9],
    ['1h30m', 5400e9],
    ['1.5h', 5400e9],
    ['15m', 900e9],
    ['300ms', 300e6],
    ['0', 0],
    ['-1h', -3600e9],
    ['30 days', undefined],
    ['1d', undefined],
    ['h', undefined],
    ['', undefined],
    ['9999999999999h', undefined],
  ])('%s → %s', (text, nanos) => {
    expect(parseGoDuration(text)).toBe(nanos);
  });
});
