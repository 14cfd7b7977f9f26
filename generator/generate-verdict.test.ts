// One verdict through the real generator (issue 14): a token in a Runtime's global-account-id label becomes
// its Shoot's `account` label. The generator checks what it commits as `kimops validate` does, so the PR's
// `kimops/validate` status fails and it is not merged — for a create and for an update — and the checks of
// `kimops validate --base main` (repo-check.ts) on the PR's head tree agree. The same with the CLI on a git
// checkout, and with a clean PR beside them: test/integration/standalone/one-verdict.test.ts.
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
import { LABEL_GLOBAL_ACCOUNT_ID } from '../model/contract.js';
import { validateShootSchema } from '../model/schemas/shoot-schema.js';
import { seededLandscape } from '../test/helpers/seeded-landscape.js';
import { generate } from './generate.js';
import type { RuntimeInput } from './render-runtimes.js';
import { policySource } from './validate/policy-source.js';
import { checkLandscapeFiles } from './validate/repo-check.js';

const EXAMPLES = new URL('../examples/runtimes/keb/', import.meta.url).pathname;
const author = { name: 'kimops', email: 'kimops@localhost' };
/** Made up, in the format of a GitHub personal access token (ghp_ and 36 characters). */
const TOKEN = `ghp_${'aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6'}`;

async function runtimeOf(file: string, generation: number, accountLabel?: string): Promise<RuntimeInput> {
  const [entry] = (await readRuntimes(`${EXAMPLES}${file}`)).runtimes;
  const runtime = structuredClone((entry as RuntimeInput).runtime);
  runtime.metadata.generation = generation;
  if (accountLabel !== undefined)
    runtime.metadata.labels = { ...runtime.metadata.labels, [LABEL_GLOBAL_ACCOUNT_ID]: accountLabel };
  return { ...(entry as RuntimeInput), runtime };
}

async function filesAt(repo: LandscapeRepo, ref: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const [path, file] of await repo.readFiles(ref)) files.set(path, await file.read());
  return files;
}

describe('generate: a credential in what the generator commits', () => {
  // The landscape repo (main: gcp's Shoot), the policy pack and the converter set up once, outside the test's time.
  let dir: string;
  let setup: {
    repo: LandscapeRepo;
    source: Awaited<ReturnType<typeof policySource>>;
    settings: ReturnType<typeof conversionSettingsOf>;
  };
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kimops-generate-verdict-'));
    const landscape = await readLandscape('dev');
    const settings = conversionSettingsOf(landscape);
    const repo = await seededLandscape(`${dir}/landscape.git`, [await runtimeOf('gcp.yaml', 1)], settings);
    const source = await policySource(landscape, { readPolicySet, readKebZones });
    await source.policies('default');
    validateShootSchema({}); // compiled on first use
    setup = { repo, source, settings };
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("fails the PR's kimops/validate status and does not merge it, create and update alike, as validate's checks deny its head", async () => {
    const { repo, source, settings } = setup;
    const forge = localForge(repo);
    const runtimes = [await runtimeOf('aws.yaml', 1, TOKEN), await runtimeOf('gcp.yaml', 2, TOKEN)];
    const mainBefore = await filesAt(repo, 'main');

    const result = await generate({
      landscape: 'dev',
      settings,
      runtimes,
      runtimesComplete: true,
      repo,
      forge,
      author,
      validation: source,
      log: () => undefined,
    });

    expect(
      result.proposed.map((p) => `${p.runtime.name} ${p.class === 'create' ? 'create' : 'update'} ${p.action}`).sort(),
    ).toEqual(
      runtimes.map(({ runtime }, i) => `${runtime.metadata.name} ${i === 0 ? 'create' : 'update'} blocked`).sort(),
    );
    // The validate workflow's facts: kimops.yaml's policy set, no Runtime inventory.
    const context = {
      policies: await source.policies('default'),
      params: await source.params(undefined),
      landscape: 'dev',
    };
    for (const proposal of result.proposed) {
      // The global account id is in the cluster's kyma-provisioning-info too (skr/): found there as well.
      expect(proposal.failedChecks).toEqual([
        expect.stringMatching(
          /^shoots\/[^/]+\/shoot\.yaml:\d+: document 1 \(Shoot [^)]+\), metadata\.labels\.account: a GitHub personal access token \(ghp_…, 40 characters\); remove it from the repo and rotate it/,
        ),
        expect.stringMatching(
          /^shoots\/[^/]+\/skr\/configmap-kyma-provisioning-info\.yaml:\d+: document 1 \(ConfigMap kyma-system\/kyma-provisioning-info\), data\.details \(YAML\) → globalAccountID: a GitHub personal access token/,
        ),
      ]);
      expect(proposal.failedChecks.join('\n')).not.toContain(TOKEN);
      const pr = await forge.getPullRequest(proposal.pr);
      if (!pr.ok) throw new Error(pr.failure.message);
      const statuses = await forge.statuses(pr.value.headSha);
      expect(statuses.ok && statuses.value.map((s) => `${s.context} ${s.state} ${s.description}`)).toEqual([
        expect.stringMatching(/^kimops\/validate failure 1 of \d+ checks failed: credentials$/),
      ]);
      // `kimops validate --base main` on the PR's head: the same denial, at the same file and field.
      const report = checkLandscapeFiles({ files: await filesAt(repo, pr.value.headSha), base: mainBefore, context });
      expect(report.findings.map((f) => `${f.path} ${f.check} ${f.severity}`)).toEqual([
        `shoots/${proposal.shoot}/shoot.yaml credentials (token-pattern) deny`,
        `shoots/${proposal.shoot}/skr/configmap-kyma-provisioning-info.yaml credentials (token-pattern) deny`,
      ]);
      expect(report.findings[0]?.message).toContain('metadata.labels.account: a GitHub personal access token');
    }
    // Nothing merged: main is as it was.
    expect(await filesAt(repo, 'main')).toEqual(mainBefore);
  });
});
