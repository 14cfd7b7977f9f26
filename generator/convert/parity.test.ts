// KIM parity: every case of test/fixtures/parity (transcribed from KIM's Go tests) through our
// converter — create cases in create mode, patch cases in update mode, unit cases through the
// named helper. A case we deliberately do not follow must be listed in DEVIATIONS with its ADR,
// and is then asserted to differ, so the list cannot go stale.
import { describe, expect, it } from 'vitest';
import { decodeKimConfig, lookupAuditLogTenant } from '../../model/kim-config.js';
import type { ConverterConfig } from '../../model/converter-config.js';
import { FieldError } from '../../model/errors.js';
import type { JsonObject, Shoot } from '../../model/shoot.js';
import { checkMatcher } from '../../test/helpers/json-pointer.js';
import { contextOf, loadCases, type ParityCase } from '../../test/helpers/parity-cases.js';
import { convertWithContext } from './convert-runtime.js';
import { ensureNetRawDefault } from './extenders/gvisor.js';
import { aws, awsZones } from './providers/aws.js';
import { azure } from './providers/azure.js';
import { gdch, gdchZones, subnetShiftForZoneCount } from './providers/gdch.js';
import { applyTotalMaxPodsCap, maxPodsFromCidr } from './support/max-pods.js';
import { compareVersions } from '../../model/semver.js';

/** Cases where kimops differs from KIM on purpose: id → the ADR that says why. */
const DEVIATIONS: Record<string, string> = {};

const noMaxPods = (v: unknown) => (typeof v === 'number' ? v : undefined);

/** Unit cases: KIM helpers that a Runtime cannot reach, called directly. */
function runUnit(given: Record<string, unknown>): unknown {
  const fn = String(given.function);
  const zones = (given.zoneNames ?? []) as string[];
  const nodesCidr = given.nodesCidr as string;
  if (fn.startsWith('compareVersions')) return compareVersions(String(given.version1), String(given.version2));
  if (fn.startsWith('maxpods.maxPodsFromCIDR')) return maxPodsFromCidr(String(given.podsCidr));
  if (fn.startsWith('maxpods.applyTotalCap')) {
    return applyTotalMaxPodsCap((given.workersMaxPods as unknown[]).map(noMaxPods), Number(given.totalIPs)).map(
      (v) => v ?? null,
    );
  }
  if (fn.startsWith('gdch.generateZones')) return gdchZones(nodesCidr, zones);
  if (fn.startsWith('gdch.subnetShiftForZoneCount')) return subnetShiftForZoneCount(Number(given.zoneCount));
  if (fn.startsWith('auditlog tenant map lookup')) {
    return lookupAuditLogTenant(given.tenantConfig as never, String(given.providerType), String(given.region));
  }
  if (fn.startsWith('config load'))
    return decodeKimConfig(String(given.configJson), 'converter_config.json', { requireAll: false }).config;
  if (fn.startsWith('gvisor.ensureNetRawDefault')) return ensureNetRawDefault(given.providerConfigRaw as string);
  if (fn.startsWith('aws.generateZones')) return awsZones(nodesCidr, zones);
  const input = { nodesCidr, zones, dualStack: false, config: {} as ConverterConfig };
  if (fn.startsWith('aws.infrastructureConfigForPatch')) {
    return aws.mergeInfrastructureConfig?.(
      aws.infrastructureConfig(input),
      given.existingInfrastructureConfig as JsonObject,
    );
  }
  if (fn.startsWith('azure.infrastructureConfigForPatch')) {
    return azure.mergeInfrastructureConfig?.(
      azure.infrastructureConfig(input),
      given.existingInfrastructureConfig as JsonObject,
    );
  }
  if (fn.startsWith('azure.infrastructureConfig')) return azure.infrastructureConfig(input);
  if (fn.startsWith('gdch.infrastructureConfig')) {
    return gdch.infrastructureConfig({ ...input, config: { provider: { gdch: given.gdchConfig as never } } });
  }
  if (fn.startsWith('gdch.controlPlaneConfig')) return gdch.controlPlaneConfig(input);
  throw new Error(`no unit binding for ${fn}`);
}

/** Runs a case; returns the list of mismatches (empty = the case holds). */
function evaluate(c: ParityCase): string[] {
  let result: unknown;
  try {
    result =
      c.kind === 'unit'
        ? runUnit(c.given)
        : convertWithContext(
            c.given.runtime,
            contextOf(c.given),
            c.kind === 'patch' ? (c.given.existingShoot as Shoot) : undefined,
          ).shoot;
  } catch (error) {
    const expected = c.expect.find((m): m is { error: string } => 'error' in m);
    const message = (error as Error).message;
    if (!expected) return [`unexpected error: ${message}`];
    // A conversion must fail with a field-naming error, never a crash that happens to match "".
    if (c.kind !== 'unit' && !(error instanceof FieldError)) return [`expected a FieldError, got ${String(error)}`];
    return message.includes(expected.error) ? [] : [`error "${message}" does not contain "${expected.error}"`];
  }
  return c.expect.map((m) => checkMatcher(result, m)).filter((m): m is string => m !== undefined);
}

describe('KIM parity fixtures', () => {
  const topics = loadCases();

  it('covers all 350 transcribed cases', () => {
    expect(topics.reduce((n, t) => n + t.cases.length, 0)).toBe(350);
  });

  for (const { topic, cases } of topics) {
    describe(topic, () => {
      for (const c of cases) {
        const deviation = DEVIATIONS[c.id];
        it(`${c.id} (${c.source})`, () => {
          const mismatches = evaluate(c);
          if (deviation) expect(mismatches, `listed as deviation (${deviation}) but matches KIM`).not.toEqual([]);
          else expect(mismatches).toEqual([]);
        });
      }
    });
  }
});
