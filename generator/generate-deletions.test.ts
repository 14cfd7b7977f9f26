// Deletion only on proof (issue 14): a pass proposes a Shoot's deletion only when its Runtime is known to be
// gone. KEB's deletions (a deletionTimestamp) flow in batches and merge; a Shoot whose Runtime is simply
// absent waits for a human; a pass whose Runtimes are incomplete or empty deletes nothing and says why.
// On a real landscape repo and the embedded local forge, main seeded with the 15 example Shoots at once.
import { describe, expect, it } from 'vitest';
import { readLandscape } from '../adapters/files/landscape.js';
import { readRuntimes } from '../adapters/files/manifests.js';
import { localForge, type LocalForge } from '../adapters/forge/local.js';
import type { LandscapeRepo } from '../adapters/git/landscape-repo.js';
import { conversionSettingsOf } from '../model/landscape.js';
import type { Runtime } from '../model/runtime.js';
import { seededLandscape } from '../test/helpers/seeded-landscape.js';
import { useTempDir } from '../test/helpers/temp-dir.js';
import { generate, type GenerateInput } from './generate.js';
import type { RuntimeInput } from './render-runtimes.js';

const dir = useTempDir('generate-deletions');
const EXAMPLES = new URL('../examples/runtimes/keb/', import.meta.url).pathname;
const author = { name: 'kimops', email: 'kimops@localhost' };
const KIM_FINALIZER = 'runtime-controller.infrastructure-manager.kyma-project.io/deletion-hook';

async function landscape(policy?: (kimopsYaml: string) => string) {
  const runtimes = (await readRuntimes(EXAMPLES)).runtimes.map((r) => ({
    ...r,
    runtime: { ...r.runtime, metadata: { ...r.runtime.metadata, generation: 1 } },
  }));
  const settings = conversionSettingsOf(await readLandscape('dev'));
  const repo = await seededLandscape(`${dir.path}/repo.git`, runtimes, settings, policy);
  const forge = localForge(repo);
  const logs: string[] = [];
  const run = (overrides: Partial<GenerateInput> = {}) =>
    generate({
      landscape: 'dev',
      settings,
      runtimes,
      runtimesComplete: true,
      repo,
      forge,
      author,
      log: (line) => logs.push(line),
      ...overrides,
    });
  return { repo, forge, runtimes, run, logs };
}

/** The Runtimes with the one of `shoot` changed (a copy). */
function changed(runtimes: readonly RuntimeInput[], shoot: string, change: (runtime: Runtime) => void): RuntimeInput[] {
  return runtimes.map((entry) => {
    if (entry.runtime.spec.shoot.name !== shoot) return entry;
    const runtime = structuredClone(entry.runtime);
    change(runtime);
    return { ...entry, runtime };
  });
}
const kebDeletes = (runtime: Runtime) => {
  runtime.metadata = { ...runtime.metadata, deletionTimestamp: '2026-12-01T10:00:00Z', finalizers: [KIM_FINALIZER] };
};
const without = (runtimes: readonly RuntimeInput[], ...shoots: string[]) =>
  runtimes.filter((r) => !shoots.includes(r.runtime.spec.shoot.name));
const shootOf = (runtimes: readonly RuntimeInput[], file: string) =>
  runtimes.find((r) => r.source.endsWith(`/${file}`))?.runtime.spec.shoot.name as string;

async function shootsOnMain(repo: LandscapeRepo): Promise<string[]> {
  return [...(await repo.readFiles('main', 'shoots')).keys()]
    .filter((p) => p.endsWith('/shoot.yaml'))
    .map((p) => p.split('/')[1] as string)
    .sort();
}

async function openPull(forge: LocalForge, branch: string) {
  const open = await forge.listOpenPullRequests();
  if (!open.ok) throw new Error(open.failure.message);
  return open.value.find((pr) => pr.branch === branch);
}

