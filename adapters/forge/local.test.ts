// The local forge: the same flow as github.test.ts, on a bare repo in a temp folder, checked with the git CLI.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDir } from '../../test/helpers/temp-dir.js';
import { LandscapeRepo } from '../git/landscape-repo.js';
import type { ForgeResult } from './forge.js';
import { VALIDATE_CONTEXT } from '../../model/contract.js';
import { stickyTag } from './forge.js';
import { localForge, PULLS_BRANCH } from './local.js';

const dir = useTempDir('local-forge');
const author = { name: 'test', email: 'test@localhost' };

function value<T>(result: ForgeResult<T>): T {
  if (!result.ok) throw new Error(`${result.failure.kind}: ${result.failure.message}`);
  return result.value;
}

const git = (gitdir: string, ...args: string[]) =>
  execFileSync('git', ['--git-dir', gitdir, ...args], { encoding: 'utf8' }).trim();

async function landscape() {
  const gitdir = join(dir.path, 'landscape.git');
  const repo = await LandscapeRepo.open(gitdir);
  await repo.commitFiles({
    branch: 'main',
    files: new Map([['kimops.yaml', 'landscape: dev\n']]),
    message: 'init',
    author,
  });
  const push = async (branch: string, files: Record<string, string>, base = 'main') =>
    (
      await repo.commitFiles({
        branch,
        base: (await repo.resolve(branch)) === undefined ? base : branch,
        files: new Map(Object.entries(files)),
        message: `change ${branch}`,
        author,
      })
    ).oid as string;
  return { gitdir, repo, push };
}

