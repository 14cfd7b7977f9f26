import { describe, expect, it } from 'vitest';
import { fillPlaceholders, readTemplate } from '../adapters/files/template.js';
import { LandscapeRepo } from '../adapters/git/landscape-repo.js';
import { KIMOPS_YAML } from '../model/kimops-config.js';
import { useTempDir } from '../test/helpers/temp-dir.js';
import { readMainSnapshot } from './main-snapshot.js';

const dir = useTempDir('main-snapshot');
const SHOOT = 'apiVersion: core.gardener.cloud/v1beta1\nkind: Shoot\nmetadata:\n  name: good\nspec: {}\n';

describe('readMainSnapshot', () => {
  it('reads a Shoot, and reports a shoot.yaml that is valid YAML but no Shoot of its folder as broken', async () => {
    const repo = await LandscapeRepo.open(`${dir.path}/landscape.git`);
    const config = fillPlaceholders((await readTemplate()).get(KIMOPS_YAML) as string, {
      landscape: 'dev',
      project: 'kyma-dev',
    });
    const onMain: Record<string, string> = {
      good: SHOOT,
      configmap: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: configmap\n',
      list: '- a\n',
      string: 'just a string\n',
      renamed: SHOOT,
      nameless: 'apiVersion: core.gardener.cloud/v1beta1\nkind: Shoot\nspec: {}\n',
      specless: SHOOT.replace('name: good', 'name: specless').replace('spec: {}\n', ''),
      two: `${SHOOT.replace('name: good', 'name: two')}---\n${SHOOT.replace('name: good', 'name: two')}`,
      empty: '# nothing\n',
    };
    const files = new Map([
      [KIMOPS_YAML, config],
      ...Object.entries(onMain).map(([name, text]) => [`shoots/${name}/shoot.yaml`, text] as [string, string]),
    ]);
    await repo.commitFiles({
      branch: 'main',
      files,
      message: 'shoots',
      author: { name: 'test', email: 'test@localhost' },
    });

    const snapshot = await readMainSnapshot(repo, 'main', 'dev');
    const shoots = Object.fromEntries(
      await Promise.all(Object.keys(onMain).map(async (name) => [name, await snapshot.shoot(name)])),
    );
    expect(shoots['good']).toMatchObject({ kind: 'Shoot', metadata: { name: 'good' } });
    expect(Object.values(shoots).filter(Boolean)).toHaveLength(1);
    expect(Object.fromEntries([...snapshot.broken].map(([name, error]) => [name, error.message]))).toEqual({
      configmap:
        'shoots/configmap/shoot.yaml on main: kind: must be a core.gardener.cloud/v1beta1 Shoot, found v1 ConfigMap',
      list: 'shoots/list/shoot.yaml on main: kind: must be a core.gardener.cloud/v1beta1 Shoot, found no Kubernetes object but a list',
      string:
        'shoots/string/shoot.yaml on main: kind: must be a core.gardener.cloud/v1beta1 Shoot, found no Kubernetes object but a string',
      renamed: 'shoots/renamed/shoot.yaml on main: metadata.name: is "good", but the folder is shoots/renamed/',
      nameless: 'shoots/nameless/shoot.yaml on main: metadata.name: is undefined, but the folder is shoots/nameless/',
      specless: 'shoots/specless/shoot.yaml on main: spec: is missing: a Shoot manifest needs its spec',
      two: 'shoots/two/shoot.yaml on main: holds 2 YAML documents; a Shoot file holds exactly one',
      empty: 'shoots/empty/shoot.yaml on main: is empty',
    });
  });

  it("knows a folder with its cluster's objects (skr/) by its oid, reading nothing", async () => {
    const repo = await LandscapeRepo.open(`${dir.path}/landscape.git`);
    const config = fillPlaceholders((await readTemplate()).get(KIMOPS_YAML) as string, {
      landscape: 'dev',
      project: 'kyma-dev',
    });
    const folder = new Map([
      ['shoots/good/shoot.yaml', SHOOT],
      ['shoots/good/configmap-a.yaml', 'kind: ConfigMap\n'],
      ['shoots/good/skr/namespace-kyma-system.yaml', 'kind: Namespace\n'],
      ['shoots/good/skr/openidconnect-kyma-oidc-0.yaml', 'kind: OpenIDConnect\n'],
    ]);
    const author = { name: 'test', email: 'test@localhost' };
    await repo.commitFiles({
      branch: 'main',
      files: new Map([[KIMOPS_YAML, config], ...folder]),
      message: 'm',
      author,
    });
    const snapshot = await readMainSnapshot(repo, 'main', 'dev');
    expect(snapshot.holds('good', folder)).toBe(true);
    expect((await snapshot.folder('good')).files).toEqual(folder);
    const changed = new Map(folder).set('shoots/good/skr/namespace-kyma-system.yaml', 'kind: Namespace # x\n');
    expect(snapshot.holds('good', changed)).toBe(false);
    const fewer = new Map([...folder].filter(([path]) => !path.includes('openidconnect')));
    expect(snapshot.holds('good', fewer)).toBe(false);
    expect(snapshot.holds('good', new Map(folder).set('shoots/good//x.yaml', ''))).toBe(false);
    expect(snapshot.holds('good', new Map(folder).set('shoots/other/x.yaml', ''))).toBe(false);
  });
});
