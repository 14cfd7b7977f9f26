// Runtimes from a file or folder as a generator pass reads them: a folder has no events, so a watching
// generator reads it again on every pass; nor does it have anywhere to keep what a pass learned of them.
import { readRuntimes, type ReadStdin } from './manifests.js';

export function folderRuntimeSource(pathOrDash: string, readStdin: ReadStdin) {
  return {
    read: async () => {
      const { runtimes, errors } = await readRuntimes(pathOrDash, readStdin);
      return { inputs: runtimes, errors: errors.map((e) => e.message) };
    },
    onChange: () => undefined,
    stop: async () => undefined,
  };
}
