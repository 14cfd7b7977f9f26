// Migration path from KIM: reads what KIM runs with — converter_config.json, its command-line
// flags, the mounted audit-tenant and maintenance-window files, the ACL ConfigMap — into kimops's
// shapes, decoding them the way KIM does, so a landscape can be built from KIM's configuration or
// checked against it. Pure: callers read the files.
import type {
  AclAllowList,
  AuditLogTenant,
  AuditLogTenantMap,
  ConversionFlags,
  KimConfigFile,
  MaintenanceWindowMap,
} from './converter-config.js';
import { DEFAULT_CONVERSION_FLAGS } from './converter-config.js';
import { ConfigError } from './errors.js';
import type { ConversionSettings } from './landscape.js';
import { isCidr, PATTERNS } from './landscape-schema.js';
import { parseGoDuration } from './go-time.js';
import { isJsonObject } from './json.js';

// ---------------------------------------------------------------------------------------------
// Go encoding/json, for the types KIM's files use. Go matches object keys to struct fields
// case-insensitively (KIM's real dev config says "ClientID"), ignores unknown keys, treats null as
// "leave unset", and fails on a JSON type that does not fit the field.

type GoType = 'string' | 'bool' | { struct: Record<string, GoType> } | { map: GoType } | { slice: GoType };

const S = 'string';
const B = 'bool';
const struct = (fields: Record<string, GoType>): GoType => ({ struct: fields });

const OIDC = struct({
  clientID: S,
  groupsClaim: S,
  groupsPrefix: S,
  issuerURL: S,
  signingAlgs: { slice: S },
  usernameClaim: S,
  usernamePrefix: S,
});

/** KIM pkg/config Config, key for key (converter-config.ts mirrors it as KimConfigFile). */
const KIM_CONFIG = struct({
  cluster: struct({ defaultSharedIASTenant: OIDC }),
  converter: struct({
    kubernetes: struct({
      defaultVersion: S,
      enableKubernetesVersionAutoUpdate: B,
      enableMachineImageVersionAutoUpdate: B,
      defaultOperatorOidc: OIDC,
      kubeApiServer: struct({
        acl: struct({ configMapName: S }),
        maxTokenExpiration: S,
        runtimeConfig: { map: B },
        featureGates: { map: B },
      }),
      kubelet: struct({ featureGates: { map: B } }),
    }),
    dns: struct({ secretName: S, domainPrefix: S, providerType: S }),
    provider: struct({
      aws: struct({ enableIMDSv2: B }),
      gdch: struct({
        cloudProfileName: S,
        parentReferenceName: S,
        parentReferenceNamespace: S,
        parentReferenceType: S,
      }),
      // KIM keeps the retry count a string and parses it when converting.
      worker: struct({ defaultMaxEvictRetries: S, defaultMachineDrainTimeout: S }),
    }),
    machineImage: struct({ defaultName: S, defaultVersion: S }),
    gardener: struct({ projectName: S, enableCredentialBinding: B }),
    auditLogging: struct({ policyConfigMapName: S, tenantConfigPath: S }),
    maintenanceWindow: struct({ windowMapPath: S }),
    // gardener core/v1beta1 Toleration.
    tolerations: { map: { slice: struct({ key: S, value: S }) } },
    networking: struct({ enableDualStackIP: B }),
  }),
});

const TENANT_MAP: GoType = { map: { map: struct({ tenantID: S, serviceURL: S, secretName: S }) } };
const WINDOW_MAP: GoType = { map: struct({ begin: S, end: S }) };

interface Decoding {
  warnings: string[];
  errors: { field: string; detail: string }[];
}

/** Go's case folding for ASCII field names, including the two non-ASCII letters that fold to k and s. */
const fold = (key: string) => key.toUpperCase().toLowerCase();

function fieldOf(fields: Record<string, GoType>, key: string): string | undefined {
  if (key in fields) return key;
  return Object.keys(fields).find((name) => fold(name) === fold(key));
}