describe('generate: deletions KEB asked for and deletions nobody asked for', () => {
  it("merges the delete of a Runtime KEB is deleting, naming it; an absent Runtime's waits for approval, naming only its runtime id", async () => {
    const { repo, forge, runtimes, run } = await landscape();
    const [keb, absent] = [shootOf(runtimes, 'aws.yaml'), shootOf(runtimes, 'gcp.yaml')];
    const absentId = runtimes.find((r) => r.runtime.spec.shoot.name === absent)?.runtime.metadata.name as string;
    const before = await shootsOnMain(repo);

    const result = await run({ runtimes: without(changed(runtimes, keb, kebDeletes), absent) });
    expect(result.proposed.map((p) => `${p.shoot} ${p.class} ${p.action}`).sort()).toEqual(
      [`${absent} delete await-review`, `${keb} delete auto-merge`].sort(),
    );
    expect(result.deletionRefused).toBeUndefined();
    expect(await shootsOnMain(repo)).toEqual(before.filter((s) => s !== keb));

    const waiting = await openPull(forge, `kimops/dev/${absent}`);
    expect(waiting?.title).toBe(`[dev] delete (Runtime absent): ${absent}`);
    expect(waiting?.body).toContain(`| \`${absent}\` | none found (runtime id \`${absentId}\`) |`);
    expect(waiting?.body).not.toContain(`kcp-system/${absent}`);
    const records = await forge.pullRecords();
    const merged = records.ok ? records.value.find((pr) => pr.branch === `kimops/dev/${keb}`) : undefined;
    expect(merged?.body).toContain(
      `| \`${keb}\` | \`kcp-system/61dd7761-08dc-59ce-840d-342f5e487157\` (generation 1) |`,
    );
    expect(merged?.body).toContain('is being deleted (deletionTimestamp 2026-12-01T10:00:00Z');
  });

  it("merges an absent Runtime's delete only once a human approved it", async () => {
    const { repo, forge, runtimes, run } = await landscape();
    const absent = shootOf(runtimes, 'gcp.yaml');
    const before = await shootsOnMain(repo);
    const given = { runtimes: without(runtimes, absent) };
    expect((await run(given)).proposed.map((p) => `${p.shoot} ${p.action}`)).toEqual([`${absent} await-review`]);
    // Asking again changes nothing: it still waits.
    expect((await run(given)).proposed.map((p) => `${p.shoot} ${p.action}`)).toEqual([`${absent} await-review`]);
    expect(await shootsOnMain(repo)).toEqual(before);

    const waiting = await openPull(forge, `kimops/dev/${absent}`);
    expect((await forge.approve(waiting?.number as number, 'alice')).ok).toBe(true);
    expect((await run(given)).proposed.map((p) => `${p.shoot} ${p.action}`)).toEqual([`${absent} auto-merge`]);
    expect(await shootsOnMain(repo)).toEqual(before.filter((s) => s !== absent));
  });

  it("proposes KEB's deletions batchSize per pass, says how many follow, and touches no other Shoot", async () => {
    // A guard that lets a batch of 2 through in a landscape of 15 (its 10 % would make the batch 1: see deletions.test.ts).
    const { repo, runtimes, run, logs } = await landscape((text) =>
      text.replace(/^ {2}batchSize: \d+$/m, '  batchSize: 2').replace(/^ {2}maxPercent: \d+$/m, '  maxPercent: 50'),
    );
    const all = await shootsOnMain(repo);
    const deleted = all.slice(0, 3);
    let kept: RuntimeInput[] = runtimes;
    for (const shoot of deleted) kept = changed(kept, shoot, kebDeletes);

    const passes: string[][] = [];
    const counts: unknown[] = [];
    for (let pass = 0; pass < 3; pass++) {
      const result = await run({ runtimes: kept });
      expect(result.proposed.every((p) => p.class === 'delete' && p.action === 'auto-merge')).toBe(true);
      passes.push(result.proposed.map((p) => p.shoot));
      counts.push(result.deprovisioning);
    }
    expect(passes).toEqual([deleted.slice(0, 2), deleted.slice(2), []]);
    expect(counts).toEqual([{ proposed: 2, later: 1 }, { proposed: 1, later: 0 }, undefined]);
    expect(logs.filter((l) => l.startsWith('deprovisioning:'))).toEqual([
      'deprovisioning: 2 of 3 deletions KEB asked for proposed in this pass (kimops.yaml deprovisioning.batchSize 2); 1 more follows in later passes',
    ]);
    expect(await shootsOnMain(repo)).toEqual(all.slice(3));
  });
});

