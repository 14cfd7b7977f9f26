// KIM's own inputs, read as KIM reads them, for migrating from KIM: its converter_config.json, the
// audit-tenant and maintenance-window files named inside it, its flags, and the KCP ConfigMaps it reads.
import { dirname, resolve } from 'node:path';
import type { AclAllowList } from '../../model/converter-config.js';
import { parseAssignments } from '../../model/assignments.js';
import { ConfigError } from '../../model/errors.js';
import {
  aclFromConfigMap,
  decodeKimConfig,
  parseKimFlags,
  parseMaintenanceWindowMap,
  parseTenantMap,
  settingsFromKim,
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
}

const TENANT_PATH_KEY = 'converter.auditLogging.tenantConfigPath';
const WINDOW_PATH_KEY = 'converter.maintenanceWindow.windowMapPath';
const ACL_NAME_KEY = 'converter.kubernetes.kubeApiServer.acl.configMapName';
const CONFIG_MAP_KIND = { apiVersion: 'v1', kind: 'ConfigMap' };

/** Throws ConfigError for anything KIM would refuse to start with; `warnings` are KIM-tolerated oddities. */
export async function readKimSettings(
  inputs: KimInputs,
): Promise<{ settings: ConversionSettings; warnings: string[] }> {
  const warnings: string[] = [];
  const configText = await readTextFile(
    inputs.kimConfig,
    (reason) =>
      new ConfigError(
        '--kim-config',
        '',
        `${inputs.kimConfig} ${reason} — pass the path of KIM's converter_config.json`,
      ),
  );
  const decoded = decodeKimConfig(configText, inputs.kimConfig);
  warnings.push(...decoded.warnings);
  const { converter } = decoded.config;
  const flags = parseKimFlags([...inputs.kimFlags], warnings);

  // KIM mounts these files into its pod (/gardener/tenant/config, …): --kim-file says where each one
  // is here; otherwise a relative path is read next to the config file, an absolute one as is.
  const configDirectory = dirname(inputs.kimConfig);
  const mounts = parseAssignments(inputs.kimFiles ?? [], '--kim-file', '/gardener/tenant/config=./tenants.json');
  const readConfiguredFile = (key: string, path: string): Promise<string> => {
    const local = mounts.get(path) ?? resolve(configDirectory, path);
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
  const tenants = parseTenantMap(await readConfiguredFile(TENANT_PATH_KEY, tenantPath), tenantPath, warnings);

  const windowPath = converter.maintenanceWindow?.windowMapPath;
  const windows = windowPath
    ? parseMaintenanceWindowMap(await readConfiguredFile(WINDOW_PATH_KEY, windowPath), windowPath, warnings)
    : {};

  const acl = await readAcl(converter.kubernetes?.kubeApiServer?.acl?.configMapName, inputs.kimConfigMaps, warnings);
  return { settings: settingsFromKim(decoded.config, flags, tenants, windows, acl), warnings };
}

/** The ACL ConfigMap named in the config, from the given files; other ConfigMaps are noted and ignored. */
async function readAcl(
  name: string | undefined,
  files: readonly string[],
  warnings: string[],
): Promise<AclAllowList | undefined> {
  let acl: AclAllowList | undefined;
  for (const file of files) {
    const { objects, errors } = await readManifests(file, CONFIG_MAP_KIND);
    const [firstError] = errors;
    if (firstError) throw new ConfigError('--kim-configmap', '', firstError.message);
    for (const { source, object } of objects) {
      const objectName = (object['metadata'] as { name: string }).name;
      if (name && objectName === name) acl = aclFromConfigMap(object, source);
      else
        warnings.push(
          `${source}: ConfigMap ${objectName} ignored — only ${ACL_NAME_KEY} (${name ?? 'not set'}) is read`,
        );
    }
  }
  return acl;
}
