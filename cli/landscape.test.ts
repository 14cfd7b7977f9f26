import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { readKimSettings, type KimInputs } from '../adapters/files/kim-settings.js';
import { readLandscape } from '../adapters/files/landscape.js';
import { renderRuntimes, type RenderResult, type RuntimeInput } from '../generator/render-runtimes.js';
import { conversionSettingsOf, type Landscape } from '../model/landscape.js';
import { parseLandscape } from '../model/landscape-parse.js';
import type { Runtime } from '../model/runtime.js';
import { fileMapOf } from '../rules/landscape-layout.js';
import { kimops } from '../test/helpers/cli.js';
import { useTempDir } from '../test/helpers/temp-dir.js';

const ROOT = new URL('../', import.meta.url);
const KEB_EXAMPLES = fileURLToPath(new URL('examples/runtimes/keb/', ROOT));
const dir = useTempDir('from-kim');

const read = (path: string) => readFile(new URL(path, ROOT), 'utf8');
const dev = parseLandscape(await read('landscapes/dev/landscape.yaml'), 'dev', 'dev');

const ACL_CONFIG_MAP = `apiVersion: v1
kind: ConfigMap
metadata:
  name: acl-ip-list
  namespace: kcp-system
data:
  acl-list.json: '["192.0.2.0/24", "198.51.100.0/24"]'
  kcp-external-nat-ip.json: '"203.0.113.10/32"'
`;

interface KimJson {
  converter: Record<string, Record<string, unknown>>;
}

/**
 * KIM's dev converter_config.json, edited, with its two mounted files (the dev landscape's tenants and windows,
 * KIM's in-pod paths mapped by --kim-file): the inputs of both `render --kim-config` and `landscape from-kim`.
 */
async function kimFiles(edit: (config: KimJson) => void = () => undefined): Promise<KimInputs> {
  const config = JSON.parse(await read('landscapes/kim/dev-converter-config.json')) as KimJson;
  edit(config);
  return {
    kimConfig: await dir.write('kim/converter_config.json', JSON.stringify(config, null, 2)),
    kimFlags: [],
    kimConfigMaps: [],
    kimFiles: [
      `/gardener/tenant/config=${await dir.write('kim/tenants.json', JSON.stringify(dev.auditLog.tenants))}`,
      `/maintenance-window-config/config=${await dir.write('kim/windows.json', JSON.stringify(dev.maintenanceWindows))}`,
    ],
  };
}

function argsOf(inputs: KimInputs): string[] {
  return [
    '--kim-config',
    inputs.kimConfig,
    ...inputs.kimFlags.flatMap((flag) => ['--kim-flag', flag]),
    ...inputs.kimConfigMaps.flatMap((file) => ['--kim-configmap', file]),
    ...(inputs.kimFiles ?? []).flatMap((file) => ['--kim-file', file]),
  ];
}

async function kebExamples(): Promise<RuntimeInput[]> {
  const files = (await readdir(KEB_EXAMPLES)).filter((file) => file.endsWith('.yaml')).sort();
  return Promise.all(
    files.map(async (file) => ({
      source: file,
      runtime: parse(await readFile(join(KEB_EXAMPLES, file), 'utf8')) as Runtime,
    })),
  );
}

/** Every file of every rendered Shoot folder, and the failures, as the repo and the user would see them. */
function outcome(result: RenderResult) {
  return {
    files: fileMapOf(result.rendered.flatMap((r) => r.manifests)),
    failures: result.failures.map((f) => f.message),
    bugs: result.bugs,
  };
}

