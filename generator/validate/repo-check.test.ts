import { beforeAll, describe, expect, it } from 'vitest';
import { readRuntimes } from '../../adapters/files/manifests.js';
import { readLandscape } from '../../adapters/files/landscape.js';
import { conversionSettingsOf } from '../../model/landscape.js';
import { renderRuntimes } from '../render-runtimes.js';
import { filesOf } from '../../rules/landscape-layout.js';
import { parsePolicyFile } from './policy-file.js';
import { checkLandscapeFiles } from './repo-check.js';

const EXAMPLES = new URL('../../examples/runtimes/keb/', import.meta.url).pathname;

/** The dev landscape repo's files for the aws and gcp examples, as the generator writes them. */
async function renderedFiles(): Promise<Map<string, string>> {
  const settings = conversionSettingsOf(await readLandscape('dev'));
  const runtimes = [
    ...(await readRuntimes(`${EXAMPLES}aws.yaml`)).runtimes,
    ...(await readRuntimes(`${EXAMPLES}gcp.yaml`)).runtimes,
  ];
  const files = new Map<string, string>([['kimops.yaml', 'landscape: dev\n']]);
  for (const rendered of renderRuntimes(runtimes, settings).rendered)
    for (const f of filesOf(rendered.manifests)) files.set(f.path, f.content);
  return files;
}

const maxNodes = parsePolicyFile(
  `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: at-most-30-nodes
  annotations: {kimops.kyma-project.io/severity: deny, kimops.kyma-project.io/landscapes: "*"}
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules: [{apiGroups: [core.gardener.cloud], apiVersions: [v1beta1], resources: [shoots], operations: [CREATE, UPDATE]}]
  validations:
  - expression: "object.spec.provider.workers.all(w, w.maximum <= 30)"
    message: a worker pool may grow to 30 nodes at most
`,
  'at-most-30-nodes.yaml',
);
const context = { policies: [maxNodes], params: {}, landscape: 'dev' };
// Made up, in the format gitleaks' rule describes (as in credentials.test.ts).
const GITHUB_TOKEN = `ghp_${'aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6'}`;

// Rendered once (the converter's first render takes a while); each test works on a copy.
let rendered: Map<string, string>;
beforeAll(async () => {
  rendered = await renderedFiles();
});
const landscapeFiles = async () => new Map(rendered);

