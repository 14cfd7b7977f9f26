import { execFileSync } from 'node:child_process';
import { cp, mkdir, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readLandscape } from '../../../adapters/files/landscape.js';
import { readRuntimes } from '../../../adapters/files/manifests.js';
import { localForge } from '../../../adapters/forge/local.js';
import { LandscapeRepo } from '../../../adapters/git/landscape-repo.js';
import { conversionSettingsOf } from '../../../model/landscape.js';
import { seededLandscape } from '../../helpers/seeded-landscape.js';
import { useTempDir } from '../../helpers/temp-dir.js';
import { kimops } from '../../helpers/cli.js';

const dir = useTempDir('generate');
const KEB = 'examples/runtimes/keb';

const git = (gitdir: string, ...args: string[]) =>
  execFileSync('git', ['--git-dir', gitdir, ...args], { encoding: 'utf8' }).trim();
const shootsOnMain = (gitdir: string) =>
  git(gitdir, 'ls-tree', '-r', '--name-only', 'main', 'shoots')
    .split('\n')
    .filter((p) => p.endsWith('/shoot.yaml'));
/** Switches the repo's policy to review every update, as a landscape may; returns the repo. */
async function reviewEveryUpdate(gitdir: string): Promise<LandscapeRepo> {
  const repo = await LandscapeRepo.open(gitdir);
  const config = git(gitdir, 'show', 'main:kimops.yaml').replace(
    'update: {mode: auto-merge}',
    'update: {mode: review, approvals: 1}',
  );
  await repo.commitFiles({
    branch: 'main',
    files: new Map([['kimops.yaml', config]]),
    message: 'review updates',
    author: { name: 'test', email: 'test@localhost' },
  });
  return repo;
}

const refs = (gitdir: string) => git(gitdir, 'for-each-ref', '--format=%(refname) %(objectname)');

/** A landscape repo for dev and a copy of the example Runtimes to change. */
async function prepared() {
  const gitdir = join(dir.path, 'landscape.git');
  expect((await kimops(['init', '--landscape', 'dev', gitdir])).code).toBe(0);
  const runtimes = join(dir.path, 'runtimes');
  await cp(KEB, runtimes, { recursive: true });
  const generate = () =>
    kimops(['generate', '--landscape', 'dev', '--runtimes', runtimes, '--repo', gitdir, '--forge', 'local', '--once']);
  return { gitdir, runtimes, generate };
}

/** As `prepared`, but main holds the Shoots of `files` (all example Runtimes by default) from the start, merged without PRs. */
async function seeded(files?: string[]) {
  const gitdir = join(dir.path, 'landscape.git');
  const runtimes = join(dir.path, 'runtimes');
  await cp(KEB, runtimes, {
    recursive: true,
    filter: (source) => !files || source === KEB || files.some((file) => source.endsWith(`/${file}`)),
  });
  await seededLandscape(
    gitdir,
    (await readRuntimes(runtimes)).runtimes,
    conversionSettingsOf(await readLandscape('dev')),
  );
  const generate = (source = runtimes, stdin = '') =>
    kimops(
      ['generate', '--landscape', 'dev', '--runtimes', source, '--repo', gitdir, '--forge', 'local', '--once'],
      stdin,
    );
  return { gitdir, runtimes, generate };
}

async function records(gitdir: string) {
  const forge = localForge(await LandscapeRepo.open(gitdir));
  const all = await forge.pullRecords();
  if (!all.ok) throw new Error(all.failure.message);
  return { forge, records: all.value };
}

