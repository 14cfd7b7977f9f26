// The applier reports back to GitHub (issue 17): a Runtime's create merged by `kimops generate` on a landscape repo
// reviewed on GitHub, then `kimops apply --forge github` against the real gardener-apiserver (the gardenlet
// simulator playing Gardener). The merge commit's `kimops/apply` status goes pending as the sync starts, stays
// pending while Gardener creates the Shoot, and turns success with the Shoot's last operation; the PR gets one
// comment, updated in place. Each apply is a process of its own (--once), so each one is a restart: a sync that
// finds the report shown writes nothing. The GitHub test server checks every call against GitHub's OpenAPI.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { stringify } from 'yaml';
import { LandscapeRepo } from '../../adapters/git/landscape-repo.js';
import { kimops } from '../helpers/cli.js';
import { GardenletSimulator } from '../helpers/gardenlet-simulator.js';
import { startGitServer, type GitServer } from '../helpers/git-http-server.js';
import { GitHubTestServer } from '../helpers/github-test-server.js';
import { landscapeForProject, useTestProject } from '../helpers/projects.js';
import { deleteShoot, exampleRuntime, getShoot } from '../helpers/shoots.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { connect, eventually } from '../helpers/testenv.js';

const env = connect(inject('testenvStateDir'));
const project = useTestProject(env, 'stage');
const dir = useTempDir('apply-report-back');
const simulator = new GardenletSimulator({ garden: env.garden, intervalMs: 20, progressSteps: [50] });
/** KEB's example AWS Runtime with a Shoot name of this run's own: other tests on the plane create the example's. */
const SHOOT = `r${randomBytes(4).toString('hex')}`;
const MARKER = '<!-- kimops:apply -->';

let github: GitHubTestServer;
let gitServer: GitServer;

beforeAll(async () => {
  github = await GitHubTestServer.start({ owner: 'acme' });
  // The git server serves the test server's bare repositories, so a merge through the API is on main at once.
  await github.createRepo('probe');
  gitServer = await startGitServer({ root: dirname(github.gitDir('probe')), token: (t) => github.acceptsToken(t) });
  simulator.start();
});

afterAll(async () => {
  await simulator.stop();
  await gitServer.stop();
  await github.close(); // throws on any contract violation seen during the run
});

afterEach(async () => {
  vi.unstubAllEnvs();
  // Gone before the Project goes: a Shoot left in a removed Project can never be deleted on this plane.
  await deleteShoot(env.garden, project.namespace, SHOOT);
  await eventually(`${SHOOT} gone`, async () =>
    (await getShoot(env.garden, project.namespace, SHOOT)) ? undefined : true,
  );
});

describe('kimops apply --forge github', () => {
  it('sets kimops/apply on the merge commit pending → success, comments once on the PR, and writes nothing more', async () => {
    const landscape = await landscapeForProject(dir, 'landscape', 'stage', project);
    const runtime = await dir.write('runtime.yaml', stringify(exampleRuntime('aws.yaml', SHOOT)));
    // The landscape repo on GitHub, as kimops init writes it.
    const template = join(dir.path, 'template.git');
    expect((await kimops(['init', '--landscape', landscape, template])).code).toBe(0);
    const files = await (await LandscapeRepo.open(template)).readFiles('main');
    await github.createRepo(
      'landscape',
      Object.fromEntries(await Promise.all([...files].map(async ([path, file]) => [path, await file.read()] as const))),
    );
    vi.stubEnv('GITHUB_TOKEN', github.token);
    const remote = ['--repo', `${gitServer.url}/landscape.git`, '--github-api-url', github.url];
    const onGitHub = [...remote, '--github-repo', 'acme/landscape'];

    const generated = await kimops([
      ...['generate', '--landscape', landscape, '--runtimes', runtime, ...onGitHub],
      ...['--cache-dir', join(dir.path, 'generate.git'), '--once'],
    ]);
    expect(generated.stderr).toBe('');
    expect(generated.stdout).toContain('1 proposed (1 merged');
    const merge = execFileSync('git', ['--git-dir', github.gitDir('landscape'), 'rev-parse', 'main'], {
      encoding: 'utf8',
    }).trim();

    const apply = [
      ...['apply', '--landscape', landscape, ...onGitHub, '--forge', 'github'],
      ...['--garden-kubeconfig', join(env.stateDir, 'garden.kubeconfig')],
      ...['--cache-dir', join(dir.path, 'apply.git'), '--once'],
    ];
    const writes = () => github.requests.filter((r) => r.method !== 'GET');
    const applied = await kimops(apply);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    const ns = project.namespace;
    expect(github.statuses('landscape', merge).map((s) => [s.context, s.state, s.description])).toEqual([
      ['kimops/apply', 'pending', `applying to ${ns}`],
      ['kimops/apply', 'pending', `applied to ${ns}; waiting for Gardener to reconcile Shoot ${SHOOT}`],
    ]);
    const comments = () => github.comments('landscape', 1).filter((c) => c.body.startsWith(MARKER));
    expect(comments()).toHaveLength(1);
    expect(comments()[0]?.body).toContain('### kimops is applying this change');

    // Gardener creates the Shoot; the next apply (a new process) reads what GitHub shows and brings it up to date.
    await eventually('the Shoot created', async () => {
      const shoot = await getShoot(env.garden, ns, SHOOT);
      return shoot?.status?.lastOperation?.state === 'Succeeded' ? shoot : undefined;
    });
    expect((await kimops(apply)).code).toBe(0);
    const final = github.statuses('landscape', merge).at(-1);
    expect([final?.state, final?.description]).toEqual([
      'success',
      `applied to ${ns}; Shoot ${SHOOT} reconciled (Create Succeeded)`,
    ]);
    expect(comments()).toHaveLength(1);
    const body = comments()[0]?.body ?? '';
    expect(body).toContain('### kimops applied this change');
    expect(body).toContain(`Merge commit \`${merge.slice(0, 12)}\` · Garden \`${ns}\` (landscape \`stage\`)`);
    // Never the Garden's API server: an internal host name, public on a public landscape repo.
    expect(body).not.toMatch(/https?:\/\//);
    expect(body).toMatch(
      new RegExp(`\\| \`${SHOOT}\` \\| \\d{4}-\\d\\d-\\d\\dT[\\d:]+Z \\| Create Succeeded \\| \\d{4}-`),
    );

    // Nothing changed since: a third apply reads, and writes nothing at all.
    const before = writes().length;
    const again = await kimops(apply);
    expect(again.code).toBe(0);
    expect(again.stdout).not.toContain('report back');
    expect(writes().slice(before)).toEqual([]);
  }, 120_000);
});
