import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { kimops } from '../test/helpers/cli.js';
import { useTempDir } from '../test/helpers/temp-dir.js';

const STAGE = fileURLToPath(new URL('../landscapes/stage/landscape.yaml', import.meta.url));
const POLICY_FILES = (await readdir(new URL('../policies/default/', import.meta.url))).filter((f) =>
  f.endsWith('.yaml'),
);

interface Doc {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  spec?: { policyName?: string; validationActions?: string[] };
  data?: Record<string, string>;
}
const documentsOf = (yaml: string) => parseAllDocuments(yaml, { version: '1.1' }).map((d) => d.toJS() as Doc);

const dir = useTempDir('policies');

describe('kimops policies export', () => {
  it('prints the params ConfigMap, every policy of the default set and its binding for a shipped landscape', async () => {
    const run = await kimops(['policies', 'export', '--landscape', 'stage']);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const docs = documentsOf(run.stdout);
    expect(docs.filter((d) => d.kind === 'ValidatingAdmissionPolicy')).toHaveLength(POLICY_FILES.length);
    expect(docs.filter((d) => d.kind === 'ValidatingAdmissionPolicyBinding').map((d) => d.spec?.policyName)).toEqual(
      docs.filter((d) => d.kind === 'ValidatingAdmissionPolicy').map((d) => d.metadata.name),
    );
    const [configMap] = docs;
    expect(configMap).toMatchObject({
      kind: 'ConfigMap',
      metadata: { name: 'kimops-policy-params', namespace: 'garden-kyma-stage' },
    });
    // Landscape facts from the landscape, zones from KEB's values; no Runtime inventory here.
    expect(configMap?.data).toMatchObject({
      landscape: 'stage',
      auditLogMandatory: 'true',
      minimumKubernetesVersion: '1.33.0',
      runtimeInventory: 'false',
      'zones.gcp.me-central2': 'me-central2-a,me-central2-b,me-central2-c',
    });
    expect(Object.values(configMap?.data ?? {}).every((v) => typeof v === 'string')).toBe(true);
  });

  it('reads a landscape folder as well, and uses its project', async () => {
    const text = (await readFile(STAGE, 'utf8'))
      .replace(/^name: stage$/m, 'name: edge')
      .replace(/^ {2}project: kyma-stage$/m, '  project: kyma-edge');
    const folder = join(dir.path, 'edge');
    await dir.write('edge/landscape.yaml', text);
    const run = await kimops(['policies', 'export', '--landscape', folder, '--policy-set', 'default']);
    expect(run.code).toBe(0);
    const docs = documentsOf(run.stdout);
    expect(docs[0]?.metadata.namespace).toBe('garden-kyma-edge');
    expect(
      docs.filter((d) => d.kind === 'ValidatingAdmissionPolicyBinding').every((d) => d.metadata.name.endsWith('.edge')),
    ).toBe(true);
  });

  it('writes one file per object with --out, nothing on stdout, and leaves unchanged files alone', async () => {
    const out = join(dir.path, 'out');
    const first = await kimops(['policies', 'export', '--landscape', 'dev', '--out', out]);
    expect(first).toMatchObject({ code: 0, stdout: '' });
    const files = (await readdir(out)).sort();
    expect(files).toHaveLength(1 + 2 * POLICY_FILES.length);
    expect(files).toContain('configmap-kimops-policy-params.yaml');
    expect(files).toContain('validatingadmissionpolicy-ssh-access-disabled.yaml');
    expect(files).toContain('validatingadmissionpolicybinding-ssh-access-disabled.dev.yaml');
    const binding = documentsOf(
      await readFile(join(out, 'validatingadmissionpolicybinding-ssh-access-disabled.dev.yaml'), 'utf8'),
    );
    expect(binding).toEqual([
      expect.objectContaining({
        kind: 'ValidatingAdmissionPolicyBinding',
        spec: expect.objectContaining({ validationActions: ['Deny'] }),
      }),
    ]);
    expect(first.stderr).toBe(`wrote ${files.length} files under ${out} (0 unchanged)\n`);
    const second = await kimops(['policies', 'export', '--landscape', 'dev', '--out', out]);
    expect(second.stderr).toBe(`wrote 0 files under ${out} (${files.length} unchanged)\n`);
  });

  it.each([
    [['policies', 'export'], /required option '--landscape <name\|dir>' not specified/],
    [['policies', 'export', '--landscape', 'nowhere'], /^error: --landscape: no landscape "nowhere" ships with kimops/],
    [
      ['policies', 'export', '--landscape', 'dev', '--policy-set', 'strict'],
      /^error: policySet: no policy set "strict" ships with kimops \(known: default\)/,
    ],
    [['policies', 'export', '--landscape', 'dev', '--policy-set', '../landscapes'], /is not a policy set name/],
  ])('exits 2 on %j', async (argv, message) => {
    const run = await kimops(argv);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(message);
  });
});
