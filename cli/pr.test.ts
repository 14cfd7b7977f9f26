import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { VALIDATE_CONTEXT } from '../model/contract.js';
import { localForge } from '../adapters/forge/local.js';
import { LandscapeRepo } from '../adapters/git/landscape-repo.js';
import { classLine, type RecordedClass } from '../generator/propose/merge-gate.js';
import { wroteLine } from '../generator/propose/written-heads.js';
import { useTempDir } from '../test/helpers/temp-dir.js';
import { kimops } from '../test/helpers/cli.js';

const dir = useTempDir('pr');
const author = { name: 'test', email: 'test@localhost' };

const git = (gitdir: string, ...args: string[]) =>
  execFileSync('git', ['--git-dir', gitdir, ...args], { encoding: 'utf8' }).trim();

const BODY = '## Create shoot a\n\n| shoot | class |\n|---|---|\n| a | create |\n';
const CONFIG =
  'apiVersion: kimops.kyma-project.io/v1alpha1\nkind: KimopsConfig\nlandscape: dev\ngardener: {project: dev}\n';

/** A landscape repo with PR #1 (a create, validated, commented) and PR #2 (an update conflicting with main). */
async function prepared() {
  const gitdir = join(dir.path, 'landscape.git');
  const repo = await LandscapeRepo.open(gitdir);
  const commit = async (branch: string, files: Record<string, string>, base?: string) =>
    (
      await repo.commitFiles({
        branch,
        ...(base ? { base } : {}),
        files: new Map(Object.entries(files)),
        message: `change ${branch}`,
        author,
      })
    ).oid as string;
  await commit('main', { 'kimops.yaml': CONFIG });
  const head = await commit('kimops/dev/shoot-a', { 'shoots/a/shoot.yaml': 'kind: Shoot\n' }, 'main');
  const clash = await commit('kimops/dev/clash', { 'kimops.yaml': CONFIG.replace('dev}', 'other}') }, 'main');
  const forge = localForge(repo);
  for (const [branch, title, body, sha, recorded] of [
    ['kimops/dev/shoot-a', 'Create shoot a', BODY, head, 'create'],
    ['kimops/dev/clash', 'Change config', 'x', clash, 'update'],
  ] as const) {
    // As the generator records it: the class decided for the head, hidden in the body.
    if (
      !(
        await forge.openPullRequest({
          branch,
          base: 'main',
          title,
          body: `${body}${wroteLine(sha)}${classLine(sha, { class: recorded, disruptive: false })}`,
        })
      ).ok
    )
      throw new Error('open failed');
  }
  for (const sha of [head, clash])
    await forge.setCommitStatus(sha, {
      context: VALIDATE_CONTEXT,
      state: 'success',
      description: 'schema checks passed',
    });
  await forge.upsertStickyComment(1, 'validation', 'checks: all green');
  await commit('main', { 'kimops.yaml': `${CONFIG}policySet: default\n` });
  return { gitdir, head, commit, forge, repo };
}

