import { readdirSync, readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigError } from './errors.js';
import { conversionSettingsOf, type Landscape } from './landscape.js';
import { parseLandscape } from './landscape-parse.js';

const LANDSCAPES = new URL('../landscapes/', import.meta.url);
const landscapeNames = readdirSync(LANDSCAPES, { withFileTypes: true })
  .filter(
    (entry) => entry.isDirectory() && readdirSync(new URL(`${entry.name}/`, LANDSCAPES)).includes('landscape.yaml'),
  )
  .map((entry) => entry.name);

function readLandscape(name: string): Landscape {
  const file = new URL(`${name}/landscape.yaml`, LANDSCAPES);
  return parseLandscape(readFileSync(file, 'utf8'), `landscapes/${name}/landscape.yaml`, name);
}

/** Provider type → the regions KEB offers, copied from KEB's chart values (see landscapes/README.md). */
const kebRegions = (
  JSON.parse(readFileSync(new URL('keb-regions.json', LANDSCAPES), 'utf8')) as { regions: Record<string, string[]> }
).regions;

describe('the landscapes in landscapes/', () => {
  it('are dev, stage and prod', () => {
    expect(landscapeNames.sort()).toEqual(['dev', 'prod', 'stage']);
  });

  it.each(landscapeNames)('%s parses and is named after its folder', (name) => {
    const landscape = readLandscape(name);
    expect(landscape.name).toBe(name);
    // Only dev holds real (public) values; stage and prod say they are examples.
    expect(landscape.example ?? false).toBe(name !== 'dev');
  });

  it('cover the six Runtime provider types KEB offers', () => {
    expect(Object.keys(kebRegions).sort()).toEqual(['alicloud', 'aws', 'azure', 'gcp', 'gdch', 'openstack']);
    expect(kebRegions['aws']).toContain('eu-west-1'); // trials, from providersConfiguration
  });

  it.each(landscapeNames)(
    '%s has an audit tenant and a maintenance window for every provider and region KEB offers',
    (name) => {
      const landscape = readLandscape(name);
      const missing: string[] = [];
      for (const [provider, regions] of Object.entries(kebRegions)) {
        for (const region of regions) {
          if (!landscape.auditLog.tenants[provider]?.[region]) missing.push(`auditLog.tenants.${provider}.${region}`);
          if (!landscape.maintenanceWindows?.[region]) missing.push(`maintenanceWindows.${region}`);
        }
      }
      expect(missing).toEqual([]);
    },
  );

  it.each(landscapeNames)('%s has maintenance windows Gardener accepts (30 minutes to 6 hours)', (name) => {
    const seconds = (time: string) =>
      Number(time.slice(0, 2)) * 3600 + Number(time.slice(2, 4)) * 60 + Number(time.slice(4, 6));
    for (const [region, { begin, end }] of Object.entries(readLandscape(name).maintenanceWindows ?? {})) {
      const length = (seconds(end) - seconds(begin) + 86400) % 86400;
      expect(length, region).toBeGreaterThanOrEqual(1800);
      expect(length, region).toBeLessThanOrEqual(6 * 3600);
    }
  });

  it.each(landscapeNames)('%s invents no tenant outside example.invalid', (name) => {
    const urls = Object.values(readLandscape(name).auditLog.tenants).flatMap((regions) =>
      Object.values(regions).map((t) => t.serviceURL),
    );
    expect(urls.filter((url) => !new URL(url).hostname.endsWith('.example.invalid'))).toEqual([]);
  });
});

const MINIMAL = `apiVersion: kimops.kyma-project.io/v1alpha1
kind: Landscape
name: test
gardener:
  project: kyma-test
features: {networkRestriction: true, apiServerAcl: false, auditLogMandatory: true, credentialsBinding: true, dualStack: false, awsIMDSv2: true}
kubernetes:
  defaultVersion: "1.33.3"
  autoUpdate: {kubernetesVersion: true, machineImageVersion: false}
  maxTokenExpiration: 720h
machineImage: {name: gardenlinux, version: "1877.4.0"}
auditLog:
  policyConfigMapName: audit-policy
  tenants:
    aws:
      eu-central-1:
        tenantID: 79c64792-9c1e-4c1b-9941-ef7560dd3eae
        serviceURL: https://auditlog.example.com:3001
        secretName: auditlog-secret
`;
const SOURCE = 'landscapes/test/landscape.yaml';

