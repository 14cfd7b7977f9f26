import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { VALIDATE_CONTEXT } from '../adapters/forge/forge.js';
import { localForge } from '../adapters/forge/local.js';
import { LandscapeRepo } from '../adapters/git/landscape-repo.js';
import { useTempDir } from '../test/helpers/temp-dir.js';
import { kimops } from '../test/helpers/cli.js';

const dir = useTempDir('pr');
const author = { name: 'test', email: 'test@localhost' };


const git = (gitdir: string, ...args: string[]) => execFileSync('git', ['--git-dir', gitdir, ...args], { encoding: 'utf8' }).trim();

const BODY = '## Create shoot a\n\n| shoot | class |\n|---|---|\n| a | create |\n';

/** A landscape repo with PR #1 (validated, commented) and PR #2 (conflicting with main). */
async function prepared() {
  const gitdir = join(dir.path, 'landscape.git');
  const repo = await LandscapeRepo.open(gitdir);
  const commit = async (branch: string, files: Record<string, string>, base?: string) => (await repo.commitFiles({ branch, ...(base ? { base } : {}), files: new Map(Object.entries(files)), message: `change ${branch}`, author })).oid as string;
  await commit('main', { 'kimops.yaml': 'landscape: dev\n' });
  const head = await commit('kimops/dev/shoot-a', { 'shoots/a/shoot.yaml': 'kind: Shoot\n' }, 'main');
  await commit('kimops/dev/clash', { 'kimops.yaml': 'landscape: other\n' }, 'main');
  const forge = localForge(repo);
  for (const [branch, title, body] of [['kimops/dev/shoot-a', 'Create shoot a', BODY], ['kimops/dev/clash', 'Change config', 'x']] as const) {
    if (!(await forge.openPullRequest({ branch, base: 'main', title, body })).ok) throw new Error('open failed');
  }
  await forge.setCommitStatus(head, { context: VALIDATE_CONTEXT, state: 'success', description: 'schema checks passed' });
  await forge.upsertStickyComment(1, 'validation', 'checks: all green');
  await commit('main', { 'kimops.yaml': 'landscape: dev\npolicySet: default\n' });
  return { gitdir, head, commit };
}

describe('kimops pr', () => {
  it('lists, shows, approves and merges a pull request of the local forge', async () => {
    const { gitdir, head } = await prepared();
    const listed = await kimops(['pr', 'list', '--repo', gitdir]);
    expect(listed).toMatchObject({ code: 0, stderr: '' });
    expect(listed.stdout.split('\n')).toEqual([
      '#1\tkimops/dev/shoot-a\tCreate shoot a\tapprovals: none\tkimops/validate: success',
      '#2\tkimops/dev/clash\tChange config\tapprovals: none\tno status',
      '',
    ]);

    expect(await kimops(['pr', 'approve', '1', '--repo', gitdir, '--as', 'alice'])).toMatchObject({ code: 0, stdout: `approved #1 as alice on ${head}\n` });
    const shown = await kimops(['pr', 'show', '#1', '--repo', gitdir]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(`#1 Create shoot a [open]\nkimops/dev/shoot-a → main, head ${head}\n`);
    expect(shown.stdout).toContain('  kimops/validate: success — schema checks passed\n');
    expect(shown.stdout).toContain(`approvals:\n  alice on ${head.slice(0, 12)}\n`);
    expect(shown.stdout).toContain(`\n\n${BODY}`);
    expect(shown.stdout).toContain('--- comment 1 by kimops\n<!-- kimops:validation -->\nchecks: all green\n');

    const merged = await kimops(['pr', 'merge', '1', '--repo', gitdir, '--as', 'alice']);
    expect(merged).toMatchObject({ code: 0, stderr: '' });
    const mergeCommit = git(gitdir, 'rev-parse', 'main');
    expect(merged.stdout).toBe(`merged #1 (kimops/dev/shoot-a) into main: ${mergeCommit}\n`);
    expect(git(gitdir, 'log', '-1', '--format=%an|%s', 'main')).toBe('alice|Merge pull request #1 from kimops/dev/shoot-a');
    expect(git(gitdir, 'ls-tree', '-r', '--name-only', 'main').split('\n')).toEqual(['kimops.yaml', 'shoots/a/shoot.yaml']);
    expect((await kimops(['pr', 'list', '--repo', gitdir])).stdout).not.toContain('#1');
    expect((await kimops(['pr', 'show', '1', '--repo', gitdir])).stdout).toContain(`[merged]`);
  });

  it('refuses with exit 1 a conflicting merge, a moved head and a merged PR', async () => {
    const { gitdir, commit } = await prepared();
    const conflict = await kimops(['pr', 'merge', '2', '--repo', gitdir]);
    expect(conflict.code).toBe(1);
    expect(conflict.stderr).toContain('#2 cannot be merged into main: conflicts in kimops.yaml');

    // A push kimops has not recorded (no update of the PR): not what was validated and reviewed.
    await commit('kimops/dev/shoot-a', { 'shoots/a/shoot.yaml': 'kind: Shoot\nspec: {}\n' });
    const moved = await kimops(['pr', 'merge', '1', '--repo', gitdir]);
    expect(moved.code).toBe(1);
    expect(moved.stderr).toContain('the branch moved since it was validated');
    expect((await kimops(['pr', 'show', '1', '--repo', gitdir])).stdout).toContain('the branch moved');
  });

  it('exits 2 for usage errors: no repo, a bad or unknown number', async () => {
    const { gitdir } = await prepared();
    const noRepo = await kimops(['pr', 'list', '--repo', join(dir.path, 'missing.git')]);
    expect(noRepo.code).toBe(2);
    expect(noRepo.stderr).toContain('is not a bare git repository');
    expect((await kimops(['pr', 'show', 'one', '--repo', gitdir])).code).toBe(2);
    const unknown = await kimops(['pr', 'approve', '9', '--repo', gitdir]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no pull request #9');
    expect((await kimops(['pr', 'merge', '1'])).code).toBe(2);
  });
});
