// Issue 14, "KEB's deprovisionings flow": KEB deletes 100 Runtimes at once (a trial-expiry wave). Each still
// exists, marked for deletion (KIM's finalizer keeps it until its Shoot is gone), so each deletion is proven
// and passes without the mass-deletion guard's all-or-nothing refusal — in batches of kimops.yaml
// deprovisioning.batchSize per pass, each no larger than the applier's guard lets through at once. Every one of the 100 Shoots is deleted, and nothing else: the other Shoots
// stay byte for byte, and the one Runtime that simply vanished waits for a human. On a real landscape repo and
// the embedded local forge; no plane needed, but 100 merged PRs take longer than a unit test may.
import { describe, expect, it } from 'vitest';
import { readLandscape } from '../../../adapters/files/landscape.js';
import { localForge } from '../../../adapters/forge/local.js';
import type { LandscapeRepo } from '../../../adapters/git/landscape-repo.js';
import { generate } from '../../../generator/generate.js';
import { RenderMemo } from '../../../generator/render-memo.js';
import { DEFAULT_DEPROVISIONING_BATCH_SIZE, DEFAULT_MASS_DELETION } from '../../../model/kimops-config.js';
import { deletionsAllowedAtOnce } from '../../../rules/mass-deletion.js';
import { conversionSettingsOf } from '../../../model/landscape.js';
import type { Runtime } from '../../../model/runtime.js';
import { benchRuntimes } from '../../../scripts/bench/generate-common.js';
import { seededLandscape } from '../../helpers/seeded-landscape.js';
import { useTempDir } from '../../helpers/temp-dir.js';

const dir = useTempDir('deprovisioning-wave');
const author = { name: 'kimops', email: 'kimops@localhost' };

/** Main's files under shoots/ by their blob oid: equal oids, equal bytes. */
const shootFiles = async (repo: LandscapeRepo) =>
  new Map([...(await repo.readFiles('main', 'shoots'))].map(([path, file]) => [path, file.oid]));
const shootOf = (path: string) => path.split('/')[1] as string;

describe('a wave of deprovisionings', () => {
  it('deletes all 100 Shoots of the Runtimes KEB deleted at once, in batches, and nothing else', async () => {
    const settings = conversionSettingsOf(await readLandscape('dev'));
    // KEB-shaped Runtimes of every plan, each with its own name, runtime id and Shoot.
    const all = benchRuntimes(131);
    const repo = await seededLandscape(
      `${dir.path}/repo.git`,
      all.map((runtime) => ({ source: 'kcp', runtime })),
      settings,
    );
    const forge = localForge(repo);
    const before = await shootFiles(repo);

    // KEB deletes 100 of them; one more Runtime is just gone (no deletionTimestamp); 30 stay.
    const deleted = new Set(
      all
        .filter((_, i) => i % 13 !== 0)
        .slice(0, 100)
        .map((r) => r.spec.shoot.name),
    );
    const vanished = all.find((r) => !deleted.has(r.spec.shoot.name))?.spec.shoot.name as string;
    const runtimes = all
      .filter((r) => r.spec.shoot.name !== vanished)
      .map((runtime): Runtime =>
        deleted.has(runtime.spec.shoot.name)
          ? { ...runtime, metadata: { ...runtime.metadata, deletionTimestamp: '2026-12-01T10:00:00Z' } }
          : runtime,
      )
      .map((runtime) => ({ source: 'kcp', runtime }));
    expect(deleted.size).toBe(100);
    // All at once, these 100 are far beyond the mass-deletion guard (20 Shoots or 10 %).
    expect(deleted.size).toBeGreaterThan(DEFAULT_MASS_DELETION.maxShoots);

    const logs: string[] = [];
    const memo = new RenderMemo();
    const batches: number[] = [];
    for (let pass = 0; pass < 30; pass++) {
      const result = await generate({
        landscape: 'dev',
        settings,
        runtimes,
        runtimesComplete: true,
        repo,
        forge,
        author,
        memo,
        log: (line) => logs.push(line),
      });
      expect(result.failures).toEqual([]);
      expect(result.deletionRefused).toBeUndefined();
      const keb = result.proposed.filter((p) => p.shoot !== vanished);
      // Every proposal is one of the 100 deletions, merged at once, per the template's delete policy.
      expect(keb.every((p) => deleted.has(p.shoot) && p.class === 'delete' && p.action === 'auto-merge')).toBe(true);
      // The vanished Runtime's Shoot waits for a human every pass, never merged.
      expect(result.proposed.filter((p) => p.shoot === vanished).map((p) => p.action)).toEqual(['await-review']);
      if (keb.length === 0) break;
      batches.push(keb.length);
    }
    // Each batch is batchSize, or what the applier's guard lets through at once in what is left on main (10 % of
    // a shrinking landscape), whichever is smaller: 10, 10, 10, 10, 9, 8, … — never a batch the applier refuses.
    const expected: number[] = [];
    for (let left = 100, total = new Set([...before.keys()].map(shootOf)).size; left > 0;) {
      const batch = Math.min(
        DEFAULT_DEPROVISIONING_BATCH_SIZE,
        deletionsAllowedAtOnce(total, DEFAULT_MASS_DELETION),
        left,
      );
      expected.push(batch);
      left -= batch;
      total -= batch;
    }
    expect(batches).toEqual(expected);
    expect(batches.slice(0, 4)).toEqual(Array(4).fill(DEFAULT_DEPROVISIONING_BATCH_SIZE));
    expect(logs.filter((line) => line.startsWith('deprovisioning: '))).toHaveLength(expected.length - 1);
    expect(logs[logs.findIndex((line) => line.startsWith('deprovisioning: '))]).toBe(
      `deprovisioning: 10 of 100 deletions KEB asked for proposed in this pass (kimops.yaml deprovisioning.batchSize ${DEFAULT_DEPROVISIONING_BATCH_SIZE}); 90 more follow in later passes`,
    );

    // Main lost exactly the 100 folders; every other file is byte for byte what it was.
    const after = await shootFiles(repo);
    expect([...new Set([...after.keys()].map(shootOf))].sort()).toEqual(
      [...new Set([...before.keys()].map(shootOf))].filter((s) => !deleted.has(s)).sort(),
    );
    for (const [path, content] of after) expect(content, path).toBe(before.get(path));
    // One merged delete PR per deleted Shoot, the vanished one's still open, no other PR.
    const records = await forge.pullRecords();
    if (!records.ok) throw new Error(records.failure.message);
    expect(
      records.value
        .filter((pr) => pr.state === 'merged')
        .map((pr) => pr.branch)
        .sort(),
    ).toEqual([...deleted].map((s) => `kimops/dev/${s}`).sort());
    expect(records.value.filter((pr) => pr.state !== 'merged').map((pr) => `${pr.branch} ${pr.state}`)).toEqual([
      `kimops/dev/${vanished} open`,
    ]);
    // Fifteen passes, 100 merged PRs: 12–33 s measured on two cores, quiet to busy.
  }, 180_000);
});
