import { describe, expect, it } from 'vitest';
import { scanForCredentials } from './credentials.js';

describe('scanForCredentials', () => {
  it.each([
    ['a Secret object', 'shoots/a/secret.yaml', 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: x\n', 2, 'secret-object'],
    ['a Secret object in JSON', 'x.json', '{\n  "apiVersion": "v1",\n  "kind": "Secret"\n}', 3, 'secret-object'],
    ['a PEM private key', 'notes.md', 'text\n-----BEGIN RSA PRIVATE KEY-----\nMIIE\n', 2, 'private-key'],
    ['an OpenSSH private key', 'id', '-----BEGIN OPENSSH PRIVATE KEY-----\n', 1, 'private-key'],
    ['a kubeconfig client key', 'kubeconfig', 'users:\n- name: u\n  user:\n    client-key-data: LS0tLS1CRUdJTg==\n', 4, 'kubeconfig-client-key'],
    ['a password literal', 'config.yaml', 'db:\n  password: hunter22\n', 2, 'credential-value'],
    ['a token literal', 'values.yaml', '  token: "abc.def.ghi"\n', 1, 'credential-value'],
    ['a token in a block scalar', 'values.yaml', 'token: |\n  abcdef\n', 1, 'credential-value'],
    ['a GitHub token anywhere', 'src/x.ts', `const t = 'ghp_${'a'.repeat(36)}';\n`, 1, 'token-pattern'],
    ['an AWS access key id', 'README.md', 'key AKIAIOSFODNN7EXAMPLE here\n', 1, 'token-pattern'],
  ])('finds %s, naming the file and line', (_case, path, text, line, rule) => {
    const [finding, ...rest] = scanForCredentials({ [path]: text });
    expect(rest).toEqual([]);
    expect(finding).toMatchObject({ path, line, rule });
    expect(finding?.message).toMatch(/remove it from the repo/);
  });

  it.each([
    ['a Shoot referencing a Secret by kind', 'shoots/a/shoot.yaml', 'spec:\n  resources:\n  - name: a\n    resourceRef:\n      apiVersion: v1\n      kind: Secret\n      name: s\n'],
    ['a secret name', 'shoots/a/shoot.yaml', 'secretName: aws-route53-secret\nsecretReferenceName: auditlog-credentials\n'],
    ['a workflow token expression', '.github/workflows/validate.yml', 'with:\n  token: ${{ secrets.GITHUB_TOKEN }}\n'],
    ['empty and placeholder values', 'x.yaml', 'password: ""\ntoken: <your token>\nsecret: ${SECRET}\npassword:\n'],
    ['a schema type', 'schema.yaml', 'password: string\n'],
    ['a password key in program code', 'src/a.ts', 'const options = { password: userInput };\n'],
    ['a line marked as not a secret', 'docs/x.md', 'password: hunter22 # kimops: not-a-secret\n'],
    ['a SecretBinding', 'x.yaml', 'kind: SecretBinding\n'],
  ])('does not flag %s', (_case, path, text) => {
    expect(scanForCredentials(new Map([[path, text]]))).toEqual([]);
  });

  it('reports findings sorted by path and line', () => {
    const findings = scanForCredentials({ 'b.yaml': 'kind: Secret\n', 'a.yaml': 'x: 1\ntoken: abcdef\nkind: Secret\n' });
    expect(findings.map((f) => `${f.path}:${f.line}`)).toEqual(['a.yaml:2', 'a.yaml:3', 'b.yaml:1']);
  });
});