/** Decodes `value` as Go would into `type`; `into` is the value already there (Go merges repeated keys). */
function decode(value: unknown, type: GoType, path: string, run: Decoding, into?: unknown): unknown {
  if (value === null) return into; // Go: null leaves a field as it is (nil for maps and slices)
  if (type === S || type === B) {
    if (typeof value === (type === S ? 'string' : 'boolean')) return value;
    return mismatch(run, path, type === S ? 'a JSON string' : 'a JSON boolean (true or false)', value);
  }
  if ('slice' in type) {
    if (!Array.isArray(value)) return mismatch(run, path, 'a JSON array', value);
    return value.map((item, i) => decode(item, type.slice, `${path}[${i}]`, run) ?? zeroOf(type.slice));
  }
  if (!isJsonObject(value)) return mismatch(run, path, 'a JSON object', value);
  const out: Record<string, unknown> = isJsonObject(into) ? into : {};
  for (const [key, item] of Object.entries(value)) {
    const at = path ? `${path}.${key}` : key;
    if ('map' in type) {
      // defineProperty: a map key such as "__proto__" must stay a key, not replace the prototype.
      const decoded = decode(item, type.map, at, run, out[key]) ?? zeroOf(type.map);
      Object.defineProperty(out, key, { value: decoded, enumerable: true, writable: true, configurable: true });
      continue;
    }
    const name = fieldOf(type.struct, key);
    const fieldType = name === undefined ? undefined : type.struct[name];
    if (name === undefined || fieldType === undefined) {
      run.warnings.push(`${at}: unknown key, ignored (KIM ignores it too); check the spelling`);
      continue;
    }
    const decoded = decode(item, fieldType, at, run, out[name]);
    if (decoded !== undefined) out[name] = decoded;
  }
  return out;
}

function mismatch(run: Decoding, field: string, expected: string, got: unknown): undefined {
  run.errors.push({
    field,
    detail: `must be ${expected}; got ${jsonKind(got)} (KIM fails to start: json: cannot unmarshal ${jsonKind(got)})`,
  });
  return undefined;
}

function zeroOf(type: GoType): unknown {
  if (type === S) return '';
  if (type === B) return false;
  return 'slice' in type ? [] : {};
}

function jsonKind(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (value === null) return 'null';
  if (typeof value === 'boolean') return 'bool';
  return typeof value === 'object' ? 'object' : `${typeof value} ${JSON.stringify(value)}`;
}

function decodeJson(
  jsonText: string,
  type: GoType,
  source: string,
): { value: Record<string, unknown>; warnings: string[] } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(jsonText);
  } catch (error) {
    throw new ConfigError(source, '', `is not valid JSON: ${(error as Error).message}`);
  }
  const run: Decoding = { warnings: [], errors: [] };
  const value = decode(parsed, type, '', run);
  throwIfAny(source, run.errors);
  return { value: isJsonObject(value) ? value : {}, warnings: run.warnings };
}

/** One ConfigError for all problems: a single one names its field, several are listed one a line. */
function throwIfAny(source: string, problems: { field: string; detail: string }[]): void {
  const [first] = problems;
  if (!first) return;
  if (problems.length === 1) throw new ConfigError(source, first.field || '(top level)', first.detail);
  const list = problems.map((p) => `  - ${p.field || '(top level)'}: ${p.detail}`).join('\n');
  throw new ConfigError(source, '', `${problems.length} problems:\n${list}`);
}

// ---------------------------------------------------------------------------------------------
// converter_config.json

/** Fields KIM marks validate:"required"; KIM refuses to start when one is empty. */
const REQUIRED_PATHS = [
  'converter.kubernetes.defaultVersion',
  'converter.kubernetes.defaultOperatorOidc',
  'converter.machineImage.defaultName',
  'converter.machineImage.defaultVersion',
  'converter.gardener.projectName',
  'converter.auditLogging.policyConfigMapName',
  'converter.auditLogging.tenantConfigPath',
];

export interface DecodeKimConfigOptions {
  /**
   * true (default): a missing required field is a ConfigError, as KIM's startup validation.
   * false: accept partial configs (test fixtures); a missing field is Go's zero value to the converter.
   */
  requireAll?: boolean;
  /**
   * The Garden project from outside the config (`kimops landscape from-kim --project`, KIM's own
   * -gardener-project-name): fills converter.gardener.projectName when the config names none, and must
   * equal it when it does (KIM's converter writes every Shoot into garden-<projectName>).
   */
  project?: string;
}

