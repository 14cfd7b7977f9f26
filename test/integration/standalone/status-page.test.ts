// The status page in a real browser (Debian's Chromium through playwright-core), against its server and a
// synthetic landscape of 10,000 rows: the counts are the data's, the table holds every row while the DOM holds a
// screenful, the filters narrow it, a row opens its timeline with the PR linked, a published status reaches the
// open page without a reload, nothing is fetched from anywhere but the server, and a row's text stays text.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStatusServer, type StatusServer } from '../../../adapters/status-page/server.js';
import type { LandscapeStatus, RuntimeRow } from '../../../status/landscape-status.js';
import { statusFeed } from '../../../status/status-feed.js';
import { launchChromium } from '../../helpers/chromium.js';
import { sampleStatus } from '../../helpers/sample-status.js';

const ROWS = 10_000;
/** A message as an attacker would write it into a Shoot's status: shown as text, it does nothing. */
const MARKUP = '<img src=x onerror="window.kimopsInjected = true">';

const feed = statusFeed();
const status = sampleStatus(ROWS);
const failed = status.rows.find((row) => row.failure) as RuntimeRow & { failure: object };
failed.failure = { reason: 'ShootCreationFailed', message: MARKUP };
let server: StatusServer;
let browser: Browser;
let page: Page;
const requests: string[] = [];
const problems: string[] = [];

const testid = (id: string) => page.locator(`[data-testid="${id}"]`);
const rowOf = (key: string, stage?: string) =>
  page.locator(`[data-testid="row"][data-key="${key}"]${stage ? `[data-stage="${stage}"]` : ''}`);
const valueOf = (id: string) => testid(id).getAttribute('data-value').then(Number);

