// kimops's own conversion rules on top of KIM parity: per-Runtime lookups from the landscape,
// create-only fields in update mode, the companion ConfigMap, and the errors users see.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import type { ConversionSettings } from '../../model/landscape.js';
import type { Runtime } from '../../model/runtime.js';
import { convertRuntime } from './convert-runtime.js';

const awsRuntime = parse(
  readFileSync(new URL('../../examples/runtimes/keb/aws.yaml', import.meta.url), 'utf8'),
) as Runtime;

const settings = (overrides: Partial<ConversionSettings> = {}): ConversionSettings => ({
  config: {
    kubernetes: {
      defaultVersion: '1.33.3',
      defaultOperatorOidc: {
        clientID: 'operator',
        issuerURL: 'https://operator.example',
        groupsClaim: 'groups',
        usernameClaim: 'sub',
        usernamePrefix: 'op:',
      },
    },
    machineImage: { defaultName: 'gardenlinux', defaultVersion: '1877.4.0' },
    gardener: { projectName: 'kyma-dev' },
    auditLogging: { policyConfigMapName: 'audit-policy' },
  },
  flags: { networkRestrictionEnabled: true, apiServerAclEnabled: false, auditLogMandatory: true },
  auditLogTenants: {
    aws: { 'eu-central-1': { tenantID: 'tenant-1', serviceURL: 'https://audit.example', secretName: 'audit-secret' } },
  },
  maintenanceWindows: { 'eu-central-1': { begin: '010000+0000', end: '020000+0000' } },
  skrDefaultOidc: { clientID: 'skr', issuerURL: 'https://skr.example' },
  ...overrides,
});

function converted(runtime: Runtime, s = settings(), live?: Parameters<typeof convertRuntime>[0]['live']) {
  const result = convertRuntime({ runtime, settings: s, live });
  if (!result.ok) throw result.error;
  return result;
}