describe('local forge', () => {
  it('proposes, reviews, merges with the sha guard and closes pull requests, all recorded in the repo', async () => {
    const { gitdir, repo, push } = await landscape();
    const forge = localForge(repo);
    expect(value(await forge.defaultBranch())).toBe('main');
    const branch = 'kimops/dev/shoot-a';
    const firstHead = await push(branch, { 'shoots/a/shoot.yaml': 'kind: Shoot\n' });
    expect(value(await forge.branchHead(branch))).toBe(firstHead);
    expect(value(await forge.branchHead('kimops/none'))).toBeUndefined();
    expect(value(await forge.findOpenPullRequest(branch))).toBeUndefined();

    const opened = value(
      await forge.openPullRequest({
        branch,
        base: 'main',
        title: 'Create shoot a',
        body: 'first',
        labels: ['kimops/create'],
      }),
    );
    expect(opened).toMatchObject({
      number: 1,
      branch,
      base: 'main',
      headSha: firstHead,
      state: 'open',
      merged: false,
      labels: ['kimops/create'],
    });
    // When it was opened, kept with the record: the generator's PR-age metric outlives a restart.
    expect(Math.abs(Date.parse(opened.createdAt ?? '') - Date.now())).toBeLessThan(60_000);
    expect(value(await forge.findOpenPullRequest(branch))?.createdAt).toBe(opened.createdAt);
    expect(value(await forge.findOpenPullRequest(branch))?.number).toBe(1);
    expect(await forge.openPullRequest({ branch, base: 'main', title: 'again', body: '' })).toMatchObject({
      ok: false,
      failure: { kind: 'invalid' },
    });
    expect(await forge.openPullRequest({ branch: 'kimops/none', base: 'main', title: 'x', body: '' })).toMatchObject({
      ok: false,
      failure: { kind: 'invalid' },
    });

    expect(value(await forge.updatePullRequest(1, { title: 'Create shoot a (v2)', body: 'second' }))).toMatchObject({
      title: 'Create shoot a (v2)',
      body: 'second',
    });
    expect(value(await forge.listOpenPullRequests({ labelPrefix: 'kimops/' })).map((pull) => pull.number)).toEqual([1]);
    expect(value(await forge.listOpenPullRequests({ labelPrefix: 'other/' }))).toEqual([]);

    const first = value(await forge.upsertStickyComment(1, 'validation', 'checks: 1 failing'));
    const second = value(await forge.upsertStickyComment(1, 'validation', 'checks: all green'));
    expect(first.created).toBe(true);
    expect(second).toEqual({ id: first.id, created: false });
    expect(value(await forge.pullRecord(1)).comments.map((comment) => comment.body)).toEqual([
      `${stickyTag('validation')}\nchecks: all green`,
    ]);

    value(
      await forge.setCommitStatus(firstHead, { context: VALIDATE_CONTEXT, state: 'pending', description: 'running' }),
    );
    value(
      await forge.setCommitStatus(firstHead, {
        context: VALIDATE_CONTEXT,
        state: 'success',
        description: 'all green',
        targetUrl: 'https://ci.example/1',
      }),
    );
    expect(value(await forge.statuses(firstHead))).toEqual([
      { context: 'kimops/validate', state: 'success', description: 'all green', targetUrl: 'https://ci.example/1' },
    ]);

    value(await forge.approve(1, 'alice'));
    expect(value(await forge.approvals(1))).toEqual([{ reviewer: 'alice', commitSha: firstHead }]);

    // A push after validation moves the head: merging the validated sha must not merge the new commit.
    const secondHead = await push(branch, { 'shoots/a/shoot.yaml': 'kind: Shoot\nspec: {}\n' });
    expect(value(await forge.findOpenPullRequest(branch))?.headSha).toBe(secondHead);
    const mainBefore = git(gitdir, 'rev-parse', 'main');
    expect(await forge.mergePullRequest(1, { sha: firstHead, method: 'merge' })).toMatchObject({
      ok: false,
      failure: { kind: 'head-moved' },
    });
    expect(git(gitdir, 'rev-parse', 'main')).toBe(mainBefore);
    const merged = value(await forge.mergePullRequest(1, { sha: secondHead, method: 'merge' }));
    // main had not moved: a fast-forward, so main is the branch's head.
    expect(merged.sha).toBe(secondHead);
    expect(git(gitdir, 'rev-parse', 'main')).toBe(secondHead);
    expect(git(gitdir, 'show', 'main:shoots/a/shoot.yaml')).toBe('kind: Shoot\nspec: {}');
    expect(value(await forge.findOpenPullRequest(branch))).toBeUndefined();
    expect(value(await forge.pullRecord(1))).toMatchObject({
      state: 'merged',
      headSha: secondHead,
      mergeCommit: secondHead,
    });
    expect(value(await forge.getPullRequest(1))).toMatchObject({
      number: 1,
      branch,
      state: 'closed',
      merged: true,
      mergeCommitSha: secondHead,
    });
    expect(await forge.mergePullRequest(1, { sha: secondHead, method: 'merge' })).toMatchObject({
      ok: false,
      failure: { kind: 'not-mergeable' },
    });

    const otherBranch = 'kimops/dev/shoot-b';
    await push(otherBranch, { 'shoots/b/shoot.yaml': 'kind: Shoot\n' });
    const other = value(
      await forge.openPullRequest({ branch: otherBranch, base: 'main', title: 'Create shoot b', body: '' }),
    );
    expect(other.number).toBe(2);
    expect(
      value(await forge.closePullRequest(2, 'The Runtime was deleted before the Shoot was created.')),
    ).toMatchObject({ state: 'closed', merged: false });
    expect(value(await forge.pullRecord(2)).comments.map((comment) => comment.body)).toEqual([
      'The Runtime was deleted before the Shoot was created.',
    ]);
    expect(await forge.approvals(9)).toMatchObject({ ok: false, failure: { kind: 'not-found' } });
    const closedPull = value(await forge.getPullRequest(2));
    expect(closedPull).toMatchObject({ number: 2, branch: otherBranch, state: 'closed', merged: false });
    expect(closedPull.mergeCommitSha).toBeUndefined();
    expect(await forge.getPullRequest(9)).toMatchObject({ ok: false, failure: { kind: 'not-found' } });

    // The records are git data on their own branch, never on main, and git reads them.
    expect(git(gitdir, 'ls-tree', '-r', '--name-only', PULLS_BRANCH).split('\n')).toEqual([
      'pulls/1.json',
      'pulls/2.json',
      `statuses/${firstHead}.json`,
    ]);
    expect(git(gitdir, 'ls-tree', '-r', '--name-only', 'main').split('\n')).toEqual([
      'kimops.yaml',
      'shoots/a/shoot.yaml',
    ]);
    expect(() => git(gitdir, 'merge-base', 'main', PULLS_BRANCH)).toThrow();
    git(gitdir, 'fsck', '--strict');
  }, 30_000);

  it("reads checks, finds a merge commit's PR, sets labels, lists and deletes branches under the ref lock", async () => {
    const { gitdir, repo, push } = await landscape();
    const forge = localForge(repo);
    expect(forge.checkReporters).toBe('kimops');
    const branch = 'kimops/dev/shoot-b';
    const head = await push(branch, { 'shoots/b/shoot.yaml': 'kind: Shoot\n' });
    const other = await push('kimops/dev/shoot-c', { 'shoots/c/shoot.yaml': 'kind: Shoot\n' });
    const pr = value(
      await forge.openPullRequest({ branch, base: 'main', title: 'b', body: '', labels: ['kimops:create'] }),
    );

    expect(value(await forge.checksOf(head))).toEqual([]);
    value(await forge.setCommitStatus(head, { context: VALIDATE_CONTEXT, state: 'error', description: 'crashed' }));
    value(await forge.setCommitStatus(head, { context: 'other', state: 'pending', description: 'x', targetUrl: 'u' }));
    expect(value(await forge.checksOf(head))).toEqual([
      { name: VALIDATE_CONTEXT, source: 'status', state: 'failure', description: 'crashed' },
      { name: 'other', source: 'status', state: 'pending', description: 'x', url: 'u' },
    ]);

    expect(value(await forge.setLabels(pr.number, ['kimops:rollout', 'kimops:rollout']))).toEqual(['kimops:rollout']);
    expect(value(await forge.getPullRequest(pr.number)).labels).toEqual(['kimops:rollout']);
    expect((await forge.setLabels(99, [])).ok).toBe(false);

    expect(value(await forge.listBranches('kimops/dev/'))).toEqual([
      { name: branch, sha: head },
      { name: 'kimops/dev/shoot-c', sha: other },
    ]);
    expect(value(await forge.lastClosedPullRequest(branch))).toBeUndefined();
    const merge = value(await forge.mergePullRequest(pr.number, { sha: head, method: 'merge' })).sha;
    expect(value(await forge.pullRequestsOfCommit(merge))).toEqual([
      expect.objectContaining({ number: pr.number, merged: true, mergeCommitSha: merge }),
    ]);
    expect(value(await forge.pullRequestsOfCommit(other))).toEqual([]);
    expect(value(await forge.lastClosedPullRequest(branch))).toMatchObject({ number: pr.number, headSha: head });

    // The head guard: a branch someone moved is left in place.
    expect(await forge.deleteBranch(branch, { ifHeadIs: other })).toMatchObject({
      ok: false,
      failure: { kind: 'head-moved' },
    });
    expect(value(await forge.deleteBranch(branch, { ifHeadIs: head }))).toEqual({ deleted: true });
    expect(value(await forge.deleteBranch(branch))).toEqual({ deleted: false });
    // A packed ref (after git gc) goes too, and does not come back from packed-refs.
    git(gitdir, 'pack-refs', '--all');
    expect(existsSync(join(gitdir, 'refs/heads/kimops/dev/shoot-c'))).toBe(false);
    expect(value(await forge.listBranches('kimops/dev/'))).toEqual([{ name: 'kimops/dev/shoot-c', sha: other }]);
    expect(value(await forge.deleteBranch('kimops/dev/shoot-c', { ifHeadIs: other }))).toEqual({ deleted: true });
    expect(git(gitdir, 'for-each-ref', '--format=%(refname)', 'refs/heads/kimops/dev/')).toBe('');
    // The deleted branch's own commit is dangling now, as after `git branch -D`; nothing is broken.
    expect(git(gitdir, 'fsck', '--strict', '--no-dangling')).toBe('');
    // main and the records are never deleted.
    expect(await forge.deleteBranch('main')).toMatchObject({ ok: false, failure: { kind: 'invalid' } });
    expect(await forge.deleteBranch(PULLS_BRANCH)).toMatchObject({ ok: false, failure: { kind: 'invalid' } });
  });

  it('merges with a two-parent merge commit when main moved, and refuses a conflicting merge', async () => {
    const { gitdir, repo, push } = await landscape();
    const forge = localForge(repo);
    const a = await push('kimops/dev/shoot-a', { 'shoots/a/shoot.yaml': 'kind: Shoot\n' });
    const b = await push('kimops/dev/shoot-b', { 'shoots/b/shoot.yaml': 'kind: Shoot\n' });
    const clash = await push('kimops/dev/clash', { 'kimops.yaml': 'landscape: other\n' });
    await push('main', { 'kimops.yaml': 'landscape: dev\npolicySet: default\n' });
    const pulls = [];
    for (const branch of ['kimops/dev/shoot-a', 'kimops/dev/shoot-b', 'kimops/dev/clash'])
      pulls.push(value(await forge.openPullRequest({ branch, base: 'main', title: branch, body: '' })).number);

    const first = value(await forge.mergePullRequest(pulls[0] as number, { sha: a, method: 'merge' }));
    const second = value(await forge.mergePullRequest(pulls[1] as number, { sha: b, method: 'merge' }));
    expect(git(gitdir, 'log', '-1', '--format=%P|%s', first.sha)).toMatch(
      new RegExp(`^\\w{40} ${a}\\|Merge pull request #1 from kimops/dev/shoot-a$`),
    );
    expect(git(gitdir, 'log', '-1', '--format=%P', second.sha)).toBe(`${first.sha} ${b}`);
    expect(git(gitdir, 'rev-parse', 'main')).toBe(second.sha);
    expect(git(gitdir, 'ls-tree', '-r', '--name-only', 'main').split('\n')).toEqual([
      'kimops.yaml',
      'shoots/a/shoot.yaml',
      'shoots/b/shoot.yaml',
    ]);

    const refused = await forge.mergePullRequest(pulls[2] as number, { sha: clash, method: 'merge' });
    expect(refused).toMatchObject({ ok: false, failure: { kind: 'not-mergeable' } });
    expect(!refused.ok && refused.failure.message).toContain('conflicts in kimops.yaml');
    expect(git(gitdir, 'rev-parse', 'main')).toBe(second.sha);
    expect(value(await forge.pullRecord(pulls[2] as number)).state).toBe('open');
    // The three-way merge went through an index; a bare repo keeps none.
    expect(existsSync(join(gitdir, 'index'))).toBe(false);
    git(gitdir, 'fsck', '--strict');
  }, 30_000);

  it('names a damaged PR record with the fix instead of failing on it later', async () => {
    const { repo, push } = await landscape();
    const forge = localForge(repo);
    await push('kimops/dev/shoot-a', { 'shoots/a/shoot.yaml': 'kind: Shoot\n' });
    value(await forge.openPullRequest({ branch: 'kimops/dev/shoot-a', base: 'main', title: 'a', body: '' }));
    const damage = async (text: string) =>
      repo.commitFiles({ branch: PULLS_BRANCH, files: new Map([['pulls/1.json', text]]), message: 'edit', author });
    await damage('{"number": 1, ');
    await expect(forge.pullRecords()).rejects.toThrow(`${repo.gitdir} ${PULLS_BRANCH}:pulls/1.json: is not valid JSON`);
    await damage(
      JSON.stringify({
        number: 1,
        branch: 'kimops/dev/shoot-a',
        base: 'main',
        title: 'a',
        body: '',
        state: 'open',
        labels: 'x',
        headSha: 'a'.repeat(40),
        reviews: [],
        comments: [],
      }),
    );
    await expect(forge.approve(1, 'alice')).rejects.toThrow(
      'pulls/1.json: labels: not a list of strings; the record was edited or damaged',
    );
    const record = { number: 1, branch: 'kimops/dev/shoot-a', base: 'main', title: 'a', body: '', state: 'open' };
    await damage(
      JSON.stringify({ ...record, labels: [], headSha: 'a'.repeat(40), reviews: [], comments: [], createdAt: 'soon' }),
    );
    await expect(forge.approve(1, 'alice')).rejects.toThrow('pulls/1.json: createdAt: not a time');
    await damage(JSON.stringify({ number: 2 }));
    await expect(forge.findOpenPullRequest('kimops/dev/shoot-a')).rejects.toThrow('says number 2, but its file is #1');
  });

  it('records as merged a PR whose head reached main before its record was written (a crash in between)', async () => {
    const { gitdir, repo, push } = await landscape();
    const forge = localForge(repo);
    const head = await push('kimops/dev/shoot-a', { 'shoots/a/shoot.yaml': 'kind: Shoot\n' });
    const other = await push('kimops/dev/shoot-b', { 'shoots/b/shoot.yaml': 'kind: Shoot\n' });
    value(await forge.openPullRequest({ branch: 'kimops/dev/shoot-a', base: 'main', title: 'a', body: '' }));
    value(await forge.openPullRequest({ branch: 'kimops/dev/shoot-b', base: 'main', title: 'b', body: '' }));
    // The merge a killed `pr merge` made, without the record it would have written next.
    const merged = await repo.mergeInto({ branch: 'main', theirs: head, message: 'Merge pull request #1', author });
    const main = git(gitdir, 'rev-parse', 'main');
    expect(value(await forge.mergePullRequest(1, { sha: head, method: 'merge' }))).toEqual({
      sha: merged.merged && merged.oid,
    });
    expect(git(gitdir, 'rev-parse', 'main')).toBe(main); // nothing merged twice
    expect(value(await forge.pullRecord(1))).toMatchObject({ state: 'merged', mergeCommit: main });
    // A pass that finds main holding the change closes the PR: it is recorded merged, not closed.
    await repo.mergeInto({ branch: 'main', theirs: other, message: 'Merge pull request #2', author });
    expect(value(await forge.closePullRequest(2, 'no change left'))).toMatchObject({ merged: true, state: 'closed' });
    expect(value(await forge.pullRecord(2))).toMatchObject({
      state: 'merged',
      mergeCommit: git(gitdir, 'rev-parse', 'main'),
    });
  });
});
