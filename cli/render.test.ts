import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { useTempDir } from '../test/helpers/temp-dir.js';
import { kimops } from '../test/helpers/cli.js';

const KEB_EXAMPLES = fileURLToPath(new URL('../examples/runtimes/keb/', import.meta.url));
const KIM_DEV_CONFIG = new URL('../landscapes/kim/dev-converter-config.json', import.meta.url);
const AWS = join(KEB_EXAMPLES, 'aws.yaml');
const GCP = join(KEB_EXAMPLES, 'gcp.yaml');
/** spec.shoot.name of the aws and gcp examples. */
const AWS_SHOOT = 'c-78fcc25';
const GCP_SHOOT = 'c-56a4813';

const dir = useTempDir('cli');

const documentsOf = (yaml: string) =>
  parseAllDocuments(yaml, { version: '1.1' }).map((d) => d.toJS() as { kind: string; metadata: { name: string } });

/** A copy of an example Runtime with another shoot name, e.g. one that would leave shoots/. */
async function runtimeWithShootName(shootName: string): Promise<string> {
  const text = await readFile(AWS, 'utf8');
  return text
    .replace(new RegExp(`^    name: ${AWS_SHOOT}$`, 'm'), `    name: ${JSON.stringify(shootName)}`)
    .replace(/^ {2}name: .*$/m, '  name: renamed');
}

describe('kimops render: usage errors exit 2', () => {
  it.each([
    [['--runtime', AWS], /pass --landscape <name\|dir> or --kim-config <file>/],
    [['--landscape', 'dev'], /required option '--runtime <file\|dir\|->' not specified/],
    [
      ['--landscape', 'dev', '--kim-config', 'x.json', '--runtime', AWS],
      /option '--landscape <name\|dir>' cannot be used with option '--kim-config <file>'/,
    ],
    [
      ['--landscape', 'dev', '--runtime', AWS, '--kim-flag', 'x=y'],
      /--kim-flag, --kim-configmap and --kim-file only apply with --kim-config/,
    ],
    [['--landscape', 'dev', '--runtime', AWS, '--output', 'xml'], /Allowed choices are yaml, json/],
    [['--landscape', 'nowhere', '--runtime', AWS], /^error: --landscape: no landscape "nowhere" ships with kimops/],
    [
      ['--landscape', 'dev', '--runtime', '/does/not/exist'],
      /^error: \/does\/not\/exist: not found — pass a Runtime file/,
    ],
    [['--landscape', 'dev', '--runtime', AWS, '--no-such-option'], /unknown option '--no-such-option'/],
    [
      ['--landscape', 'dev', '--runtime', '-', '--live-shoot', '-'],
      /only one of --runtime and --live-shoot can read stdin/,
    ],
  ])('%j', async (options, message) => {
    const { code, stdout, stderr } = await kimops(['render', ...options]);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(message);
    expect(stderr).not.toMatch(/\n\s+at /); // no stack trace
  });

  it('without a subcommand prints the help and exits 2', async () => {
    const { code, stderr } = await kimops([]);
    expect(code).toBe(2);
    expect(stderr).toContain('render [options]');
  });

  it('--help documents the JSON output and exits 0', async () => {
    const { code, stdout } = await kimops(['render', '--help']);
    expect(code).toBe(0);
    expect(stdout).toContain('"errors": [{"source", "message", "runtime"?, "field"?}]');
  });
});