describe('kimops generate --once', () => {
  it('proposes and auto-merges a create per Runtime, then nothing on a second run', async () => {
    const { gitdir, generate } = await prepared();
    const first = await generate();
    expect(first).toMatchObject({ code: 0, stderr: '' });
    expect(first.stdout).toContain(
      '15 proposed (15 merged, 0 awaiting review, 0 blocked), 0 unchanged, 0 closed, 0 failed',
    );
    expect(first.stdout).toMatch(/^create +c-78fcc25: #\d+ opened, merged$/m);
    expect(shootsOnMain(gitdir)).toHaveLength(15);

    const { forge, records: prs } = await records(gitdir);
    expect(prs.map((pr) => pr.state)).toEqual(Array(15).fill('merged'));
    expect(prs[0]?.branch).toMatch(/^kimops\/dev\//);
    const statuses = await forge.statuses(prs[0]?.headSha as string);
    expect(statuses.ok && statuses.value.map((s) => `${s.context}:${s.state}`)).toEqual(['kimops/validate:success']);

    const before = refs(gitdir);
    const second = await generate();
    expect(second).toMatchObject({ code: 0, stderr: '' });
    expect(second.stdout).toBe(
      '0 proposed (0 merged, 0 awaiting review, 0 blocked), 15 unchanged, 0 closed, 0 failed\n',
    );
    expect(refs(gitdir)).toBe(before); // no commit on main, no branch, no PR record
  });

  it('proposes one update for a changed worker maximum, merged as kimops.yaml says for non-disruptive updates', async () => {
    const { gitdir, runtimes, generate } = await prepared();
    expect((await generate()).code).toBe(0);
    const aws = join(runtimes, 'aws.yaml');
    await writeFile(aws, (await readFile(aws, 'utf8')).replace('maximum: 20', 'maximum: 25'));
    // The repo's policy (the template's default): update → auto-merge.
    expect(git(gitdir, 'show', 'main:kimops.yaml')).toContain('update: {mode: auto-merge}');

    const changed = await generate();
    expect(changed).toMatchObject({ code: 0, stderr: '' });
    expect(changed.stdout).toMatch(/^update +c-78fcc25: #16 opened, merged$/m);
    expect(changed.stdout).toContain('1 proposed (1 merged, 0 awaiting review, 0 blocked), 14 unchanged');
    expect(git(gitdir, 'show', 'main:shoots/c-78fcc25/shoot.yaml')).toContain('maximum: 25');
    const pr = (await records(gitdir)).records.at(-1);
    expect(pr).toMatchObject({
      number: 16,
      branch: 'kimops/dev/c-78fcc25',
      state: 'merged',
      title: '[dev] update (non-disruptive): c-78fcc25',
    });
    expect(pr?.body).toContain('maximum` 20 → 25');

    const before = refs(gitdir);
    expect((await generate()).stdout).toContain('0 proposed (0 merged, 0 awaiting review, 0 blocked), 15 unchanged');
    expect(refs(gitdir)).toBe(before);
  });

  it('keeps an update awaiting review open, updates it in place, and closes it when the change disappears', async () => {
    const { gitdir, runtimes, generate } = await prepared();
    expect((await generate()).code).toBe(0);
    await reviewEveryUpdate(gitdir);
    const aws = join(runtimes, 'aws.yaml');
    const original = await readFile(aws, 'utf8');
    await writeFile(aws, original.replace('maximum: 20', 'maximum: 25'));

    const proposed = await generate();
    expect(proposed.stdout).toMatch(
      /^update +c-78fcc25: #16 opened, await-review: waits for 1 approval by a collaborator \(mergePolicy\.update; CODEOWNERS names no owner of its files\), has 0$/m,
    );
    const head = git(gitdir, 'rev-parse', 'kimops/dev/c-78fcc25');
    const before = refs(gitdir);
    expect((await generate()).stdout).toMatch(/#16 unchanged, await-review/);
    expect(refs(gitdir)).toBe(before);

    await writeFile(aws, original.replace('maximum: 20', 'maximum: 30'));
    expect((await generate()).stdout).toMatch(/#16 updated, await-review/);
    expect(git(gitdir, 'rev-parse', 'kimops/dev/c-78fcc25')).not.toBe(head);
    expect(git(gitdir, 'show', 'kimops/dev/c-78fcc25:shoots/c-78fcc25/shoot.yaml')).toContain('maximum: 30');

    await writeFile(aws, original);
    const reverted = await generate();
    expect(reverted.stdout).toContain('#16 kimops/dev/c-78fcc25: closed');
    expect(reverted.stdout).toContain('15 unchanged, 1 closed');
    expect((await records(gitdir)).records.at(-1)).toMatchObject({ number: 16, state: 'closed' });
  });

  it('leaves a stale PR open when a human pushed to its branch', async () => {
    const { gitdir, runtimes, generate } = await prepared();
    expect((await generate()).code).toBe(0);
    const repo = await reviewEveryUpdate(gitdir);
    const aws = join(runtimes, 'aws.yaml');
    const original = await readFile(aws, 'utf8');
    await writeFile(aws, original.replace('maximum: 20', 'maximum: 25'));
    expect((await generate()).stdout).toContain('#16 opened');
    await repo.commitFiles({
      branch: 'kimops/dev/c-78fcc25',
      files: new Map([['NOTES.md', 'why\n']]),
      message: 'a human note',
      author: { name: 'alice', email: 'alice@localhost' },
    });

    // A further Runtime change does not overwrite the human's commit.
    const pushed = git(gitdir, 'rev-parse', 'kimops/dev/c-78fcc25');
    await writeFile(aws, original.replace('maximum: 20', 'maximum: 30'));
    expect((await generate()).stdout).toMatch(
      /^update +c-78fcc25: #16 left as is: its head \w+ is not what kimops wrote$/m,
    );
    expect(git(gitdir, 'rev-parse', 'kimops/dev/c-78fcc25')).toBe(pushed);

    await writeFile(aws, original);
    const result = await generate();
    expect(result.stdout).toContain('#16 kimops/dev/c-78fcc25: no change left, but its head');
    expect(result.stdout).toContain('1 left open');
    expect((await records(gitdir)).records.at(-1)).toMatchObject({ number: 16, state: 'open' });
  });

  it('proposes a delete for a removed Runtime for approval, and refuses too many at once', async () => {
    const { gitdir, runtimes, generate } = await seeded();
    await rm(join(runtimes, 'aws.yaml'));
    const deleted = await generate();
    expect(deleted).toMatchObject({ code: 0, stderr: '' });
    // No Runtime asked for it (KEB's deletions carry a deletionTimestamp): a human approves it.
    expect(deleted.stdout).toMatch(
      /^delete +c-78fcc25: #1 opened, await-review: waits for 1 approval by a collaborator \(a delete no Runtime asked for; CODEOWNERS names no owner of its files\), has 0$/m,
    );
    expect(shootsOnMain(gitdir)).toHaveLength(15);
    expect((await records(gitdir)).records.at(-1)).toMatchObject({
      branch: 'kimops/dev/c-78fcc25',
      title: '[dev] delete (Runtime absent): c-78fcc25',
      state: 'open',
    });

    await rm(runtimes, { recursive: true });
    await cp(join(KEB, 'gcp.yaml'), join(runtimes, 'gcp.yaml'));
    const refused = await generate();
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('refusing to propose deleting 14 of 15 shoots');
    expect(shootsOnMain(gitdir)).toHaveLength(15);
  });

  it('reports Runtimes that fail to convert and opens no PR for them; usage errors exit 2', async () => {
    const { gitdir, runtimes, generate } = await prepared();
    const aws = join(runtimes, 'aws.yaml');
    const original = await readFile(aws, 'utf8');
    const broken = original.replace(/^ *kyma-project\.io\/region: .*\n/m, '');
    expect(broken).not.toBe(original);
    await writeFile(aws, broken);
    const result = await generate();
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^runtime kcp-system\/61dd7761-08dc-59ce-840d-342f5e487157: \S+: .+$/m);
    expect(result.stdout).toContain('14 proposed (14 merged');
    expect(shootsOnMain(gitdir)).toHaveLength(14);

    // Once on main, a Shoot whose Runtime fails to convert is neither changed nor proposed for deletion.
    await writeFile(aws, original);
    expect((await generate()).stdout).toContain('1 proposed (1 merged');
    await writeFile(aws, broken);
    const again = await generate();
    expect(again.code).toBe(1);
    expect(again.stdout).toContain(
      '0 proposed (0 merged, 0 awaiting review, 0 blocked), 14 unchanged, 0 closed, 1 failed',
    );
    expect(shootsOnMain(gitdir)).toHaveLength(15);

    expect((await kimops(['generate', '--landscape', 'dev', '--runtimes', runtimes, '--repo', gitdir])).code).toBe(2);
    expect(
      (
        await kimops([
          'generate',
          '--landscape',
          'dev',
          '--runtimes',
          runtimes,
          '--repo',
          join(dir.path, 'nope'),
          '--once',
        ])
      ).code,
    ).toBe(2);
  });

  it.each([
    ['neither --once nor --watch', [], 'pass --once or --watch'],
    ['both --once and --watch', ['--once', '--watch'], "option '--once' cannot be used with option '--watch'"],
    [
      'no Runtime source',
      ['--once', '--no-runtimes'],
      '--runtimes: no Runtime source: pass --runtimes <dir>, or the KCP: no kubeconfig: pass --kcp-kubeconfig <file>',
    ],
    [
      'both Runtime sources',
      ['--once', '--kcp-kubeconfig', 'kcp.yaml'],
      "option '--runtimes <dir>' cannot be used with option '--kcp-kubeconfig <file>'",
    ],
    [
      'a missing kubeconfig',
      ['--once', '--no-runtimes', '--kcp-kubeconfig', '/nonexistent/kcp.yaml'],
      '--kcp-kubeconfig: /nonexistent/kcp.yaml does not exist',
    ],
    [
      'GitHub for a local repo',
      ['--once', '--forge', 'github'],
      '--forge: github reviews a remote repository; pass its https URL as --repo',
    ],
    [
      'the local forge for a URL',
      ['--once', '--forge', 'local', '--repo-url'],
      '--forge: the local forge keeps its pull requests in a repository on this machine',
    ],
    ['an ssh URL', ['--once', '--repo-ssh'], 'only local paths and http(s) URLs are supported'],
    ['GitHub without credentials', ['--once', '--repo-url'], 'no credentials: set GITHUB_TOKEN'],
    ['a bad interval', ['--watch', '--interval', 'soon'], '--interval: soon is not a number of seconds'],
    [
      'an interval past a day',
      ['--watch', '--interval', '3000000'],
      '--interval: 3000000 is not a number of seconds between 1 and 86400',
    ],
    [
      'a negative deletion allowance',
      ['--once', '--allow-mass-deletion', '-3'],
      '--allow-mass-deletion: -3 is not a number of Shoots (0 or more)',
    ],
  ])('exits 2 with the fix for %s', async (_what, extra, message) => {
    const { gitdir, runtimes } = await prepared();
    const repo = extra.includes('--repo-url')
      ? 'https://git.example.invalid/acme/landscape-dev.git'
      : extra.includes('--repo-ssh')
        ? 'git@github.com:acme/landscape-dev.git'
        : gitdir;
    const source = extra.includes('--no-runtimes') ? [] : ['--runtimes', runtimes];
    const args = extra.filter((a) => !['--repo-url', '--repo-ssh', '--no-runtimes'].includes(a));
    const saved = { GITHUB_TOKEN: process.env.GITHUB_TOKEN, KIMOPS_GIT_TOKEN: process.env.KIMOPS_GIT_TOKEN };
    delete process.env.GITHUB_TOKEN;
    delete process.env.KIMOPS_GIT_TOKEN;
    try {
      const result = await kimops(['generate', '--landscape', 'dev', ...source, '--repo', repo, ...args]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(message);
    } finally {
      for (const [key, value] of Object.entries(saved)) if (value !== undefined) process.env[key] = value;
    }
  });
});

describe('kimops generate --once: deletion only on proof', () => {
  /** The line a pass says once when it deletes nothing for want of proof. */
  const heldBack = (stderr: string) => stderr.split('\n').filter((line) => line.startsWith('not proposing to delete'));

  it('deletes nothing when a Runtime file lost its labels and spec.shoot.name, and says why once', async () => {
    const { gitdir, runtimes, generate } = await seeded();
    const aws = join(runtimes, 'aws.yaml');
    const stripped = (await readFile(aws, 'utf8'))
      .replace(/^ {2}labels:\n( {4}.*\n)+/m, '')
      .replace(/^ {4}name: c-78fcc25\n/m, '');
    expect(stripped).not.toMatch(/labels:|name: c-78fcc25/);
    await writeFile(aws, stripped);
    await rm(join(runtimes, 'gcp.yaml'));
    const result = await generate();
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('0 proposed');
    expect(heldBack(result.stderr)).toEqual([
      expect.stringMatching(
        /^not proposing to delete c-56a4813, c-78fcc25: runtime kcp-system\/61dd7761-08dc-59ce-840d-342f5e487157 has no spec\.shoot\.name/,
      ),
    ]);
    expect(shootsOnMain(gitdir)).toHaveLength(15);
    expect((await records(gitdir)).records).toEqual([]);
  });

  it('reads *.YAML files and a symlinked folder inside the tree: nothing is missing, nothing deleted', async () => {
    const { gitdir, runtimes, generate } = await seeded();
    await rename(join(runtimes, 'aws.yaml'), join(runtimes, 'aws.YAML'));
    await mkdir(join(runtimes, '.store'));
    await rename(join(runtimes, 'azure.yaml'), join(runtimes, '.store', 'azure.yaml'));
    await symlink('.store', join(runtimes, 'current'));
    const result = await generate();
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toBe(
      '0 proposed (0 merged, 0 awaiting review, 0 blocked), 15 unchanged, 0 closed, 0 failed\n',
    );
    expect(shootsOnMain(gitdir)).toHaveLength(15);
  });

  it('refuses a symlinked folder outside the tree and deletes nothing while it does', async () => {
    const { gitdir, runtimes, generate } = await seeded();
    await mkdir(join(dir.path, 'elsewhere'));
    await rename(join(runtimes, 'gcp.yaml'), join(dir.path, 'elsewhere', 'gcp.yaml'));
    await symlink(join(dir.path, 'elsewhere'), join(runtimes, 'more'));
    const result = await generate();
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `${join(runtimes, 'more')}: a symbolic link to the folder ${join(dir.path, 'elsewhere')}, outside ${runtimes}`,
    );
    expect(heldBack(result.stderr)).toEqual([
      expect.stringMatching(/^not proposing to delete c-56a4813: some Runtime inputs could not be read/),
    ]);
    expect(shootsOnMain(gitdir)).toHaveLength(15);
  });

  it('deletes nothing on an empty stdin, not even the only Shoot', async () => {
    const { gitdir, generate } = await seeded(['aws.yaml']);
    expect(shootsOnMain(gitdir)).toEqual(['shoots/c-78fcc25/shoot.yaml']);
    const result = await generate('-', '');
    expect(result.code).toBe(1);
    expect(heldBack(result.stderr)).toEqual([
      expect.stringMatching(
        /^not proposing to delete c-78fcc25: no Runtime was read at all, and an empty Runtime source never deletes/,
      ),
    ]);
    expect(shootsOnMain(gitdir)).toEqual(['shoots/c-78fcc25/shoot.yaml']);
  });
});