describe('convertRuntime', () => {
  it("renders KEB's AWS Runtime into garden-<project> with the landscape's tenant and window", () => {
    const { shoot } = converted(awsRuntime);
    expect(shoot.metadata).toMatchObject({ name: 'c-78fcc25', namespace: 'garden-kyma-dev' });
    expect(shoot.spec.extensions?.find((e) => e.type === 'shoot-auditlog-service')?.providerConfig).toMatchObject({
      tenantID: 'tenant-1',
    });
    expect(shoot.spec.maintenance?.timeWindow).toEqual({ begin: '010000+0000', end: '020000+0000' });
    expect(shoot.spec.accessRestrictions?.[0]?.name).toBe('eu-access-only'); // platform region cf-eu11
    expect(shoot.spec.kubernetes.version).toBe('1.33.3');
  });

  it.each(['true', 'TRUE', 'True'])(
    'switches to the experimental audit policy for the annotation value %s',
    (value) => {
      const experimental = structuredClone(awsRuntime);
      experimental.metadata.annotations = { 'operator.kyma-project.io/experimental-audit-policy': value };
      expect(
        converted(experimental).shoot.spec.kubernetes.kubeAPIServer?.auditConfig?.auditPolicy?.configMapRef?.name,
      ).toBe('experimental-audit-policy');
    },
  );

  describe('registry caches with credentials (update mode)', () => {
    const UID = '1e0c54f2-7d4b-4b5e-a1f4-3c2b9d8e7f60';
    const cached = (): Runtime => {
      const runtime = structuredClone(awsRuntime);
      runtime.spec.imageRegistryCache = [
        {
          name: 'c',
          namespace: 'kyma-system',
          uid: UID,
          config: { upstream: 'ghcr.io', secretReferenceName: 'creds' },
        },
      ];
      return runtime;
    };
    const secretsOf = (live: Parameters<typeof convertRuntime>[0]['live']) => {
      const { shoot } = converted(cached(), settings(), live);
      const cache = shoot.spec.extensions?.find((e) => e.type === 'registry-cache')?.providerConfig as {
        caches: { secretReferenceName?: string }[];
      };
      return { resources: shoot.spec.resources?.map((r) => r.name), named: cache.caches[0]?.secretReferenceName };
    };

    it("keep KIM's Secret that the live Shoot names for the same upstream", () => {
      const live = converted(awsRuntime).shoot;
      live.spec.resources = [
        { name: 'reg-cache-kim', resourceRef: { apiVersion: 'v1', kind: 'Secret', name: 'reg-cache-kim' } },
      ];
      live.spec.extensions = [
        ...(live.spec.extensions ?? []),
        {
          type: 'registry-cache',
          providerConfig: { caches: [{ upstream: 'ghcr.io', secretReferenceName: 'reg-cache-kim' }] },
        },
      ];
      expect(secretsOf(live)).toEqual({ resources: expect.arrayContaining(['reg-cache-kim']), named: 'reg-cache-kim' });
    });

    it("keep the live order of the Shoot's resources: a cache Secret listed first stays first", () => {
      const live = converted(awsRuntime).shoot;
      const kim = { name: 'reg-cache-kim', resourceRef: { apiVersion: 'v1', kind: 'Secret', name: 'reg-cache-kim' } };
      live.spec.resources = [kim, ...(live.spec.resources ?? [])];
      live.spec.extensions = [
        ...(live.spec.extensions ?? []),
        {
          type: 'registry-cache',
          providerConfig: { caches: [{ upstream: 'ghcr.io', secretReferenceName: 'reg-cache-kim' }] },
        },
      ];
      expect(secretsOf(live).resources).toEqual(live.spec.resources.map((r) => r.name));
    });

    it('name reg-cache-<uid> for a cache no Secret is known for, and write its data-less stub', () => {
      const live = converted(awsRuntime).shoot;
      live.spec.extensions = [
        ...(live.spec.extensions ?? []),
        {
          type: 'registry-cache',
          providerConfig: { caches: [{ upstream: 'quay.io', secretReferenceName: 'reg-cache-q' }] },
        },
      ];
      expect(secretsOf(live)).toEqual({
        resources: expect.arrayContaining([`reg-cache-${UID}`]),
        named: `reg-cache-${UID}`,
      });
      const result = convertRuntime({ runtime: cached(), settings: settings(), live });
      expect(result.ok && result.registryCache.map((stub) => stub.metadata.name)).toEqual([`reg-cache-${UID}`]);
    });

    it('refuse a given Secret name that is no Kubernetes name, naming the cache', () => {
      const result = convertRuntime({
        runtime: cached(),
        settings: settings(),
        live: converted(awsRuntime).shoot,
        registryCacheSecrets: { [UID]: 'Not_A_Name' },
      });
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.error.field).toBe(`spec.imageRegistryCache[uid=${UID}]`);
    });
  });

  it('leaves the maintenance window out for non-production Runtimes', () => {
    const trial = structuredClone(awsRuntime);
    trial.spec.shoot.purpose = 'evaluation';
    expect(converted(trial).shoot.spec.maintenance?.timeWindow).toBeUndefined();
  });

  it('fails with the region and the fix when audit logging is mandatory and no tenant exists', () => {
    const result = convertRuntime({ runtime: awsRuntime, settings: settings({ auditLogTenants: {} }) });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.runtime).toBe('kcp-system/61dd7761-08dc-59ce-840d-342f5e487157');
    expect(result.error.field).toBe('spec.shoot.region');
    expect(result.error.message).toContain("missing providerType: 'aws'");
    expect(result.error.message).toContain(
      "add a tenant for aws/eu-central-1 to the audit-log tenant map (the landscape's auditLog.tenants",
    );
  });

  it('omits the audit-log extension when the tenant is missing and audit logging is optional', () => {
    const s = settings({ auditLogTenants: {} });
    s.flags.auditLogMandatory = false;
    const { shoot } = converted(awsRuntime, s);
    expect(shoot.spec.extensions?.map((e) => e.type)).not.toContain('shoot-auditlog-service');
  });

  it('names a missing required label', () => {
    const unlabeled = structuredClone(awsRuntime);
    delete unlabeled.metadata.labels?.['kyma-project.io/subaccount-id'];
    const result = convertRuntime({ runtime: unlabeled, settings: settings() });
    expect(result.ok ? '' : result.error.message).toMatch(
      /metadata\.labels\["kyma-project\.io\/subaccount-id"\]: is required/,
    );
  });

  it('names the missing audit-log tenant before a missing label, as KIM checks them', () => {
    const unlabeled = structuredClone(awsRuntime);
    delete unlabeled.metadata.labels?.['kyma-project.io/subaccount-id'];
    const result = convertRuntime({ runtime: unlabeled, settings: settings({ auditLogTenants: {} }) });
    expect(result.ok ? '' : `${result.error.field}: ${result.error.message}`).toMatch(/^spec\.shoot\.region: .*audit/);
  });

  it('refuses a Shoot name that would escape the repo layout', () => {
    const evil = structuredClone(awsRuntime);
    evil.spec.shoot.name = '../../etc';
    const result = convertRuntime({ runtime: evil, settings: settings() });
    expect(result.ok ? '' : result.error.field).toBe('spec.shoot.name');
  });

  it.each(['constructor', 'toString', '__proto__'])(
    'never resolves %s as a provider or region through Object.prototype',
    (name) => {
      const byProvider = structuredClone(awsRuntime);
      byProvider.spec.shoot.provider.type = name;
      const provider = convertRuntime({ runtime: byProvider, settings: settings() });
      expect(provider.ok ? '' : provider.error.message).toContain(
        `spec.shoot.provider.type: provider not supported: "${name}"`,
      );

      const byRegion = structuredClone(awsRuntime);
      byRegion.spec.shoot.region = name;
      const optional = settings();
      optional.flags.auditLogMandatory = false;
      const region = convertRuntime({ runtime: byRegion, settings: optional });
      expect(region.ok).toBe(true);
      if (region.ok) expect(region.shoot.spec.maintenance?.timeWindow).toBeUndefined();
    },
  );

  it('refuses a Shoot name that Gardener would reject as too long for the project', () => {
    const long = structuredClone(awsRuntime);
    long.spec.shoot.name = 'a-very-long-name'; // 16 + "kyma-dev" (8) > 21
    const result = convertRuntime({ runtime: long, settings: settings() });
    expect(result.ok ? '' : result.error.message).toContain(
      'spec.shoot.name: "a-very-long-name" is too long for project kyma-dev',
    );
  });

  it("refuses a binding name Gardener could not resolve, as in KIM's old ADR examples", () => {
    const spaced = structuredClone(awsRuntime);
    spaced.spec.shoot.secretBindingName = 'hyperscaler secret';
    const result = convertRuntime({ runtime: spaced, settings: settings() });
    expect(result.ok ? '' : result.error.message).toContain(
      'spec.shoot.secretBindingName: "hyperscaler secret" cannot name a binding in Gardener',
    );
  });

  it('builds the structured-auth ConfigMap from the landscape operator OIDC when the Runtime has none', () => {
    const { companions } = converted(awsRuntime);
    expect(companions).toHaveLength(1);
    const [configMap] = companions;
    expect(configMap?.metadata).toEqual({ name: 'structured-auth-config-c-78fcc25', namespace: 'garden-kyma-dev' });
    expect(parse(configMap?.data['config.yaml'] ?? '')).toEqual({
      apiVersion: 'apiserver.config.k8s.io/v1beta1',
      kind: 'AuthenticationConfiguration',
      jwt: [
        {
          issuer: { url: 'https://operator.example', audiences: ['operator'] },
          claimMappings: { username: { claim: 'sub', prefix: 'op:' }, groups: { claim: 'groups', prefix: '' } },
        },
      ],
    });
  });

  it("prefers the Runtime's own OIDC config for structured authentication", () => {
    const own = structuredClone(awsRuntime);
    own.spec.shoot.kubernetes = {
      kubeAPIServer: {
        oidcConfig: { clientID: 'mine', issuerURL: 'https://mine.example', usernameClaim: 'email', groupsClaim: 'g' },
      },
    };
    const config = parse(converted(own).companions[0]?.data['config.yaml'] ?? '') as {
      jwt: { issuer: { url: string } }[];
    };
    expect(config.jwt[0]?.issuer.url).toBe('https://mine.example');
  });

  describe('update mode (ADR 0002)', () => {
    it('carries create-only fields over from the live Shoot', () => {
      const { shoot: created } = converted(awsRuntime);
      const live = structuredClone(created);
      live.spec.tolerations = [{ key: 'ksa-assured-workload' }];
      live.spec.networking.ipFamilies = ['IPv4', 'IPv6'];
      live.spec.kubernetes.kubeAPIServer = {
        ...live.spec.kubernetes.kubeAPIServer,
        serviceAccountConfig: { extendTokenExpiration: false, maxTokenExpiration: '1000h0m0s' },
      };
      const { shoot } = converted(awsRuntime, settings(), live);
      expect(shoot.spec.tolerations).toEqual([{ key: 'ksa-assured-workload' }]);
      expect(shoot.spec.networking.ipFamilies).toEqual(['IPv4', 'IPv6']);
      expect(shoot.spec.kubernetes.kubeAPIServer?.serviceAccountConfig?.maxTokenExpiration).toBe('1000h0m0s');
    });

    it('never downgrades Kubernetes and keeps live worker order, appending new workers', () => {
      const { shoot: created } = converted(awsRuntime);
      const live = structuredClone(created);
      live.spec.kubernetes.version = '1.34.1';
      const grown = structuredClone(awsRuntime);
      const base = grown.spec.shoot.provider.workers[0];
      if (!base) throw new Error('fixture has a main worker');
      grown.spec.shoot.provider.additionalWorkers = [{ ...structuredClone(base), name: 'gpu' }];
      const { shoot } = converted(grown, settings(), live);
      expect(shoot.spec.kubernetes.version).toBe('1.34.1');
      expect(shoot.spec.provider.workers.map((w) => w.name)).toEqual(['cpu-worker-0', 'gpu']);
    });

    it('keeps the live order of workers the Runtime lists differently, and inherits the live update strategy', () => {
      const twoWorkers = structuredClone(awsRuntime);
      const base = twoWorkers.spec.shoot.provider.workers[0];
      if (!base) throw new Error('fixture has a main worker');
      twoWorkers.spec.shoot.provider.additionalWorkers = [{ ...structuredClone(base), name: 'gpu' }];
      const live = structuredClone(converted(twoWorkers).shoot);
      live.spec.provider.workers.reverse();
      const [liveGpu] = live.spec.provider.workers;
      if (liveGpu) liveGpu.updateStrategy = 'AutoInPlaceUpdate';
      const { shoot } = converted(twoWorkers, settings(), live);
      expect(shoot.spec.provider.workers.map((w) => [w.name, w.updateStrategy])).toEqual([
        ['gpu', 'AutoInPlaceUpdate'],
        ['cpu-worker-0', undefined],
      ]);
    });

    it.each([
      ['spec', (live: Record<string, unknown>) => delete live.spec, 'live Shoot spec: is required'],
      [
        'a zone list written as a string',
        (live: { spec: { provider: { workers: { zones: unknown }[] } } }) =>
          ((live.spec.provider.workers[0] as { zones: unknown }).zones = 'eu-central-1a'),
        'live Shoot spec.provider.workers[0].zones: must be a list',
      ],
      [
        'a version read as a number',
        (live: { spec: { kubernetes: { version: unknown } } }) => (live.spec.kubernetes.version = 1.34),
        'live Shoot spec.kubernetes.version: must be a string; got number 1.34',
      ],
      [
        'extensions as a map',
        (live: { spec: { extensions: unknown } }) => (live.spec.extensions = {}),
        'live Shoot spec.extensions: must be a list',
      ],
    ])('names the field when the live Shoot has %s wrong', (_what, breakIt, message) => {
      const live = structuredClone(converted(awsRuntime).shoot);
      (breakIt as (l: unknown) => void)(live);
      const result = convertRuntime({ runtime: awsRuntime, settings: settings(), live });
      expect(result.ok ? '' : result.error.message).toContain(message);
    });

    describe('dedicated audit log (ADR 0003)', () => {
      /** A live Shoot as KIM's dedicated-audit-log migration leaves it: the customer's tenant and credentials. */
      function dedicatedLive() {
        const live = structuredClone(converted(awsRuntime).shoot);
        const audit = live.spec.extensions?.find((e) => e.type === 'shoot-auditlog-service');
        if (!audit?.providerConfig) throw new Error('the AWS example has an audit-log extension');
        audit.providerConfig = {
          ...audit.providerConfig,
          tenantID: 'customer-tenant',
          serviceURL: 'https://customer.audit.example',
          // KIM's migration points the extension at the customer's credentials.
          secretReferenceName: 'dedicated-auditlog-credentials',
        };
        live.spec.resources = [
          ...(live.spec.resources ?? []),
          {
            name: 'dedicated-auditlog-credentials',
            resourceRef: { apiVersion: 'v1', kind: 'Secret', name: 'customer-audit' },
          },
        ];
        return live;
      }

      it("keeps the customer's tenant of a migrated Shoot instead of moving it back to the landscape's", () => {
        const { shoot } = converted(awsRuntime, settings(), dedicatedLive());
        expect(shoot.spec.extensions?.find((e) => e.type === 'shoot-auditlog-service')?.providerConfig).toMatchObject({
          tenantID: 'customer-tenant',
          serviceURL: 'https://customer.audit.example',
        });
        expect(shoot.spec.resources).toContainEqual({
          name: 'auditlog-credentials',
          resourceRef: { apiVersion: 'v1', kind: 'Secret', name: 'customer-audit' },
        });
      });

      it("keeps the live tenant when the Runtime asks for audit-log access, and uses the landscape's otherwise", () => {
        const live = structuredClone(converted(awsRuntime).shoot);
        const audit = live.spec.extensions?.find((e) => e.type === 'shoot-auditlog-service');
        if (audit?.providerConfig) audit.providerConfig = { ...audit.providerConfig, tenantID: 'customer-tenant' };
        const withAccess = structuredClone(awsRuntime);
        withAccess.spec.auditLogAccessEnabled = true;
        const tenant = (runtime: typeof awsRuntime) =>
          converted(runtime, settings(), live).shoot.spec.extensions?.find((e) => e.type === 'shoot-auditlog-service')
            ?.providerConfig?.tenantID;
        expect(tenant(withAccess)).toBe('customer-tenant');
        expect(tenant(awsRuntime)).toBe('tenant-1');
      });

      const claimed = { tenantID: 'claimed-tenant', serviceURL: 'https://claimed.audit.example', secretName: 'al-1' };
      const claimedResources = [
        { name: 'auditlog-credentials', resourceRef: { apiVersion: 'v1', kind: 'Secret', name: 'al-1' } },
        { name: 'dedicated-auditlog-credentials', resourceRef: { apiVersion: 'v1', kind: 'Secret', name: 'al-1' } },
      ];

      it("renders a claimed AuditLog's tenant in KIM's patch shape, plus the dedicated mark on the same Secret", () => {
        const live = structuredClone(converted(awsRuntime).shoot);
        const result = convertRuntime({ runtime: awsRuntime, settings: settings(), live, dedicatedAuditLog: claimed });
        if (!result.ok) throw result.error;
        expect(result.shoot.spec.extensions?.find((e) => e.type === 'shoot-auditlog-service')?.providerConfig).toEqual({
          apiVersion: 'service.auditlog.extensions.gardener.cloud/v1alpha1',
          kind: 'AuditlogConfig',
          type: 'standard',
          tenantID: 'claimed-tenant',
          serviceURL: 'https://claimed.audit.example',
          secretReferenceName: 'auditlog-credentials',
        });
        expect(result.shoot.spec.resources?.filter((r) => r.name.includes('auditlog'))).toEqual(claimedResources);
      });

      it('renders the claimed tenant over a migrated live Shoot and in create mode alike, and no mark without one', () => {
        const over = convertRuntime({
          runtime: awsRuntime,
          settings: settings(),
          live: dedicatedLive(),
          dedicatedAuditLog: claimed,
        });
        const created = convertRuntime({ runtime: awsRuntime, settings: settings(), dedicatedAuditLog: claimed });
        for (const result of [over, created]) {
          if (!result.ok) throw result.error;
          expect(result.shoot.spec.resources?.filter((r) => r.name.includes('auditlog'))).toEqual(claimedResources);
        }
        expect(converted(awsRuntime).shoot.spec.resources?.map((r) => r.name)).not.toContain(
          'dedicated-auditlog-credentials',
        );
      });
    });

    it('fails clearly when the live Shoot has no infrastructure config', () => {
      const { shoot: created } = converted(awsRuntime);
      const live = structuredClone(created);
      delete live.spec.provider.infrastructureConfig;
      const result = convertRuntime({ runtime: awsRuntime, settings: settings(), live });
      expect(result.ok ? '' : result.error.field).toBe('live Shoot spec.provider.infrastructureConfig');
    });
  });
});
