// The generator against a remote landscape repo reviewed on GitHub: a real git server (git's own
// http-backend) holds the repo, the GitHub test server (real merges, every call checked against
// GitHub's OpenAPI description) holds the PRs, and the real octokit talks to it. Branches are pushed,
// a human's racing push is rejected rather than overwritten, and a killed pass converges.
import { branchOf } from '../../../model/contract.js';
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readLandscape } from '../../../adapters/files/landscape.js';
import { readRuntimes } from '../../../adapters/files/manifests.js';
import type { Forge } from '../../../adapters/forge/forge.js';
import { githubForge } from '../../../adapters/forge/github.js';
import { withRetries } from '../../../adapters/forge/retrying.js';
import { LandscapeRepo } from '../../../adapters/git/landscape-repo.js';
import { conversionSettingsOf } from '../../../model/landscape.js';
import { TransportError } from '../../../model/errors.js';
import { kimops } from '../../helpers/cli.js';
import { startGitServer, type GitServer } from '../../helpers/git-http-server.js';
import { GitHubTestServer } from '../../helpers/github-test-server.js';
import { useTempDir } from '../../helpers/temp-dir.js';
import { generate, type GenerateInput } from '../../../generator/generate.js';

const dir = useTempDir('generate-remote');
const EXAMPLES = new URL('../../../examples/runtimes/keb/', import.meta.url).pathname;
let github: GitHubTestServer;
let gitServer: GitServer;
let template: Record<string, string>;
let repos = 0;

beforeAll(async () => {
  github = await GitHubTestServer.start({ owner: 'acme' });
  gitServer = await startGitServer({
    root: dirname(github.gitDir(await newRepoName())),
    token: (token) => github.acceptsToken(token),
  });
});

afterAll(async () => {
  await gitServer.stop();
  await github.close(); // throws on any contract violation seen during the run
});

/** A fresh GitHub repository holding what kimops init writes for dev. */
async function newRepoName(): Promise<string> {
  if (!template) {
    const local = `${dir.path || '/tmp'}/template-${process.pid}.git`;
    expect((await kimops(['init', '--landscape', 'dev', local])).code).toBe(0);
    const files = await (await LandscapeRepo.open(local)).readFiles('main');
    template = Object.fromEntries(
      await Promise.all([...files].map(async ([path, file]) => [path, await file.read()] as const)),
    );
    execFileSync('rm', ['-rf', local]);
  }
  const name = `landscape-dev-${++repos}`;
  await github.createRepo(name, template);
  return name;
}

const serverGit = (name: string, ...args: string[]) =>
  execFileSync('git', ['--git-dir', github.gitDir(name), ...args], { encoding: 'utf8' }).trim();
const writes = () => github.requests.filter((r) => r.method !== 'GET').length;

async function landscape(name: string) {
  const repo = await LandscapeRepo.open(`${dir.path}/cache.git`);
  const forge = withRetries(
    await githubForge({
      owner: 'acme',
      repo: name,
      baseUrl: github.url,
      auth: { token: github.token },
      throttle: false,
      retry: false,
    }),
    { sleep: async () => undefined },
  );
  const runtimes = (await readRuntimes(EXAMPLES)).runtimes;
  const settings = conversionSettingsOf(await readLandscape('dev'));
  const logs: string[] = [];
  const run = (overrides: Partial<GenerateInput> = {}) =>
    generate({
      landscape: 'dev',
      settings,
      runtimes,
      runtimesComplete: true,
      repo,
      remote: { url: `${gitServer.url}/${name}.git`, auth: { token: github.token } },
      forge,
      author: { name: 'kimops', email: 'kimops@localhost' },
      log: (line) => logs.push(line),
      ...overrides,
    });
  return { repo, forge, runtimes, run, logs };
}

