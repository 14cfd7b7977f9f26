// A kimops upgrade through the real generator: main holds Shoots written before kimops configured clusters (no
// skr/). The pass proposes their first skr/ objects as one PR of class skr for all of them, auto-merged into one
// commit on main — not a PR per Runtime, which on a landscape of thousands would flood the forge.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readKebZones } from '../adapters/files/keb-zones.js';
import { readLandscape } from '../adapters/files/landscape.js';
import { readPolicySet } from '../adapters/files/policies.js';
import { readRuntimes } from '../adapters/files/manifests.js';
import { localForge } from '../adapters/forge/local.js';
import type { LandscapeRepo } from '../adapters/git/landscape-repo.js';
import { conversionSettingsOf } from '../model/landscape.js';
import { seededLandscape } from '../test/helpers/seeded-landscape.js';
import { generate } from './generate.js';
import type { RuntimeInput } from './render-runtimes.js';
import { runtimeFactWrites } from './runtime-facts.js';
import { policySource } from './validate/policy-source.js';

const EXAMPLES = new URL('../examples/runtimes/keb/', import.meta.url).pathname;
const author = { name: 'kimops', email: 'kimops@localhost' };

async function runtimeOf(file: string): Promise<RuntimeInput> {
  const [entry] = (await readRuntimes(`${EXAMPLES}${file}`)).runtimes;
  const runtime = structuredClone((entry as RuntimeInput).runtime);
  runtime.metadata.generation = 1;
  return { ...(entry as RuntimeInput), runtime };
}

describe('generate after a kimops upgrade: Shoots on main without skr/', () => {
  let dir: string;
  let repo: LandscapeRepo;
  let runtimes: RuntimeInput[];
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kimops-first-skr-'));
    const settings = conversionSettingsOf(await readLandscape('dev'));
    runtimes = await Promise.all(['aws.yaml', 'gcp.yaml', 'azure.yaml'].map(runtimeOf));
    repo = await seededLandscape(`${dir}/landscape.git`, runtimes, settings);
    // What an older kimops left on main: the same folders without the cluster's objects.
    const skr = [...(await repo.readFiles('main')).keys()].filter((path) => path.includes('/skr/'));
    expect(skr.length).toBeGreaterThanOrEqual(runtimes.length * 3);
    await repo.commitFiles({ branch: 'main', files: new Map(), deletions: skr, message: 'an older kimops', author });
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('proposes the first skr/ objects of all of them in one auto-merged PR of class skr', async () => {
    const landscape = await readLandscape('dev');
    const forge = localForge(repo);
    const result = await generate({
      landscape: 'dev',
      settings: conversionSettingsOf(landscape),
      runtimes,
      runtimesComplete: true,
      repo,
      forge,
      author,
      validation: await policySource(landscape, { readPolicySet, readKebZones }),
      log: () => undefined,
    });

    const shoots = runtimes.map(({ runtime }) => runtime.spec.shoot.name).sort();
    expect(result.proposed.map((p) => `${p.shoot} ${p.class} ${p.action}`).sort()).toEqual(
      shoots.map((shoot) => `${shoot} skr auto-merge`),
    );
    // One PR for all of them.
    expect(new Set(result.proposed.map((p) => p.pr)).size).toBe(1);
    const pr = await forge.getPullRequest(result.proposed[0]?.pr ?? 0);
    if (!pr.ok) throw new Error(pr.failure.message);
    expect(pr.value.title).toMatch(/^\[dev\] rollout: SKR .*, wave 1\/1, 3 shoots$/);
    // Main holds every Shoot's skr/ again.
    const main = [...(await repo.readFiles('main')).keys()];
    for (const shoot of shoots) expect(main).toContain(`shoots/${shoot}/skr/namespace-kyma-system.yaml`);
    // Not the Runtimes' own proposals: no PR they did not ask for goes into their status.
    const writes = runtimeFactWrites(
      runtimes.map((r) => r.runtime),
      result,
    );
    expect(writes).toEqual([]);
  });
});
