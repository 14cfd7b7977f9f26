// kimops bootstrap against a remote landscape repo reviewed on GitHub: git's own http-backend holds the repo, the
// GitHub test server (every call checked against GitHub's OpenAPI description) holds the PR, the real octokit talks
// to it. The bootstrap branch is pushed, one PR opened with its label, class and status, nothing merged; a second
// run writes nothing to GitHub. Live Shoots are handed in (the plane test reads them from a Garden).
import { bootstrapBranchOf } from '../../../model/contract.js';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readLandscape } from '../../../adapters/files/landscape.js';
import { readRuntimes } from '../../../adapters/files/manifests.js';
import { githubForge } from '../../../adapters/forge/github.js';
import { withRetries } from '../../../adapters/forge/retrying.js';
import { LandscapeRepo } from '../../../adapters/git/landscape-repo.js';
import { bootstrap } from '../../../generator/bootstrap.js';
import { convertRuntime } from '../../../generator/convert/index.js';
import { conversionSettingsOf } from '../../../model/landscape.js';
import type { Shoot } from '../../../model/shoot.js';
import { kimops } from '../../helpers/cli.js';
import { startGitServer, type GitServer } from '../../helpers/git-http-server.js';
import { GitHubTestServer } from '../../helpers/github-test-server.js';
import { useTempDir } from '../../helpers/temp-dir.js';

const dir = useTempDir('bootstrap-github');
const EXAMPLES = new URL('../../../examples/runtimes/keb/', import.meta.url).pathname;
const NAME = 'landscape-dev';
let github: GitHubTestServer;
let gitServer: GitServer;

beforeAll(async () => {
  github = await GitHubTestServer.start({ owner: 'acme' });
  // The temporary folder is made by a hook of its own, which may not have run yet.
  const local = await mkdtemp(join(tmpdir(), 'kimops-bootstrap-template-'));
  expect((await kimops(['init', '--landscape', 'dev', local])).code).toBe(0);
  const files = await (await LandscapeRepo.open(local)).readFiles('main');
  await github.createRepo(
    NAME,
    Object.fromEntries(await Promise.all([...files].map(async ([path, file]) => [path, await file.read()] as const))),
  );
  await rm(local, { recursive: true, force: true });
  gitServer = await startGitServer({
    root: dirname(github.gitDir(NAME)),
    token: (token) => github.acceptsToken(token),
  });
});

afterAll(async () => {
  await gitServer.stop();
  await github.close(); // throws on any contract violation seen during the run
});

describe('bootstrap with a remote repo on GitHub', () => {
  it('pushes one commit and opens one PR that waits, and writes nothing to GitHub on a second run', async () => {
    const landscape = { ...(await readLandscape('dev')), defaultLeader: 'kim' as const };
    const settings = conversionSettingsOf(landscape);
    const runtimes = (await readRuntimes(EXAMPLES)).runtimes;
    const live = new Map<string, Shoot>();
    for (const { runtime } of runtimes) {
      const converted = convertRuntime({ runtime, settings });
      if (!converted.ok) throw converted.error;
      live.set(converted.shoot.metadata.name, converted.shoot);
    }
    const forge = withRetries(
      await githubForge({
        owner: 'acme',
        repo: NAME,
        baseUrl: github.url,
        auth: { token: github.token },
        throttle: false,
        retry: false,
      }),
      { sleep: async () => undefined },
    );
    const run = async () =>
      bootstrap({
        landscape,
        settings,
        runtimes,
        runtimesComplete: true,
        gardenShoots: live,
        repo: await LandscapeRepo.open(`${dir.path}/cache.git`),
        remote: { url: `${gitServer.url}/${NAME}.git`, auth: { token: github.token } },
        forge,
        author: { name: 'kimops', email: 'kimops@localhost' },
        log: () => undefined,
      });

    const first = await run();
    expect(first.failures).toEqual([]);
    expect(first.pr?.outcome).toBe('opened');
    expect(first.report.written).toHaveLength(runtimes.length);
    expect(first.report.clusters).toEqual([]);
    const pulls = await forge.listOpenPullRequests();
    if (!pulls.ok) throw new Error(pulls.failure.message);
    expect(pulls.value.map((pr) => [pr.branch, pr.headSha, pr.labels])).toEqual([
      [bootstrapBranchOf('dev'), first.head, ['kimops:bootstrap']],
    ]);
    expect(pulls.value[0]?.body).toContain(`<!-- kimops:class ${first.head ?? ''} bootstrap -->`);
    const onServer = (...args: string[]) =>
      execFileSync('git', ['--git-dir', github.gitDir(NAME), ...args], { encoding: 'utf8' }).trim();
    expect(onServer('rev-list', '--count', `main..${bootstrapBranchOf('dev')}`)).toBe('1');
    const checks = await forge.checksOf(first.head ?? '');
    expect(checks.ok && checks.value.map((c) => [c.name, c.state])).toEqual([['kimops/validate', 'success']]);

    const writes = () => github.requests.filter((r) => r.method !== 'GET').length;
    const before = writes();
    const second = await run();
    expect(second.pr?.outcome).toBe('unchanged');
    expect(second.head).toBe(first.head);
    expect(writes()).toBe(before);
  });
});
