import fs from 'node:fs';
import git from 'isomorphic-git';
const gitdir = '/tmp/landscape-files/.git';
const cache = {};
const head = await git.resolveRef({ fs, gitdir, ref: 'HEAD' });
const { commit } = await git.readCommit({ fs, gitdir, oid: head, cache });
const root = (await git.readTree({ fs, gitdir, oid: commit.tree, cache })).tree.find((e) => e.path === 'shoots')!;
const folders = (await git.readTree({ fs, gitdir, oid: root.oid, cache })).tree;
const probeFree = { promises: { ...fs.promises, readFile: (...args: unknown[]) => (args.length === 0 ? Promise.resolve(undefined) : (fs.promises.readFile as (...a: unknown[]) => Promise<unknown>)(...args)) } };
for (const [name, f] of [['node fs', fs], ['probe-free', probeFree], ['node fs', fs], ['probe-free', probeFree]] as const) {
  const t = performance.now();
  let n = 0;
  for (const folder of folders) {
    const { tree } = await git.readTree({ fs: f as typeof fs, gitdir, oid: folder.oid, cache });
    for (const e of tree) { await git.readBlob({ fs: f as typeof fs, gitdir, oid: e.oid, cache }); n++; }
  }
  console.log(name, n, (performance.now() - t).toFixed(0), 'ms');
}