/**
 * Decodes KIM's converter_config.json like Go's encoding/json: keys matched case-insensitively and
 * written back in their canonical spelling; unknown keys dropped and reported in `warnings`; keys
 * absent in the input stay absent. Unlike Go, trailing text after the JSON value is an error.
 */
export function decodeKimConfig(
  jsonText: string,
  source: string,
  { requireAll = true, project }: DecodeKimConfigOptions = {},
): { config: KimConfigFile; warnings: string[] } {
  const { value, warnings } = decodeJson(jsonText, KIM_CONFIG, source);
  if (project !== undefined) withProject(value, project, source);
  if (requireAll) {
    const missing = REQUIRED_PATHS.filter((path) => isZero(at(value, path)));
    throwIfAny(
      source,
      missing.map((field) => ({
        field,
        detail: 'is required (KIM validates it and refuses to start without it); add it',
      })),
    );
  }
  return { config: value as unknown as KimConfigFile, warnings };
}

function withProject(config: Record<string, unknown>, project: string, source: string): void {
  const converter = isJsonObject(config['converter']) ? config['converter'] : (config['converter'] = {});
  const gardener = isJsonObject(converter['gardener']) ? converter['gardener'] : (converter['gardener'] = {});
  const named = gardener['projectName'];
  if (typeof named === 'string' && named !== '' && named !== project) {
    throw new ConfigError(
      source,
      'converter.gardener.projectName',
      `is ${JSON.stringify(named)}, but --project says ${JSON.stringify(project)}; KIM's converter writes every Shoot into garden-${named}: pass --project ${named}, or leave --project out`,
    );
  }
  gardener['projectName'] = project;
}

function at(value: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((node, key) => (isJsonObject(node) ? node[key] : undefined), value);
}

/** Go's zero value check, as validator's `required` with WithRequiredStructEnabled sees it. */
function isZero(value: unknown): boolean {
  if (value === undefined || value === '' || value === false) return true;
  return isJsonObject(value) && Object.values(value).every(isZero);
}

// ---------------------------------------------------------------------------------------------
// Mounted files and the ACL ConfigMap

/** KIM's audit-log tenant file: `{<providerType>: {<region>: {tenantID, serviceURL, secretName}}}`. */
export function parseTenantMap(jsonText: string, source: string, warnings: string[] = []): AuditLogTenantMap {
  const decoded = decodeJson(jsonText, TENANT_MAP, source);
  warnings.push(...decoded.warnings);
  const map = decoded.value as unknown as AuditLogTenantMap;
  // KIM validates every entry at startup (validate:"required") and refuses to start otherwise.
  const problems = Object.entries(map).flatMap(([provider, regions]) =>
    Object.entries(regions).flatMap(([region, tenant]) =>
      (['tenantID', 'serviceURL', 'secretName'] as const)
        .filter((key) => !tenant[key])
        .map((key) => ({
          field: `${provider}.${region}.${key}`,
          detail: 'is required (KIM refuses to start without it); add it',
        })),
    ),
  );
  throwIfAny(source, problems);
  return map;
}

/**
 * KIM's maintenance-window file: `{<region>: {begin, end}}`. Stricter than KIM, which passes a
 * malformed time on to Gardener and only then fails the Shoot: here the file is refused.
 */
export function parseMaintenanceWindowMap(
  jsonText: string,
  source: string,
  warnings: string[] = [],
): MaintenanceWindowMap {
  const decoded = decodeJson(jsonText, WINDOW_MAP, source);
  warnings.push(...decoded.warnings);
  const map = decoded.value as unknown as MaintenanceWindowMap;
  const time = new RegExp(PATTERNS.maintenanceTime);
  const problems = Object.entries(map).flatMap(([region, window]) =>
    (['begin', 'end'] as const)
      .filter((key) => !time.test(window[key] ?? ''))
      .map((key) => ({
        field: `${region}.${key}`,
        detail: `must be a time like "220000+0000" (HHMMSS and UTC offset); got ${JSON.stringify(window[key] ?? '')}`,
      })),
  );
  throwIfAny(source, problems);
  return map;
}

