// Status page benchmark (issue 21): the page of a landscape of 10,000 rows (test/helpers/sample-status.ts), served
// by its own server (adapters/status-page/server.ts) from a status feed, loaded LOADS times in Debian's Chromium,
// each time in a fresh browser context (nothing cached). First paint: from the navigation's start to the page's
// `kimops:first-paint` mark (the summary and the first screen of rows painted: status/page/app.js), and then all
// the rows: the status's answer read (the Resource Timing of /api/status), parsed (mark `kimops:status-parsed`)
// and in the table (`kimops:all-rows`). Also the size of /api/status as sent (plain and gzip) and the server's
// work per status published: the update for the open pages (statusUpdate), the JSON and its gzip.
// Baselines in the same run: (a) the same page at 100 rows; (b) a page without virtualisation: every row as a
// plain HTML <table> rendered by a server, gzip as the status is, timed to its load event (3 loads: seconds each).
// Target: first paint under 1 s at 10,000 rows.
import { createServer } from 'node:http';
import { gzipSync, constants as zlib } from 'node:zlib';
import type { Browser } from 'playwright-core';
import { listen } from '../../adapters/metrics/server.js';
import { startStatusServer, statusJson } from '../../adapters/status-page/server.js';
import type { LandscapeStatus } from '../../status/landscape-status.js';
import { statusFeed } from '../../status/status-feed.js';
import { launchChromium } from '../../test/helpers/chromium.js';
import { sampleStatus } from '../../test/helpers/sample-status.js';
import { msSince } from './generate-common.js';

const ROWS = Number(process.env.KIMOPS_BENCH_STATUS_ROWS ?? 10_000);
const LOADS = Number(process.env.KIMOPS_BENCH_STATUS_LOADS ?? 5);
/** The page without virtualisation takes seconds a load, and is only the baseline: fewer loads keep the run near a minute. */
const NAIVE_LOADS = 3;
const TARGET_MS = 1_000;
const VIEWPORT = { width: 1440, height: 900 };

const ms = (value: number) => `${value.toFixed(0).padStart(6)} ms`;
const kib = (bytes: number) => `${(bytes / 1024).toFixed(0)} KiB`;

/** One load of the page: milliseconds from the navigation's start. */
interface Load {
  firstPaint: number;
  statusRead: number;
  parsed: number;
  allRows: number;
  /** Requests for /api/status: one, when the page's fetch takes the preloaded answer. */
  statusRequests: number;
  /** Bytes of /api/status as they came over the wire and as the page read them. */
  encoded: number;
  decoded: number;
}

export async function benchStatusPage(): Promise<void> {
  const status = sampleStatus(ROWS);
  const publish = timePublish(status);
  const browser = await launchChromium();
  try {
    // One load first, not counted: Chromium's first page in a fresh browser is slow for reasons of its own.
    const [, full, small, naive] = [
      await pageLoads(browser, sampleStatus(100), 1),
      await pageLoads(browser, status),
      await pageLoads(browser, sampleStatus(100)),
      await naiveLoads(browser, status),
    ];
    const firstPaint = summary(full.map((load) => load.firstPaint));
    const smallPaint = summary(small.map((load) => load.firstPaint));
    const naiveLoad = summary(naive);
    const p50 = (pick: (load: Load) => number) => ms(median(full.map(pick))).trim();
    const one = full[0];
    const received = one?.encoded === one?.decoded ? 'PLAIN' : `${kib(one?.encoded ?? 0)} gzip`;
    const met = firstPaint.p50 < TARGET_MS;
    console.log(
      `\nstatus-page: ${ROWS} rows (sampleStatus), ${LOADS} loads in Chromium (fresh context each, ${VIEWPORT.width}x${VIEWPORT.height}), the page's server on loopback`,
    );
    const line = (label: string, value: string) => console.log(`  ${label.padEnd(44)} ${value}`);
    line(
      '/api/status body',
      `${kib(publish.jsonBytes)} JSON, ${kib(publish.gzipBytes)} gzip (level 1); the page got ${received} in ${one?.statusRequests ?? 0} request(s)`,
    );
    line(
      'publish: update / JSON / gzip (median of 3)',
      `${ms(publish.updateMs).trim()} / ${ms(publish.jsonMs).trim()} / ${ms(publish.gzipMs).trim()}`,
    );
    line(
      `first paint at ${ROWS}, p50 / max`,
      `${ms(firstPaint.p50)} / ${ms(firstPaint.max).trim()}   (all: ${full.map((l) => l.firstPaint.toFixed(0)).join(', ')})`,
    );
    line(
      '  then: read / parsed / all rows shown, p50',
      `${p50((l) => l.statusRead)} / ${p50((l) => l.parsed)} / ${p50((l) => l.allRows)}`,
    );
    line('baseline: first paint at 100, p50 / max', `${ms(smallPaint.p50)} / ${ms(smallPaint.max).trim()}`);
    line(
      `baseline: plain <table> of ${ROWS}, load event`,
      `${ms(naiveLoad.p50)} / ${ms(naiveLoad.max).trim()}   (p50 / max of ${NAIVE_LOADS})`,
    );
    line('target', `first paint p50 < ${TARGET_MS} ms: ${met ? 'met' : 'MISSED'}`);
    if (!met) process.exitCode = 1;
  } finally {
    await browser.close();
  }
}