/** Parses and returns the ConfigError, failing the test if there is none or another error. */
function problem(text: string, expectedName?: string): ConfigError {
  try {
    parseLandscape(text, SOURCE, expectedName);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toContain(SOURCE);
    return error as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

function edit(from: string, to: string): string {
  expect(MINIMAL).toContain(from);
  return MINIMAL.replace(from, to);
}

describe('parseLandscape', () => {
  it('reads a minimal landscape', () => {
    const landscape = parseLandscape(MINIMAL, SOURCE, 'test');
    expect(landscape.gardener.project).toBe('kyma-test');
    expect(landscape.kubernetes.maxTokenExpiration).toBe('720h');
  });

  it('takes the dedicated audit log as off unless features.dedicatedAuditLogging says true', () => {
    expect(conversionSettingsOf(parseLandscape(MINIMAL, SOURCE, 'test')).flags).not.toHaveProperty(
      'dedicatedAuditLogging',
    );
    const on = parseLandscape(edit('awsIMDSv2: true}', 'awsIMDSv2: true, dedicatedAuditLogging: true}'), SOURCE);
    expect(conversionSettingsOf(on).flags.dedicatedAuditLogging).toBe(true);
    const off = parseLandscape(edit('awsIMDSv2: true}', 'awsIMDSv2: true, dedicatedAuditLogging: false}'), SOURCE);
    expect(conversionSettingsOf(off).flags).not.toHaveProperty('dedicatedAuditLogging');
    expect(problem(edit('awsIMDSv2: true}', 'awsIMDSv2: true, dedicatedAuditLogging: "yes"}')).field).toBe(
      'features.dedicatedAuditLogging',
    );
  });

  it('names an unknown key and suggests the right one', () => {
    const error = problem(edit('  project: kyma-test', '  project: kyma-test\n  projct: x'));
    expect(error.field).toBe('gardener.projct');
    expect(error.message).toContain('did you mean "project"');
    expect(error.message).toContain('line 6');
  });

  it('names a value of the wrong type', () => {
    const error = problem(edit('dualStack: false', 'dualStack: "false"'));
    expect(error.field).toBe('features.dualStack');
    expect(error.detail).toContain('must be a boolean; got "false"');
  });

  it('says to quote a version YAML reads as a number', () => {
    const error = problem(edit('defaultVersion: "1.33.3"', 'defaultVersion: 1.33'));
    expect(error.field).toBe('kubernetes.defaultVersion');
    expect(error.detail).toContain('put it in quotes');
  });

  it('refuses a version that is not major.minor.patch', () => {
    const error = problem(edit('defaultVersion: "1.33.3"', 'defaultVersion: "v1.33"'));
    expect(error.field).toBe('kubernetes.defaultVersion');
    expect(error.detail).toContain('must be a Kubernetes version like "1.33.3"; got "v1.33"');
  });

  it('refuses a duration Go cannot parse', () => {
    const error = problem(edit('maxTokenExpiration: 720h', 'maxTokenExpiration: 30 days'));
    expect(error.field).toBe('kubernetes.maxTokenExpiration');
    expect(error.detail).toContain('must be a duration like "720h"');
    expect(error.detail).toContain('got "30 days"');
  });

  it("refuses a duration beyond Go's int64 range", () => {
    const error = problem(edit('maxTokenExpiration: 720h', 'maxTokenExpiration: 9999999999999h'));
    expect(error.field).toBe('kubernetes.maxTokenExpiration');
    expect(error.detail).toContain('must be a Go duration');
  });

  it('requires the allow-list when the API-server ACL is on', () => {
    const error = problem(edit('apiServerAcl: false', 'apiServerAcl: true'));
    expect(error.field).toBe('apiServerAcl');
    expect(error.detail).toContain('features.apiServerAcl');
    const withList = `${edit('apiServerAcl: false', 'apiServerAcl: true')}apiServerAcl: {operatorCIDRs: [192.0.2.0/24], kcpIP: 203.0.113.7/32}\n`;
    expect(parseLandscape(withList, SOURCE).apiServerAcl?.kcpIP).toBe('203.0.113.7/32');
  });

  it('names the path of a bad map entry', () => {
    const error = problem(edit('serviceURL: https://auditlog.example.com:3001', 'serviceURL: auditlog.example.com'));
    expect(error.field).toBe('auditLog.tenants.aws.eu-central-1.serviceURL');
    expect(error.detail).toContain('must be an https URL');
  });

  it('names a provider type that is a KEB plan name', () => {
    const error = problem(edit('    aws:\n', '    sap-converged-cloud:\n'));
    expect(error.field).toBe('auditLog.tenants.sap-converged-cloud');
    expect(error.detail).toContain('openstack');
  });

  it('names a bad CIDR with its index', () => {
    const text = `${edit('apiServerAcl: false', 'apiServerAcl: true')}apiServerAcl: {operatorCIDRs: [192.0.2.0/33], kcpIP: 203.0.113.7}\n`;
    const error = problem(text);
    expect(error.detail).toContain('apiServerAcl.operatorCIDRs[0]: must be a CIDR');
    expect(error.detail).toContain('apiServerAcl.kcpIP: must be a CIDR');
  });

  it('requires the name to match the folder', () => {
    const error = problem(MINIMAL, 'dev');
    expect(error.field).toBe('name');
    expect(error.detail).toContain('"dev"');
  });

  it('lists every problem, one a line, with its line number', () => {
    const text = edit('dualStack: false', 'dualStack: 3')
      .replace('maxTokenExpiration: 720h', 'maxTokenExpiration: soon')
      .replace('kind: Landscape\n', '');
    const error = problem(text);
    expect(error.detail.split('\n')).toEqual([
      '3 problems:',
      '  - kind: is required; add it',
      '  - features.dualStack: must be a boolean; got number 3 (line 5)',
      '  - kubernetes.maxTokenExpiration: must be a duration like "720h", "15m" or "1h30m"; got "soon" (line 9)',
    ]);
  });

  it('refuses a duplicate key and names it', () => {
    const error = problem(
      edit(
        '  policyConfigMapName: audit-policy\n',
        '  policyConfigMapName: audit-policy\n  policyConfigMapName: other\n',
      ),
    );
    expect(error.field).toBe('auditLog.policyConfigMapName');
    expect(error.detail).toContain('given twice');
  });

  it('refuses a YAML bomb before expanding it', () => {
    const lol = (n: number) =>
      `l${n}: &l${n} [${Array.from({ length: 9 }, () => (n === 0 ? '"lol"' : `*l${n - 1}`)).join(', ')}]`;
    const bomb = `${MINIMAL}x:\n${Array.from({ length: 9 }, (_, n) => `  ${lol(n)}`).join('\n')}\n`;
    const error = problem(bomb);
    expect(error.detail).toContain('aliases');
  });

  it('refuses keys YAML 1.1 turns into booleans', () => {
    const error = problem(edit('  project: kyma-test', '  project: kyma-test\n  yes: 1'));
    expect(error.field).toBe('gardener.yes');
    expect(error.detail).toContain('put the key in quotes');
  });

  it('reads an unquoted date as the string Kubernetes reads, and checks it like any value', () => {
    const error = problem(edit('  defaultVersion: "1.33.3"', '  defaultVersion: 2025-01-01'));
    expect(error.field).toBe('kubernetes.defaultVersion');
    expect(error.detail).toContain('"2025-01-01"');
  });

  it.each([
    ['an empty file', '', 'empty document'],
    ['a list', '- a\n- b\n', 'must be a YAML mapping'],
    ['broken YAML', 'a: [1, 2\n', 'not valid YAML'],
    ['a YAML type Kubernetes does not read', 'name: !!binary aGVsbG8=\n', 'Unresolved tag: tag:yaml.org,2002:binary'],
    ['two documents', `${MINIMAL}---\n${MINIMAL}`, 'more than one YAML document'],
  ])('refuses %s', (_what, text, message) => {
    expect(problem(text).message).toContain(message);
  });

  it('never crashes with anything but a ConfigError', () => {
    const lines = MINIMAL.split('\n');
    const mangled = fc.oneof(
      fc.string(),
      // Valid files with lines dropped or duplicated: structurally plausible, semantically broken.
      fc
        .array(fc.nat(lines.length - 1), { maxLength: 6 })
        .map((cut) => lines.filter((_, i) => !cut.includes(i)).join('\n')),
      fc
        .array(fc.nat(lines.length - 1), { maxLength: 3 })
        .map((dup) => lines.flatMap((l, i) => (dup.includes(i) ? [l, l] : [l])).join('\n')),
    );
    fc.assert(
      fc.property(mangled, (text) => {
        try {
          parseLandscape(text, SOURCE);
        } catch (error) {
          return error instanceof ConfigError;
        }
        return true;
      }),
      { numRuns: 300 },
    );
  });
});
