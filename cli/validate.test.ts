// `kimops validate` as the landscape repo's workflow runs it: a real checkout (git CLI in the test), the
// Shoots changed against the base, human and GitHub output, exit codes — and input that holds no Shoot.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { readLandscape } from '../adapters/files/landscape.js';
import { readRuntimes } from '../adapters/files/manifests.js';
import { conversionSettingsOf } from '../model/landscape.js';
import { kimops } from '../test/helpers/cli.js';
import { seededLandscape } from '../test/helpers/seeded-landscape.js';
import { useTempDir } from '../test/helpers/temp-dir.js';

const dir = useTempDir('validate');
const EXAMPLES = new URL('../examples/runtimes/keb/', import.meta.url).pathname;

// A dev landscape repo whose main holds the 15 KEB examples' Shoots, made once: each test clones it.
let origin: { dir: string; gitdir: string };
beforeAll(async () => {
  const made = await mkdtemp(join(tmpdir(), 'kimops-validate-origin-'));
  const { runtimes } = await readRuntimes(EXAMPLES);
  await seededLandscape(join(made, 'landscape.git'), runtimes, conversionSettingsOf(await readLandscape('dev')));
  origin = { dir: made, gitdir: join(made, 'landscape.git') };
  // The first check compiles the Shoot schema and the policies: not any test's time.
  expect(
    (
      await kimops([
        'validate',
        '--landscape',
        'dev',
        new URL('../policies/default/examples/ssh-access-disabled/pass-rendered.yaml', import.meta.url).pathname,
      ])
    ).code,
  ).toBe(0);
});
afterAll(() => rm(origin.dir, { recursive: true, force: true }));
afterEach(() => {
  vi.unstubAllEnvs();
});

/** A checkout of the landscape repo, as a workflow makes it. */
async function checkout(): Promise<string> {
  const work = join(dir.path, 'work');
  execFileSync('git', ['clone', '--quiet', origin.gitdir, work]);
  return work;
}

async function edit(path: string, change: (text: string) => string): Promise<void> {
  await writeFile(path, change(await readFile(path, 'utf8')));
}

