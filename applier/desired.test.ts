import { describe, expect, it } from 'vitest';
import { shootFiles } from '../rules/landscape-layout.js';
import type { ConfigMap } from '../model/shoot.js';
import { testShoot } from '../test/helpers/test-shoot.js';
import { desiredFromFiles } from './desired.js';

const configMap = (name: string): ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'garden-kyma-dev' },
  data: { k: 'v' },
});

/** The files the generator writes for the test Shoot, plus overrides (undefined removes a file). */
function repo(overrides: Record<string, string | undefined> = {}): Map<string, string> {
  const files = new Map<string, string>([
    ['kimops.yaml', 'landscape: dev\n'],
    ['README.md', '# repo\n'],
  ]);
  for (const file of shootFiles(testShoot(), [configMap('structured-auth-config-c-1'), configMap('a-first')]))
    files.set(file.path, file.content);
  for (const [path, text] of Object.entries(overrides)) {
    if (text === undefined) files.delete(path);
    else files.set(path, text);
  }
  return files;
}

/** SKR objects as the generator writes them into `shoots/c-1/skr/`. */
const SKR_FILES: Record<string, string> = {
  'shoots/c-1/skr/namespace-kyma-system.yaml': 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: kyma-system\n',
  'shoots/c-1/skr/configmap-kyma-provisioning-info.yaml':
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kyma-provisioning-info\n  namespace: kyma-system\n  labels:\n    reconciler.kyma-project.io/managed-by: infrastructure-manager\ndata:\n  details: |\n    region: eu-west-1\n',
  'shoots/c-1/skr/clusterrolebinding-admin-0123456789.yaml': binding('admin-0123456789', 'admin@example.com'),
  'shoots/c-1/skr/openidconnect-kyma-oidc-0.yaml':
    'apiVersion: authentication.gardener.cloud/v1alpha1\nkind: OpenIDConnect\nmetadata:\n  name: kyma-oidc-0\n  labels:\n    operator.kyma-project.io/managed-by: infrastructure-manager\nspec:\n  issuerURL: https://issuer.example.com\n  clientID: c\n  usernameClaim: sub\n',
};

function binding(name: string, user: string, extra = ''): string {
  return `apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: ${name}\n  labels:\n    reconciler.kyma-project.io/managed-by: infrastructure-manager\n${extra}roleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: ClusterRole\n  name: cluster-admin\nsubjects:\n- apiGroup: rbac.authorization.k8s.io\n  kind: User\n  name: ${user}\n`;
}

