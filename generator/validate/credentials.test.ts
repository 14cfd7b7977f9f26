import { readdirSync, readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { readLandscape } from '../../adapters/files/landscape.js';
import { readRuntimes } from '../../adapters/files/manifests.js';
import { conversionSettingsOf } from '../../model/landscape.js';
import { filesOf } from '../../rules/landscape-layout.js';
import { renderRuntimes } from '../render-runtimes.js';
import { scanFile } from './credentials.js';

const base64 = (text: string) => Buffer.from(text).toString('base64');
// Made up, in the formats gitleaks' rules describe.
const GITHUB_TOKEN = `ghp_${'aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6'}`;
const AWS_KEY = 'AKIAIOSFODNN7EXAMPLE';
const SLACK_TOKEN = 'xoxb-1234567890-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx';
const PASSWORD = 'hunter2-Xq9';
const DOCKER_CONFIG = base64(
  JSON.stringify({
    auths: { 'registry.example.com': { username: 'robot', password: PASSWORD, auth: base64(`robot:${PASSWORD}`) } },
  }),
);
const SERVICE_ACCOUNT = JSON.stringify(
  {
    type: 'service_account',
    project_id: 'p',
    private_key_id: 'k1',
    private_key: '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBg\n-----END PRIVATE KEY-----\n',
    client_email: 'sa@p.iam.gserviceaccount.com',
  },
  null,
  2,
);

/** The credentials planted in the cases below: no message may print any of them. */
const SECRETS = [GITHUB_TOKEN, AWS_KEY, SLACK_TOKEN, PASSWORD, 'abc.def.ghi', 'MIIEvQIBADANBg', 's3cr3t-Value'];

describe('scanFile', () => {
  it("passes the generator's data-less registry-cache stub, but not one with data", () => {
    const stub =
      'apiVersion: v1\nkind: Secret\nmetadata:\n  name: reg-cache-1\n  annotations:\n    kimops.kyma-project.io/registry-cache-secret: creds\nimmutable: true\n';
    const path = 'shoots/a/registry-cache/secret-reg-cache-1.yaml';
    expect(scanFile(path, stub)).toEqual([]);
    expect(scanFile(path, `${stub}data:\n  password: eA==\n`).map((f) => f.rule)).toContain('secret-object');
  });

  it.each([
    [
      'a Secret object',
      'shoots/a/secret.yaml',
      'apiVersion: v1\nkind: Secret\nmetadata:\n  name: x\n',
      [[2, 'secret-object', 'document 1 (Secret x): a Secret object']],
    ],
    [
      'a Secret object in JSON',
      'x.json',
      '{\n  "apiVersion": "v1",\n  "kind": "Secret"\n}',
      [[3, 'secret-object', 'document 1 (Secret): a Secret object']],
    ],
    [
      'a PEM private key',
      'notes.md',
      'text\n-----BEGIN RSA PRIVATE KEY-----\nMIIE\n',
      [[2, 'private-key', 'a PEM private key']],
    ],
    [
      'an OpenSSH private key',
      'id',
      '-----BEGIN OPENSSH PRIVATE KEY-----\n',
      [[1, 'private-key', 'a PEM private key']],
    ],
    [
      'a kubeconfig client key',
      'kubeconfig',
      'users:\n- name: u\n  user:\n    client-key-data: LS0tLS1CRUdJTg==\n',
      [[4, 'kubeconfig-client-key', 'users[0].user.client-key-data: a kubeconfig client key']],
    ],
    [
      'a password literal',
      'config.yaml',
      `db:\n  password: ${PASSWORD}\n`,
      [[2, 'credential-value', 'db.password: a literal value for "password" (11 characters)']],
    ],
    [
      'a token literal',
      'values.yaml',
      '  token: "abc.def.ghi"\n',
      [[1, 'credential-value', 'token: a literal value for "token"']],
    ],
    [
      'a token in a block scalar',
      'values.yaml',
      'token: |\n  abcdef\n',
      [[1, 'credential-value', 'token: a literal value for "token"']],
    ],
    [
      'a value on the next line',
      'values.yaml',
      'db:\n  password:\n    s3cr3t-Value\n',
      [[2, 'credential-value', 'db.password: a literal value for "password"']],
    ],
    [
      'a GitHub token anywhere',
      'src/x.ts',
      `const t = '${GITHUB_TOKEN}';\n`,
      [[1, 'token-pattern', 'a GitHub personal access token (ghp_…, 40 characters)']],
    ],
    [
      'an AWS access key id',
      'README.md',
      `key ${AWS_KEY} here\n`,
      [[1, 'token-pattern', 'an AWS access key id (AKIA…, 20 characters)']],
    ],
    [
      'a Slack token in JSON',
      'hooks.json',
      `{"slack": {"bot": "${SLACK_TOKEN}"}}`,
      [[1, 'token-pattern', 'slack.bot: a Slack token (xoxb-…']],
    ],
    [
      'a token in a Shoot label (a Runtime label kimops copied)',
      'shoots/c-1/shoot.yaml',
      `apiVersion: core.gardener.cloud/v1beta1\nkind: Shoot\nmetadata:\n  name: c-1\n  labels:\n    account: ${GITHUB_TOKEN}\n`,
      [[6, 'token-pattern', 'document 1 (Shoot c-1), metadata.labels.account: a GitHub personal access token']],
    ],
    [
      'a token in a YAML comment',
      'x.yaml',
      `# the old one was ${GITHUB_TOKEN}\nfoo: bar\n`,
      [[1, 'token-pattern', 'a GitHub personal access token']],
    ],
    [
      'a Google Cloud service account key',
      'gcp.json',
      SERVICE_ACCOUNT,
      [[2, 'service-account-key', 'document 1: a Google Cloud service account key of sa@p.iam.gserviceaccount.com']],
    ],
    [
      'a Secret as flow YAML, its base64 data decoded',
      'x.yaml',
      `{apiVersion: v1, kind: Secret, metadata: {name: s}, data: {token: ${base64(GITHUB_TOKEN)}}}\n`,
      [
        [1, 'secret-object', 'document 1 (Secret s): a Secret object holding data.token'],
        [1, 'token-pattern', 'document 1 (Secret s), data.token (base64): a GitHub personal access token'],
      ],
    ],
    [
      'a Secret as one line of JSON',
      'x.json',
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 's', namespace: 'kcp-system' },
        data: { aws: base64(AWS_KEY) },
      }),
      [
        [1, 'secret-object', 'document 1 (Secret kcp-system/s): a Secret object holding data.aws'],
        [1, 'token-pattern', 'data.aws (base64): an AWS access key id'],
      ],
    ],
    [
      'a Secret inside a List',
      'list.yaml',
      `apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: c}\n- apiVersion: v1\n  kind: Secret\n  metadata: {name: s}\n  stringData:\n    password: ${PASSWORD}\n`,
      [
        [8, 'secret-object', 'document 1 (List), items[1]: a Secret object (s) holding stringData.password'],
        [11, 'credential-value', 'items[1].stringData.password: a literal value for "password"'],
      ],
    ],
    [
      'a Secret with YAML tags',
      'x.yaml',
      `apiVersion: v1\nkind: !!str Secret\nmetadata:\n  name: t\ndata:\n  token: !!binary ${base64(GITHUB_TOKEN)}\n`,
      [
        [2, 'secret-object', 'document 1 (Secret t): a Secret object holding data.token'],
        [6, 'token-pattern', 'data.token (!!binary): a GitHub personal access token'],
      ],
    ],
    [
      'a registry pull Secret (.dockerconfigjson)',
      'pull.yaml',
      `apiVersion: v1\nkind: Secret\nmetadata:\n  name: pull\ntype: kubernetes.io/dockerconfigjson\ndata:\n  .dockerconfigjson: ${DOCKER_CONFIG}\n`,
      [
        [2, 'secret-object', 'a Secret object holding data[".dockerconfigjson"]'],
        [
          7,
          'registry-credential',
          'data[".dockerconfigjson"] (base64, JSON) → auths["registry.example.com"].password: the "password" of registry registry.example.com',
        ],
        [7, 'registry-credential', 'auths["registry.example.com"].auth: the "auth" of registry registry.example.com'],
      ],
    ],
    [
      'a kubeconfig held in a ConfigMap',
      'cm.yaml',
      `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: kc}\ndata:\n  kubeconfig: |\n    users:\n    - name: u\n      user:\n        token: ${GITHUB_TOKEN}\n`,
      [
        [
          9,
          'token-pattern',
          'document 1 (ConfigMap kc), data.kubeconfig (YAML) → users[0].user.token: a GitHub personal access token',
        ],
      ],
    ],
    [
      'a second document',
      'x.yaml',
      `kind: ConfigMap\nmetadata: {name: a}\n---\nkind: ConfigMap\nmetadata: {name: b}\ndata:\n  apiKey: ${PASSWORD}\n`,
      [[7, 'credential-value', 'document 2 (ConfigMap b), data.apiKey']],
    ],
    [
      'a high-entropy value of a key that names a credential',
      'x.yaml',
      'dbPasswordValue: Zq8Xv2Lp9Wm4Rt7Y\n',
      [[1, 'credential-value', 'dbPasswordValue: a literal value for "dbPasswordValue" (16 characters)']],
    ],
    [
      'a value a duplicate key hides from YAML readers',
      'x.yaml',
      `token: ${GITHUB_TOKEN}\ntoken: x\n`,
      [
        [
          1,
          'token-pattern',
          'a GitHub personal access token (ghp_…, 40 characters) (found line by line: Kubernetes cannot read this file as YAML)',
        ],
        [2, 'credential-value', 'document 1, token: a literal value for "token" (1 character)'],
      ],
    ],
    [
      'a file no YAML reader can parse, line by line',
      'broken.yaml',
      `foo: [unclosed\npassword: ${PASSWORD}\n`,
      [[2, 'credential-value', 'a literal value for "password" (11 characters) (found line by line']],
    ],
  ])('finds %s, naming the file, line, document and field', (_case, path, text, expected) => {
    const findings = scanFile(path, text);
    expect(findings.map((f) => [f.line, f.rule])).toEqual(expected.map(([line, rule]) => [line, rule]));
    findings.forEach((finding, i) => {
      expect(finding.path).toBe(path);
      expect(finding.message).toContain(expected[i]?.[2]);
      expect(finding.message).toMatch(/remove it from the repo and rotate it/);
      for (const secret of SECRETS) expect(finding.message).not.toContain(secret);
    });
  });

  it.each([
    [
      'a Shoot referencing a Secret by kind',
      'shoots/a/shoot.yaml',
      'spec:\n  resources:\n  - name: a\n    resourceRef:\n      apiVersion: v1\n      kind: Secret\n      name: s\n',
    ],
    [
      'a flow resourceRef',
      'shoots/a/shoot.yaml',
      'spec:\n  resources:\n  - {name: a, resourceRef: {apiVersion: v1, kind: Secret, name: s}}\n',
    ],
    [
      'a secret name',
      'shoots/a/shoot.yaml',
      'secretName: aws-route53-secret\nsecretReferenceName: auditlog-credentials\n',
    ],
    [
      'names and settings of credentials',
      'shoots/a/shoot.yaml',
      'spec:\n  secretBindingName: trial-aws-0a1b2c3d4e5f\n  maxTokenExpiration: 2160h\n  httpTokens: required\n  providers:\n  - credentials: shoot-dns-service-aws-route53-secret-dev\n',
    ],
    ['a workflow token expression', '.github/workflows/validate.yml', 'with:\n  token: ${{ secrets.GITHUB_TOKEN }}\n'],
    [
      'empty and placeholder values',
      'x.yaml',
      'password: ""\ntoken: <your token>\nsecret: ${SECRET}\npassword2:\napiKey: "***"\n',
    ],
    ['a schema type', 'schema.yaml', 'password: string\n'],
    ['a password key in program code', 'src/a.ts', 'const options = { password: userInput };\n'],
    ['a line marked as not a secret', 'docs/x.md', `password: ${PASSWORD} # kimops: not-a-secret\n`],
    ['a marked line in YAML', 'x.yaml', `password: ${PASSWORD} # kimops: not-a-secret\n`],
    ['a SecretBinding', 'x.yaml', 'kind: SecretBinding\n'],
    [
      'a CA certificate',
      'cm.yaml',
      `data:\n  ca.crt: |\n    -----BEGIN CERTIFICATE-----\n    MIIC\n    -----END CERTIFICATE-----\n  bundle: ${base64('-----BEGIN CERTIFICATE-----\nMIIC\n')}\n`,
    ],
    ['a low-entropy value of a key naming a credential', 'x.yaml', 'dbPasswordHint: aaaaaaaaaaaaaaaa\n'],
  ])('does not flag %s', (_case, path, text) => {
    expect(scanFile(path, text)).toEqual([]);
  });

  it('reads what no manifest holds without failing: alias cycles, nesting thousands deep, binary data', () => {
    const deep = `${'['.repeat(5000)}"${GITHUB_TOKEN}"${']'.repeat(5000)}`;
    const findings = [
      ...scanFile('cycle.yaml', 'a: &x\n  b: *x\n'),
      ...scanFile('deep.json', deep),
      ...scanFile('key.yaml', `privateKey: !!binary ${base64('\u0000\u0001binary')}\n`),
    ];
    expect(findings.map((f) => `${f.path}:${f.line} ${f.rule}`)).toEqual([
      'deep.json:1 token-pattern',
      'key.yaml:1 credential-value',
    ]);
    expect(findings[1]?.message).toContain('privateKey: a literal value for "privateKey" (8 bytes)');
  });

  it('prints names from the file with control characters escaped', () => {
    const [finding] = scanFile(
      'x.json',
      JSON.stringify({ kind: 'Secret', metadata: { name: 'evil\u001b[2J\nforged line' } }),
    );
    expect(finding?.message).toContain('document 1 (Secret evil\\x1b[2J\\nforged line): a Secret object');
  });

  it("reports a file's findings by line, documents and line scan merged", () => {
    const findings = scanFile(
      'a.yaml',
      `kind: Secret\n---\nx: 1\ntoken: abcdef\n# ${GITHUB_TOKEN}\n---\nkind: Secret\n`,
    );
    expect(findings.map((f) => `${f.path}:${f.line} ${f.rule}`)).toEqual([
      'a.yaml:1 secret-object',
      'a.yaml:4 credential-value',
      'a.yaml:5 token-pattern',
      'a.yaml:7 secret-object',
    ]);
  });

  describe("kimops's own files", () => {
    // Read and rendered once: the converter's first render sets it up (about a second on a busy machine).
    const files = new Map<string, string>();
    beforeAll(async () => {
      const root = new URL('../../', import.meta.url);
      for (const dir of ['examples', 'policies', 'repo-template']) {
        for (const entry of readdirSync(new URL(dir, root), { recursive: true, withFileTypes: true })) {
          if (entry.isFile())
            files.set(`${entry.parentPath}/${entry.name}`, readFileSync(`${entry.parentPath}/${entry.name}`, 'utf8'));
        }
      }
      // KEB's examples all convert (the KIM ADR's do not, on purpose: their files are scanned as they are).
      const { runtimes } = await readRuntimes(new URL('examples/runtimes/keb', root).pathname);
      for (const landscape of ['dev', 'stage', 'prod']) {
        const rendered = renderRuntimes(runtimes, conversionSettingsOf(await readLandscape(landscape))).rendered;
        expect(rendered.length).toBe(runtimes.length);
        for (const r of rendered) for (const f of filesOf(r.manifests)) files.set(`${landscape}/${f.path}`, f.content);
      }
    });

    it('finds nothing in the examples, the policy pack, the repo template, or any Shoot rendered from the examples', () => {
      expect(files.size).toBeGreaterThan(100);
      expect([...files].flatMap(([path, text]) => scanFile(path, text))).toEqual([]);
    });
  });
});
