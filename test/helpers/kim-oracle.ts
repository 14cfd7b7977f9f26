// KIM's own converter's answers for some 2,800 Runtimes (test/fixtures/kim-oracle/, format in its README) next to
// kimops's render of the same Runtimes under the same KIM configuration, and the differences between the two in
// the effective view: for a patch, what ends up on the Shoot. Test code; the comparison rules are the README's.
import { readFileSync, readdirSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { renderRuntimes } from '../../generator/render-runtimes.js';
import {
  aclFromConfigMap,
  decodeKimConfig,
  parseKimFlags,
  parseMaintenanceWindowMap,
  parseTenantMap,
  settingsFromKim,
} from '../../model/kim-config.js';
import type { ConversionSettings } from '../../model/landscape.js';
import type { Runtime } from '../../model/runtime.js';
import type { ConfigMap, Shoot } from '../../model/shoot.js';

const FIXTURES = new URL('../fixtures/kim-oracle/', import.meta.url);

export interface OracleCase {
  /** `<round>/<variant>/<runtime>`; round is create, patch or patch2. */
  id: string;
  mode: 'create' | 'patch';
  configVariant: string;
  createCase?: string;
  runtime: Runtime;
  existingShoot?: Shoot;
  registryCacheSecrets?: Record<string, string>;
  kim: {
    shoot?: Shoot;
    effectiveShoot?: Shoot;
    patch?: Shoot;
    companions?: ConfigMap[];
    error?: string;
    errorReason?: string;
  };
}

export interface Difference {
  /** A JSON path into the Shoot (`/spec/provider/workers[cpu-worker-0]/…`), or `refusal`, or `companion:<name>`. */
  path: string;
  ours: unknown;
  kim: unknown;
}

interface KimVariant {
  converterConfig: {
    converter?: { auditLogging?: { tenantConfigPath?: string }; maintenanceWindow?: { windowMapPath?: string } };
  };
  flags: Record<string, boolean>;
  files: Record<string, unknown>;
  aclConfigMap?: unknown;
}

function readGzipJson<T>(file: string): T {
  return JSON.parse(gunzipSync(readFileSync(new URL(file, FIXTURES))).toString('utf8')) as T;
}

/** Every case, and each KIM configuration variant as kimops's settings (the way `kimops render --kim-config` reads it). */
export function loadOracle(): { cases: OracleCase[]; settings: Map<string, ConversionSettings> } {
  const { variants } = readGzipJson<{ variants: Record<string, KimVariant> }>('configs.json.gz');
  const settings = new Map<string, ConversionSettings>();
  for (const [name, variant] of Object.entries(variants)) {
    const source = `kim-oracle ${name}`;
    const { config } = decodeKimConfig(JSON.stringify(variant.converterConfig), source, { requireAll: false });
    const flags = parseKimFlags(Object.entries(variant.flags).map(([flag, on]) => `${flag}=${String(on)}`));
    const tenantPath = variant.converterConfig.converter?.auditLogging?.tenantConfigPath;
    const windowPath = variant.converterConfig.converter?.maintenanceWindow?.windowMapPath;
    const file = (path: string | undefined) =>
      path && variant.files[path] ? JSON.stringify(variant.files[path]) : undefined;
    const tenants = file(tenantPath);
    const windows = file(windowPath);
    settings.set(
      name,
      settingsFromKim(
        config,
        flags,
        tenants ? parseTenantMap(tenants, source) : {},
        windows ? parseMaintenanceWindowMap(windows, source) : {},
        variant.aclConfigMap ? aclFromConfigMap(variant.aclConfigMap, source) : undefined,
      ),
    );
  }
  const cases = readdirSync(FIXTURES)
    .filter((file) => /^(create|patch)-\d+\.json\.gz$/.test(file))
    .sort()
    .flatMap((file) => readGzipJson<OracleCase[]>(file));
  return { cases, settings };
}

/** Where kimops's answer for the case differs from KIM's, by the README's rules. */
export function differencesOf(
  c: OracleCase,
  settings: ConversionSettings,
  byId: ReadonlyMap<string, OracleCase>,
): Difference[] {
  const live = c.existingShoot ? new Map([[c.existingShoot.metadata.name, c.existingShoot]]) : undefined;
  const result = renderRuntimes([{ source: c.id, runtime: c.runtime }], settings, live, c.registryCacheSecrets ?? {});
  const [rendered] = result.rendered;
  const refusal = result.failures[0]?.message ?? (result.bugs[0] && `crash: ${String(result.bugs[0].error)}`);
  if (c.kim.error !== undefined || !rendered) {
    // KIM and kimops both refuse: a difference only when KIM names the audit log and kimops something else.
    const kimText = c.kim.error !== undefined ? `${c.kim.errorReason ?? ''}: ${c.kim.error}` : undefined;
    const same =
      c.kim.error !== undefined && !rendered && (c.kim.errorReason === 'AuditLogErr') === /audit/i.test(refusal ?? '');
    return same ? [] : [{ path: 'refusal', ours: refusal ?? 'rendered', kim: kimText ?? 'converted' }];
  }
  const differences: Difference[] = [];
  const ours = withoutForm(rendered.manifests.at(-1)?.object as Shoot);
  const kim = withoutForm((c.kim.shoot ?? c.kim.effectiveShoot) as Shoot);
  const createdByKim = c.createCase ? byId.get(c.createCase)?.kim.shoot : undefined;
  // A field only the live Shoot has is someone else's (Gardener's defaults, metadata) unless KIM wrote it, at
  // create or in this patch: then KIM's Shoot keeps it, and a manifest without it would remove it.
  const someoneElses = (path: string) =>
    c.mode === 'patch' && at(c.kim.patch, path) === undefined && at(createdByKim, path) === undefined;
  compare(ours, kim, '', differences, someoneElses);
  for (const companion of c.kim.companions ?? []) {
    const name = companion.metadata.name;
    const mine = rendered.manifests.find(
      (m) => m.object.kind === 'ConfigMap' && m.object.metadata.name === name && !m.path.includes('/skr/'),
    )?.object as ConfigMap | undefined;
    // Byte for byte: KIM writes it create-or-update, so other bytes are a write on every take-over.
    if (JSON.stringify(mine?.data) !== JSON.stringify(companion.data))
      differences.push({ path: `companion:${name}`, ours: mine?.data, kim: companion.data });
  }
  return differences;
}

/** Without what is form only: the zero `status` KIM's Go types send, a null creationTimestamp. */
function withoutForm(shoot: Shoot): Shoot {
  const copy = structuredClone(shoot) as Shoot & { status?: unknown };
  delete copy.status;
  if (copy.metadata.creationTimestamp === null) delete copy.metadata.creationTimestamp;
  return copy;
}

const isMap = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** An item's key in a list of named (or typed) objects: lists are matched by it, their order checked apart. */
function keyOf(item: unknown): string | undefined {
  if (!isMap(item)) return undefined;
  const key = item.name ?? item.type;
  return typeof key === 'string' ? key : undefined;
}

function compare(
  ours: unknown,
  kim: unknown,
  path: string,
  out: Difference[],
  someoneElses: (path: string) => boolean,
): void {
  if (isMap(ours) && isMap(kim)) {
    for (const key of new Set([...Object.keys(ours), ...Object.keys(kim)])) {
      const child = `${path}/${key}`;
      if (!(key in ours) && someoneElses(child)) continue;
      compare(ours[key], kim[key], child, out, someoneElses);
    }
    return;
  }
  if (Array.isArray(ours) && Array.isArray(kim) && ours.length === kim.length) {
    const keys = ours.map(keyOf);
    if (keys.every((key) => key !== undefined) && new Set(keys).size === keys.length) {
      if (JSON.stringify(keys) !== JSON.stringify(kim.map(keyOf)))
        out.push({ path: `${path}#order`, ours: keys, kim: kim.map(keyOf) });
      for (const item of ours) {
        const key = keyOf(item) as string;
        compare(
          item,
          kim.find((other) => keyOf(other) === key),
          `${path}[${key}]`,
          out,
          someoneElses,
        );
      }
    } else ours.forEach((item, i) => compare(item, kim[i], `${path}[${i}]`, out, someoneElses));
    return;
  }
  if (JSON.stringify(ours) !== JSON.stringify(kim)) out.push({ path, ours, kim });
}

/** The value at a path `compare` wrote (`/a/b[name]/c`), or undefined. */
function at(root: unknown, path: string): unknown {
  let value = root;
  for (const part of path.split('/').slice(1)) {
    const match = /^(.*)\[(.*)\]$/.exec(part);
    const key = match ? (match[1] as string) : part;
    value = isMap(value) ? value[key] : undefined;
    if (match && Array.isArray(value)) {
      const wanted = match[2] as string;
      value =
        value.find((item) => keyOf(item) === wanted) ?? (/^\d+$/.test(wanted) ? value[Number(wanted)] : undefined);
    }
    if (value === undefined) return undefined;
  }
  return value;
}