const ACL_LIST_KEY = 'acl-list.json';
const KCP_IP_KEY = 'kcp-external-nat-ip.json';

/** The ACL ConfigMap in kcp-system: `acl-list.json` is a JSON array of CIDRs, `kcp-external-nat-ip.json` a JSON string. */
export function aclFromConfigMap(cm: unknown, source: string): AclAllowList {
  const data = isJsonObject(cm) && isJsonObject(cm['data']) ? cm['data'] : undefined;
  if (!data)
    throw new ConfigError(source, 'data', `must be a ConfigMap with data["${ACL_LIST_KEY}"] and data["${KCP_IP_KEY}"]`);
  const field = (key: string) => `data["${key}"]`;
  const read = (key: string, expected: string): unknown => {
    const text = data[key];
    if (typeof text !== 'string') throw new ConfigError(source, field(key), `is missing; add ${expected}`);
    try {
      return JSON.parse(text);
    } catch {
      throw new ConfigError(source, field(key), `must be ${expected}; got ${JSON.stringify(text)}`);
    }
  };

  const listExpected = 'a JSON array of CIDRs like ["192.0.2.0/24"]';
  const operatorCIDRs = read(ACL_LIST_KEY, listExpected);
  if (!Array.isArray(operatorCIDRs)) throw new ConfigError(source, field(ACL_LIST_KEY), `must be ${listExpected}`);
  const bad = operatorCIDRs.filter((cidr) => typeof cidr !== 'string' || !isCidr(cidr));
  if (bad.length > 0) {
    throw new ConfigError(
      source,
      field(ACL_LIST_KEY),
      `must hold CIDRs like "192.0.2.0/24"; not CIDRs: ${bad.map((b) => JSON.stringify(b)).join(', ')}`,
    );
  }
  const ipExpected = 'a JSON string with a CIDR like "\\"203.0.113.7/32\\""';
  const kcpIP = read(KCP_IP_KEY, ipExpected);
  if (typeof kcpIP !== 'string' || !isCidr(kcpIP))
    throw new ConfigError(source, field(KCP_IP_KEY), `must be ${ipExpected}; got ${JSON.stringify(data[KCP_IP_KEY])}`);
  return { operatorCIDRs: operatorCIDRs as string[], kcpIP };
}

/** KIM's ErrConfigurationNotFound, with KIM's exact messages (the FSM reports them verbatim). */
export class AuditLogConfigNotFoundError extends Error {
  override readonly name = 'AuditLogConfigNotFoundError';
}

const NOT_FOUND = 'audit logs configuration not found';

/** KIM's AuditlogsConfiguration.GetAuditLogData. */
export function lookupAuditLogTenant(map: AuditLogTenantMap, providerType: string, region: string): AuditLogTenant {
  const regions = Object.hasOwn(map, providerType) ? map[providerType] : undefined;
  if (!regions) throw new AuditLogConfigNotFoundError(`${NOT_FOUND}: missing providerType: '${providerType}'`);
  const tenant = Object.hasOwn(regions, region) ? regions[region] : undefined;
  if (!tenant)
    throw new AuditLogConfigNotFoundError(
      `${NOT_FOUND}: missing region: '${region}' for providerType: '${providerType}'`,
    );
  return tenant;
}

// ---------------------------------------------------------------------------------------------
// Command-line flags

const FLAG_SOURCE = '--kim-flag';

/** KIM flags that change the Shoot, and the ConversionFlags field each sets. */
const CONVERSION_FLAGS: Record<string, keyof ConversionFlags> = {
  'network-restriction-enabled': 'networkRestrictionEnabled',
  'api-server-acl-enabled': 'apiServerAclEnabled',
  'audit-log-mandatory': 'auditLogMandatory',
  'dedicated-audit-logging-enabled': 'dedicatedAuditLogging',
};

const OPERATIONAL = 'controller operation only; it does not change the Shoot';
const BOOTSTRAPPER =
  'kimops does not emulate it; with a KCP cluster trust bundle KIM adds the ClusterTrustBundle gates: ' +
  'put them in the landscape (kubernetes.kubeApiServer.featureGates/runtimeConfig, kubernetes.kubelet.featureGates)';

