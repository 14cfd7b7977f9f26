// The approvals that count, read from a real landscape repo (CODEOWNERS where GitHub looks for it, the files a
// commit changes against its first parent) and a forge's team memberships: the local forge's by name, and a
// forge that fails to answer.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ForgeFailure } from '../adapters/forge/forge.js';
import { localForge } from '../adapters/forge/local.js';
import { LandscapeRepo } from '../adapters/git/landscape-repo.js';
import { useTempDir } from '../test/helpers/temp-dir.js';
import { countApprovals, filesChanged, readCodeOwners } from './code-owner-approvals.js';

const dir = useTempDir('code-owner-approvals');
const author = { name: 'test', email: 'test@localhost' };

async function repoWith(files: Record<string, string>) {
  const repo = await LandscapeRepo.open(join(dir.path, 'landscape.git'));
  const commit = async (change: Record<string, string>, deletions: string[] = []) =>
    (
      await repo.commitFiles({
        branch: 'main',
        files: new Map(Object.entries(change)),
        deletions,
        message: 'change',
        author,
      })
    ).oid as string;
  return { repo, first: await commit(files), commit };
}

describe('filesChanged', () => {
  it('names the files added, changed and removed, walking only the folders that differ', async () => {
    const { repo, first, commit } = await repoWith({
      'kimops.yaml': 'landscape: dev\n',
      'shoots/a/shoot.yaml': 'a\n',
      'shoots/b/shoot.yaml': 'b\n',
      'shoots/b/secretbinding.yaml': 'b\n',
      'shoots/c/shoot.yaml': 'c\n',
    });
    const second = await commit({ 'shoots/a/shoot.yaml': 'a2\n', 'shoots/d/shoot.yaml': 'd\n' }, ['shoots/b']);
    expect((await filesChanged(repo, first, second)).sort()).toEqual([
      'shoots/a/shoot.yaml',
      'shoots/b/secretbinding.yaml',
      'shoots/b/shoot.yaml',
      'shoots/d/shoot.yaml',
    ]);
    expect(await filesChanged(repo, second, second)).toEqual([]);
    expect((await filesChanged(repo, undefined, first)).length).toBe(5);
  });
});

describe('readCodeOwners', () => {
  it('reads the first file of .github/CODEOWNERS, CODEOWNERS, docs/CODEOWNERS, as GitHub does', async () => {
    const { repo, commit } = await repoWith({ 'docs/CODEOWNERS': '* @docs\n', CODEOWNERS: '* @root\n' });
    expect((await readCodeOwners(repo, 'main')).map((rule) => rule.owners)).toEqual([['@root']]);
    await commit({ '.github/CODEOWNERS': '* @acme/sre\n' });
    expect((await readCodeOwners(repo, 'main')).map((rule) => rule.owners)).toEqual([['@acme/sre']]);
    expect(await readCodeOwners(repo, 'no-such-branch')).toEqual([]);
  });
});

describe('countApprovals', () => {
  const head = 'a'.repeat(40);
  const approvals = (...reviewers: string[]) => [
    ...reviewers.map((reviewer) => ({ reviewer, commitSha: head })),
    { reviewer: 'carol', commitSha: 'b'.repeat(40) },
  ];

  it('counts on the local forge a reviewer who names the team CODEOWNERS names, and only approvals of the head', async () => {
    const { repo } = await repoWith({ CODEOWNERS: '/shoots/ @acme/sre @carol\n' });
    const forge = localForge(repo);
    const rules = await readCodeOwners(repo, 'main');
    const paths = ['shoots/a/shoot.yaml'];
    // carol approved an earlier head only; alice names no owner.
    expect(await countApprovals(forge, { rules, paths, approvals: approvals('alice'), head })).toEqual({
      ok: true,
      value: {
        count: 0,
        reviewers: { by: 'code-owners', owners: ['@acme/sre', '@carol'] },
        waitingFor: [{ owners: ['@acme/sre', '@carol'], paths }],
      },
    });
    expect(await countApprovals(forge, { rules, paths, approvals: approvals('@acme/sre'), head })).toMatchObject({
      ok: true,
      value: { count: 1, waitingFor: [] },
    });
  });

  it('counts nobody through a team the forge will not show, saying why; an unreachable forge fails the count', async () => {
    const { repo } = await repoWith({ CODEOWNERS: '* @acme/sre\n' });
    const rules = await readCodeOwners(repo, 'main');
    const refusing = (failure: ForgeFailure) => ({
      isTeamMember: () => Promise.resolve({ ok: false as const, failure }),
    });
    const input = { rules, paths: ['shoots/a/shoot.yaml'], approvals: approvals('dave'), head };
    const hidden = await countApprovals(
      refusing({ kind: 'unauthorized', message: '403 (grant Members: read)' }),
      input,
    );
    expect(hidden).toMatchObject({
      ok: true,
      value: { count: 0, unreadable: ["dave's membership of @acme/sre cannot be read: 403 (grant Members: read)"] },
    });
    expect(await countApprovals(refusing({ kind: 'transport', message: '502' }), input)).toEqual({
      ok: false,
      failure: { kind: 'transport', message: '502' },
    });
  });
});