describe('desiredFromFiles', () => {
  it('reads the generator’s layout back: the Shoot, its companions sorted by path, nothing outside shoots/', () => {
    const { shoots, problems } = desiredFromFiles(repo());
    expect(problems).toEqual([]);
    expect(shoots).toHaveLength(1);
    expect(shoots[0]).toMatchObject({ name: 'c-1', path: 'shoots/c-1/shoot.yaml', shoot: testShoot() });
    expect(shoots[0]?.companions.map((c) => c.path)).toEqual([
      'shoots/c-1/configmap-a-first.yaml',
      'shoots/c-1/configmap-structured-auth-config-c-1.yaml',
    ]);
    expect(shoots[0]?.companions[1]?.object).toEqual(configMap('structured-auth-config-c-1'));
  });

  it('holds back a Shoot whose folder defines one companion twice', () => {
    const copy = repo().get('shoots/c-1/configmap-a-first.yaml') ?? '';
    const { shoots, problems } = desiredFromFiles(repo({ 'shoots/c-1/configmap-z-copy.yaml': copy }));
    expect(shoots).toEqual([]);
    expect(problems.map((p) => p.error.message)).toEqual([
      expect.stringContaining(
        'ConfigMap a-first is also defined in shoots/c-1/configmap-a-first.yaml: keep one of the two files',
      ) as string,
    ]);
    expect(problems[0]?.shoot).toBe('c-1');
  });

  it('sorts Shoots by name and skips files that are not .yaml', () => {
    const other = repo();
    for (const [path, text] of repo())
      if (path.startsWith('shoots/c-1/shoot.yaml'))
        other.set('shoots/a-0/shoot.yaml', text.replace('name: c-1', 'name: a-0'));
    other.set('shoots/a-0/notes.md', 'not yaml: [');
    expect(desiredFromFiles(other).shoots.map((s) => s.name)).toEqual(['a-0', 'c-1']);
  });

  it.each<[string, Record<string, string | undefined>, string, RegExp]>([
    ['unreadable YAML', { 'shoots/c-1/shoot.yaml': 'kind: Shoot\n  bad: [' }, 'shoots/c-1/shoot.yaml', /fix the YAML/],
    [
      'a folder without shoot.yaml',
      { 'shoots/c-1/shoot.yaml': undefined },
      'shoots/c-1/',
      /has no shoot.yaml.*remove the folder/,
    ],
    [
      'a name that differs from the folder',
      { 'shoots/c-1/shoot.yaml': repo().get('shoots/c-1/shoot.yaml')?.replace('name: c-1', 'name: c-2') },
      'shoots/c-1/shoot.yaml',
      /metadata\.name: is "c-2" but the folder is shoots\/c-1\//,
    ],
    [
      'a companion of an unexpected kind',
      { 'shoots/c-1/secret-x.yaml': 'apiVersion: v1\nkind: Secret\nmetadata: {name: x}\n' },
      'shoots/c-1/secret-x.yaml',
      /v1 Secret.*can only be v1 ConfigMap/,
    ],
    [
      'two documents in one file',
      { 'shoots/c-1/configmap-a-first.yaml': `${repo().get('shoots/c-1/configmap-a-first.yaml')}---\na: 1\n` },
      'shoots/c-1/configmap-a-first.yaml',
      /holds 2 YAML documents/,
    ],
    [
      'a shoot.yaml that is not a Shoot',
      { 'shoots/c-1/shoot.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c-1}\n' },
      'shoots/c-1/shoot.yaml',
      /must be a core.gardener.cloud\/v1beta1 Shoot/,
    ],
    [
      'a file nested too deep',
      { 'shoots/c-1/extra/x.yaml': 'a: 1\n' },
      'shoots/c-1/extra/x.yaml',
      /move it to shoots\/<shoot-name>\//,
    ],
  ])('reports %s as a value naming the file, and holds the Shoot back', (_what, overrides, source, detail) => {
    const { shoots, problems } = desiredFromFiles(repo(overrides));
    expect(shoots).toEqual([]);
    expect(problems).toHaveLength(1);
    expect(problems[0]?.shoot).toBe('c-1');
    expect(problems[0]?.error.source).toBe(source);
    expect(problems[0]?.error.message).toMatch(detail);
  });

  it('holds back a Shoot whose folder is left with only files it does not read (shoot.yml), never taking it for deleted', () => {
    const renamed = repo({
      'shoots/c-1/shoot.yaml': undefined,
      'shoots/c-1/configmap-structured-auth-config-c-1.yaml': undefined,
      'shoots/c-1/configmap-a-first.yaml': undefined,
      'shoots/c-1/shoot.yml': 'kind: Shoot\n',
    });
    const { shoots, problems } = desiredFromFiles(renamed);
    expect(shoots).toEqual([]);
    expect(problems.map((p) => [p.shoot, p.error.message])).toEqual([
      ['c-1', 'shoots/c-1/: has no shoot.yaml: add the Shoot manifest, or remove the folder to delete the Shoot'],
    ]);
  });

  it('reads skr/ into the Shoot’s SKR objects, sorted by path; a folder without skr/ has none', () => {
    expect(desiredFromFiles(repo()).shoots[0]?.skr).toEqual([]);
    const { shoots, problems } = desiredFromFiles(repo({ ...SKR_FILES, 'shoots/c-1/skr/README.md': '# notes\n' }));
    expect(problems).toEqual([]);
    expect(shoots[0]?.skr.map((o) => o.path)).toEqual([
      'shoots/c-1/skr/clusterrolebinding-admin-0123456789.yaml',
      'shoots/c-1/skr/configmap-kyma-provisioning-info.yaml',
      'shoots/c-1/skr/namespace-kyma-system.yaml',
      'shoots/c-1/skr/openidconnect-kyma-oidc-0.yaml',
    ]);
    expect(shoots[0]?.skr[0]?.object).toMatchObject({
      kind: 'ClusterRoleBinding',
      metadata: { name: 'admin-0123456789' },
    });
    // SKR objects are no companions: nothing of them is applied to the Garden.
    expect(shoots[0]?.companions.map((c) => c.path)).toEqual([
      'shoots/c-1/configmap-a-first.yaml',
      'shoots/c-1/configmap-structured-auth-config-c-1.yaml',
    ]);
  });

  it('holds a Shoot back whose skr/ lacks the Namespace or kyma-provisioning-info (a step would never run)', () => {
    const withoutNamespace = Object.fromEntries(
      Object.entries(SKR_FILES).filter(([path]) => !path.endsWith('/namespace-kyma-system.yaml')),
    );
    const { shoots, problems } = desiredFromFiles(repo(withoutNamespace));
    expect(shoots).toEqual([]);
    expect(problems.map((p) => p.error.message)).toEqual([
      expect.stringMatching(/^shoots\/c-1\/skr\/.*has no Namespace \(kyma-system\)/),
    ]);
  });

  it.each<[string, Record<string, string>, string, RegExp]>([
    [
      'a kind KIM does not put on an SKR',
      { 'shoots/c-1/skr/secret-x.yaml': 'apiVersion: v1\nkind: Secret\nmetadata: {name: x}\n' },
      'shoots/c-1/skr/secret-x.yaml',
      /kind: must be one of v1 Namespace, v1 ConfigMap, .*OpenIDConnect, .*ClusterRoleBinding.*\(v1 Secret in shoots\/c-1\/skr\/\)/,
    ],
    [
      'a Namespace other than kyma-system',
      { 'shoots/c-1/skr/namespace-x.yaml': 'apiVersion: v1\nkind: Namespace\nmetadata: {name: x}\n' },
      'shoots/c-1/skr/namespace-x.yaml',
      /metadata.name: must be kyma-system/,
    ],
    [
      'a ConfigMap other than kyma-provisioning-info',
      {
        'shoots/c-1/skr/configmap-x.yaml':
          'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: kyma-system}\n',
      },
      'shoots/c-1/skr/configmap-x.yaml',
      /must name kyma-system\/kyma-provisioning-info/,
    ],
    [
      'kyma-provisioning-info without its details',
      {
        'shoots/c-1/skr/configmap-kyma-provisioning-info.yaml':
          'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: kyma-provisioning-info, namespace: kyma-system}\n',
      },
      'shoots/c-1/skr/configmap-kyma-provisioning-info.yaml',
      /data.details: is missing/,
    ],
    [
      'a binding without KIM’s label (never pruned again)',
      {
        'shoots/c-1/skr/clusterrolebinding-x.yaml': binding('x', 'a@example.com').replace(
          '    reconciler.kyma-project.io/managed-by: infrastructure-manager\n',
          '    team: a\n',
        ),
      },
      'shoots/c-1/skr/clusterrolebinding-x.yaml',
      /metadata.labels: must carry reconciler.kyma-project.io\/managed-by: infrastructure-manager/,
    ],
    [
      'a binding of another role',
      {
        'shoots/c-1/skr/clusterrolebinding-x.yaml': binding('x', 'a@example.com').replace(
          'name: cluster-admin',
          'name: view',
        ),
      },
      'shoots/c-1/skr/clusterrolebinding-x.yaml',
      /roleRef: must bind User subjects to the ClusterRole cluster-admin/,
    ],
    [
      'a cluster-scoped object with a namespace',
      { 'shoots/c-1/skr/clusterrolebinding-x.yaml': binding('x', 'a@example.com', '  namespace: default\n') },
      'shoots/c-1/skr/clusterrolebinding-x.yaml',
      /metadata.namespace: is set, but the kind is cluster-scoped/,
    ],
    [
      'one object in two files',
      { ...SKR_FILES, 'shoots/c-1/skr/clusterrolebinding-z.yaml': binding('admin-0123456789', 'b@example.com') },
      'shoots/c-1/skr/clusterrolebinding-z.yaml',
      /ClusterRoleBinding admin-0123456789 is also defined in shoots\/c-1\/skr\/clusterrolebinding-admin-0123456789.yaml/,
    ],
    [
      'a folder below skr/',
      {
        'shoots/c-1/skr/more/namespace-kyma-system.yaml': SKR_FILES['shoots/c-1/skr/namespace-kyma-system.yaml'] ?? '',
      },
      'shoots/c-1/skr/more/namespace-kyma-system.yaml',
      /is not where kimops reads manifests/,
    ],
  ])('holds the Shoot back for %s in skr/', (_what, overrides, source, detail) => {
    const { shoots, problems } = desiredFromFiles(repo(overrides));
    expect(shoots).toEqual([]);
    expect(problems.map((p) => [p.shoot, p.error.source])).toEqual([['c-1', source]]);
    expect(problems[0]?.error.message).toMatch(detail);
  });

  describe('registry-cache/ stubs', () => {
    const STUB =
      'apiVersion: v1\nkind: Secret\nmetadata:\n  name: reg-cache-1\n  namespace: garden-kyma-dev\n  labels:\n    kyma-project.io/runtime-id: rt-1\n    kyma-project.io/registry-cache-id: u-1\n    app.kubernetes.io/managed-by: infrastructure-manager\n  annotations:\n    kyma-project.io/registry-cache-name: c\n    kyma-project.io/registry-cache-namespace: kyma-system\n    kimops.kyma-project.io/registry-cache-secret: creds\nimmutable: true\n';
    const PATH = 'shoots/c-1/registry-cache/secret-reg-cache-1.yaml';

    it('reads them beside the Shoot, never as companions', () => {
      const { shoots, problems } = desiredFromFiles(repo({ [PATH]: STUB }));
      expect(problems).toEqual([]);
      expect(shoots[0]?.registryCache?.map((s) => [s.path, s.object.metadata.name])).toEqual([[PATH, 'reg-cache-1']]);
      expect(shoots[0]?.companions.map((c) => c.object.kind)).toEqual(['ConfigMap', 'ConfigMap']);
    });

    it('holds the Shoot back for a stub with data, naming the file and the fix', () => {
      const { shoots, problems } = desiredFromFiles(repo({ [PATH]: `${STUB}data:\n  password: eA==\n` }));
      expect(shoots).toEqual([]);
      expect(problems.map((p) => [p.shoot, p.error.source])).toEqual([['c-1', PATH]]);
      expect(problems[0]?.error.message).toContain('the applier copies the data from the SKR');
    });

    it('holds the Shoot back for two stubs of one Secret', () => {
      const twin = PATH.replace('secret-reg-cache-1', 'secret-copy');
      const { problems } = desiredFromFiles(repo({ [PATH]: STUB, [twin]: STUB }));
      expect(problems[0]?.error.message).toContain(`is also defined in ${twin}`);
    });
  });

  it('reports a YAML file directly under shoots/ without holding any Shoot back', () => {
    const { shoots, problems } = desiredFromFiles(repo({ 'shoots/stray.yaml': 'a: 1\n' }));
    expect(shoots.map((s) => s.name)).toEqual(['c-1']);
    expect(problems).toHaveLength(1);
    expect(problems[0]?.shoot).toBeUndefined();
  });
});
