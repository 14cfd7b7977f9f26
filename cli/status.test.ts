// `kimops status` without a cluster: a local landscape repo with open PRs, the KCP and the Garden unreachable. What it could read is shown (main, the PRs, the summary line first), what it could not is said
// with the fix, and the exit code says a source failed; its usage errors are one line and exit 2. The rows of
// Runtimes and Shoots are tested against the real control plane in test/integration/status.test.ts.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { localForge } from '../adapters/forge/local.js';
import { LandscapeRepo } from '../adapters/git/landscape-repo.js';
import type { LandscapeStatus } from '../status/landscape-status.js';
import { kimops, UNREACHABLE_KUBECONFIG } from '../test/helpers/cli.js';
import { useTempDir } from '../test/helpers/temp-dir.js';

const dir = useTempDir('status');
const author = { name: 'kimops', email: 'kimops@localhost' };

/**
 * A dev landscape repo with three open PRs on its local forge, as the generator opens them: two Shoots' creates
 * waiting for review and a rollout's first wave.
 */
async function repoWithOpenPullRequests(): Promise<string> {
  const gitdir = join(dir.path, 'landscape.git');
  expect((await kimops(['init', '--landscape', 'dev', gitdir])).code).toBe(0);
  const repo = await LandscapeRepo.open(gitdir);
  const forge = localForge(repo);
  const open = async (branch: string, title: string, label: string) => {
    const files = new Map([[`reports/${branch.replaceAll('/', '-')}.md`, `${title}\n`]]);
    await repo.commitFiles({ branch, base: 'main', files, message: title, author });
    const opened = await forge.openPullRequest({ branch, base: 'main', title, body: '', labels: [label] });
    expect(opened.ok).toBe(true);
  };
  await open('kimops/dev/c-1', '[dev] create: c-1', 'kimops:create');
  await open('kimops/dev/c-2', '[dev] create: c-2', 'kimops:create');
  await open(
    'kimops/dev-rollout/landscape-0a1b2c3d',
    '[dev] rollout: machine images, wave 1/2, 3 shoots',
    'kimops:rollout',
  );
  return gitdir;
}

describe('kimops status', () => {
  it('shows what it read and says which source could not be read, exiting 69', async () => {
    const gitdir = await repoWithOpenPullRequests();
    const unreachable = await dir.write('unreachable.kubeconfig', UNREACHABLE_KUBECONFIG);
    const args = ['status', '--repo', gitdir, '--kcp-kubeconfig', unreachable, '--garden-kubeconfig', unreachable];

    const json = await kimops([...args, '-o', 'json', '--log-format', 'json']);
    expect(json.code).toBe(69);
    expect(json.stderr).toBe('');
    const status = JSON.parse(json.stdout) as LandscapeStatus;
    expect(status).toMatchObject({
      apiVersion: 'kimops.kyma-project.io/status/v1',
      landscape: 'dev',
      summary: { runtimes: 0, openPullRequests: 3, byClass: { create: 2, rollout: 1 } },
      rollouts: [{ name: 'landscape-0a1b2c3d', pr: 3, url: '', wave: { number: 1, of: 2 }, shoots: 3 }],
      rows: [],
    });
    expect(status.main?.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(status.main?.committedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(status.sources.map((s) => [s.name, s.state])).toEqual([
      ['kcp', 'failed'],
      ['garden', 'failed'],
      ['repo', 'read'],
      ['forge', 'read'],
      ['kubeconfigs', 'failed'],
    ]);
    const kcp = status.sources[0]?.message ?? '';
    expect(kcp).toContain('Runtimes in kcp-system of the KCP');
    expect(kcp).toContain("check that the API server runs and the kubeconfig's server address");
    expect(status.sources[1]?.message).toContain('Shoots in garden-kyma-dev of the Garden');
    // The local forge's PR URLs are command lines: kept out of a document a page links from.
    expect(status.pullRequests.map((pr) => [pr.number, pr.class, pr.url, pr.shoot])).toEqual([
      [1, 'create', '', 'c-1'],
      [2, 'create', '', 'c-2'],
      [3, 'rollout', '', undefined],
    ]);

    const withoutSecrets = JSON.parse(
      (await kimops([...args, '-o', 'json', '--no-kubeconfigs'])).stdout,
    ) as LandscapeStatus;
    expect(withoutSecrets.sources[4]).toEqual({
      name: 'kubeconfigs',
      state: 'skipped',
      message: '--no-kubeconfigs given',
    });

    const text = await kimops(args);
    expect(text.code).toBe(69);
    const lines = text.stdout.split('\n');
    expect(lines[0]).toMatch(
      new RegExp(
        `^landscape dev: Runtimes not read; 3 PRs open \\(oldest \\d+s\\); main ${status.main?.commit.slice(0, 12)};`,
      ),
    );
    expect(lines[1]).toMatch(/^kcp could not be read: Runtimes in kcp-system of the KCP: .*127\.0\.0\.1:9/);
    expect(text.stdout).toContain('garden could not be read: Shoots in garden-kyma-dev of the Garden');
    expect(text.stdout).toMatch(/^NAME +STATE +STAGE +PR +APPLIED +LAST OPERATION +MESSAGE$/m);
  });

  it('exits 0 with only the sources given, each read', async () => {
    const gitdir = await repoWithOpenPullRequests();
    const run = await kimops(['status', '--repo', gitdir, '-o', 'json']);
    expect(run.code, run.stderr).toBe(0);
    const status = JSON.parse(run.stdout) as LandscapeStatus;
    expect(status.sources).toEqual([
      {
        name: 'kcp',
        state: 'skipped',
        message:
          'no KCP named: pass --kcp-kubeconfig, set KUBECONFIG, or run kimops in a Pod with a ServiceAccount: the rows are the Shoots',
      },
      { name: 'garden', state: 'skipped', message: 'no --garden-kubeconfig given' },
      { name: 'repo', state: 'read' },
      { name: 'forge', state: 'read' },
      {
        name: 'kubeconfigs',
        state: 'skipped',
        message: 'no KCP named: pass --kcp-kubeconfig, set KUBECONFIG, or run kimops in a Pod with a ServiceAccount',
      },
    ]);
  });

  it('refuses what it cannot use with one line and exit 2, before reading anything', async () => {
    const nothing = await kimops(['status', '--landscape', 'dev']);
    expect(nothing).toMatchObject({ code: 2, stdout: '' });
    expect(nothing.stderr).toContain('pass at least one of --repo, --kcp-kubeconfig, --garden-kubeconfig');
    const noLandscape = await kimops(['status', '--garden-kubeconfig', join(dir.path, 'none')]);
    expect(noLandscape).toMatchObject({ code: 2, stdout: '' });
    expect(noLandscape.stderr).toContain('--landscape: is needed without --repo');
    const state = await kimops(['status', '--landscape', 'dev', '--repo', dir.path, '--state', 'Broken']);
    expect(state).toMatchObject({ code: 2, stdout: '' });
    expect(state.stderr).toContain('--state Broken: not a state; one of Ready, Pending');
    const expiration = await kimops(['status', '--repo', dir.path, '--kubeconfig-expiration', 'a day']);
    expect(expiration).toMatchObject({ code: 2, stdout: '' });
    expect(expiration.stderr).toContain('--kubeconfig-expiration: a day is not a duration such as 24h or 90m');
  });
});