describe("kimops landscape from-kim: KIM's config and the landscape made from it render the same Shoots", () => {
  const variants: [string, (config: KimJson) => void, string[]][] = [
    ["KIM's dev config with its tenant and window files", () => undefined, []],
    [
      'the ACL on, maintenance windows, and every other setting that changes a Shoot',
      (config) => {
        const kubernetes = config.converter['kubernetes'] as Record<string, Record<string, unknown>>;
        kubernetes['kubeApiServer'] = {
          ...kubernetes['kubeApiServer'],
          acl: { configMapName: 'acl-ip-list' },
          featureGates: { ClusterTrustBundle: true },
          runtimeConfig: { 'certificates.k8s.io/v1beta1/clustertrustbundles': true },
        };
        kubernetes['kubelet'] = { featureGates: { ClusterTrustBundleProjection: true } };
        config.converter['gardener'] = { ...config.converter['gardener'], enableCredentialBinding: true };
        config.converter['networking'] = { enableDualStackIP: true };
        config.converter['provider'] = {
          aws: { enableIMDSv2: false },
          worker: { defaultMaxEvictRetries: '+7', defaultMachineDrainTimeout: '1h30m' },
          gdch: {
            cloudProfileName: 'gdch-profile',
            parentReferenceName: 'kyma-subnet',
            parentReferenceNamespace: 'gdch-kyma',
            parentReferenceType: 'SingleSubnet',
          },
        };
        config.converter['dns'] = { secretName: '', domainPrefix: '', providerType: '' }; // Go zero: internal DNS
      },
      ['api-server-acl-enabled=true', 'network-restriction-enabled=false', 'audit-log-mandatory=false', 'zap-devel'],
    ],
  ];

  it.each(variants)('%s', async (_, edit, kimFlags) => {
    const acl = kimFlags.includes('api-server-acl-enabled=true');
    const inputs = {
      ...(await kimFiles(edit)),
      kimFlags,
      kimConfigMaps: acl ? [await dir.write('kim/acl-ip-list.yaml', ACL_CONFIG_MAP)] : [],
    };
    const out = join(dir.path, 'landscape', 'landscape.yaml');
    const made = await kimops(['landscape', 'from-kim', '--name', 'migrated', ...argsOf(inputs), '--out', out]);
    expect(made.stderr).toContain(`wrote landscape migrated to ${out}`);
    expect(made.code).toBe(0);

    const runtimes = await kebExamples();
    // No KEB example sets an ACL: one more Runtime with allowed CIDRs, so the ACL's path is rendered too.
    const aws = runtimes.find((r) => r.source === 'aws.yaml')?.runtime as Runtime;
    const withAcl = structuredClone(aws);
    withAcl.metadata.name = 'with-acl';
    withAcl.spec.shoot.name = 'c-acl';
    withAcl.spec.shoot.kubernetes = {
      ...withAcl.spec.shoot.kubernetes,
      kubeAPIServer: { ...withAcl.spec.shoot.kubernetes?.kubeAPIServer, acl: { allowedCIDRs: ['10.250.0.0/16'] } },
    };
    runtimes.push({ source: 'with-acl.yaml', runtime: withAcl });

    const viaKim = outcome(renderRuntimes(runtimes, (await readKimSettings(inputs)).settings));
    const viaLandscape = outcome(renderRuntimes(runtimes, conversionSettingsOf(await readLandscape(out))));
    expect(viaKim.bugs).toEqual([]);
    expect(viaKim.files.size).toBeGreaterThan(runtimes.length); // every Shoot with its companions
    expect([...viaLandscape.files]).toEqual([...viaKim.files]);
    expect(viaLandscape.failures).toEqual(viaKim.failures);
    const aclShoot = viaKim.files.get('shoots/c-acl/shoot.yaml') ?? '';
    expect(aclShoot.includes('type: acl')).toBe(acl);
  });
});

