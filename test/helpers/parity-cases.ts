// KIM's parity fixtures (test/fixtures/parity, transcribed from KIM's Go tests) and the converter
// context each case describes: shared by the parity test and the tests that hold other code to the
// same cases.
import { readdirSync, readFileSync } from 'node:fs';
import { aclFromConfigMap } from '../../model/kim-config.js';
import type { AuditLogTenant, ConverterConfig } from '../../model/converter-config.js';
import type { ConverterContext } from '../../generator/convert/context.js';
import type { Matcher } from './json-pointer.js';

export interface ParityCase {
  id: string;
  source: string;
  kind: 'create' | 'patch' | 'unit';
  given: Record<string, unknown>;
  expect: Matcher[];
}

const FIXTURES = new URL('../fixtures/parity/', import.meta.url);

export function loadCases(): { topic: string; cases: ParityCase[] }[] {
  return readdirSync(FIXTURES)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => JSON.parse(readFileSync(new URL(f, FIXTURES), 'utf8')) as { topic: string; cases: ParityCase[] });
}

export function contextOf(given: Record<string, unknown>): ConverterContext {
  const config = ((given.config as { converter?: ConverterConfig } | undefined)?.converter ?? {}) as ConverterConfig;
  const flags = given.flags as ConverterContext['flags'];
  const audit = given.auditLogData as AuditLogTenant | undefined;
  const aclName = config.kubernetes?.kubeApiServer?.acl?.configMapName;
  const aclMap = ((given.kcpConfigMaps ?? []) as { metadata: { name: string } }[]).find(
    (cm) => cm.metadata.name === aclName,
  );
  return {
    config,
    flags,
    // KIM compares the audit data with its zero value: all-empty means none.
    auditLog: audit && (audit.tenantID || audit.serviceURL || audit.secretName) ? audit : undefined,
    maintenanceWindow: given.maintenanceTimeWindow as ConverterContext['maintenanceWindow'],
    acl: aclMap ? aclFromConfigMap(aclMap, `ConfigMap kcp-system/${aclName}`) : undefined,
    registryCacheSecrets: given.registryCacheGardenSecretNames as Record<string, string> | undefined,
  };
}
