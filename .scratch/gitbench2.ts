import fs from 'node:fs';
import git from 'isomorphic-git';
const gitdir = '/tmp/landscape-files/.git';
const cache = {};
const head = await git.resolveRef({ fs, gitdir, ref: 'HEAD' });
const { commit } = await git.readCommit({ fs, gitdir, oid: head, cache });
const root = (await git.readTree({ fs, gitdir, oid: commit.tree, cache })).tree.find((e) => e.path === 'shoots')!;
const folders = (await git.readTree({ fs, gitdir, oid: root.oid, cache })).tree;
const probeFree = { promises: { ...fs.promises, readFile: (...args: unknown[]) => (args.length === 0 ? Promise.resolve(undefined) : (fs.promises.readFile as (...a: unknown[]) => Promise<unknown>)(...args)) } };
for (const lanes of [1, 8, 32]) {
  const t = performance.now();
  let n = 0; let next = 0;
  await Promise.all(Array.from({ length: lanes }, async () => {
    while (next < folders.length) {
      const folder = folders[next++]!;
      const { tree } = await git.readTree({ fs: probeFree as unknown as typeof fs, gitdir, oid: folder.oid, cache });
      for (const e of tree) { await git.readBlob({ fs: probeFree as unknown as typeof fs, gitdir, oid: e.oid, cache }); n++; }
    }
  }));
  console.log('lanes', lanes, n, (performance.now() - t).toFixed(0), 'ms');
}