/** KIM's other flags (cmd/main.go): accepted so a KIM command line can be pasted, then ignored with a warning. */
const IGNORED_FLAGS: Record<string, string> = {
  'registry-cache-config-controller-enabled': 'the converter reads registry caches from the Runtime either way',
  'gardener-project-name':
    'kimops takes the project from the config (gardener.projectName), which KIM requires to be equal',
  'converter-config-filepath': 'pass the config file to kimops instead',
  'runtime-bootstrapper-enabled': BOOTSTRAPPER,
  'runtime-bootstrapper-kcp-cluster-trust-bundle': BOOTSTRAPPER,
  ...Object.fromEntries(
    [
      'metrics-bind-address',
      'health-probe-bind-address',
      'leader-elect',
      'gardener-kubeconfig-path',
      'minimal-rotation-time',
      'kubeconfig-expiration-time',
      'gardener-ctrl-reconcilation-timeout',
      'gardener-cluster-ctrl-workers-cnt',
      'gardener-request-timeout',
      'gardener-ratelimiter-qps',
      'gardener-ratelimiter-burst',
      'runtime-ctrl-workers-cnt',
      'status-requeue-delay',
      'runtime-bootstrapper-manifests-config-map-name',
      'runtime-bootstrapper-kcp-config-name',
      'runtime-bootstrapper-kcp-pull-secret-name',
      'runtime-bootstrapper-skr-config-name',
      'runtime-bootstrapper-skr-pull-secret-name',
      'runtime-bootstrapper-skr-cluster-trust-bundle',
      'runtime-bootstrapper-skr-namespace',
      'runtime-bootstrapper-skr-deployment-name',
      'zap-devel',
      'zap-encoder',
      'zap-log-level',
      'zap-stacktrace-level',
      'zap-time-encoding',
    ].map((name) => [name, OPERATIONAL]),
  ),
};

/** Go strconv.ParseBool. */
const GO_BOOLS: Record<string, boolean> = {
  ...Object.fromEntries(['1', 't', 'T', 'TRUE', 'true', 'True'].map((text) => [text, true])),
  ...Object.fromEntries(['0', 'f', 'F', 'FALSE', 'false', 'False'].map((text) => [text, false])),
};

/**
 * KIM flags given as `name=value` (a bare `name` means true, like Go's bool flags); a later value
 * wins. Flags that do not change the Shoot are ignored, each with a line in `warnings`.
 */
export function parseKimFlags(pairs: string[], warnings: string[] = []): ConversionFlags {
  const flags = { ...DEFAULT_CONVERSION_FLAGS };
  for (const pair of pairs) {
    const [rawName = '', value] = splitOnce(pair, '=');
    const name = rawName.replace(/^--?/, '');
    const field = CONVERSION_FLAGS[name];
    if (field) {
      const parsed = GO_BOOLS[value ?? 'true'];
      if (parsed === undefined) {
        throw new ConfigError(
          FLAG_SOURCE,
          name,
          `must be a Go boolean (true, false, 1, 0, t, f, TRUE, FALSE, True, False); got ${JSON.stringify(value)}`,
        );
      }
      flags[field] = parsed;
    } else if (IGNORED_FLAGS[name] !== undefined) {
      warnings.push(`${FLAG_SOURCE} ${name}: ignored; ${IGNORED_FLAGS[name]}`);
    } else {
      throw new ConfigError(
        FLAG_SOURCE,
        name,
        `is not a KIM flag that changes the Shoot; valid: ${Object.keys(CONVERSION_FLAGS).join(', ')} ` +
          `(KIM's other flags, such as gardener-project-name, are accepted and ignored)`,
      );
    }
  }
  return flags;
}

function splitOnce(text: string, separator: string): [string, string | undefined] {
  const i = text.indexOf(separator);
  return i < 0 ? [text, undefined] : [text.slice(0, i), text.slice(i + 1)];
}

// ---------------------------------------------------------------------------------------------

