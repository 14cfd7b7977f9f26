// The file system isomorphic-git is given: node's promise API with two changes.
// - isomorphic-git wraps it anew on every call and, to tell a promise API from a callback one, calls
//   `readFile()` without arguments twice per call; node answers that with a rejected validation Error
//   whose stack capture made up 1.9 s of reading 20,000 blobs (docs/performance.md). The probe is
//   answered at once.
// - Every file isomorphic-git writes (loose objects, refs, packed-refs, fetched packs, config) is written
//   to a temporary file and renamed into place, so a `kill -9` never leaves a truncated ref or an empty
//   object behind (docs/reliability.md).
import fs from 'node:fs';
import { writeFileAtomic } from './atomic-file.js';

type ReadFile = (...args: unknown[]) => Promise<unknown>;
const readFile = fs.promises.readFile as ReadFile;

/** Pass as isomorphic-git's `fs`. */
export const gitFs = {
  promises: {
    ...fs.promises,
    readFile: (...args: unknown[]) => (args.length === 0 ? Promise.resolve(undefined) : readFile(...args)),
    writeFile: writeFileAtomic,
  },
} as unknown as typeof fs;