/** What a status costs the server when published, as statusFeed and startStatusServer do it, median of 3. */
function timePublish(status: LandscapeStatus) {
  const update: number[] = [];
  const json: number[] = [];
  const gzip: number[] = [];
  let jsonBytes = 0;
  let gzipBytes = 0;
  for (let i = 0; i < 3; i++) {
    const feed = statusFeed();
    feed.publish(status);
    // The next status differs in every row object, not in content: the feed compares each row.
    const next = structuredClone(status);
    let start = process.hrtime.bigint();
    feed.publish(next);
    update.push(msSince(start));
    start = process.hrtime.bigint();
    const text = statusJson(next);
    json.push(msSince(start));
    start = process.hrtime.bigint();
    gzipBytes = gzipSync(text, { level: zlib.Z_BEST_SPEED }).length;
    gzip.push(msSince(start));
    jsonBytes = Buffer.byteLength(text);
  }
  return { updateMs: median(update), jsonMs: median(json), gzipMs: median(gzip), jsonBytes, gzipBytes };
}

async function pageLoads(browser: Browser, status: LandscapeStatus, loads = LOADS): Promise<Load[]> {
  const feed = statusFeed();
  feed.publish(status);
  const server = await startStatusServer({ port: 0, feed });
  try {
    const measured: Load[] = [];
    for (let i = 0; i < loads; i++) measured.push(await loadPage(browser, server.url));
    return measured;
  } finally {
    await server.close();
  }
}

async function loadPage(browser: Browser, url: string): Promise<Load> {
  const context = await browser.newContext({ viewport: VIEWPORT });
  try {
    const page = await context.newPage();
    let statusRequests = 0;
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === '/api/status') statusRequests++;
    });
    await page.goto(url, { waitUntil: 'commit' });
    await page.waitForFunction(
      () => ['kimops:first-paint', 'kimops:all-rows'].every((name) => performance.getEntriesByName(name).length > 0),
      undefined,
      { timeout: 60_000 },
    );
    // No named functions inside: tsx would wrap them in a helper the page does not have.
    const times = await page.evaluate(() => {
      const [firstPaint, parsed, allRows] = ['kimops:first-paint', 'kimops:status-parsed', 'kimops:all-rows'].map(
        (name) => performance.getEntriesByName(name)[0]?.startTime ?? NaN,
      );
      // The browser's Resource Timing entry; this project's types are Node's, which lack it.
      const resource = performance.getEntriesByType('resource').find((entry) => entry.name.endsWith('/api/status')) as
        { responseEnd: number; encodedBodySize: number; decodedBodySize: number } | undefined;
      return {
        firstPaint: firstPaint ?? NaN,
        parsed: parsed ?? NaN,
        allRows: allRows ?? NaN,
        statusRead: resource?.responseEnd ?? NaN,
        encoded: resource?.encodedBodySize ?? 0,
        decoded: resource?.decodedBodySize ?? 0,
      };
    });
    return { ...times, statusRequests };
  } finally {
    await context.close();
  }
}

/** Baseline (b): every row in the DOM, as a page without virtualisation has them; the load event of each load. */
async function naiveLoads(browser: Browser, status: LandscapeStatus): Promise<number[]> {
  const html = gzipSync(naiveTable(status), { level: zlib.Z_BEST_SPEED });
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-encoding': 'gzip' }).end(html);
  });
  const { origin, close } = await listen(server, 0, '127.0.0.1');
  try {
    const loads: number[] = [];
    for (let i = 0; i < NAIVE_LOADS; i++) {
      const context = await browser.newContext({ viewport: VIEWPORT });
      try {
        const page = await context.newPage();
        await page.goto(`${origin}/`, { waitUntil: 'load', timeout: 60_000 });
        const loaded = await page.evaluate(
          () =>
            (
              performance.getEntries().find((entry) => (entry.entryType as string) === 'navigation') as {
                loadEventStart?: number;
              }
            )?.loadEventStart ?? NaN,
        );
        loads.push(loaded);
      } finally {
        await context.close();
      }
    }
    return loads;
  } finally {
    await close();
  }
}

/** The table's columns as the status page shows them, each row a <tr>. */
function naiveTable(status: LandscapeStatus): string {
  const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const head = ['Name', 'Shoot', 'State', 'Stage', 'PR', 'Sync', 'Last operation', 'Kubeconfig expires', 'Message'];
  const rows = status.rows.map((row) => {
    const operation = row.lastOperation ? `${row.lastOperation.type} ${row.lastOperation.state}` : '';
    const message = row.failure ? `${row.failure.reason}: ${row.failure.message}` : (row.drift?.join(', ') ?? '');
    const cells = [
      row.key,
      row.shoot,
      row.runtime?.state ?? 'Unknown',
      row.stage,
      row.pr ? `#${row.pr.number} ${row.pr.class ?? ''}` : '',
      row.sync,
      operation,
      row.kubeconfig?.expiresAt ?? '',
      message,
    ];
    return `<tr>${cells.map((cell) => `<td>${escape(cell)}</td>`).join('')}</tr>`;
  });
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escape(status.landscape)}</title></head><body><table><thead><tr>${head.map((h) => `<th>${h}</th>`).join('')}</tr></thead><tbody>${rows.join('\n')}</tbody></table></body></html>`;
}

function median(values: number[]): number {
  return summary(values).p50;
}

function summary(values: number[]): { p50: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50: sorted[Math.floor((sorted.length - 1) / 2)] ?? NaN, max: sorted.at(-1) ?? NaN };
}