describe('kimops validate', () => {
  it('passes a checkout kimops rendered, checking every Shoot without a base and none with it', async () => {
    const work = await checkout();
    const all = await kimops(['validate', work]);
    expect(all.code).toBe(0);
    expect(all.stdout).toBe('15 Shoots checked: 15 create, 0 update, 0 delete; 0 denied, 0 warnings\n');
    const none = await kimops(['validate', work, '--base', 'origin/main']);
    expect(none.stdout).toBe(
      '0 Shoots checked changed against origin/main (15 unchanged): 0 create, 0 update, 0 delete; 0 denied, 0 warnings\n',
    );
  });

  it('denies a downgrade and a credential against the base, exit 1, as text and as GitHub annotations', async () => {
    const work = await checkout();
    await edit(join(work, 'shoots/c-56a4813/shoot.yaml'), (text) => text.replace('version: 1.33.3', 'version: 1.32.5'));
    await writeFile(join(work, 'notes.md'), 'the garden token is\n-----BEGIN RSA PRIVATE KEY-----\nMIIE\n');
    const text = await kimops(['validate', work, '--base', 'origin/main']);
    expect(text.code).toBe(1);
    expect(text.stdout).toContain(
      '✗ shoots/c-56a4813/shoot.yaml: kubernetes-no-downgrade: Kubernetes 1.32.5 is lower than the live 1.33.3',
    );
    expect(text.stdout).toContain('✗ notes.md:2: credentials (private-key): ');
    expect(text.stdout).toMatch(
      /1 Shoots checked changed against origin\/main \(14 unchanged\): 0 create, 1 update, 0 delete; 3 denied, 0 warnings\n$/,
    );

    // As the workflow runs it: annotations, and a table in the job summary the runner names.
    const summary = await dir.write('summary.md', '### an earlier step\n');
    vi.stubEnv('GITHUB_STEP_SUMMARY', summary);
    const github = await kimops(['validate', work, '--base', 'origin/main', '--output', 'github']);
    expect(github.code).toBe(1);
    expect(github.stdout).toContain(
      '::error file=shoots/c-56a4813/shoot.yaml,title=kimops kubernetes-no-downgrade::Kubernetes 1.32.5 is lower',
    );
    expect(github.stdout).toContain('::error file=notes.md,line=2,title=kimops credentials (private-key)::');
    const table = await readFile(summary, 'utf8');
    expect(table).toMatch(/^### an earlier step\n### kimops validate\n\n1 Shoots checked changed against origin\/main/);
    expect(table).toContain('| Shoot | operation | result | findings |');
    expect(table).toContain(
      '| `c-56a4813` | update | ❌ denied (2) | ✗ **kubernetes-no-downgrade** (shoot.yaml): Kubernetes 1.32.5 is lower than the live 1.33.3',
    );
    expect(table).toContain('<br>✗ **kubernetes-version-minimum** (shoot.yaml): Kubernetes 1.32.5 is below');
    expect(table).toContain(
      '| `notes.md` | – | ❌ denied (1) | ✗ **credentials (private-key)** (notes.md:2): a PEM private key',
    );
    // Text output writes no summary.
    await kimops(['validate', work, '--base', 'origin/main']);
    expect(await readFile(summary, 'utf8')).toBe(table);
  });

  it('checks loose Shoot files as creates with --landscape', async () => {
    const work = await checkout();
    const shoot = join(work, 'shoots/c-78fcc25/shoot.yaml');
    await edit(shoot, (text) => text.replace(/sshAccess:\n(\s+)enabled: false/, 'sshAccess:\n$1enabled: true'));
    const result = await kimops(['validate', '--landscape', 'dev', shoot]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`✗ ${shoot}:1: ssh-access-disabled: SSH access to worker nodes is not disabled`);
  });

  it.each([
    [
      '--base without a repo',
      (work: string) => ['validate', '--landscape', 'dev', join(work, 'shoots/c-78fcc25/shoot.yaml'), '--base', 'main'],
      '--base: compares a landscape repo checkout',
    ],
    [
      'files without a landscape',
      (work: string) => ['validate', join(work, 'shoots/c-78fcc25/shoot.yaml')],
      '--landscape: is needed for files outside a landscape repo',
    ],
    [
      'an unknown base',
      (work: string) => ['validate', work, '--base', 'origin/nope'],
      '--base: origin/nope is not a branch, remote branch or commit',
    ],
  ])('exits 2 with the fix for %s', async (_what, args, message) => {
    const work = await checkout();
    const result = await kimops(args(work));
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  });
});

describe('kimops validate of input that holds no Shoot', () => {
  it.each([
    [
      'a Runtime file',
      async () => [join(EXAMPLES, 'aws.yaml')],
      (paths: string[]) => `found 1 Runtime and 0 Shoots in ${paths[0]}`,
    ],
    [
      'an empty file',
      async () => [await dir.write('empty.yaml', '')],
      (paths: string[]) => `found no YAML document in ${paths[0]}`,
    ],
    [
      'a comment-only file and a ConfigMap',
      async () => [
        await dir.write('a.yaml', '# nothing\n'),
        await dir.write('b.yml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n'),
      ],
      (paths: string[]) => `found 1 ConfigMap and 0 Shoots in ${paths.join(', ')}`,
    ],
    [
      'an empty folder',
      async () => {
        const empty = join(dir.path, 'empty');
        await mkdir(empty);
        return [empty];
      },
      (paths: string[]) => `found no .yaml, .yml or .json file in ${paths[0]}`,
    ],
  ])('exits 2 for %s, saying what it found instead', async (_what, given, found) => {
    const paths = await given();
    const result = await kimops(['validate', '--landscape', 'dev', ...paths]);
    expect(result.stderr).toBe(`error: <files>: ${found(paths)}: pass Shoot manifests or a landscape repo checkout\n`);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
  });

  it('exits 1, not 2, for a file that cannot be read as YAML (it may have been meant as a Shoot)', async () => {
    const result = await kimops([
      'validate',
      '--landscape',
      'dev',
      await dir.write('broken.yaml', 'kind: Shoot\nspec: [unclosed\n'),
    ]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('broken.yaml:1: yaml: ');
  });
});

describe('kimops validate --base', () => {
  it('takes the rules from the base: a pull request that points kimops.yaml at another policy set does not escape them', async () => {
    const work = await checkout();
    await edit(join(work, 'kimops.yaml'), (text) => text.replace('policySet: default', 'policySet: lenient'));
    await edit(join(work, 'shoots/c-56a4813/shoot.yaml'), (text) => text.replace('version: 1.33.3', 'version: 1.32.5'));
    const result = await kimops(['validate', work, '--base', 'origin/main']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('kubernetes-no-downgrade');
    // Without a base the checkout's own kimops.yaml is all there is, and its unknown set is refused.
    expect((await kimops(['validate', work])).stderr).toContain('no policy set "lenient" ships with kimops');
  });
});

describe('kimops validate and the landscape in the repo', () => {
  /** A clone of a repo `kimops init` made for a landscape that ships nowhere: myprod. */
  async function customCheckout(): Promise<string> {
    const dev = await readFile(new URL('../landscapes/dev/landscape.yaml', import.meta.url), 'utf8');
    const folder = join(dir.path, 'myprod');
    await dir.write(
      'myprod/landscape.yaml',
      dev.replace('name: dev', 'name: myprod').replace('project: kyma-dev', 'project: myprod'),
    );
    const gitdir = join(dir.path, 'myprod.git');
    expect((await kimops(['init', '--landscape', folder, gitdir])).code).toBe(0);
    const work = join(dir.path, 'myprod-work');
    execFileSync('git', ['clone', '--quiet', gitdir, work]);
    return work;
  }

  it('checks a landscape that ships nowhere with the landscape.yaml its repo holds', async () => {
    const work = await customCheckout();
    const result = await kimops(['validate', work]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('0 Shoots checked: 0 create, 0 update, 0 delete; 0 denied, 0 warnings\n');
  });

  it("refuses a --landscape that is not the repo's landscape, naming both and the fix", async () => {
    const work = await customCheckout();
    const result = await kimops(['validate', work, '--landscape', 'dev']);
    expect(result.code).toBe(2);
    const message = `--landscape: ${work} holds landscape myprod, not dev; pass the matching landscape or repo, or leave out --landscape to use the repo's landscape.yaml`;
    expect(result.stderr).toBe(`error: ${message}\n`);
    // In a workflow also as an annotation and in the job summary, where the reviewer looks.
    const summary = await dir.write('summary.md', '');
    vi.stubEnv('GITHUB_STEP_SUMMARY', summary);
    const github = await kimops(['validate', work, '--landscape', 'dev', '--output', 'github']);
    expect(github.code).toBe(2);
    expect(github.stdout).toBe(`::error title=kimops validate::${message}\n`);
    expect(await readFile(summary, 'utf8')).toBe(`### kimops validate\n\n❌ could not run: ${message}\n`);
  });

  it("judges a pull request's landscape.yaml as a file of the change, checking with the base's", async () => {
    const work = await checkout();
    await edit(join(work, 'landscape.yaml'), (text) => text.replace('name: dev', 'name: dev2'));
    const renamed = await kimops(['validate', work, '--base', 'origin/main']);
    expect(renamed.stderr).toBe('');
    expect(renamed.code).toBe(1);
    expect(renamed.stdout).toContain('✗ landscape.yaml: landscape: names landscape dev2, but kimops.yaml names dev');

    await edit(join(work, 'landscape.yaml'), () => 'name: [unclosed\n');
    const broken = await kimops(['validate', work, '--base', 'origin/main']);
    expect(broken.code).toBe(1);
    expect(broken.stdout).toMatch(/^✗ landscape.yaml: landscape: landscape.yaml: /m);
    // A pull request that deletes it is checked with the base's, and denied.
    await rm(join(work, 'landscape.yaml'));
    const deleted = await kimops(['validate', work, '--base', 'origin/main']);
    expect(deleted.code).toBe(1);
    expect(deleted.stdout).toContain(
      '✗ landscape.yaml: landscape: is deleted, but generate and apply read the landscape from it: keep it',
    );
    await writeFile(join(work, 'landscape.yaml'), 'name: [unclosed\n');
    // Without a base the checkout's own file is all there is: refused as the configuration error it is.
    const alone = await kimops(['validate', work]);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain(`landscape.yaml of ${work}`);
  });

  it('refuses a landscape.yaml that names another landscape than kimops.yaml', async () => {
    const work = await customCheckout();
    await edit(join(work, 'kimops.yaml'), (text) => text.replace('landscape: "myprod"', 'landscape: "other"'));
    const result = await kimops(['validate', work]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `error: landscape.yaml of ${work}: name: is myprod, but kimops.yaml names landscape other: make them the same\n`,
    );
  });
});
