// The status page on the real KCP API server and gardener-apiserver (issue 21's acceptance test): `kimops status
// --watch --port 0` serves it, Debian's Chromium watches a Runtime created on the plane move through the stages as
// one-shot commands take it along: change (created), pr (generate: its create PR waits for review), merged (approved
// and merged on the local forge, then seen by the generator), applied (apply), ready (backfill). Its timeline then
// holds all five steps and names its PR; the page fetched nothing but from its server and logged no error.
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { LandscapeRepo } from '../../adapters/git/landscape-repo.js';
import type { KubeObject } from '../../model/kube-object.js';
import { RUNTIME_API_VERSION, type Runtime } from '../../model/runtime.js';
import type { RuntimeStatus } from '../../model/runtime-status.js';
import { launchChromium } from '../helpers/chromium.js';
import { kimops, startKimops, type CliRun, type RunningKimops, expectOk } from '../helpers/cli.js';
import { GardenletSimulator } from '../helpers/gardenlet-simulator.js';
import { gitIn } from '../helpers/git-cli.js';
import { planeRuntime } from '../helpers/plane-runtime.js';
import { createTestNamespace, landscapeForProject, useTestProject } from '../helpers/projects.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { connect, eventually, planeAsShootCluster } from '../helpers/testenv.js';

const env = connect(inject('testenvStateDir'));
const project = useTestProject(env, 'stage');
const dir = useTempDir('status-page');
// Reconciling on its own: still the page is caught at `applied`, as the Runtime turns Ready only when `kimops
// backfill` says so, however fast the Shoot is reconciled.
const simulator = new GardenletSimulator({
  garden: env.garden,
  intervalMs: 20,
  progressSteps: [50],
  runtimeCluster: planeAsShootCluster(env),
});
beforeAll(() => simulator.start());
afterAll(() => simulator.stop());

const kcpKubeconfig = () => join(env.stateDir, 'kcp.kubeconfig');
const gardenKubeconfig = () => join(env.stateDir, 'garden.kubeconfig');
const RUNTIME = { apiVersion: RUNTIME_API_VERSION, kind: 'Runtime' } as const;
/** How long the page may take to show a stage: a status read every second, a command or a Shoot reconcile before. */
const STAGE_TIMEOUT_MS = 60_000;

type LiveRuntime = Runtime & { status?: RuntimeStatus };

/** Creates wait for one approval, as a landscape that reviews new clusters says in kimops.yaml on main. */
async function reviewEveryCreate(gitdir: string): Promise<void> {
  const shipped = gitIn(gitdir)('show', 'main:kimops.yaml');
  const config = shipped.replace('create: {mode: auto-merge}', 'create: {mode: review, approvals: 1}');
  if (config === shipped) throw new Error('kimops.yaml on main has no `create: {mode: auto-merge}` to replace');
  const repo = await LandscapeRepo.open(gitdir);
  await repo.commitFiles({
    branch: 'main',
    files: new Map([['kimops.yaml', `${config}\n`]]),
    message: 'review creates',
    author: { name: 'test', email: 'test@localhost' },
  });
}