beforeAll(async () => {
  feed.publish(status);
  server = await startStatusServer({ port: 0, feed });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  page.on('request', (request) => requests.push(request.url()));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
  await page.goto(server.url);
  // The first rows come before the rest (status/page/load.js): the tests start once the page holds them all.
  await page.locator('[data-testid="table-count"][data-loading="false"]').waitFor();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('the status page at 10,000 rows', () => {
  it('shows the counts the status holds', async () => {
    const { summary } = status;
    expect(await valueOf('count-runtimes')).toBe(summary.runtimes);
    expect(await valueOf('count-failed')).toBe(summary.failed);
    expect(await valueOf('count-open-prs')).toBe(summary.openPullRequests);
    expect(await valueOf('count-drifted')).toBe(summary.drifted);
    expect(await valueOf('count-orphaned-shoots')).toBe(summary.orphanedShoots);
    expect(await valueOf('count-kubeconfigs-expiring')).toBe(summary.kubeconfigsExpiring);
    for (const [state, count] of Object.entries(summary.byState))
      expect(await valueOf(`count-state-${state}`)).toBe(count);
    for (const [stage, count] of Object.entries(summary.byStage))
      expect(await valueOf(`count-stage-${stage}`)).toBe(count);
    expect(await testid('table-count').getAttribute('data-total')).toBe(String(ROWS));
    expect(await page.locator('[data-testid^="latency-"]').count()).toBe(status.latency.length);
    expect(await testid('rollout').count()).toBe(status.rollouts.length);
    expect(await testid('pr-row').count()).toBe(Math.min(100, status.pullRequests.length));
    expect(await testid('sources-banner').textContent()).toContain('kubeconfigs could not be read');
  });

  it('painted the summary and the first rows before it had read them all', async () => {
    const [painted, parsed] = await page.evaluate(() =>
      ['kimops:first-paint', 'kimops:status-parsed'].map((name) => performance.getEntriesByName(name)[0]?.startTime),
    );
    expect(painted).toBeLessThan(parsed ?? 0);
  });

  it('holds every row in a virtual table: a screenful in the DOM, the last one there when scrolled to', async () => {
    expect(await testid('row').count()).toBeLessThan(100);
    expect(await testid('row').first().getAttribute('data-key')).toBe(status.rows[0]?.key);
    const last = status.rows.at(-1) as RuntimeRow;
    await testid('table').evaluate((table) => table.scrollTo({ top: table.scrollHeight }));
    await rowOf(last.key).waitFor();
    expect(await testid('row').count()).toBeLessThan(100);
    await testid('table').evaluate((table) => table.scrollTo({ top: 0 }));
    await rowOf(status.rows[0]?.key ?? '').waitFor();
  });

  it('narrows the rows by stage and by text', async () => {
    await testid('filter-stage').selectOption('failed');
    await page.locator(`[data-testid="table-count"][data-shown="${status.summary.byStage.failed}"]`).waitFor();
    const stages = await testid('row').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-stage')));
    expect(new Set(stages)).toEqual(new Set(['failed']));
    await testid('filter-text').fill(failed.runtime?.name ?? '');
    await page.locator('[data-testid="table-count"][data-shown="1"]').waitFor();
    expect(await testid('row').getAttribute('data-key')).toBe(failed.key);
    await testid('filter-stage').selectOption('');
    await testid('filter-text').fill('');
    await page.locator(`[data-testid="table-count"][data-shown="${ROWS}"]`).waitFor();
  });

  it('shows a row’s text as text: markup in a message is neither parsed nor run', async () => {
    const listed = page.locator(`[data-testid="failure-row"][data-key="${failed.key}"]`);
    expect(await listed.textContent()).toContain(MARKUP);
    expect(await page.locator('main img').count()).toBe(0);
    expect(await page.evaluate(() => 'kimopsInjected' in globalThis)).toBe(false);
  });

  it('opens a row’s timeline with its pull request linked, away from the page', async () => {
    const withPr = status.rows.find((row) => row.pr && row.timeline.proposed) as RuntimeRow & {
      pr: { url: string; number: number };
    };
    await rowOf(withPr.key).click();
    await testid('timeline').waitFor();
    expect(await testid('timeline-key').textContent()).toBe(withPr.key);
    const pr = testid('timeline-pr');
    expect(await pr.textContent()).toBe(`#${withPr.pr.number}`);
    expect(await pr.getAttribute('href')).toBe(withPr.pr.url);
    expect(await pr.getAttribute('rel')).toBe('noopener noreferrer');
    expect(await pr.getAttribute('target')).toBe('_blank');
    const done = await page.locator('[data-testid="timeline-steps"] .step.done').count();
    expect(done).toBe(Object.keys(withPr.timeline).length);
    await testid('timeline-close').click();
    await testid('timeline').waitFor({ state: 'hidden' });
  });

  it('moves a row when a new status is published, without a reload', async () => {
    await page.locator('[data-testid="live"][data-state="live"]').waitFor();
    await page.evaluate(() => Object.assign(globalThis, { kimopsSamePage: true }));
    const moving = status.rows.find((row) => row.stage === 'change') as RuntimeRow;
    await rowOf(moving.key, 'change').waitFor();
    feed.publish(movedToReady(status, moving.key, '2026-12-02T10:01:00Z'));
    await rowOf(moving.key, 'ready').waitFor();
    await page
      .locator(`[data-testid="count-stage-ready"][data-value="${(status.summary.byStage.ready ?? 0) + 1}"]`)
      .waitFor();
    await page.locator('[data-testid="last-updated"][data-generated-at="2026-12-02T10:01:00Z"]').waitFor();
    expect(await page.evaluate(() => 'kimopsSamePage' in globalThis)).toBe(true);
  });

  it('fetched nothing but from its server, and logged no error', () => {
    const origin = new URL(server.url).origin;
    expect(requests.length).toBeGreaterThan(0);
    expect(requests.filter((url) => new URL(url).origin !== origin)).toEqual([]);
    expect(problems).toEqual([]);
  });
});

describe('the status page before the first status', () => {
  it('says it waits, then shows the first status when it comes', async () => {
    const early = statusFeed();
    const waiting = await startStatusServer({ port: 0, feed: early });
    const tab = await browser.newPage();
    try {
      await tab.goto(waiting.url);
      await tab.locator('[data-testid="loading"]', { hasText: 'no status yet' }).waitFor();
      await tab.locator('[data-testid="live"][data-state="live"]').waitFor();
      const first = sampleStatus(50);
      early.publish(first);
      await tab.locator(`[data-testid="row"][data-key="${first.rows[0]?.key}"]`).waitFor();
      await tab.locator('[data-testid="loading"]').waitFor({ state: 'detached' });
      expect(await tab.locator('[data-testid="count-runtimes"]').getAttribute('data-value')).toBe(
        String(first.summary.runtimes),
      );
    } finally {
      await tab.close();
      await waiting.close();
    }
  });
});

/** `previous` a minute on, the row `key` Ready and the stage counts moved with it. */
function movedToReady(previous: LandscapeStatus, key: string, generatedAt: string): LandscapeStatus {
  const rows = previous.rows.map((row) => (row.key === key ? { ...row, stage: 'ready' as const } : row));
  const from = previous.rows.find((row) => row.key === key)?.stage ?? 'change';
  const byStage = { ...previous.summary.byStage };
  byStage[from] = (byStage[from] ?? 0) - 1;
  byStage.ready = (byStage.ready ?? 0) + 1;
  return { ...previous, generatedAt, rows, summary: { ...previous.summary, byStage } };
}