describe('generate: no deletion without proof', () => {
  it('deletes nothing when a Runtime lost its labels and spec.shoot.name, and says why once', async () => {
    const { repo, runtimes, run } = await landscape();
    const malformed = shootOf(runtimes, 'aws.yaml');
    const broken = changed(runtimes, malformed, (runtime) => {
      delete runtime.metadata.labels;
      delete (runtime.spec.shoot as { name?: string }).name;
    });
    const before = await shootsOnMain(repo);
    const result = await run({ runtimes: without(broken, shootOf(runtimes, 'gcp.yaml')) });
    expect(result.proposed).toEqual([]);
    expect(result.failures.map((f) => f.runtime)).toEqual(['kcp-system/61dd7761-08dc-59ce-840d-342f5e487157']);
    expect(result.deletionRefused).toMatch(
      /^not proposing to delete .*: runtime kcp-system\/61dd7761-08dc-59ce-840d-342f5e487157 has no spec\.shoot\.name, so it may be the Runtime of any of them/,
    );
    expect(await shootsOnMain(repo)).toEqual(before);
  });

  it.each<[string, (runtimes: RuntimeInput[]) => Partial<GenerateInput>, RegExp]>([
    [
      'no Runtime at all',
      () => ({ runtimes: [] }),
      /no Runtime was read at all, and an empty Runtime source never deletes/,
    ],
    // Even KEB's deletion waits: an unread file might hold a Runtime asking for any Shoot.
    [
      'an unread Runtime input',
      (runtimes) => ({
        runtimes: changed(runtimes, shootOf(runtimes, 'aws.yaml'), kebDeletes),
        runtimesComplete: false,
      }),
      /some Runtime inputs could not be read/,
    ],
  ])('deletes nothing after %s', async (_what, given, why) => {
    const { repo, runtimes, run } = await landscape();
    const before = await shootsOnMain(repo);
    const result = await run(given(runtimes.slice(0, 6)));
    expect(result.proposed).toEqual([]);
    expect(result.deletionRefused).toMatch(why);
    expect(await shootsOnMain(repo)).toEqual(before);
  });

  it("holds back an absent Runtime's Shoot while another Runtime fails to convert, but not KEB's deletion", async () => {
    const { repo, runtimes, run } = await landscape();
    const [failing, keb, absent] = [
      shootOf(runtimes, 'aws.yaml'),
      shootOf(runtimes, 'gcp.yaml'),
      shootOf(runtimes, 'azure.yaml'),
    ];
    const given = without(
      changed(
        changed(runtimes, failing, (r) => delete r.metadata.labels?.['kyma-project.io/region']),
        keb,
        kebDeletes,
      ),
      absent,
    );
    const result = await run({ runtimes: given });
    expect(result.proposed.map((p) => `${p.shoot} ${p.action}`)).toEqual([`${keb} auto-merge`]);
    expect(result.failures.map((f) => f.runtime)).toEqual(['kcp-system/61dd7761-08dc-59ce-840d-342f5e487157']);
    expect(result.deletionRefused).toMatch(
      new RegExp(
        `^not proposing to delete ${absent}, whose Runtime is absent: runtime kcp-system/61dd7761-08dc-59ce-840d-342f5e487157 failed this pass`,
      ),
    );
    expect(await shootsOnMain(repo)).toContain(absent);
    expect(await shootsOnMain(repo)).not.toContain(keb);
  });
});
