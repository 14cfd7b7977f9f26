// Leftover branches of kimops PRs, on a real landscape repo with the local forge (its PR records and refs): what
// goes (a merged or closed PR's branch still at the head kimops wrote, loose or packed) and what stays (a branch
// someone pushed to since, one no PR was ever opened from, one an open PR uses, another landscape's).
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ForgeResult } from '../adapters/forge/forge.js';
import { localForge } from '../adapters/forge/local.js';
import { LandscapeRepo } from '../adapters/git/landscape-repo.js';
import { useTempDir } from '../test/helpers/temp-dir.js';
import { deleteLeftoverBranches } from './branch-cleanup.js';
import { wroteLine } from './propose/written-heads.js';

const dir = useTempDir('branch-cleanup');
const author = { name: 'kimops', email: 'kimops@localhost' };

function value<T>(result: ForgeResult<T>): T {
  if (!result.ok) throw new Error(`${result.failure.kind}: ${result.failure.message}`);
  return result.value;
}

describe('deleteLeftoverBranches', () => {
  it('deletes the branches of merged and closed PRs at the head kimops wrote, packed or loose, and keeps the rest', async () => {
    const gitdir = join(dir.path, 'landscape.git');
    const repo = await LandscapeRepo.open(gitdir);
    await repo.commitFiles({ branch: 'main', files: new Map([['kimops.yaml', 'x\n']]), message: 'init', author });
    const forge = localForge(repo);
    const push = async (branch: string, content: string) =>
      (
        await repo.commitFiles({
          branch,
          base: (await repo.resolve(branch)) === undefined ? 'main' : branch,
          files: new Map([[`shoots/${branch.split('/').at(-1)}/shoot.yaml`, content]]),
          message: content,
          author,
        })
      ).oid as string;
    /** A PR kimops opened for `branch` at its head, then merged or closed. */
    const proposed = async (branch: string, end: 'merge' | 'close' | 'open') => {
      const head = await push(branch, branch);
      const pr = value(await forge.openPullRequest({ branch, base: 'main', title: branch, body: wroteLine(head) }));
      if (end === 'merge') value(await forge.mergePullRequest(pr.number, { sha: head, method: 'merge' }));
      if (end === 'close') value(await forge.closePullRequest(pr.number));
      return head;
    };

    await proposed('kimops/dev/merged', 'merge');
    await proposed('kimops/dev/packed', 'close');
    await proposed('kimops/dev/moved', 'close');
    await push('kimops/dev/moved', 'a human pushed after the close');
    await push('kimops/dev/no-pr', 'pushed, then kimops stopped before opening its PR');
    await proposed('kimops/dev/open', 'open');
    await proposed('kimops/prod/other', 'merge');
    // A branch `git gc` packed: its ref lives in packed-refs only.
    execFileSync('git', ['--git-dir', gitdir, 'pack-refs', '--all']);
    expect(execFileSync('git', ['--git-dir', gitdir, 'show-ref'], { encoding: 'utf8' })).toContain('kimops/dev/packed');

    const logs: string[] = [];
    const deleted = await deleteLeftoverBranches(
      { forge, log: (line) => logs.push(line) },
      ['kimops/dev/'],
      new Set(['kimops/dev/open']),
    );
    expect(deleted.sort()).toEqual(['kimops/dev/merged', 'kimops/dev/packed']);
    const branches = execFileSync(
      'git',
      ['--git-dir', gitdir, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/kimops/'],
      {
        encoding: 'utf8',
      },
    )
      .trim()
      .split('\n')
      .sort();
    expect(branches).toEqual([
      'kimops/dev/moved',
      'kimops/dev/no-pr',
      'kimops/dev/open',
      'kimops/prod/other',
      'kimops/pulls',
    ]);
    expect(logs.filter((line) => !line.endsWith('branch deleted'))).toEqual([]);
  });
});
