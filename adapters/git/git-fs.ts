// The file system isomorphic-git is given. isomorphic-git wraps it anew on every call and, to tell a
// promise API from a callback one, calls `readFile()` without arguments twice per call; node's promise API
// answers that with a rejected validation Error whose stack capture made up 1.9 s of reading 20,000 blobs
// (docs/performance.md). This is node's promise API with that probe answered at once.
import fs from 'node:fs';

type ReadFile = (...args: unknown[]) => Promise<unknown>;
const readFile = fs.promises.readFile as ReadFile;

/** Pass as isomorphic-git's `fs`. */
export const gitFs = {
  promises: {
    ...fs.promises,
    readFile: (...args: unknown[]) => (args.length === 0 ? Promise.resolve(undefined) : readFile(...args)),
  },
} as unknown as typeof fs;