describe('checkLandscapeFiles', () => {
  it("scans a changed folder's companions with it, and every other file on its own, each finding at its file and line", async () => {
    const base = await landscapeFiles();
    const files = new Map(base);
    const companion = 'shoots/c-78fcc25/configmap-extra.yaml';
    files.set(companion, 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: extra}\ndata:\n  password: hunter2-Xq9\n');
    files.set('docs/notes.yaml', `token: ${GITHUB_TOKEN}\n`);
    const report = checkLandscapeFiles({ files, base, context });
    expect(report.shoots.map((s) => `${s.path} ${s.operation} ${s.checks}`)).toEqual([
      'shoots/c-78fcc25/shoot.yaml UPDATE 3',
    ]);
    expect(report.findings.map((f) => `${f.path}:${f.line} ${f.check} ${f.severity}`)).toEqual([
      `${companion}:5 credentials (credential-value) deny`,
      'docs/notes.yaml:1 credentials (token-pattern) deny',
    ]);
    expect(report.findings[0]?.message).toMatch(
      /^document 1 \(ConfigMap extra\), data\.password: a literal value for "password" \(11 characters\); remove it/,
    );
  });

  it('checks every Shoot without a base, and finds nothing in a repo kimops rendered', async () => {
    const files = await landscapeFiles();
    const report = checkLandscapeFiles({ files, context });
    expect(report.shoots.map((s) => `${s.path} ${s.operation} ${s.checks}`)).toEqual([
      'shoots/c-56a4813/shoot.yaml CREATE 3',
      'shoots/c-78fcc25/shoot.yaml CREATE 3',
    ]);
    expect(report.findings).toEqual([]);
  });

  it('checks only the Shoots that changed against the base, with their operation, and names what fails', async () => {
    const base = await landscapeFiles();
    const files = new Map(base);
    files.set(
      'shoots/c-78fcc25/shoot.yaml',
      (base.get('shoots/c-78fcc25/shoot.yaml') as string).replace('maximum: 20', 'maximum: 40'),
    );
    files.delete('shoots/c-56a4813/shoot.yaml');
    files.set(
      'shoots/c-new/shoot.yaml',
      'apiVersion: core.gardener.cloud/v1beta1\nkind: Shoot\nmetadata: {name: c-new}\nspec: {}\n',
    );
    const report = checkLandscapeFiles({ files, base, context });
    expect(report.unchanged).toBe(0);
    expect(report.shoots.map((s) => `${s.path} ${s.operation}`)).toEqual([
      'shoots/c-56a4813/shoot.yaml DELETE',
      'shoots/c-78fcc25/shoot.yaml UPDATE',
      'shoots/c-new/shoot.yaml CREATE',
    ]);
    expect(report.findings).toContainEqual({
      path: 'shoots/c-78fcc25/shoot.yaml',
      check: 'at-most-30-nodes',
      severity: 'deny',
      message: 'a worker pool may grow to 30 nodes at most',
    });
    // The new Shoot lacks required fields: the schema says which.
    expect(
      report.findings.filter((f) => f.path === 'shoots/c-new/shoot.yaml' && f.check === 'shoot-schema').length,
    ).toBeGreaterThan(0);
    // A policy with an expression that cannot evaluate on it is a failure of that policy, not a crash.
    expect(report.findings).toContainEqual(
      expect.objectContaining({ path: 'shoots/c-new/shoot.yaml', check: 'at-most-30-nodes', severity: 'deny' }),
    );
  });

  it('reports an unreadable Shoot and credentials with file and line, and skips unchanged folders', async () => {
    const base = await landscapeFiles();
    const files = new Map(base);
    files.set('shoots/c-78fcc25/shoot.yaml', 'kind: Shoot\nspec: [unclosed\n');
    files.set('notes/admin.kubeconfig', 'users:\n- name: admin\n  user:\n    client-key-data: LS0tLS1CRUdJTi\n');
    const report = checkLandscapeFiles({ files, base, context });
    expect(report.unchanged).toBe(1);
    expect(report.findings.map((f) => `${f.path}${f.line ? `:${f.line}` : ''} ${f.check} ${f.severity}`)).toEqual([
      'shoots/c-78fcc25/shoot.yaml yaml deny',
      'notes/admin.kubeconfig:4 credentials (kubeconfig-client-key) deny',
    ]);
  });

  it('with a base judges the change only: a credential the base already holds is reported without a base, and where a change adds or touches it', async () => {
    // main holds a README.md with a token (merged with `kimops pr merge --force`, or found by a newer rule).
    const main = await landscapeFiles();
    main.set('README.md', `# landscape dev\n\nold token: ${GITHUB_TOKEN}\n`);
    const readme = ['README.md:3 credentials (token-pattern) deny'];
    const where = (report: { findings: { path: string; line?: number; check: string; severity: string }[] }) =>
      report.findings.map((f) => `${f.path}:${f.line} ${f.check} ${f.severity}`);

    // A clean change elsewhere: the PR's check passes, as the generator's status does for its folder.
    const clean = new Map(main);
    clean.set(
      'shoots/c-78fcc25/shoot.yaml',
      (main.get('shoots/c-78fcc25/shoot.yaml') as string).replace('maximum: 20', 'maximum: 25'),
    );
    const pr = checkLandscapeFiles({ files: clean, base: main, context });
    expect(pr.shoots.map((s) => `${s.path} ${s.operation}`)).toEqual(['shoots/c-78fcc25/shoot.yaml UPDATE']);
    expect(pr.findings).toEqual([]);
    // Without a base — on main itself, in a job of main's — the whole checkout is judged: the token is reported.
    expect(where(checkLandscapeFiles({ files: main, context }))).toEqual(readme);
    expect(where(checkLandscapeFiles({ files: clean, context }))).toEqual(readme);

    // A change that touches the file (a line added beside the token) or adds one with a token is denied.
    const touched = new Map(main);
    touched.set('README.md', `${main.get('README.md') as string}more notes\n`);
    touched.set('docs/access.md', `use ${GITHUB_TOKEN}\n`);
    expect(where(checkLandscapeFiles({ files: touched, base: main, context }))).toEqual([
      'README.md:3 credentials (token-pattern) deny',
      'docs/access.md:1 credentials (token-pattern) deny',
    ]);
    // A change that removes it has nothing left to judge.
    const removed = new Map(main);
    removed.delete('README.md');
    expect(checkLandscapeFiles({ files: removed, base: main, context }).findings).toEqual([]);
  });
});
