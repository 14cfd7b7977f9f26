// KIM's own inputs, read as KIM reads them, for migrating from KIM: its converter_config.json, the
// audit-tenant and maintenance-window files named inside it, its flags, and the KCP ConfigMaps it reads.
import { dirname, resolve } from 'node:path';
import type { AclAllowList } from '../../model/converter-config.js';
import { parseAssignments } from '../../model/assignments.js';
import { ConfigError } from '../../model/errors.js';
import {
  ACL_NAME_KEY,
  aclFromConfigMap,
  decodeKimConfig,
  type KimConfiguration,
  parseKimFlags,
  parseMaintenanceWindowMap,
  parseTenantMap,
  settingsFromKim,
  TENANT_PATH_KEY,
  WINDOW_PATH_KEY,
} from '../../model/kim-config.js';
import type { ConversionSettings } from '../../model/landscape.js';
import { readManifests } from './manifests.js';
import { readTextFile } from './read-text.js';

export interface KimInputs {
  /** Path of KIM's converter_config.json. */
  kimConfig: string;
  /** KIM flags as `name=value`. */
  kimFlags: readonly string[];
  /** Files holding the KCP ConfigMaps KIM reads (the API-server ACL list). */
  kimConfigMaps: readonly string[];
  /** `<path named in the config>=<local file>`: where a file KIM reads from its pod's mounts is here. */
  kimFiles?: readonly string[];
  /** The Garden project when the config names none; must equal the config's when it does. */
  project?: string;
}

const CONFIG_MAP_KIND = { apiVersion: 'v1', kind: 'ConfigMap' };

/** Throws ConfigError for anything KIM would refuse to start with; `warnings` are KIM-tolerated oddities. */
export async function readKimSettings(
  inputs: KimInputs,
): Promise<{ settings: ConversionSettings; warnings: string[] }> {
  const kim = await readKimConfiguration(inputs);
  return { settings: settingsFromKim(kim.file, kim.flags, kim.tenants, kim.windows, kim.acl), warnings: kim.warnings };
}

/** KIM's files and flags, each decoded as KIM decodes it, not yet combined; ConfigError as readKimSettings. */
export async function readKimConfiguration(inputs: KimInputs): Promise<KimConfiguration> {
  const warnings: string[] = [];
  /** Decoders' notes without a file name get the file's. */
  const noted = (source: string, notes: string[]) => warnings.push(...notes.map((note) => `${source}: ${note}`));
  const configText = await readTextFile(
    inputs.kimConfig,
    (reason) =>
      new ConfigError(
        '--kim-config',
        '',
        `${inputs.kimConfig} ${reason} — pass the path of KIM's converter_config.json`,
      ),
  );
  const decoded = decodeKimConfig(configText, inputs.kimConfig, {
    ...(inputs.project !== undefined && { project: inputs.project }),
  });
  noted(inputs.kimConfig, decoded.warnings);
  const { converter } = decoded.config;
  const flags = parseKimFlags([...inputs.kimFlags], warnings);

  // KIM mounts these files into its pod (/gardener/tenant/config, …): --kim-file says where each one
  // is here; otherwise a relative path is read next to the config file, an absolute one as is.
  const configDirectory = dirname(inputs.kimConfig);
  const mounts = parseAssignments(inputs.kimFiles ?? [], '--kim-file', '/gardener/tenant/config=./tenants.json');
  const localOf = (path: string) => mounts.get(path) ?? resolve(configDirectory, path);
  const readConfiguredFile = (key: string, path: string): Promise<string> => {
    const local = localOf(path);
    return readTextFile(
      local,
      (reason) =>
        new ConfigError(
          inputs.kimConfig,
          key,
          `file ${local} ${reason} — copy KIM's mounted file here and pass --kim-file ${path}=<local file> (relative paths are read from the config file's folder)`,
        ),
    );
  };

  const tenantPath = converter.auditLogging?.tenantConfigPath;
  if (!tenantPath)
    throw new ConfigError(inputs.kimConfig, TENANT_PATH_KEY, 'is required (KIM refuses to start without it); add it');
  const tenantNotes: string[] = [];
  const tenants = parseTenantMap(await readConfiguredFile(TENANT_PATH_KEY, tenantPath), tenantPath, tenantNotes);
  noted(tenantPath, tenantNotes);

  const windowPath = converter.maintenanceWindow?.windowMapPath;
  const windowNotes: string[] = [];
  const windows = windowPath
    ? parseMaintenanceWindowMap(await readConfiguredFile(WINDOW_PATH_KEY, windowPath), windowPath, windowNotes)
    : {};
  if (windowPath) noted(windowPath, windowNotes);

  const aclName = converter.kubernetes?.kubeApiServer?.acl?.configMapName;
  const acl = await readAcl(aclName, inputs.kimConfigMaps, warnings);
  return {
    file: decoded.config,
    flags,
    tenants,
    windows,
    ...(acl && { acl: acl.list }),
    origin: {
      config: inputs.kimConfig,
      flags: [...inputs.kimFlags],
      tenantFile: { path: tenantPath, local: localOf(tenantPath) },
      ...(windowPath && { windowFile: { path: windowPath, local: localOf(windowPath) } }),
      ...(acl && aclName && { aclConfigMap: { name: aclName, source: acl.source } }),
    },
    warnings,
  };
}

/** The ACL ConfigMap named in the config, from the given files; other ConfigMaps are noted and ignored. */
async function readAcl(
  name: string | undefined,
  files: readonly string[],
  warnings: string[],
): Promise<{ list: AclAllowList; source: string } | undefined> {
  let acl: { list: AclAllowList; source: string } | undefined;
  for (const file of files) {
    const { objects, errors } = await readManifests(file, CONFIG_MAP_KIND);
    const [firstError] = errors;
    if (firstError) throw new ConfigError('--kim-configmap', '', firstError.message);
    for (const { source, object } of objects) {
      const objectName = (object['metadata'] as { name: string }).name;
      if (name && objectName === name) acl = { list: aclFromConfigMap(object, source), source };
      else
        warnings.push(
          `${source}: ConfigMap ${objectName} ignored — only ${ACL_NAME_KEY} (${name ?? 'not set'}) is read`,
        );
    }
  }
  return acl;
}