const KIM_SOURCE = 'KIM converter config';

/** The config keys naming what KIM reads besides the config: its two mounted files and the ACL ConfigMap. */
export const TENANT_PATH_KEY = 'converter.auditLogging.tenantConfigPath';
export const WINDOW_PATH_KEY = 'converter.maintenanceWindow.windowMapPath';
export const ACL_NAME_KEY = 'converter.kubernetes.kubeApiServer.acl.configMapName';

/** Everything KIM runs with, read (adapters/files/kim-settings.ts) but not yet combined. */
export interface KimConfiguration {
  file: KimConfigFile;
  flags: ConversionFlags;
  tenants: AuditLogTenantMap;
  windows: MaintenanceWindowMap;
  acl?: AclAllowList;
  origin: KimOrigin;
  /** What KIM tolerates and kimops noted while reading: unknown keys, ignored flags and ConfigMaps. */
  warnings: string[];
}

/** Where each part of a KimConfiguration was read: for messages and the header of a landscape made from it. */
interface KimOrigin {
  /** converter_config.json, as given. */
  config: string;
  /** The KIM flags as given (`name=value`). */
  flags: readonly string[];
  /** The path the config names (KIM's mount) and the local file read for it. */
  tenantFile: { path: string; local: string };
  windowFile?: { path: string; local: string };
  /** The ACL ConfigMap the config names, and the document it was read from. */
  aclConfigMap?: { name: string; source: string };
}

/**
 * KIM's files and flags as the converter's settings, after KIM's startup checks (an ACL ConfigMap
 * name when the ACL is on, a parseable token lifetime). Like KIM, the window map only counts when
 * the config names one (maintenanceWindow.windowMapPath).
 */
export function settingsFromKim(
  file: KimConfigFile,
  flags: ConversionFlags,
  tenants: AuditLogTenantMap,
  windows: MaintenanceWindowMap,
  acl?: AclAllowList,
): ConversionSettings {
  const { converter } = file;
  const kubeApiServer = converter.kubernetes?.kubeApiServer;
  if (flags.apiServerAclEnabled) {
    const name = kubeApiServer?.acl?.configMapName;
    if (!name) {
      throw new ConfigError(
        KIM_SOURCE,
        'converter.kubernetes.kubeApiServer.acl.configMapName',
        'must be set when api-server-acl-enabled is on (KIM refuses to start without it); set it or turn the flag off',
      );
    }
    if (!acl)
      throw new ConfigError(KIM_SOURCE, 'acl', `the API-server ACL is on: pass the ACL ConfigMap kcp-system/${name}`);
  }
  const token = kubeApiServer?.maxTokenExpiration;
  if (token && parseGoDuration(token) === undefined) {
    throw new ConfigError(
      KIM_SOURCE,
      'converter.kubernetes.kubeApiServer.maxTokenExpiration',
      `must be a Go duration like "720h"; got ${JSON.stringify(token)}`,
    );
  }
  // Checked once here rather than failing every Runtime's conversion with the same message.
  const worker = converter.provider?.worker;
  if (worker?.defaultMachineDrainTimeout && parseGoDuration(worker.defaultMachineDrainTimeout) === undefined) {
    throw new ConfigError(
      KIM_SOURCE,
      'converter.provider.worker.defaultMachineDrainTimeout',
      `must be a Go duration like "15m"; got ${JSON.stringify(worker.defaultMachineDrainTimeout)}`,
    );
  }
  if (worker?.defaultMaxEvictRetries && !/^[+-]?\d+$/.test(worker.defaultMaxEvictRetries)) {
    throw new ConfigError(
      KIM_SOURCE,
      'converter.provider.worker.defaultMaxEvictRetries',
      `must be a whole number like "2"; got ${JSON.stringify(worker.defaultMaxEvictRetries)}`,
    );
  }
  return {
    config: converter,
    flags,
    auditLogTenants: tenants,
    maintenanceWindows: converter.maintenanceWindow?.windowMapPath ? windows : {},
    ...(acl && { acl }),
    ...(file.cluster?.defaultSharedIASTenant && { skrDefaultOidc: file.cluster.defaultSharedIASTenant }),
  };
}