describe('kimops pr', () => {
  it('lists, shows, approves and merges a pull request of the local forge', async () => {
    const { gitdir, head } = await prepared();
    const listed = await kimops(['pr', 'list', '--repo', gitdir]);
    expect(listed).toMatchObject({ code: 0, stderr: '' });
    expect(listed.stdout.split('\n')).toEqual([
      '#1\tkimops/dev/shoot-a\tCreate shoot a\tapprovals: none\tkimops/validate: success',
      '#2\tkimops/dev/clash\tChange config\tapprovals: none\tkimops/validate: success',
      '',
    ]);

    expect(await kimops(['pr', 'approve', '1', '--repo', gitdir, '--as', 'alice'])).toMatchObject({
      code: 0,
      stdout: `approved #1 as alice on ${head}\n`,
    });
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
    // The branch kimops wrote goes with the merge; the record keeps the head it merged.
    expect(merged.stdout).toBe(
      `merged #1 (kimops/dev/shoot-a) into main: ${mergeCommit}\ndeleted branch kimops/dev/shoot-a\n`,
    );
    expect(git(gitdir, 'branch', '--list', 'kimops/dev/*')).toBe('kimops/dev/clash');
    expect(git(gitdir, 'log', '-1', '--format=%an|%s', 'main')).toBe(
      'alice|Merge pull request #1 from kimops/dev/shoot-a',
    );
    expect(git(gitdir, 'ls-tree', '-r', '--name-only', 'main').split('\n')).toEqual([
      'kimops.yaml',
      'shoots/a/shoot.yaml',
    ]);
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

  it('merges only what the gate allows: class, approvals and the validation of the head', async () => {
    const { gitdir, repo, forge, commit } = await prepared();
    /** The class a generator pass records for the PR's head (undefined: none recorded), or for another head. */
    const record = async (number: number, recorded: RecordedClass | undefined, forHead?: string) => {
      const current = ((await forge.pullRecord(number)) as { ok: true; value: { headSha: string } }).value;
      const body = recorded === undefined ? 'no class' : classLine(forHead ?? current.headSha, recorded);
      await repo.commitFiles({
        branch: 'kimops/pulls',
        files: new Map([[`pulls/${number}.json`, JSON.stringify({ ...current, body })]]),
        message: 'reclassify',
        author,
      });
    };
    const refused = async (number: number, reason: string) => {
      const result = await kimops(['pr', 'merge', String(number), '--repo', gitdir]);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(reason);
      expect(result.stderr).toContain(`kimops pr merge ${number} --repo ${gitdir} --force --reason`);
    };
    const main = git(gitdir, 'rev-parse', 'main');

    await record(1, { class: 'immutable', disruptive: false });
    await refused(1, '#1 not merged, blocked: Gardener would reject this change');
    await record(1, { class: 'update', disruptive: true });
    await refused(
      1,
      '#1 not merged, await-review: waits for 1 approval by a collaborator (mergePolicy.update-disruptive; CODEOWNERS names no owner of its files), has 0',
    );
    await record(1, undefined);
    await refused(1, 'kimops recorded no change class for its head');
    // A class decided for an earlier head says nothing about this one (a later pass may have found it immutable).
    await record(1, { class: 'create', disruptive: false }, 'f'.repeat(40));
    await refused(1, 'kimops recorded no change class for its head');
    const failing = await commit('kimops/dev/shoot-a', { 'shoots/a/shoot.yaml': 'kind: Shoot\nspec: {}\n' });
    await forge.updatePullRequest(1, {});
    await record(1, { class: 'create', disruptive: false });
    await forge.setCommitStatus(failing, {
      context: VALIDATE_CONTEXT,
      state: 'failure',
      description: '1 of 3 checks failed: no-ssh',
    });
    await refused(1, 'failed checks: kimops/validate (failure: 1 of 3 checks failed: no-ssh)');
    await forge.setCommitStatus(failing, { context: VALIDATE_CONTEXT, state: 'pending', description: 'x' });
    await commit('kimops/dev/shoot-a', { 'shoots/a/shoot.yaml': 'kind: Shoot\nspec: {x: 1}\n' });
    await forge.updatePullRequest(1, {});
    await record(1, { class: 'create', disruptive: false });
    await refused(1, 'no status on the head');
    expect(git(gitdir, 'rev-parse', 'main')).toBe(main);

    // The break-glass: needs a reason, and records who and why in the PR record and the merge commit.
    const noReason = await kimops(['pr', 'merge', '1', '--repo', gitdir, '--force']);
    expect(noReason.code).toBe(2);
    expect(noReason.stderr).toContain('--force: needs --reason');
    const forced = await kimops([
      'pr',
      'merge',
      '1',
      '--repo',
      gitdir,
      '--as',
      'bob',
      '--force',
      '--reason',
      'incident 42: restore quickly',
    ]);
    expect(forced.code).toBe(0);
    expect(forced.stdout).toContain('past the gate, by bob: incident 42: restore quickly');
    expect(git(gitdir, 'log', '-1', '--format=%B', 'main')).toContain(
      'Kimops-Forced-By: bob\nKimops-Force-Reason: incident 42: restore quickly',
    );
    expect((await forge.pullRecord(1)) as object).toMatchObject({
      value: { state: 'merged', forced: { by: 'bob', reason: 'incident 42: restore quickly' } },
    });
    expect((await kimops(['pr', 'show', '1', '--repo', gitdir])).stdout).toContain(
      'merged past the gate by bob: incident 42: restore quickly',
    );
  });

  it('waits for a required check nothing posts to a local repository, and says so with the fix', async () => {
    const { gitdir, commit } = await prepared();
    await commit('main', { 'kimops.yaml': `${CONFIG}requiredChecks: [kimops/validate, validate]\n` });
    const result = await kimops(['pr', 'merge', '1', '--repo', gitdir]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      '#1 not merged, await-checks: auto-merge per mergePolicy.create, but waits for required check: validate (never reported: only kimops posts statuses to a local repository; remove it from requiredChecks in kimops.yaml',
    );
  });

  it('refuses reviewer names that would break a commit header or a terminal line', async () => {
    const { gitdir } = await prepared();
    for (const name of ['eve\nparent 0000000000000000000000000000000000000000', 'eve <x@y>', ' ', 'a\u001b[31mred']) {
      const result = await kimops(['pr', 'approve', '1', '--repo', gitdir, '--as', name]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('--as:');
    }
    expect(git(gitdir, 'fsck', '--strict')).toBe('');
    expect((await kimops(['pr', 'approve', '1', '--repo', gitdir, '--as', 'Jane Doe'])).code).toBe(0);
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