describe('kimops landscape from-kim', () => {
  it('prints the landscape with a header naming its sources and what was not carried over', async () => {
    const inputs = await kimFiles();
    const { code, stdout, stderr } = await kimops([
      'landscape',
      'from-kim',
      '--name',
      'dev',
      ...argsOf({ ...inputs, kimFlags: ['leader-elect'] }),
    ]);
    expect(code).toBe(0);
    expect(stderr).toBe(
      'warning: --kim-flag leader-elect: ignored; controller operation only; it does not change the Shoot\n',
    );
    expect(stdout).toMatch(/^# Generated by `kimops landscape from-kim` from KIM's configuration/);
    expect(stdout).toContain(`# - converter config: ${inputs.kimConfig}\n`);
    expect(stdout).toContain("# - KIM flags: leader-elect (KIM's defaults for the others)\n");
    expect(stdout).toContain(
      '# - --kim-flag leader-elect: ignored; controller operation only; it does not change the Shoot\n',
    );
    // KIM's dev config is what landscapes/dev/landscape.yaml was written from; only its invented additions differ.
    const devFromKim: Landscape = structuredClone(dev);
    delete devFromKim.gdch;
    delete devFromKim.apiServerAcl;
    expect(parseLandscape(stdout, 'stdout', 'dev')).toEqual(devFromKim);
  });

  it('fills the project from --project when the config names none, and refuses one that differs', async () => {
    const inputs = await kimFiles((config) => delete config.converter['gardener']?.['projectName']);
    const filled = await kimops(['landscape', 'from-kim', '--name', 'x', '--project', 'kyma-x', ...argsOf(inputs)]);
    expect(filled.code).toBe(0);
    expect(parseLandscape(filled.stdout, 'stdout').gardener.project).toBe('kyma-x');

    const named = await kimFiles();
    const differs = await kimops(['landscape', 'from-kim', '--name', 'x', '--project', 'kyma-x', ...argsOf(named)]);
    expect(differs.code).toBe(2);
    expect(differs.stderr).toContain(
      `error: ${named.kimConfig}: converter.gardener.projectName: is "kyma-dev", but --project says "kyma-x"`,
    );
  });

  it('writes --out whole, refuses to replace it without --force, and replaces it with', async () => {
    const inputs = await kimFiles();
    const out = await dir.write('prod/landscape.yaml', 'kept\n');
    const refused = await kimops(['landscape', 'from-kim', '--name', 'prod', ...argsOf(inputs), '--out', out]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(
      `error: --out: ${out} exists — pass --force to replace it, or another path; nothing was written\n`,
    );
    expect(await readFile(out, 'utf8')).toBe('kept\n');

    const forced = await kimops([
      'landscape',
      'from-kim',
      '--name',
      'prod',
      ...argsOf(inputs),
      '--out',
      out,
      '--force',
    ]);
    expect(forced.code).toBe(0);
    expect(forced.stdout).toBe('');
    expect(parseLandscape(await readFile(out, 'utf8'), out, 'prod').name).toBe('prod');
    expect(await readdir(join(dir.path, 'prod'))).toEqual(['landscape.yaml']); // no temporary file left
    expect((await stat(out)).isFile()).toBe(true);
  });

  it('exits 2 naming the KIM setting a landscape cannot hold, and writes nothing', async () => {
    const inputs = await kimFiles((config) => {
      config.converter['dns'] = { secretName: 'route53', domainPrefix: '', providerType: 'aws-route53' };
    });
    const out = join(dir.path, 'landscape.yaml');
    const { code, stderr } = await kimops(['landscape', 'from-kim', '--name', 'dev', ...argsOf(inputs), '--out', out]);
    expect(code).toBe(2);
    expect(stderr).toContain(
      `  - ${inputs.kimConfig}: converter.dns.domainPrefix: must be a DNS name: lower-case letters, digits, "-" and ".", like "aws-route53-secret-dev"; got "" (landscape.yaml dns.domainPrefix)`,
    );
    await expect(stat(out)).rejects.toThrow(/ENOENT/);
  });

  it.each([
    [['--kim-config', 'c.json'], "required option '--name <landscape>' not specified"],
    [['--name', 'dev'], "required option '--kim-config <file>' not specified"],
    [['--name', 'dev', '--kim-config', 'c.json', '--force'], 'error: --force only applies with --out'],
  ])('exits 2 for usage errors: %j', async (args, message) => {
    const { code, stderr } = await kimops(['landscape', 'from-kim', ...args]);
    expect(code).toBe(2);
    expect(stderr).toContain(message);
  });
});