describe('the status page on the plane', () => {
  it('moves a new Runtime through change, pr, merged, applied and ready, its timeline complete', async () => {
    const landscape = await landscapeForProject(dir, 'landscape', 'stage', project);
    const gitdir = join(dir.path, 'landscape.git');
    expectOk(await kimops(['init', '--landscape', landscape, gitdir]), 'init');
    await reviewEveryCreate(gitdir);
    const namespace = await createTestNamespace(env.kcp, 'kcp-status-page-');
    const runtime = planeRuntime(env, namespace);
    const kcp = ['--kcp-kubeconfig', kcpKubeconfig(), '--kcp-namespace', namespace];
    const garden = ['--garden-kubeconfig', gardenKubeconfig()];
    const controller = new AbortController();
    let browser: Browser | undefined;
    let running: RunningKimops | undefined;
    try {
      running = startKimops(
        ['status', '--watch', '--interval', '1', '--port', '0', '--repo', gitdir, ...kcp, ...garden],
        controller.signal,
      );
      let ended: CliRun | undefined;
      void running.done.then((run) => (ended = run));
      const serving = running;
      const url = await eventually('the status page', async () => {
        // A command that ended before serving says why, instead of a timeout.
        if (ended) throw new Error(`kimops status --watch ended: exit ${ended.code}\n${ended.stdout}\n${ended.stderr}`);
        return /status page at (http:\/\/[^\s"]+)/.exec(`${serving.stdout}\n${serving.stderr}`)?.[1];
      });
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);

      browser = await launchChromium();
      const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
      const requests: string[] = [];
      const problems: string[] = [];
      page.on('request', (request) => requests.push(request.url()));
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(message.text());
      });
      page.on('pageerror', (error) => problems.push(error.message));
      await page.goto(url);
      await page.locator('[data-testid="live"][data-state="live"]').waitFor({ timeout: STAGE_TIMEOUT_MS });
      const testid = (id: string) => page.locator(`[data-testid="${id}"]`);
      const row = () => page.locator(`[data-testid="row"][data-key="${runtime.key}"]`);
      const cell = (column: string) => row().locator(`[data-column="${column}"]`);
      const atStage = (stage: string) =>
        page
          .locator(`[data-testid="row"][data-key="${runtime.key}"][data-stage="${stage}"]`)
          .waitFor({ state: 'attached', timeout: STAGE_TIMEOUT_MS });

      await runtime.create();
      await atStage('change');

      const generate = ['generate', '--landscape', landscape, ...kcp, '--repo', gitdir, '--once'];
      expectOk(await kimops(generate), 'generate');
      await atStage('pr');
      expect(await cell('pr').textContent()).toMatch(/^#1 · .+ · create$/);
      expect(await cell('message').textContent()).toBe('waits for review');
      await page.locator('[data-testid="pr-row"][data-number="1"]').waitFor({ state: 'attached' });
      await row().click();
      await testid('timeline').waitFor();
      expect(await testid('timeline-key').textContent()).toBe(runtime.key);
      await testid('timeline').getByText('waits for review').waitFor();

      expectOk(await kimops(['pr', 'approve', '1', '--repo', gitdir, '--as', 'alice']), 'pr approve');
      expectOk(await kimops(['pr', 'merge', '1', '--repo', gitdir]), 'pr merge');
      // The Runtime's pipeline annotation says merged (and with which commit) once the generator has seen the merge.
      expectOk(await kimops(generate), 'generate after the merge');
      await atStage('merged');

      const apply = ['apply', '--landscape', landscape, '--repo', gitdir, ...garden, '--once'];
      expectOk(await kimops(apply), 'apply');
      await atStage('applied');

      const backfill = ['backfill', '--landscape', landscape, ...kcp, ...garden, '--once'];
      // The applier configures the cluster once Gardener reconciled the Shoot; the backfiller then reports Ready.
      await eventually(
        'the Runtime Ready',
        async () => {
          expectOk(await kimops(apply), 'apply');
          expectOk(await kimops(backfill), 'backfill');
          const got = await env.kcp.get<KubeObject & LiveRuntime>({ ...RUNTIME, namespace, name: runtime.name });
          return got.ok && got.body.status?.state === 'Ready' ? true : undefined;
        },
        120_000,
        500,
      );
      await atStage('ready');
      // Every source read (the backfiller wrote the kubeconfig Secret), the Shoot as main has it.
      await testid('sources-banner').waitFor({ state: 'hidden', timeout: STAGE_TIMEOUT_MS });
      expect(await cell('sync').textContent()).toBe('in-sync');
      await row()
        .locator('[data-column="kubeconfig"]', { hasText: /^in (23h \d+m|1d)$/ })
        .waitFor({ timeout: STAGE_TIMEOUT_MS });

      // The panel opened at `pr` follows the row: every step has its time now.
      const steps = page.locator('[data-testid="timeline-steps"] .step[data-step]');
      await page
        .locator('[data-testid="timeline-steps"] .step.done[data-step="ready"]')
        .waitFor({ timeout: STAGE_TIMEOUT_MS });
      expect(await steps.evaluateAll((items) => items.map((item) => item.getAttribute('data-step')))).toEqual([
        'changed',
        'proposed',
        'merged',
        'applied',
        'ready',
      ]);
      expect(await page.locator('[data-testid="timeline-steps"] .step.done[data-step]').count()).toBe(5);
      const times = await steps.locator('.step-time').allTextContents();
      for (const time of times) expect(time).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
      // The local forge's PR address is a command line (`kimops pr show 1 --repo …`), not a page: the status keeps
      // only http(s) URLs, so the page names the PR as text, with nothing to follow.
      const pr = testid('timeline-pr');
      expect(await pr.textContent()).toBe('#1');
      expect(await pr.evaluate((element) => element.tagName)).toBe('SPAN');
      expect(await pr.getAttribute('href')).toBeNull();

      const origin = new URL(url).origin;
      expect(requests.length).toBeGreaterThan(0);
      expect(requests.filter((request) => new URL(request).origin !== origin)).toEqual([]);
      expect(problems).toEqual([]);
      expect(simulator.problems).toEqual([]);

      controller.abort();
      const stopped = await running.done;
      expect(stopped.code === 0 ? 'exit 0' : `exit ${stopped.code}\n${stopped.stderr}`).toBe('exit 0');
    } finally {
      controller.abort();
      await running?.done;
      await browser?.close();
      await runtime.cleanSkr();
    }
  }, 300_000);
});
