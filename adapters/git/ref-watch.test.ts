// The ref watch heard through the file system, driven by what git itself does to a ref: a loose ref renamed into
// place from its lock, refs packed and pruned (`git pack-refs`), a packed ref moved, a ref deleted, other refs and
// lock files beside it. Each step awaits the callback; no step waits for time to pass.
import { execFileSync } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gitIn } from '../../test/helpers/git-cli.js';
import { useTempDir } from '../../test/helpers/temp-dir.js';
import { writeFileAtomic } from './atomic-file.js';
import { updateRef } from './refs.js';
import { watchRef } from './ref-watch.js';

const tmp = useTempDir('ref-watch');
const MAIN = 'refs/heads/main';

/** A bare repo made by the git CLI and `count` commits in it (no ref points at them yet). */
function repoWithCommits(count: number): { gitdir: string; commits: string[] } {
  const gitdir = join(tmp.path, 'repo.git');
  const git = gitIn(gitdir);
  execFileSync('git', ['init', '--quiet', '--bare', '-b', 'main', gitdir]);
  const tree = git('hash-object', '-w', '-t', 'tree', '--stdin');
  const commits = Array.from({ length: count }, (_, i) => git('commit-tree', tree, '-m', `commit ${i}`));
  return { gitdir, commits };
}

/** The values heard, and a way to await the n-th. */
function heard() {
  const values: (string | undefined)[] = [];
  let wake: (() => void) | undefined;
  return {
    values,
    onChange: (oid: string | undefined) => {
      values.push(oid);
      wake?.();
    },
    async until(done: (seen: (string | undefined)[]) => boolean): Promise<(string | undefined)[]> {
      while (!done(values)) await new Promise<void>((resolve) => (wake = resolve));
      return values;
    },
    count(n: number) {
      return this.until((seen) => seen.length >= n);
    },
  };
}

describe('watchRef', () => {
  it('hears each move of a loose ref renamed into place from its lock, and not its lock or other refs', async () => {
    const { gitdir, commits } = repoWithCommits(3);
    const [a, b, c] = commits as [string, string, string];
    await updateRef(gitdir, MAIN, a, undefined);
    const events = heard();
    const errors: string[] = [];
    const watch = await watchRef({ gitdir, ref: MAIN, onChange: events.onChange, onError: (e) => errors.push(e) });
    try {
      expect(watch.current).toBe(a);
      await updateRef(gitdir, MAIN, b, a);
      expect(await events.count(1)).toEqual([b]);
      // Another branch and a lock left beside main: no event for main, so the next value heard is main's move.
      await updateRef(gitdir, 'refs/heads/other', a, undefined);
      await writeFileAtomic(join(gitdir, `${MAIN}.lock`), `${a}\n`);
      await rm(join(gitdir, `${MAIN}.lock`));
      await updateRef(gitdir, MAIN, c, b);
      expect(await events.count(2)).toEqual([b, c]);
      expect(watch.current).toBe(c);
      expect(errors).toEqual([]);
    } finally {
      watch.close();
    }
  });

  it('stays silent when git packs the ref, hears a move of the packed ref, and its deletion', async () => {
    const { gitdir, commits } = repoWithCommits(3);
    const [a, b, c] = commits as [string, string, string];
    await updateRef(gitdir, MAIN, a, undefined);
    const events = heard();
    const watch = await watchRef({ gitdir, ref: MAIN, onChange: events.onChange });
    try {
      // git pack-refs: packed-refs renamed into place, the loose file removed; main still names `a`.
      execFileSync('git', ['--git-dir', gitdir, 'pack-refs', '--all', '--prune']);
      // A packed ref moved as git rewrites packed-refs (under its lock, renamed over it).
      await writeFileAtomic(
        join(gitdir, 'packed-refs'),
        `# pack-refs with: peeled fully-peeled sorted \n${b} ${MAIN}\n`,
      );
      expect(await events.count(1)).toEqual([b]);
      // A loose ref shadows the packed one again, as after a later update.
      await updateRef(gitdir, MAIN, c, b);
      expect(await events.count(2)).toEqual([b, c]);
      // Deleted (`git update-ref -d` removes both): heard as gone.
      execFileSync('git', ['--git-dir', gitdir, 'update-ref', '-d', MAIN]);
      expect(await events.count(3)).toEqual([b, c, undefined]);
    } finally {
      watch.close();
    }
  });

  it('a burst of moves ends on the last value, each value heard once', async () => {
    const { gitdir, commits } = repoWithCommits(6);
    await updateRef(gitdir, MAIN, commits[0] as string, undefined);
    const events = heard();
    const watch = await watchRef({ gitdir, ref: MAIN, onChange: events.onChange });
    try {
      for (let i = 1; i < commits.length; i++) await updateRef(gitdir, MAIN, commits[i] as string, commits[i - 1]);
      const last = commits.at(-1);
      const values = await events.until((seen) => seen.at(-1) === last);
      // Coalesced reads may skip values in between, never repeat one or go back.
      const order = values.map((v) => commits.indexOf(v as string));
      expect(order).toEqual([...order].sort((x, y) => x - y));
      expect(new Set(order).size).toBe(order.length);
      expect(order[0]).toBeGreaterThan(0);
    } finally {
      watch.close();
    }
  });
});