describe('kimops render', () => {
  it('prints every example Runtime as companions + Shoot, sorted by Shoot name, and exits 0', async () => {
    const { code, stdout, stderr } = await kimops(['render', '--landscape', 'dev', '--runtime', KEB_EXAMPLES]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const documents = documentsOf(stdout);
    const shoots = documents.filter((d) => d.kind === 'Shoot').map((d) => d.metadata.name);
    expect(shoots).toHaveLength(15);
    expect(shoots).toEqual([...shoots].sort());
    expect(documents[0]).toMatchObject({
      kind: 'ConfigMap',
      metadata: { name: `structured-auth-config-${shoots[0]}` },
    });
    expect(documents[1]).toMatchObject({ kind: 'Shoot', metadata: { name: shoots[0] } });
  });

  it('prints the same bytes on every run', async () => {
    const first = await kimops(['render', '--landscape', 'dev', '--runtime', KEB_EXAMPLES]);
    const second = await kimops(['render', '--landscape', 'dev', '--runtime', KEB_EXAMPLES]);
    expect(second.stdout).toBe(first.stdout);
  });

  it('reads Runtimes from stdin with --runtime -', async () => {
    const { code, stdout } = await kimops(
      ['render', '--landscape', 'dev', '--runtime', '-'],
      await readFile(GCP, 'utf8'),
    );
    expect(code).toBe(0);
    expect(documentsOf(stdout).map((d) => d.metadata.name)).toEqual([`structured-auth-config-${GCP_SHOOT}`, GCP_SHOOT]);
  });

  it('exits 1 for a bad Runtime among good ones, prints one line per failure, and still renders the good ones', async () => {
    await dir.write('runtimes/a-good.yaml', await readFile(GCP, 'utf8'));
    await dir.write('runtimes/b-escaping.yaml', await runtimeWithShootName('../../etc'));
    const wrongKind = await dir.write(
      'runtimes/c-shoot.yaml',
      'apiVersion: core.gardener.cloud/v1beta1\nkind: Shoot\nmetadata:\n  name: x\n',
    );
    const { code, stdout, stderr } = await kimops([
      'render',
      '--landscape',
      'dev',
      '--runtime',
      join(dir.path, 'runtimes'),
    ]);
    expect(code).toBe(1);
    expect(documentsOf(stdout).map((d) => d.metadata.name)).toEqual([`structured-auth-config-${GCP_SHOOT}`, GCP_SHOOT]);
    const lines = stderr.trimEnd().split('\n');
    expect(lines).toEqual([
      `${wrongKind}: is a Shoot (core.gardener.cloud/v1beta1), not a Runtime (infrastructuremanager.kyma-project.io/v1) — pass only Runtime manifests here`,
      expect.stringMatching(/^runtime kcp-system\/renamed: spec\.shoot\.name: .*\.\.\/\.\.\/etc/),
    ]);
  });

  it('--out writes the landscape-repo layout and rewrites nothing on a second run', async () => {
    const out = join(dir.path, 'repo');
    const printed = await kimops(['render', '--landscape', 'dev', '--runtime', AWS]);
    const { code, stdout, stderr } = await kimops(['render', '--landscape', 'dev', '--runtime', AWS, '--out', out]);
    expect(code).toBe(0);
    expect(stdout).toBe('');
    // The Shoot, its companion, and the four objects of its cluster under skr/: those are not in the printed stream,
    // which is for the Garden.
    expect(stderr).toBe(`wrote 6 files under ${out} (0 unchanged)\n`);
    expect((await readdir(join(out, `shoots/${AWS_SHOOT}/skr`))).sort()).toEqual([
      expect.stringMatching(/^clusterrolebinding-admin-[0-9a-f]{10}\.yaml$/),
      'configmap-kyma-provisioning-info.yaml',
      'namespace-kyma-system.yaml',
      'openidconnect-kyma-oidc-0.yaml',
    ]);
    const companion = await readFile(
      join(out, `shoots/${AWS_SHOOT}/configmap-structured-auth-config-${AWS_SHOOT}.yaml`),
      'utf8',
    );
    const shoot = await readFile(join(out, `shoots/${AWS_SHOOT}/shoot.yaml`), 'utf8');
    expect(`${companion}---\n${shoot}`).toBe(printed.stdout);

    const again = await kimops(['render', '--landscape', 'dev', '--runtime', AWS, '--out', out]);
    expect(again.stderr).toBe(`wrote 0 files under ${out} (6 unchanged)\n`);
  });

  it('--output json prints one object with the shoots and the errors', async () => {
    await dir.write('runtimes/gcp.yaml', await readFile(GCP, 'utf8'));
    await dir.write('runtimes/aws.yaml', await readFile(AWS, 'utf8'));
    await dir.write('runtimes/bad.yaml', await runtimeWithShootName('UPPER'));
    const { code, stdout } = await kimops([
      'render',
      '--landscape',
      'dev',
      '--runtime',
      join(dir.path, 'runtimes'),
      '--output',
      'json',
    ]);
    expect(code).toBe(1);
    const report = JSON.parse(stdout) as {
      shoots: {
        name: string;
        runtime: string;
        source: string;
        mode: string;
        shoot: { kind: string };
        companions: unknown[];
        skr: { kind: string }[];
        files: string[];
      }[];
      errors: { source: string; runtime: string; field: string; message: string }[];
    };
    expect(report.shoots.map((s) => [s.name, s.mode, s.shoot.kind, s.companions.length])).toEqual([
      [GCP_SHOOT, 'create', 'Shoot', 1],
      [AWS_SHOOT, 'create', 'Shoot', 1],
    ]);
    expect(report.shoots[1]?.skr.map((o) => o.kind)).toEqual([
      'ClusterRoleBinding',
      'ConfigMap',
      'Namespace',
      'OpenIDConnect',
    ]);
    expect(report.shoots[1]?.files).toEqual([
      `shoots/${AWS_SHOOT}/configmap-structured-auth-config-${AWS_SHOOT}.yaml`,
      expect.stringMatching(new RegExp(`^shoots/${AWS_SHOOT}/skr/clusterrolebinding-admin-[0-9a-f]{10}\\.yaml$`)),
      `shoots/${AWS_SHOOT}/skr/configmap-kyma-provisioning-info.yaml`,
      `shoots/${AWS_SHOOT}/skr/namespace-kyma-system.yaml`,
      `shoots/${AWS_SHOOT}/skr/openidconnect-kyma-oidc-0.yaml`,
      `shoots/${AWS_SHOOT}/shoot.yaml`,
    ]);
    expect(report.errors).toEqual([
      {
        source: join(dir.path, 'runtimes/bad.yaml'),
        runtime: 'kcp-system/renamed',
        field: 'spec.shoot.name',
        message: expect.stringMatching(/^runtime kcp-system\/renamed: spec\.shoot\.name: /),
      },
    ]);
  });

  it('--live-shoot renders in update mode against the Shoot of the same name', async () => {
    const created = await kimops(['render', '--landscape', 'dev', '--runtime', AWS]);
    const liveShoot = await dir.write('live/shoot.yaml', created.stdout.split('---\n').at(-1) ?? '');
    await dir.write(
      'live/unrelated.yaml',
      'apiVersion: core.gardener.cloud/v1beta1\nkind: Shoot\nmetadata:\n  name: unrelated\n',
    );
    const { code, stdout, stderr } = await kimops([
      'render',
      '--landscape',
      'dev',
      '--runtime',
      AWS,
      '--live-shoot',
      join(dir.path, 'live'),
      '--output',
      'json',
    ]);
    expect(code).toBe(0);
    expect((JSON.parse(stdout) as { shoots: { mode: string }[] }).shoots.map((s) => s.mode)).toEqual(['update']);
    expect(stderr).toBe('note: live Shoots matching no Runtime were not used: unrelated\n');
    expect(liveShoot).toContain('live');
  });

  it('re-rendering against its own --out folder as --live-shoot changes no file (update mode is stable)', async () => {
    const out = join(dir.path, 'repo');
    const first = await kimops(['render', '--landscape', 'dev', '--runtime', KEB_EXAMPLES, '--out', out]);
    // Every file of every Shoot folder, skr/ included: a live-Shoot folder skips what is no Shoot.
    const written = /^wrote (\d+) files/.exec(first.stderr)?.[1];
    const { code, stderr } = await kimops([
      'render',
      '--landscape',
      'dev',
      '--runtime',
      KEB_EXAMPLES,
      '--live-shoot',
      out,
      '--out',
      out,
    ]);
    expect(code).toBe(0);
    expect(stderr).toBe(`wrote 0 files under ${out} (${written} unchanged)\n`);
  });

  it('names reg-cache-<uid> for a cache with credentials no garden Secret is known for, or the one --registry-cache-secret gives', async () => {
    const created = await kimops(['render', '--landscape', 'dev', '--runtime', AWS]);
    const live = await dir.write('live/shoot.yaml', created.stdout.split('---\n').at(-1) ?? '');
    const cached =
      (await readFile(AWS, 'utf8')) +
      '  imageRegistryCache:\n  - name: cache\n    namespace: kyma-system\n    uid: 0a1b\n    config:\n      upstream: ghcr.io\n      secretReferenceName: ghcr-credentials\n';
    const runtime = await dir.write('cached.yaml', cached);
    const resourcesOf = (stdout: string) =>
      (
        documentsOf(stdout).find((d) => d.kind === 'Shoot') as unknown as {
          spec: { resources: { name: string }[] };
        }
      ).spec.resources.map((r) => r.name);

    const unknown = await kimops(['render', '--landscape', 'dev', '--runtime', runtime, '--live-shoot', live]);
    expect(unknown.stderr).toBe('');
    expect(unknown.code).toBe(0);
    expect(resourcesOf(unknown.stdout)).toContain('reg-cache-0a1b');
    // The stub is the repo's (--out), never the Garden stream's: applied, it would be an empty Secret.
    expect(documentsOf(unknown.stdout).map((d) => d.kind)).not.toContain('Secret');
    const out = await kimops([
      'render',
      '--landscape',
      'dev',
      '--runtime',
      runtime,
      '--live-shoot',
      live,
      '--output',
      'json',
    ]);
    const [shoot] = (
      JSON.parse(out.stdout) as { shoots: { files: string[]; registryCache: { immutable: boolean }[] }[] }
    ).shoots;
    expect(shoot?.files.filter((f) => f.includes('/registry-cache/'))).toEqual([
      expect.stringMatching(/\/registry-cache\/secret-reg-cache-0a1b\.yaml$/),
    ]);
    expect(shoot?.registryCache).toMatchObject([{ immutable: true }]);

    const named = await kimops([
      'render',
      '--landscape',
      'dev',
      '--runtime',
      runtime,
      '--live-shoot',
      live,
      '--registry-cache-secret',
      '0a1b=reg-cache-5b8d0c6e',
    ]);
    expect(named.code).toBe(0);
    expect(resourcesOf(named.stdout)).toContain('reg-cache-5b8d0c6e');
  });

  it('--live-shoot refuses unreadable live Shoots with exit 2, since their Runtimes would render as new Shoots', async () => {
    const bad = await dir.write(
      'live.yaml',
      'apiVersion: infrastructuremanager.kyma-project.io/v1\nkind: Runtime\nmetadata:\n  name: x\n',
    );
    const { code, stderr } = await kimops(['render', '--landscape', 'dev', '--runtime', AWS, '--live-shoot', bad]);
    expect(code).toBe(2);
    expect(stderr).toContain(`${bad}: is a Runtime (infrastructuremanager.kyma-project.io/v1), not a Shoot`);
    expect(stderr).toContain('error: --live-shoot: 1 live Shoot document(s) above cannot be read');
  });
});

describe('kimops render --kim-config', () => {
  const tenants = {
    aws: {
      'eu-central-1': {
        tenantID: 'tenant-from-test',
        serviceURL: 'https://audit.example.invalid',
        secretName: 'audit',
      },
    },
  };

  async function kimConfigDir(): Promise<string> {
    const config = JSON.parse(await readFile(KIM_DEV_CONFIG, 'utf8')) as {
      converter: {
        auditLogging: { tenantConfigPath: string };
        maintenanceWindow: { windowMapPath: string };
        unknownKey?: boolean;
      };
    };
    config.converter.auditLogging.tenantConfigPath = 'tenant/config';
    config.converter.maintenanceWindow.windowMapPath = 'window/config';
    config.converter.unknownKey = true;
    await dir.write('kim/tenant/config', JSON.stringify(tenants));
    await dir.write(
      'kim/window/config',
      JSON.stringify({ 'eu-central-1': { begin: '200000+0000', end: '000000+0000' } }),
    );
    return dir.write('kim/converter_config.json', JSON.stringify(config));
  }

  it("renders with KIM's own config, flags and files, and prints the decoder's warnings", async () => {
    const config = await kimConfigDir();
    const { code, stdout, stderr } = await kimops([
      'render',
      '--kim-config',
      config,
      '--kim-flag',
      'network-restriction-enabled=false',
      '--runtime',
      AWS,
    ]);
    expect(code).toBe(0);
    expect(stderr).toMatch(/^warning: .*unknownKey.*\n$/);
    const shoot = documentsOf(stdout).at(-1) as unknown as {
      spec: { extensions: { type: string }[]; maintenance: { timeWindow: unknown } };
    };
    expect(stdout).toContain('tenant-from-test');
    expect(shoot.spec.extensions.map((e) => e.type)).not.toContain('shoot-networking-filter');
    expect(shoot.spec.maintenance.timeWindow).toEqual({ begin: '200000+0000', end: '000000+0000' });
  });

  it('exits 2 naming the config key when a file named in the config is missing', async () => {
    const config = await kimConfigDir();
    await dir.write('kim/tenant/config', ''); // replaced below by a path that does not exist
    const text = (await readFile(config, 'utf8')).replace('tenant/config', 'tenant/missing');
    await dir.write('kim/converter_config.json', text);
    const { code, stderr } = await kimops(['render', '--kim-config', config, '--runtime', AWS]);
    expect(code).toBe(2);
    expect(stderr).toContain(
      `error: ${config}: converter.auditLogging.tenantConfigPath: file ${join(dir.path, 'kim/tenant/missing')} not found — copy KIM's mounted file here and pass --kim-file tenant/missing=<local file>`,
    );
  });
});
