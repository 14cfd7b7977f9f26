import { describe, expect, it } from 'vitest';
import { skrChanges, skrChangeText, skrClass } from './skr-changes.js';

const FOLDER = 'shoots/c-1/skr';

const binding = (user: string, name = `admin-${user.slice(0, 5)}`) => [
  `${FOLDER}/clusterrolebinding-${name}.yaml`,
  [
    'apiVersion: rbac.authorization.k8s.io/v1',
    'kind: ClusterRoleBinding',
    'metadata:',
    `  name: ${name}`,
    'roleRef:',
    '  name: cluster-admin',
    'subjects:',
    `- name: "${user}"`,
    '  kind: User',
    '',
  ].join('\n'),
];
const oidc = (issuer: string, clientID = 'c') => [
  `${FOLDER}/openidconnect-kyma-oidc-0.yaml`,
  [
    'apiVersion: authentication.gardener.cloud/v1alpha1',
    'kind: OpenIDConnect',
    'metadata:',
    '  name: kyma-oidc-0',
    'spec:',
    `  clientID: ${clientID}`,
    `  issuerURL: ${issuer}`,
    '',
  ].join('\n'),
];
const info = (max: number) => [
  `${FOLDER}/configmap-kyma-provisioning-info.yaml`,
  [
    'apiVersion: v1',
    'kind: ConfigMap',
    'metadata:',
    '  name: kyma-provisioning-info',
    '  namespace: kyma-system',
    'data:',
    '  details: |',
    '    region: eu-central-1',
    '    workerPools:',
    '      kyma:',
    `        autoScalerMax: ${max}`,
    '',
  ].join('\n'),
];
const namespace = [
  `${FOLDER}/namespace-kyma-system.yaml`,
  'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: kyma-system\n',
];
const shoot = ['shoots/c-1/shoot.yaml', 'kind: Shoot\n'];
const files = (...entries: string[][]) => new Map(entries.map(([path, text]) => [path as string, text as string]));
const lines = (after: Map<string, string>, before?: Map<string, string>) =>
  skrChanges(after, before).map(skrChangeText);

describe('skrChanges', () => {
  it('says who comes and who goes among the administrators, on one line', () => {
    expect(
      lines(
        files(shoot, binding('alice@example.com'), binding('carol@example.com')),
        files(shoot, binding('bob@example.com', 'admin-b'), binding('carol@example.com')),
      ),
    ).toEqual(['administrators: + alice@example.com, − bob@example.com']);
  });

  it("names an OIDC provider's changed fields, and its issuer and client when it comes or goes", () => {
    expect(lines(files(oidc('https://b.example')), files(oidc('https://a.example')))).toEqual([
      'OIDC kyma-oidc-0: issuerURL https://a.example → https://b.example',
    ]);
    expect(lines(files(oidc('https://b.example', 'c2')), files())).toEqual([
      'OIDC kyma-oidc-0: added (issuer https://b.example, client c2)',
    ]);
    expect(lines(files(), files(oidc('https://a.example')))).toEqual([
      'OIDC kyma-oidc-0: removed (issuer https://a.example, client c)',
    ]);
  });

  it("names the provisioning details' changed fields by their path in the details", () => {
    expect(lines(files(info(25)), files(info(20)))).toEqual([
      'ConfigMap kyma-provisioning-info: workerPools.kyma.autoScalerMax 20 → 25',
    ]);
  });

  it("in KIM's order: the Namespace, the ConfigMap, the OIDC providers, the administrators", () => {
    expect(lines(files(binding('alice@example.com'), oidc('https://a.example'), info(3), namespace), files())).toEqual([
      'Namespace kyma-system: added',
      'ConfigMap kyma-provisioning-info: added',
      'OIDC kyma-oidc-0: added (issuer https://a.example, client c)',
      'administrators: + alice@example.com',
    ]);
  });

  it('nothing when only the Shoot or its companions change, or the SKR files are the same', () => {
    expect(
      lines(files(['shoots/c-1/shoot.yaml', 'b'], namespace), files(['shoots/c-1/shoot.yaml', 'a'], namespace)),
    ).toEqual([]);
    expect(lines(files(['shoots/c-1/configmap-x.yaml', 'b']), files(['shoots/c-1/configmap-x.yaml', 'a']))).toEqual([]);
  });

  it("says so when main's file cannot be read, and when only the bytes changed", () => {
    expect(lines(files(namespace), files([namespace[0] as string, 'kind: [\n']))).toEqual([
      "Namespace kyma-system: main's file is no object kimops can read",
    ]);
    expect(lines(files(namespace), files([namespace[0] as string, `${namespace[1] as string}# note\n`]))).toEqual([
      'Namespace kyma-system: rewritten, the same values',
    ]);
  });
});

describe('skrClass', () => {
  const changes = [{ subject: 'administrators', detail: '+ alice@example.com' }];

  it('is skr when the Runtime asked, skr-unrequested when not; never disruptive, keeping the Shoot bookkeeping', () => {
    const bookkeeping = [{ path: 'metadata.annotations["x"]', kind: 'changed' as const, before: '1', after: '2' }];
    expect(skrClass(changes, true, bookkeeping)).toEqual({
      class: 'skr',
      disruptive: false,
      reasons: [
        'the Runtime asked for it: only objects inside the cluster change (administrators); the Shoot stays as it is, and the applier applies them in the cluster once it is reconciled',
      ],
      changes: bookkeeping,
    });
    expect(skrClass(changes, false, [])).toMatchObject({
      class: 'skr-unrequested',
      reasons: [expect.stringMatching(/^no Runtime asked for it \(the landscape or kimops changed\): /)],
    });
  });
});
