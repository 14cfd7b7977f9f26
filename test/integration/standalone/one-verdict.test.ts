// One verdict, end to end (issue 14): a token in a Runtime's global-account-id label becomes its Shoot's
// `account` label. The generator, checking what it commits as `kimops validate` does, gives the PR a
// failed `kimops/validate` status and does not merge it — for a create and for an update alike — and
// `kimops validate --base <main>` on a git checkout of each PR's head, a clean one beside them included,
// exits as each PR's status says. The unit suite has the same without git and the CLI:
// generator/generate-verdict.test.ts.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { readKebZones } from '../../../adapters/files/keb-zones.js';
import { readLandscape } from '../../../adapters/files/landscape.js';
import { readPolicySet } from '../../../adapters/files/policies.js';
import { readRuntimes } from '../../../adapters/files/manifests.js';
import { localForge } from '../../../adapters/forge/local.js';
import { conversionSettingsOf } from '../../../model/landscape.js';
import { LABEL_GLOBAL_ACCOUNT_ID } from '../../../model/contract.js';
import { kimops } from '../../helpers/cli.js';
import { seededLandscape } from '../../helpers/seeded-landscape.js';
import { useTempDir } from '../../helpers/temp-dir.js';
import { generate } from '../../../generator/generate.js';
import type { RuntimeInput } from '../../../generator/render-runtimes.js';
import { policySource } from '../../../generator/validate/policy-source.js';

const dir = useTempDir('generate-verdict');
const EXAMPLES = new URL('../../../examples/runtimes/keb/', import.meta.url).pathname;
const author = { name: 'kimops', email: 'kimops@localhost' };
/** Made up, in the format of a GitHub personal access token (ghp_ and 36 characters). */
const TOKEN = `ghp_${'aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6'}`;

async function runtimeOf(
  file: string,
  change: (labels: Record<string, string>) => void = () => undefined,
): Promise<RuntimeInput> {
  const [entry] = (await readRuntimes(`${EXAMPLES}${file}`)).runtimes;
  const runtime = structuredClone((entry as RuntimeInput).runtime);
  runtime.metadata.generation = 1;
  change((runtime.metadata.labels ??= {}));
  return { ...(entry as RuntimeInput), runtime };
}

describe('generate: a credential in what the generator commits', () => {
  it("fails the PR's kimops/validate status and never merges it, as `kimops validate` on a checkout of the PR denies it", async () => {
    const settings = conversionSettingsOf(await readLandscape('dev'));
    // main holds gcp's Shoot; aws's and azure's are new.
    const gcp = await runtimeOf('gcp.yaml');
    const gitdir = `${dir.path}/landscape.git`;
    const repo = await seededLandscape(gitdir, [gcp], settings);
    const forge = localForge(repo);
    const withToken = (labels: Record<string, string>) => void (labels[LABEL_GLOBAL_ACCOUNT_ID] = TOKEN);
    const updated = await runtimeOf('gcp.yaml', withToken);
    updated.runtime.metadata.generation = 2;
    const runtimes = [await runtimeOf('aws.yaml', withToken), updated, await runtimeOf('azure.yaml')];

    const result = await generate({
      landscape: 'dev',
      settings,
      runtimes,
      runtimesComplete: true,
      repo,
      forge,
      author,
      validation: await policySource(await readLandscape('dev'), { readPolicySet, readKebZones }),
      log: () => undefined,
    });

    const byRuntime = new Map(result.proposed.map((p) => [p.runtime.name, p]));
    const [aws, gcpUpdate, azure] = runtimes.map(({ runtime }) => byRuntime.get(runtime.metadata.name));
    expect([aws, gcpUpdate, azure].map((p) => p?.action)).toEqual(['blocked', 'blocked', 'auto-merge']);
    expect([aws, gcpUpdate, azure].map((p) => p?.class === 'create')).toEqual([true, false, true]);
    for (const blocked of [aws, gcpUpdate]) {
      // The global account id is in the cluster's kyma-provisioning-info too (skr/): found there as well.
      expect(blocked?.failedChecks).toEqual([
        expect.stringMatching(
          /shoot\.yaml:\d+: document 1 \(Shoot [^)]+\), metadata\.labels\.account: a GitHub personal access token \(ghp_…, 40 characters\); remove it from the repo and rotate it/,
        ),
        expect.stringMatching(
          /skr\/configmap-kyma-provisioning-info\.yaml:\d+: document 1 \(ConfigMap kyma-system\/kyma-provisioning-info\), data\.details \(YAML\) → globalAccountID: a GitHub personal access token/,
        ),
      ]);
      expect(blocked?.failedChecks.join('\n')).not.toContain(TOKEN);
    }
    // Not merged: main still has no aws Shoot, and gcp's without the token.
    const onMain = await repo.readFiles('main', 'shoots');
    expect(
      [...onMain.keys()]
        .filter((p) => p.endsWith('/shoot.yaml'))
        .map((p) => p.split('/')[1])
        .sort(),
    ).toEqual([azure?.shoot, gcpUpdate?.shoot].sort());
    expect(await onMain.get(`shoots/${gcpUpdate?.shoot}/shoot.yaml`)?.read()).not.toContain(TOKEN);

    // Every PR of the pass, open or merged: its status is `kimops validate`'s verdict on a checkout of its head.
    const verdicts: string[] = [];
    for (const proposal of [aws, gcpUpdate, azure]) {
      const pr = await forge.getPullRequest(proposal?.pr as number);
      if (!pr.ok) throw new Error(pr.failure.message);
      const statuses = await forge.statuses(pr.value.headSha);
      const [status] = statuses.ok ? statuses.value : [];
      const checkout = `${dir.path}/checkout-${proposal?.shoot}`;
      // By the head's commit, not the branch: a merged PR's branch is deleted, its head stays reachable from main.
      execFileSync('git', ['clone', '--quiet', '--no-checkout', gitdir, checkout]);
      execFileSync('git', ['-C', checkout, 'checkout', '--quiet', '--detach', pr.value.headSha]);
      // Against main as the pass found it, which every PR of the pass is based on (azure's merge came later).
      const validated = await kimops(['validate', checkout, '--base', result.mainCommit as string]);
      expect(validated.stdout).not.toContain(TOKEN);
      verdicts.push(
        `${proposal?.shoot}: ${status?.state} ${status?.description ?? ''} | validate exit ${validated.code}`,
      );
      expect(validated.code).toBe(status?.state === 'failure' ? 1 : 0);
      if (status?.state === 'failure')
        expect(validated.stdout).toMatch(
          /shoot\.yaml:\d+: credentials \(token-pattern\): document 1 \(Shoot [^)]+\), metadata\.labels\.account: a GitHub personal access token/,
        );
    }
    expect(verdicts.map((v) => v.replace(/ \| .*/, '').replace(/^[^:]+: /, ''))).toEqual([
      expect.stringMatching(/^failure \d+ of \d+ checks failed: credentials$/),
      expect.stringMatching(/^failure \d+ of \d+ checks failed: credentials$/),
      expect.stringMatching(/^success \d+ checks passed/),
    ]);
  });
});
