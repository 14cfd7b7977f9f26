import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../model/errors.js';
import { readRuntimes, readShoots } from './manifests.js';
import { useTempDir } from '../../test/helpers/temp-dir.js';

const dir = useTempDir('manifests');

const runtime = (name: string) => `apiVersion: infrastructuremanager.kyma-project.io/v1
kind: Runtime
metadata:
  name: ${name}
  namespace: kcp-system
spec:
  shoot:
    name: s-${name}
`;
const shoot = (name: string) => `apiVersion: core.gardener.cloud/v1beta1\nkind: Shoot\nmetadata:\n  name: ${name}\n`;

const noStdin = () => Promise.reject(new Error('stdin must not be read'));

describe('readRuntimes', () => {
  it('walks a folder recursively in sorted order, reading .yaml, .yml and .json and nothing else', async () => {
    await dir.write('b.yaml', runtime('b'));
    await dir.write('a/z.yml', runtime('z'));
    await dir.write('a/c.json', JSON.stringify({ apiVersion: 'infrastructuremanager.kyma-project.io/v1', kind: 'Runtime', metadata: { name: 'c' } }));
    await dir.write('notes.txt', 'not a manifest');
    await dir.write('.hidden/x.yaml', runtime('hidden'));
    const { runtimes, errors } = await readRuntimes(dir.path, noStdin);
    expect(errors).toEqual([]);
    expect(runtimes.map((r) => [r.source, r.runtime.metadata.name])).toEqual([
      [join(dir.path, 'a/c.json'), 'c'],
      [join(dir.path, 'a/z.yml'), 'z'],
      [join(dir.path, 'b.yaml'), 'b'],
    ]);
  });

  it('reports each bad document with its file and index, and still returns the good ones', async () => {
    const file = await dir.write('mixed.yaml', [runtime('one'), shoot('not-a-runtime'), 'a: [\n', runtime('two'), '- just a list'].join('---\n'));
    const { runtimes, errors } = await readRuntimes(file, noStdin);
    expect(runtimes.map((r) => [r.source, r.runtime.metadata.name])).toEqual([
      [`${file} (document 1)`, 'one'],
      [`${file} (document 4)`, 'two'],
    ]);
    expect(errors.map((e) => e.message)).toEqual([
      `${file} (document 2): is a Shoot (core.gardener.cloud/v1beta1), not a Runtime (infrastructuremanager.kyma-project.io/v1) — pass only Runtime manifests here`,
      expect.stringMatching(new RegExp(`^${file}: document 3, line \\d+: `)),
      `${file} (document 5): not a Kubernetes object but a list — expected a Runtime (infrastructuremanager.kyma-project.io/v1)`,
    ]);
  });

  it('names a document without metadata.name, and an unreadable JSON file', async () => {
    await dir.write('a.yaml', 'apiVersion: infrastructuremanager.kyma-project.io/v1\nkind: Runtime\nmetadata: {}\n');
    await dir.write('b.json', '{"kind": ');
    const { runtimes, errors } = await readRuntimes(dir.path, noStdin);
    expect(runtimes).toEqual([]);
    expect(errors.map((e) => e.message)).toEqual([
      `${join(dir.path, 'a.yaml')}: metadata.name: missing — every manifest needs a name`,
      expect.stringContaining(`${join(dir.path, 'b.json')}: not valid JSON: `),
    ]);
  });

  it('reads the items of a List, as kubectl get -o yaml prints them', async () => {
    const list = { apiVersion: 'v1', kind: 'List', items: [runtime('x'), runtime('y')].map((text) => ({
      apiVersion: 'infrastructuremanager.kyma-project.io/v1', kind: 'Runtime', metadata: { name: text.match(/name: (\w)\n/)?.[1] },
    })) };
    const file = await dir.write('list.json', JSON.stringify(list));
    const { runtimes } = await readRuntimes(file, noStdin);
    expect(runtimes.map((r) => r.source)).toEqual([`${file} (items[0])`, `${file} (items[1])`]);
  });

  it('reads - from stdin', async () => {
    const { runtimes } = await readRuntimes('-', async () => `${runtime('a')}---\n${runtime('b')}`);
    expect(runtimes.map((r) => [r.source, r.runtime.metadata.name])).toEqual([
      ['<stdin> (document 1)', 'a'],
      ['<stdin> (document 2)', 'b'],
    ]);
  });

  it('throws a ConfigError for a path that does not exist', async () => {
    const missing = join(dir.path, 'nope');
    await expect(readRuntimes(missing, noStdin)).rejects.toThrow(ConfigError);
    await expect(readRuntimes(missing, noStdin)).rejects.toThrow(
      `${missing}: not found — pass a Runtime file, a directory of them, or - for stdin`,
    );
  });
});

describe('readShoots', () => {
  it('reads a landscape repo: Shoots, passing over their companion ConfigMaps', async () => {
    await dir.write('shoots/s1/shoot.yaml', shoot('s1'));
    await dir.write('shoots/s1/configmap-structured-auth-config-s1.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: structured-auth-config-s1\n');
    const { shoots, errors } = await readShoots(dir.path, noStdin);
    expect(errors).toEqual([]);
    expect(shoots.map((s) => s.shoot.metadata.name)).toEqual(['s1']);
  });

  it('says a file without kind and apiVersion is no Kubernetes object', async () => {
    const file = await dir.write('kimops.yaml', 'landscape: dev\n');
    const { errors } = await readShoots(file, noStdin);
    expect(errors.map((e) => e.message)).toEqual([`${file}: has no kind and apiVersion, so it is no Kubernetes object — expected a Shoot (core.gardener.cloud/v1beta1)`]);
  });

  it('reads Shoots and refuses Runtimes', async () => {
    const file = await dir.write('live.yaml', `${shoot('s1')}---\n${runtime('r')}`);
    const { shoots, errors } = await readShoots(file, noStdin);
    expect(shoots.map((s) => s.shoot.metadata.name)).toEqual(['s1']);
    expect(errors).toHaveLength(1);
    expect(errors[0]?.message).toContain('is a Runtime (infrastructuremanager.kyma-project.io/v1), not a Shoot');
  });
});
