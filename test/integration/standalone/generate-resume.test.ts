// The generator's resume promise (docs/design.md §2 "Shared rule"): killed at any point between commit, PR
// create, status and merge, the next run converges — one PR per Shoot, every change merged, nothing
// lost. A forge that dies after its n-th call stands in for the killed process.
import { describe, expect, it } from 'vitest';
import type { Forge } from '../../../adapters/forge/forge.js';
import { localForge } from '../../../adapters/forge/local.js';
import { readLandscape } from '../../../adapters/files/landscape.js';
import { readRuntimes } from '../../../adapters/files/manifests.js';
import { LandscapeRepo } from '../../../adapters/git/landscape-repo.js';
import { conversionSettingsOf } from '../../../model/landscape.js';
import { kimops } from '../../helpers/cli.js';
import { useTempDir } from '../../helpers/temp-dir.js';
import { generate } from '../../../generator/generate.js';

const dir = useTempDir('generate');
const EXAMPLES = new URL('../../../examples/runtimes/keb/', import.meta.url).pathname;

class Killed extends Error {}

/** The forge, but the process "dies" on the (n+1)-th call. */
function dyingForge(forge: Forge, callsBeforeDeath: number): Forge {
  let calls = 0;
  return new Proxy(forge, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (++calls > callsBeforeDeath) throw new Killed(`killed before ${String(property)}`);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

async function run(repoDir: string, forgeFor: (forge: Forge) => Forge = (f) => f) {
  const repo = await LandscapeRepo.open(repoDir);
  const landscape = await readLandscape('dev');
  const { runtimes } = await readRuntimes(EXAMPLES);
  return generate({
    landscape: 'dev',
    settings: conversionSettingsOf(landscape),
    runtimes,
    runtimesComplete: true,
    repo,
    forge: forgeFor(localForge(repo)),
    author: { name: 'kimops', email: 'kimops@localhost' },
    log: () => undefined,
  });
}

describe('generate resumes after being killed', () => {
  // Forge calls of a first run: per Shoot find, open, status, merge (and reads); dying after each of
  // these counts hits every gap between commit → PR create → status → merge at least once.
  it.each([0, 1, 2, 3, 5, 8, 13, 21])(
    'killed after %i forge calls, the next run converges to one merged PR per Shoot',
    async (calls) => {
      const repoDir = `${dir.path}/repo.git`;
      expect((await kimops(['init', '--landscape', 'dev', repoDir])).code).toBe(0);
      await expect(run(repoDir, (forge) => dyingForge(forge, calls))).rejects.toThrow(Killed);

      const resumed = await run(repoDir);
      expect(resumed.failures).toEqual([]);
      const again = await run(repoDir);
      expect(again.proposed).toEqual([]); // nothing left to do

      const forge = localForge(await LandscapeRepo.open(repoDir));
      const listed = await forge.pullRecords();
      if (!listed.ok) throw new Error(`reading PR records: ${listed.failure.message}`);
      const records = listed.value;
      const byBranch = new Map<string, number>();
      for (const record of records)
        byBranch.set(record.branch, (byBranch.get(record.branch) ?? 0) + (record.state === 'closed' ? 0 : 1));
      expect([...byBranch.values()].every((n) => n === 1)).toBe(true); // never two live PRs for one Shoot
      expect(records.filter((r) => r.state === 'merged')).toHaveLength(15);
      expect(records.filter((r) => r.state === 'open')).toEqual([]);
      const main_ = await (await LandscapeRepo.open(repoDir)).readFiles('main', 'shoots');
      expect([...main_.keys()].filter((p) => p.endsWith('/shoot.yaml'))).toHaveLength(15);
    },
    60_000,
  );
});
