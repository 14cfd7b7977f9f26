// main's own line of history, as `git log --first-parent` walks it: merge commits, not the merged branches' commits.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gitIn } from '../../test/helpers/git-cli.js';
import { useTempDir } from '../../test/helpers/temp-dir.js';
import { firstParents } from './history.js';

const tmp = useTempDir('history');

/** A bare repo: root ← a ← merge(a, side) ← b, with `side` branching off root. */
function repo(): { gitdir: string; root: string; a: string; side: string; merge: string; b: string } {
  const gitdir = join(tmp.path, 'repo.git');
  execFileSync('git', ['init', '--quiet', '--bare', gitdir]);
  const git = gitIn(gitdir);
  const tree = git('hash-object', '-w', '-t', 'tree', '--stdin');
  const commit = (message: string, ...parents: string[]) =>
    git('commit-tree', tree, '-m', message, ...parents.flatMap((p) => ['-p', p]));
  const root = commit('root');
  const a = commit('a', root);
  const side = commit('side', root);
  const merge = commit('merge', a, side);
  const b = commit('b', merge);
  return { gitdir, root, a, side, merge, b };
}

describe('firstParents', () => {
  it('walks first parents only, newest first, to the root, a limit or a commit to stop before', async () => {
    const { gitdir, root, a, merge, b } = repo();
    expect(await firstParents(gitdir, b, { limit: 10 })).toEqual([b, merge, a, root]);
    expect(await firstParents(gitdir, b, { limit: 2 })).toEqual([b, merge]);
    expect(await firstParents(gitdir, b, { limit: 10, until: a })).toEqual([b, merge]);
    expect(await firstParents(gitdir, b, { limit: 10, until: b })).toEqual([]);
  });

  it('ends where a shallow history ends, and fails for a commit it does not have', async () => {
    const { gitdir, a, merge, b } = repo();
    // The objects of `a` and older removed, as a shallow clone never had them.
    const loose = (oid: string) => join(gitdir, 'objects', oid.slice(0, 2), oid.slice(2));
    execFileSync('rm', [loose(a)]);
    expect(await firstParents(gitdir, b, { limit: 10 })).toEqual([b, merge]);
    await expect(firstParents(gitdir, a, { limit: 10 })).rejects.toThrow();
  });
});