describe('generate with a remote repo on GitHub', () => {
  it('pushes each Shoot branch, merges the creates through the API, and writes nothing on a second pass', async () => {
    const name = await newRepoName();
    const { run } = await landscape(name);
    const first = await run();
    expect(first.proposed.map((p) => `${p.class} ${p.action}`)).toEqual(Array(15).fill('create auto-merge'));
    expect(
      serverGit(name, 'ls-tree', '--name-only', 'main', 'shoots/')
        .split('\n')
        .filter((p) => p !== 'shoots/.gitkeep'),
    ).toHaveLength(15);
    // Each merge is GitHub's merge commit of a kimops branch: main's history holds fifteen of them.
    expect(serverGit(name, 'log', '--merges', '--format=%s', 'main').split('\n')).toHaveLength(15);

    const before = writes();
    expect(await run()).toMatchObject({ proposed: [], unchanged: 15, closed: [] });
    expect(writes()).toBe(before);
  });

  it("rejects kimops's update when a human pushed to the branch meanwhile, starts over, and leaves the PR to the human", async () => {
    const name = await newRepoName();
    await github.pushBranch(name, 'main', {
      'kimops.yaml':
        template['kimops.yaml']?.replace('update: {mode: auto-merge}', 'update: {mode: review, approvals: 1}') ?? '',
    });
    const { forge, runtimes, run, logs } = await landscape(name);
    await run();
    const scaled = (by: number) =>
      runtimes.map((entry, i) => {
        if (i !== 0) return entry;
        const runtime = structuredClone(entry.runtime);
        (runtime.spec.shoot.provider.workers[0] as { maximum: number }).maximum += by;
        return { ...entry, runtime };
      });
    const shoot = runtimes[0]?.runtime.spec.shoot.name as string;
    const branch = branchOf('dev', shoot);
    const proposed = await run({ runtimes: scaled(1) });
    expect(proposed.proposed).toEqual([expect.objectContaining({ shoot, class: 'update', action: 'await-review' })]);

    // The human pushes right after kimops looked at the PR, before kimops pushes its update.
    let humanHead = '';
    const racing: Forge = {
      ...forge,
      label: forge.label,
      findOpenPullRequest: async (b) => {
        const found = await forge.findOpenPullRequest(b);
        if (b === branch && !humanHead)
          humanHead = await github.pushBranch(
            name,
            branch,
            { 'NOTES.md': 'a reviewer fixed something\n' },
            { message: 'human fix' },
          );
        return found;
      },
    };
    const raced = await run({ runtimes: scaled(2), forge: racing });
    expect(logs.some((line) => line.includes('rejected') && line.includes('re-rendering'))).toBe(true);
    expect(raced.proposed).toEqual([expect.objectContaining({ shoot, action: 'left-to-human' })]);
    expect(serverGit(name, 'rev-parse', `refs/heads/${branch}`)).toBe(humanHead);
  });

  it.each([1, 2, 4])(
    'converges after being killed after %i forge calls around the push, with one PR per Shoot',
    async (calls) => {
      const name = await newRepoName();
      const { forge, run } = await landscape(name);
      let count = 0;
      const dying = new Proxy(forge, {
        get(target, property, receiver) {
          const value = Reflect.get(target, property, receiver) as unknown;
          if (typeof value !== 'function') return value;
          return (...args: unknown[]) => {
            if (++count > calls) throw new Error('killed');
            return (value as (...a: unknown[]) => unknown).apply(target, args);
          };
        },
      });
      await expect(run({ forge: dying })).rejects.toThrow('killed');
      const resumed = await run();
      expect(resumed.failures).toEqual([]);
      expect(
        serverGit(name, 'ls-tree', '--name-only', 'main', 'shoots/')
          .split('\n')
          .filter((p) => p !== 'shoots/.gitkeep'),
      ).toHaveLength(15);
      const created = github.requests.filter(
        (r) => r.method === 'POST' && r.path === `/repos/acme/${name}/pulls` && r.status === 201,
      );
      expect(created).toHaveLength(15);
    },
  );

  it('ends with a TransportError naming the remote and the fix when the git server cannot be reached, writing nothing', async () => {
    const name = await newRepoName();
    const { run } = await landscape(name);
    const before = writes();
    const failure = await run({ remote: { url: 'http://127.0.0.1:9/nowhere.git' } }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TransportError);
    expect((failure as Error).message).toMatch(
      /landscape repo: fetch main from http:\/\/127\.0\.0\.1:9\/nowhere\.git.*check the URL/,
    );
    expect(writes()).toBe(before);
  });

  it('runs from the command line as a GitHub App: the installation token serves the API and git alike', async () => {
    const name = await newRepoName();
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    github.registerApp(4711, publicKey.export({ type: 'spki', format: 'pem' }).toString(), 99);
    const keyFile = `${dir.path}/app.pem`;
    await writeFile(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }).toString());
    const env = {
      KIMOPS_GITHUB_APP_ID: '4711',
      KIMOPS_GITHUB_APP_PRIVATE_KEY_FILE: keyFile,
      KIMOPS_GITHUB_APP_INSTALLATION_ID: '99',
      GITHUB_TOKEN: undefined,
      KIMOPS_GIT_TOKEN: undefined,
    };
    const saved = Object.fromEntries(Object.keys(env).map((key) => [key, process.env[key]]));
    const set = (values: Record<string, string | undefined>) =>
      Object.entries(values).forEach(([key, value]) =>
        value === undefined ? Reflect.deleteProperty(process.env, key) : (process.env[key] = value),
      );
    set(env);
    try {
      const result = await kimops([
        'generate',
        '--landscape',
        'dev',
        '--runtimes',
        `${EXAMPLES}aws.yaml`,
        '--repo',
        `${gitServer.url}/${name}.git`,
        '--github-api-url',
        github.url,
        '--github-repo',
        `acme/${name}`,
        '--cache-dir',
        `${dir.path}/cli-cache.git`,
        '--once',
      ]);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('1 proposed (1 merged');
    } finally {
      set(saved);
    }
    expect(serverGit(name, 'ls-tree', '--name-only', 'main', 'shoots/')).toContain('shoots/c-78fcc25');
    expect(
      github.requests.some(
        (r) => r.method === 'POST' && r.path === '/app/installations/99/access_tokens' && r.status === 201,
      ),
    ).toBe(true);
  });
});
