import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../model/errors.js';
import { readKimConfiguration, readKimSettings } from './kim-settings.js';
import { useTempDir } from '../../test/helpers/temp-dir.js';

const dir = useTempDir('kim');

/** KIM's dev converter_config.json as shipped in landscapes/kim/, with the mounted-file paths replaced. */
async function kimDevConfig(edit: (config: KimConfigJson) => void): Promise<string> {
  const text = await readFile(new URL('../../landscapes/kim/dev-converter-config.json', import.meta.url), 'utf8');
  const config = JSON.parse(text) as KimConfigJson;
  edit(config);
  return dir.write('kim/converter_config.json', JSON.stringify(config, null, 2));
}
interface KimConfigJson {
  converter: {
    auditLogging: { tenantConfigPath?: string };
    maintenanceWindow?: { windowMapPath?: string };
    kubernetes: { kubeApiServer?: { acl?: { configMapName: string } } };
    [key: string]: unknown;
  };
}

const TENANTS = {
  aws: { 'eu-central-1': { tenantID: 't-1', serviceURL: 'https://audit.example.invalid', secretName: 'audit-secret' } },
};
const WINDOWS = { 'eu-central-1': { begin: '200000+0000', end: '000000+0000' } };
const ACL_CONFIG_MAP = `apiVersion: v1
kind: ConfigMap
metadata:
  name: acl-ip-list
  namespace: kcp-system
data:
  acl-list.json: '["192.0.2.0/29"]'
  kcp-external-nat-ip.json: '"203.0.113.7/32"'
`;

