import { execFileSync } from 'node:child_process';
import { mkdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../model/errors.js';
import { readBounded, readRuntimes, readShoots } from './manifests.js';
import { MAX_TEXT_FILE_BYTES } from './read-text.js';
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
    await dir.write(
      'a/c.json',
      JSON.stringify({
        apiVersion: 'infrastructuremanager.kyma-project.io/v1',
        kind: 'Runtime',
        metadata: { name: 'c' },
      }),
    );
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

  it('reads .yaml, .yml and .json in any case', async () => {
    await dir.write('a.YAML', runtime('a'));
    await dir.write('b.Yaml', runtime('b'));
    await dir.write('c.YML', runtime('c'));
    await dir.write(
      'd.JSON',
      JSON.stringify({
        apiVersion: 'infrastructuremanager.kyma-project.io/v1',
        kind: 'Runtime',
        metadata: { name: 'd' },
      }),
    );
    const { runtimes, errors } = await readRuntimes(dir.path, noStdin);
    expect(errors).toEqual([]);
    expect(runtimes.map((r) => r.runtime.metadata.name)).toEqual(['a', 'b', 'c', 'd']);
  });

  it('follows a symlinked folder inside the tree, reading each file once, and ends a link back up', async () => {
    await dir.write('real/one.yaml', runtime('one'));
    await symlink(join(dir.path, 'real'), join(dir.path, 'linked'));
    await symlink('..', join(dir.path, 'real', 'up')); // back to the folder read
    await mkdir(join(dir.path, 'other'));
    await dir.write('other/two.yaml', runtime('two'));
    await symlink(join(dir.path, 'other'), join(dir.path, 'a-link-to-other'));
    const { runtimes, errors } = await readRuntimes(dir.path, noStdin);
    expect(errors).toEqual([]);
    // By name order the links come first, so the files are read through them; never twice.
    expect(runtimes.map((r) => [r.source, r.runtime.metadata.name])).toEqual([
      [join(dir.path, 'a-link-to-other/two.yaml'), 'two'],
      [join(dir.path, 'linked/one.yaml'), 'one'],
    ]);
  });

  it('refuses a symlinked folder outside the tree, and a link that leads nowhere, naming each', async () => {
    await dir.write('outside/three.yaml', runtime('three'));
    await dir.write('tree/one.yaml', runtime('one'));
    await symlink(join(dir.path, 'outside'), join(dir.path, 'tree', 'elsewhere'));
    await symlink(join(dir.path, 'nowhere'), join(dir.path, 'tree', 'broken'));
    const tree = join(dir.path, 'tree');
    const { runtimes, errors } = await readRuntimes(tree, noStdin);
    expect(runtimes.map((r) => r.runtime.metadata.name)).toEqual(['one']);
    expect(errors.map((e) => e.message)).toEqual([
      `${join(tree, 'broken')}: a symbolic link that cannot be followed (not found) — fix its target or remove it`,
      `${join(tree, 'elsewhere')}: a symbolic link to the folder ${join(dir.path, 'outside')}, outside ${tree}: links are followed only within the folder read — move those manifests under it, or pass ${join(dir.path, 'outside')} itself`,
    ]);
  });

  it('reports a file of another extension that holds a manifest, and passes over one that does not', async () => {
    await dir.write('aws.yaml.bak', runtime('aws'));
    await dir.write('exported.txt', JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [] }, null, 2));
    await dir.write('notes.txt', 'kind: of a note, no apiVersion here\n');
    await dir.write('README.md', 'The Runtimes of dev.\n');
    const { runtimes, errors } = await readRuntimes(dir.path, noStdin);
    expect(runtimes).toEqual([]);
    expect(errors.map((e) => e.message)).toEqual([
      `${join(dir.path, 'aws.yaml.bak')}: looks like a Kubernetes manifest (apiVersion and kind) but is not read: only .yaml, .yml and .json files are — rename it, or move it out of ${dir.path}`,
      `${join(dir.path, 'exported.txt')}: looks like a Kubernetes manifest (apiVersion and kind) but is not read: only .yaml, .yml and .json files are — rename it, or move it out of ${dir.path}`,
    ]);
  });

  it('refuses a FIFO named like a manifest instead of waiting for a writer', async () => {
    execFileSync('mkfifo', [join(dir.path, 'pipe.yaml')]);
    const { errors } = await readRuntimes(dir.path, noStdin);
    expect(errors.map((e) => e.message)).toEqual([
      `${join(dir.path, 'pipe.yaml')}: is not a regular file (a FIFO, socket or device) — replace it with the file itself`,
    ]);
  });

  it('reports each bad document with its file and index, and still returns the good ones', async () => {
    const file = await dir.write(
      'mixed.yaml',
      [runtime('one'), shoot('not-a-runtime'), 'a: [\n', runtime('two'), '- just a list'].join('---\n'),
    );
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
    const list = {
      apiVersion: 'v1',
      kind: 'List',
      items: [runtime('x'), runtime('y')].map((text) => ({
        apiVersion: 'infrastructuremanager.kyma-project.io/v1',
        kind: 'Runtime',
        metadata: { name: text.match(/name: (\w)\n/)?.[1] },
      })),
    };
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
    await dir.write(
      'shoots/s1/configmap-structured-auth-config-s1.yaml',
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: structured-auth-config-s1\n',
    );
    const { shoots, errors } = await readShoots(dir.path, noStdin);
    expect(errors).toEqual([]);
    expect(shoots.map((s) => s.shoot.metadata.name)).toEqual(['s1']);
  });

  it('says a file without kind and apiVersion is no Kubernetes object', async () => {
    const file = await dir.write('kimops.yaml', 'landscape: dev\n');
    const { errors } = await readShoots(file, noStdin);
    expect(errors.map((e) => e.message)).toEqual([
      `${file}: has no kind and apiVersion, so it is no Kubernetes object — expected a Shoot (core.gardener.cloud/v1beta1)`,
    ]);
  });

  it('reads Shoots and refuses Runtimes', async () => {
    const file = await dir.write('live.yaml', `${shoot('s1')}---\n${runtime('r')}`);
    const { shoots, errors } = await readShoots(file, noStdin);
    expect(shoots.map((s) => s.shoot.metadata.name)).toEqual(['s1']);
    expect(errors).toHaveLength(1);
    expect(errors[0]?.message).toContain('is a Runtime (infrastructuremanager.kyma-project.io/v1), not a Shoot');
  });

  it('refuses stdin past the limit of one file instead of reading it whole', async () => {
    async function* endless() {
      const chunk = Buffer.alloc(2 ** 20, 'a');
      for (;;) yield chunk;
    }
    await expect(readBounded(endless())).rejects.toThrow(
      `<stdin>: is over kimops's limit of ${MAX_TEXT_FILE_BYTES / 2 ** 20} MiB for one input`,
    );
    async function* small() {
      yield Buffer.from('kind: Runtime\n');
    }
    expect(await readBounded(small())).toBe('kind: Runtime\n');
  });
});
