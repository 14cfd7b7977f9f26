import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONVERSION_FLAGS, type AuditLogTenantMap, type KimConfigFile } from './converter-config.js';
import { ConfigError } from './errors.js';
import {
  aclFromConfigMap,
  AuditLogConfigNotFoundError,
  decodeKimConfig,
  lookupAuditLogTenant,
  parseKimFlags,
  parseMaintenanceWindowMap,
  parseTenantMap,
  settingsFromKim,
} from './kim-config.js';
import { conversionSettingsOf } from './landscape.js';
import { parseLandscape } from './landscape-parse.js';

const readRepoFile = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8');

interface ParityCase {
  id: string;
  kind: string;
  given: Record<string, unknown>;
  expect: { value?: unknown; error?: string }[];
}
const parityCases = (topic: string) =>
  (JSON.parse(readRepoFile(`test/fixtures/parity/${topic}.json`)) as { cases: ParityCase[] }).cases;

/** KIM's real dev config, copied as a migration example; it spells the OIDC keys "ClientID", "IssuerURL"… */
const KIM_DEV_SOURCE = 'landscapes/kim/dev-converter-config.json';
const kimDev = () => decodeKimConfig(readRepoFile(KIM_DEV_SOURCE), KIM_DEV_SOURCE);

function configError(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('decodeKimConfig', () => {
  it('decodes the parity case converter-config-load-ok to exactly the expected config', () => {
    const loadOk = parityCases('converter').find((c) => c.id === 'converter-config-load-ok');
    const { configJson } = (loadOk?.given ?? {}) as { configJson?: string };
    expect(typeof configJson).toBe('string');
    const { config, warnings } = decodeKimConfig(configJson ?? '', 'parity');
    expect(config).toEqual(loadOk?.expect[0]?.value);
    // The fixture's converter.kubernetes.defaultSharedIASTenant is not a KIM key: dropped, and said so.
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('converter.kubernetes.defaultSharedIASTenant: unknown key');
  });

  it("matches keys case-insensitively and writes them in KIM's spelling", () => {
    const { config, warnings } = kimDev();
    expect(warnings).toEqual([]);
    expect(config.converter.kubernetes?.defaultOperatorOidc).toEqual({
      clientID: '24f1d3e7-abb7-425a-8272-db1441d39ff2',
      groupsClaim: 'groups',
      issuerURL: 'https://kymatest.accounts400.ondemand.com',
      signingAlgs: ['RS256'],
      usernameClaim: 'sub',
      usernamePrefix: 'qdrH4rb7:',
    });
    expect(config.cluster?.defaultSharedIASTenant?.clientID).toBe('9bd05ed7-a930-44e6-8c79-e6defeb7dec9');
    expect(config.converter.gardener?.projectName).toBe('kyma-dev');
  });

  it('keeps every KIM key, round trip, and leaves absent keys absent', () => {
    const full: KimConfigFile = {
      cluster: { defaultSharedIASTenant: { clientID: 'c', issuerURL: 'https://i' } },
      converter: {
        kubernetes: {
          defaultVersion: '1.33.3',
          enableKubernetesVersionAutoUpdate: false,
          enableMachineImageVersionAutoUpdate: true,
          defaultOperatorOidc: {
            clientID: 'c',
            groupsClaim: 'g',
            groupsPrefix: 'p',
            issuerURL: 'https://i',
            signingAlgs: ['RS256'],
            usernameClaim: 'sub',
            usernamePrefix: '-',
          },
          kubeApiServer: {
            acl: { configMapName: 'acl' },
            maxTokenExpiration: '720h',
            runtimeConfig: { 'a/b': true },
            featureGates: { G: false },
          },
          kubelet: { featureGates: { K: true } },
        },
        dns: { secretName: 's', domainPrefix: 'd', providerType: 'p' },
        provider: {
          aws: { enableIMDSv2: true },
          gdch: {
            cloudProfileName: 'gdch',
            parentReferenceName: 'n',
            parentReferenceNamespace: 'ns',
            parentReferenceType: 'SingleSubnet',
          },
          worker: { defaultMaxEvictRetries: '3', defaultMachineDrainTimeout: '20m' },
        },
        machineImage: { defaultName: 'gardenlinux', defaultVersion: '1877.4.0' },
        gardener: { projectName: 'p', enableCredentialBinding: true },
        auditLogging: { policyConfigMapName: 'audit-policy', tenantConfigPath: '/t' },
        maintenanceWindow: { windowMapPath: '/w' },
        tolerations: { 'me-central2': [{ key: 'ksa-assured-workload' }, { key: 'k', value: 'v' }] },
        networking: { enableDualStackIP: true },
      },
    };
    expect(decodeKimConfig(JSON.stringify(full), 'full')).toEqual({ config: full, warnings: [] });
  });

  it('reports unknown keys with their path and ignores them', () => {
    const text = '{"converter":{"kubernetes":{"defaultVersoin":"1.33.3"},"dsn":{}}}';
    const { config, warnings } = decodeKimConfig(text, 'cfg.json', { requireAll: false });
    expect(config).toEqual({ converter: { kubernetes: {} } });
    expect(warnings).toEqual([
      'converter.kubernetes.defaultVersoin: unknown key, ignored (KIM ignores it too); check the spelling',
      'converter.dsn: unknown key, ignored (KIM ignores it too); check the spelling',
    ]);
  });

  it('refuses a JSON type that does not fit, naming the path', () => {
    const error = configError(() =>
      decodeKimConfig('{"converter":{"kubernetes":{"enableKubernetesVersionAutoUpdate":"true"}}}', 'cfg.json', {
        requireAll: false,
      }),
    );
    expect(error.source).toBe('cfg.json');
    expect(error.field).toBe('converter.kubernetes.enableKubernetesVersionAutoUpdate');
    expect(error.detail).toContain('must be a JSON boolean');
    expect(error.message).toContain('cfg.json: converter.kubernetes.enableKubernetesVersionAutoUpdate');
  });

  it('lists all type errors at once', () => {
    const error = configError(() =>
      decodeKimConfig('{"converter":{"dns":{"secretName":1},"tolerations":{"r":{}}}}', 'cfg.json', {
        requireAll: false,
      }),
    );
    expect(error.detail).toContain('converter.dns.secretName: must be a JSON string; got number 1');
    expect(error.detail).toContain('converter.tolerations.r: must be a JSON array; got object');
  });

  it('requires what KIM validates as required, unless told not to', () => {
    const error = configError(() =>
      decodeKimConfig('{"converter":{"kubernetes":{"defaultVersion":"1.33.3"}}}', 'cfg.json'),
    );
    expect(error.detail.split('\n')).toEqual([
      '6 problems:',
      ...[
        'converter.kubernetes.defaultOperatorOidc',
        'converter.machineImage.defaultName',
        'converter.machineImage.defaultVersion',
        'converter.gardener.projectName',
        'converter.auditLogging.policyConfigMapName',
        'converter.auditLogging.tenantConfigPath',
      ].map((field) => `  - ${field}: is required (KIM validates it and refuses to start without it); add it`),
    ]);
    const partial = decodeKimConfig('{"converter":{"kubernetes":{"defaultVersion":"1.33.3"}}}', 'cfg.json', {
      requireAll: false,
    });
    expect(partial.config).toEqual({ converter: { kubernetes: { defaultVersion: '1.33.3' } } });
  });

  it('takes the project from outside when the config names none, and refuses another than the one it names', () => {
    const text = '{"converter":{"gardener":{"enableCredentialBinding":true}}}';
    const { config } = decodeKimConfig(text, 'cfg.json', { requireAll: false, project: 'kyma' });
    expect(config.converter.gardener).toEqual({ enableCredentialBinding: true, projectName: 'kyma' });
    const named = '{"converter":{"gardener":{"projectName":"kyma-dev"}}}';
    expect(decodeKimConfig(named, 'cfg.json', { requireAll: false, project: 'kyma-dev' }).config).toEqual(
      JSON.parse(named),
    );
    const error = configError(() => decodeKimConfig(named, 'cfg.json', { requireAll: false, project: 'kyma' }));
    expect(error.field).toBe('converter.gardener.projectName');
    expect(error.detail).toBe(
      `is "kyma-dev", but --project says "kyma"; KIM's converter writes every Shoot into garden-kyma-dev: pass --project kyma-dev, or leave --project out`,
    );
  });

  it('treats null as unset and merges repeated keys like Go', () => {
    const text =
      '{"converter":{"dns":null,"gardener":{"projectName":"a"},"Gardener":{"enableCredentialBinding":true}}}';
    const { config } = decodeKimConfig(text, 'cfg.json', { requireAll: false });
    expect(config.converter).toEqual({ gardener: { projectName: 'a', enableCredentialBinding: true } });
  });

  it('keeps map keys exactly as written (only struct fields fold case)', () => {
    const text = '{"converter":{"kubernetes":{"kubeApiServer":{"FeatureGates":{"MyGate":true,"__proto__":false}}}}}';
    const { config } = decodeKimConfig(text, 'cfg.json', { requireAll: false });
    const gates = config.converter.kubernetes?.kubeApiServer?.featureGates ?? {};
    expect(Object.keys(gates)).toEqual(['MyGate', '__proto__']);
    expect(Object.getPrototypeOf(gates)).toBe(Object.prototype);
  });

  it.each(['{', '[1]', '"text"'])('refuses %s as a config file', (text) => {
    expect(configError(() => decodeKimConfig(text, 'cfg.json')).message).toContain('cfg.json');
  });
});

describe("the dev landscape and KIM's dev config", () => {
  it('give the converter the same configuration', () => {
    const ours = conversionSettingsOf(
      parseLandscape(readRepoFile('landscapes/dev/landscape.yaml'), 'dev', 'dev'),
    ).config;
    const kim = kimDev().config.converter;
    expect(ours.gardener?.projectName).toBe(kim.gardener?.projectName);
    expect(ours.dns).toEqual(kim.dns);
    expect(ours.kubernetes?.defaultVersion).toBe(kim.kubernetes?.defaultVersion);
    expect(ours.machineImage).toEqual(kim.machineImage);
    expect(ours.auditLogging?.policyConfigMapName).toBe(kim.auditLogging?.policyConfigMapName);
    expect(ours.tolerations).toEqual(kim.tolerations);
    expect(ours.provider?.aws).toEqual(kim.provider?.aws);
    // Everything else KIM sets, too — except what the landscape inlines instead of naming a mounted file.
    const { auditLogging, maintenanceWindow, ...comparable } = kim;
    expect(auditLogging?.tenantConfigPath).toBeDefined();
    expect(maintenanceWindow?.windowMapPath).toBeDefined();
    expect(ours).toMatchObject(comparable);
    expect(ours.gardener?.enableCredentialBinding).toBe(false);
  });

  it('agree on the SKR default OIDC tenant', () => {
    const landscape = parseLandscape(readRepoFile('landscapes/dev/landscape.yaml'), 'dev', 'dev');
    expect(landscape.skrDefaultOidc).toEqual(kimDev().config.cluster?.defaultSharedIASTenant);
  });
});

describe('parseKimFlags', () => {
  it("starts from KIM's defaults", () => {
    expect(parseKimFlags([])).toEqual(DEFAULT_CONVERSION_FLAGS);
  });

  it("reads KIM's flag names, with or without dashes; the last value wins", () => {
    expect(
      parseKimFlags([
        'api-server-acl-enabled=true',
        '--network-restriction-enabled=F',
        '-audit-log-mandatory=false',
        'audit-log-mandatory=1',
      ]),
    ).toEqual({
      networkRestrictionEnabled: false,
      apiServerAclEnabled: true,
      auditLogMandatory: true,
    });
    expect(parseKimFlags(['api-server-acl-enabled']).apiServerAclEnabled).toBe(true);
  });

  it.each([
    ['1', true],
    ['t', true],
    ['T', true],
    ['TRUE', true],
    ['true', true],
    ['True', true],
    ['0', false],
    ['f', false],
    ['F', false],
    ['FALSE', false],
    ['false', false],
    ['False', false],
  ])('parses %s as Go does', (text, value) => {
    expect(parseKimFlags([`api-server-acl-enabled=${text}`]).apiServerAclEnabled).toBe(value);
  });

  it.each(['yes', 'tRuE', ''])('refuses %j as a boolean', (text) => {
    const error = configError(() => parseKimFlags([`api-server-acl-enabled=${text}`]));
    expect(error.field).toBe('api-server-acl-enabled');
    expect(error.detail).toContain('Go boolean');
  });

  it("ignores KIM's other flags with a warning", () => {
    const warnings: string[] = [];
    const flags = parseKimFlags(
      ['runtime-ctrl-workers-cnt=5', 'gardener-project-name=kyma-dev', 'registry-cache-config-controller-enabled=true'],
      warnings,
    );
    expect(flags).toEqual(DEFAULT_CONVERSION_FLAGS);
    expect(warnings).toHaveLength(3);
    expect(warnings[1]).toContain('gardener-project-name: ignored');
  });

  it('turns the dedicated audit log on with dedicated-audit-logging-enabled, as KIM (default off)', () => {
    expect(DEFAULT_CONVERSION_FLAGS.dedicatedAuditLogging).toBeUndefined();
    expect(parseKimFlags(['dedicated-audit-logging-enabled=true']).dedicatedAuditLogging).toBe(true);
    expect(parseKimFlags(['-dedicated-audit-logging-enabled']).dedicatedAuditLogging).toBe(true);
    expect(parseKimFlags(['dedicated-audit-logging-enabled=false']).dedicatedAuditLogging).toBe(false);
  });

  it('refuses an unknown flag and lists the valid ones', () => {
    const error = configError(() => parseKimFlags(['network-restrictions-enabled=true']));
    expect(error.field).toBe('network-restrictions-enabled');
    expect(error.detail).toContain('network-restriction-enabled, api-server-acl-enabled, audit-log-mandatory');
  });
});

describe('aclFromConfigMap', () => {
  // Copy of KIM's example ConfigMap (acl-ips.configmap.example.yaml).
  const EXAMPLE = `apiVersion: v1
kind: ConfigMap
metadata:
  name: acl-ip-list
  namespace: kcp-system
data:
  acl-list.json: >-
    ["2.2.2.2/29","3.3.3.3/29","4.4.4.4/29"]
  kcp-external-nat-ip.json: '"1.1.1.1/32"'`;

  it('reads the operator CIDRs and the KCP address', () => {
    expect(aclFromConfigMap(parseYaml(EXAMPLE), 'cm')).toEqual({
      operatorCIDRs: ['2.2.2.2/29', '3.3.3.3/29', '4.4.4.4/29'],
      kcpIP: '1.1.1.1/32',
    });
  });

  it.each([
    ['no data', {}, 'data'],
    ['a missing list', { data: { 'kcp-external-nat-ip.json': '"1.1.1.1/32"' } }, 'data["acl-list.json"]'],
    [
      'a list that is not JSON',
      { data: { 'acl-list.json': '2.2.2.2/29', 'kcp-external-nat-ip.json': '"1.1.1.1/32"' } },
      'data["acl-list.json"]',
    ],
    [
      'an entry that is not a CIDR',
      { data: { 'acl-list.json': '["2.2.2.2"]', 'kcp-external-nat-ip.json': '"1.1.1.1/32"' } },
      'data["acl-list.json"]',
    ],
    [
      'a KCP address that is not a JSON string',
      { data: { 'acl-list.json': '[]', 'kcp-external-nat-ip.json': '1.1.1.1/32' } },
      'data["kcp-external-nat-ip.json"]',
    ],
  ])('refuses %s', (_what, cm, field) => {
    const error = configError(() => aclFromConfigMap(cm, 'kcp-system/acl-ip-list'));
    expect(error.field).toBe(field);
    expect(error.message).toContain('kcp-system/acl-ip-list');
  });
});

describe('parseTenantMap', () => {
  it("reads KIM's tenant file, folding key case like Go", () => {
    const text =
      '{"aws":{"eu-central-1":{"TenantID":"79c64792-9c1e-4c1b-9941-ef7560dd3eae","serviceURL":"https://auditlog.example.com:3001","secretName":"auditlog-secret"}}}';
    expect(parseTenantMap(text, 'tenants')).toEqual({
      aws: {
        'eu-central-1': {
          tenantID: '79c64792-9c1e-4c1b-9941-ef7560dd3eae',
          serviceURL: 'https://auditlog.example.com:3001',
          secretName: 'auditlog-secret',
        },
      },
    });
  });

  it('refuses an entry without a required field, as KIM does at startup', () => {
    const error = configError(() =>
      parseTenantMap('{"aws":{"eu-central-1":{"tenantID":"t","serviceURL":"https://u"}}}', 'tenants'),
    );
    expect(error.field).toBe('aws.eu-central-1.secretName');
  });

  it('reports unknown keys', () => {
    const warnings: string[] = [];
    parseTenantMap(
      '{"aws":{"r":{"tenantID":"t","serviceURL":"https://u","secretName":"s","secret":"x"}}}',
      'tenants',
      warnings,
    );
    expect(warnings).toEqual(['aws.r.secret: unknown key, ignored (KIM ignores it too); check the spelling']);
  });
});

describe('parseMaintenanceWindowMap', () => {
  it("reads KIM's window file", () => {
    // The data of KIM's example ConfigMap (maintenance-window.configmap.example.yaml).
    expect(
      parseMaintenanceWindowMap('{"eu-central-1":{"begin":"200000+0000","end":"000000+0000"}}', 'windows'),
    ).toEqual({
      'eu-central-1': { begin: '200000+0000', end: '000000+0000' },
    });
  });

  it('refuses a time Gardener would refuse', () => {
    const error = configError(() =>
      parseMaintenanceWindowMap('{"eu-central-1":{"begin":"22:00","end":"000000+0000"}}', 'windows'),
    );
    expect(error.field).toBe('eu-central-1.begin');
    expect(error.detail).toContain('"220000+0000"');
  });
});

describe('lookupAuditLogTenant (parity: auditlog unit cases)', () => {
  const cases = parityCases('auditlog').filter((c) => c.kind === 'unit');

  it('has the three unit cases', () => {
    expect(cases.map((c) => c.id).sort()).toEqual([
      'auditlog-tenant-config-found',
      'auditlog-tenant-config-missing-provider',
      'auditlog-tenant-config-missing-region',
    ]);
  });

  it.each(cases.map((c) => [c.id, c] as const))('%s', (_id, parity) => {
    const { tenantConfig, providerType, region } = parity.given as {
      tenantConfig: AuditLogTenantMap;
      providerType: string;
      region: string;
    };
    const [expected] = parity.expect;
    if (expected?.error !== undefined) {
      const thrown = (() => {
        try {
          lookupAuditLogTenant(tenantConfig, providerType, region);
        } catch (error) {
          return error;
        }
        return undefined;
      })();
      expect(thrown).toBeInstanceOf(AuditLogConfigNotFoundError);
      expect((thrown as Error).message).toBe(expected.error); // KIM's exact text
    } else {
      expect(lookupAuditLogTenant(tenantConfig, providerType, region)).toEqual(expected?.value);
    }
  });

  it('does not find inherited keys', () => {
    expect(() => lookupAuditLogTenant({}, 'constructor', 'r')).toThrow("missing providerType: 'constructor'");
  });
});

describe('settingsFromKim', () => {
  const tenants: AuditLogTenantMap = {
    aws: { 'eu-central-1': { tenantID: 't', serviceURL: 'https://u', secretName: 's' } },
  };
  const windows = { 'eu-central-1': { begin: '200000+0000', end: '000000+0000' } };
  const acl = { operatorCIDRs: ['192.0.2.0/24'], kcpIP: '203.0.113.7/32' };

  it("hands KIM's files to the converter as they are, with the SKR's default OIDC", () => {
    const { config } = kimDev();
    const settings = settingsFromKim(config, DEFAULT_CONVERSION_FLAGS, tenants, windows);
    expect(settings).toEqual({
      config: config.converter,
      flags: DEFAULT_CONVERSION_FLAGS,
      auditLogTenants: tenants,
      maintenanceWindows: windows,
      skrDefaultOidc: config.cluster?.defaultSharedIASTenant,
    });
  });

  it('ignores the window map when the config names none, like KIM', () => {
    const { config } = decodeKimConfig('{"converter":{}}', 'cfg', { requireAll: false });
    expect(settingsFromKim(config, DEFAULT_CONVERSION_FLAGS, tenants, windows).maintenanceWindows).toEqual({});
  });

  it('needs the ACL ConfigMap name and content when the ACL flag is on', () => {
    const aclOn = { ...DEFAULT_CONVERSION_FLAGS, apiServerAclEnabled: true };
    const { config } = kimDev();
    expect(configError(() => settingsFromKim(config, aclOn, tenants, windows, acl)).field).toBe(
      'converter.kubernetes.kubeApiServer.acl.configMapName',
    );
    const named = decodeKimConfig(
      '{"converter":{"kubernetes":{"kubeApiServer":{"acl":{"configMapName":"acl-ip-list"}}}}}',
      'cfg',
      { requireAll: false },
    ).config;
    expect(configError(() => settingsFromKim(named, aclOn, tenants, windows)).detail).toContain(
      'kcp-system/acl-ip-list',
    );
    expect(settingsFromKim(named, aclOn, tenants, windows, acl).acl).toEqual(acl);
  });

  it('refuses a token lifetime KIM cannot parse', () => {
    const { config } = decodeKimConfig(
      '{"converter":{"kubernetes":{"kubeApiServer":{"maxTokenExpiration":"30 days"}}}}',
      'cfg',
      { requireAll: false },
    );
    expect(configError(() => settingsFromKim(config, DEFAULT_CONVERSION_FLAGS, tenants, windows)).field).toBe(
      'converter.kubernetes.kubeApiServer.maxTokenExpiration',
    );
  });

  it.each([
    ['defaultMachineDrainTimeout', '"15 minutes"'],
    ['defaultMaxEvictRetries', '"two"'],
  ])('refuses a worker %s KIM cannot parse, once for the whole config', (key, value) => {
    const { config } = decodeKimConfig(`{"converter":{"provider":{"worker":{"${key}":${value}}}}}`, 'cfg', {
      requireAll: false,
    });
    expect(configError(() => settingsFromKim(config, DEFAULT_CONVERSION_FLAGS, tenants, windows)).field).toBe(
      `converter.provider.worker.${key}`,
    );
  });
});