describe('readKimSettings', () => {
  it('reads the tenant and window files relative to the config file, and absolute paths as they are', async () => {
    const windowsFile = await dir.write('elsewhere/windows.json', JSON.stringify(WINDOWS));
    await dir.write('kim/files/tenants.json', JSON.stringify(TENANTS));
    const kimConfig = await kimDevConfig((config) => {
      config.converter.auditLogging.tenantConfigPath = 'files/tenants.json';
      config.converter.maintenanceWindow = { windowMapPath: windowsFile };
    });
    const { settings, warnings } = await readKimSettings({ kimConfig, kimFlags: [], kimConfigMaps: [] });
    expect(settings.auditLogTenants).toEqual(TENANTS);
    expect(settings.maintenanceWindows).toEqual(WINDOWS);
    expect(settings.config.gardener?.projectName).toBe('kyma-dev');
    expect(settings.flags).toEqual({
      networkRestrictionEnabled: true,
      apiServerAclEnabled: false,
      auditLogMandatory: true,
    });
    expect(warnings).toEqual([]);
  });

  it('names the config key and the fix when a mounted file is missing', async () => {
    const kimConfig = await kimDevConfig(() => undefined); // keeps KIM's in-pod path /gardener/tenant/config
    const read = readKimSettings({ kimConfig, kimFlags: [], kimConfigMaps: [] });
    await expect(read).rejects.toThrow(ConfigError);
    await expect(read).rejects.toThrow(
      `${kimConfig}: converter.auditLogging.tenantConfigPath: file /gardener/tenant/config not found — copy KIM's mounted file here and pass --kim-file /gardener/tenant/config=<local file>`,
    );
  });

  it('reads a mounted file from where --kim-file says it is', async () => {
    const kimConfig = await kimDevConfig(() => undefined); // keeps KIM's in-pod paths
    const tenants = await dir.write('elsewhere/tenants.json', JSON.stringify(TENANTS));
    const windows = await dir.write(
      'elsewhere/windows.json',
      JSON.stringify({ 'eu-central-1': { begin: '010000+0000', end: '020000+0000' } }),
    );
    const { settings } = await readKimSettings({
      kimConfig,
      kimFlags: [],
      kimConfigMaps: [],
      kimFiles: [`/gardener/tenant/config=${tenants}`, `/maintenance-window-config/config=${windows}`],
    });
    expect(settings.auditLogTenants).toEqual(TENANTS);
    expect(settings.maintenanceWindows).toEqual({ 'eu-central-1': { begin: '010000+0000', end: '020000+0000' } });
  });

  it('takes the ACL list from the ConfigMap the config names, and warns about the others', async () => {
    await dir.write('kim/tenants.json', JSON.stringify(TENANTS));
    const kimConfig = await kimDevConfig((config) => {
      config.converter.auditLogging.tenantConfigPath = 'tenants.json';
      delete config.converter.maintenanceWindow;
      config.converter.kubernetes.kubeApiServer = {
        ...config.converter.kubernetes.kubeApiServer,
        acl: { configMapName: 'acl-ip-list' },
      };
    });
    const configMaps = await dir.write(
      'cms.yaml',
      `${ACL_CONFIG_MAP}---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: other\ndata: {}\n`,
    );
    const { settings, warnings } = await readKimSettings({
      kimConfig,
      kimFlags: ['api-server-acl-enabled=true'],
      kimConfigMaps: [configMaps],
    });
    expect(settings.acl).toEqual({ operatorCIDRs: ['192.0.2.0/29'], kcpIP: '203.0.113.7/32' });
    expect(settings.flags.apiServerAclEnabled).toBe(true);
    expect(warnings).toEqual([
      `${configMaps} (document 2): ConfigMap other ignored — only converter.kubernetes.kubeApiServer.acl.configMapName (acl-ip-list) is read`,
    ]);
  });

  it('hands over the parts as read, with where each came from and the notes named by their file', async () => {
    const tenants = await dir.write('elsewhere/tenants.json', JSON.stringify(TENANTS));
    const kimConfig = await kimDevConfig((config) => {
      delete config.converter.maintenanceWindow;
      config.converter['typo'] = true;
      config.converter.kubernetes.kubeApiServer = { acl: { configMapName: 'acl-ip-list' } };
    });
    const configMaps = await dir.write('acl.yaml', ACL_CONFIG_MAP);
    const kim = await readKimConfiguration({
      kimConfig,
      kimFlags: ['api-server-acl-enabled', 'leader-elect'],
      kimConfigMaps: [configMaps],
      kimFiles: [`/gardener/tenant/config=${tenants}`],
    });
    expect(kim.origin).toEqual({
      config: kimConfig,
      flags: ['api-server-acl-enabled', 'leader-elect'],
      tenantFile: { path: '/gardener/tenant/config', local: tenants },
      aclConfigMap: { name: 'acl-ip-list', source: configMaps },
    });
    expect(kim.acl).toEqual({ operatorCIDRs: ['192.0.2.0/29'], kcpIP: '203.0.113.7/32' });
    expect(kim.warnings).toEqual([
      `${kimConfig}: converter.typo: unknown key, ignored (KIM ignores it too); check the spelling`,
      '--kim-flag leader-elect: ignored; controller operation only; it does not change the Shoot',
    ]);
  });

  it('refuses a missing config file and a ConfigMap file that holds something else', async () => {
    const missing = join(dir.path, 'nope.json');
    await expect(readKimSettings({ kimConfig: missing, kimFlags: [], kimConfigMaps: [] })).rejects.toThrow(
      `--kim-config: ${missing} not found — pass the path of KIM's converter_config.json`,
    );
    await dir.write('kim/tenants.json', JSON.stringify(TENANTS));
    const kimConfig = await kimDevConfig((config) => {
      config.converter.auditLogging.tenantConfigPath = 'tenants.json';
      delete config.converter.maintenanceWindow;
    });
    const notAConfigMap = await dir.write('secret.yaml', 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n');
    await expect(readKimSettings({ kimConfig, kimFlags: [], kimConfigMaps: [notAConfigMap] })).rejects.toThrow(
      `--kim-configmap: ${notAConfigMap}: is a Secret (v1), not a ConfigMap (v1)`,
    );
  });
});
