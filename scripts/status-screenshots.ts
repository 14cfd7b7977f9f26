// The status page's pictures in the docs: `npx tsx scripts/status-screenshots.ts` serves a synthetic landscape
// `dev` of 10,000 rows (test/helpers/sample-status.ts) with the page's own server, opens it in Debian's Chromium
// (test/helpers/chromium.ts) at 1440x900 and writes three PNGs to docs/images/:
//   status-glance.png    the landscape at a glance: counts, Runtimes by state and stage, latency, PRs, failures;
//   status-table.png     the table filtered to the failed rows, the reasons in the Message column;
//   status-timeline.png  one Runtime's timeline panel, its PR open and waiting for checks.
// The sample is the same on every run and the page's clock is fixed a little after the status was made, so a rerun
// draws the same pictures unless the page changed: rerun it when it has, and look at the pictures before committing.
import { mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { startStatusServer } from '../adapters/status-page/server.js';
import { packagePath } from '../model/package-root.js';
import { statusFeed } from '../status/status-feed.js';
import { launchChromium } from '../test/helpers/chromium.js';
import { sampleStatus } from '../test/helpers/sample-status.js';

const OUT = packagePath('docs', 'images');
/** Reviewers read them in the README: each picture under this many bytes. */
const MAX_BYTES = 300 * 1024;
const VIEWPORT = { width: 1440, height: 900 };

const status = sampleStatus(10_000, { landscape: 'dev' });
const feed = statusFeed();
feed.publish(status);
const server = await startStatusServer({ port: 0, feed });
const browser = await launchChromium();
try {
  const page = await browser.newPage({ viewport: VIEWPORT, deviceScaleFactor: 1 });
  // "Updated … · 42s ago" is counted from the browser's clock: held at one moment, it reads the same on every run.
  await page.clock.setFixedTime(Date.parse(status.generatedAt) + 42_000);
  await page.goto(server.url);
  await page.locator('[data-testid="table-count"][data-loading="false"]').waitFor();
  await page.locator('[data-testid="live"][data-state="live"]').waitFor();
  mkdirSync(OUT, { recursive: true });
  const written: string[] = [];
  const shoot = async (name: string, clip?: { x: number; y: number; width: number; height: number }) => {
    const path = join(OUT, name);
    await page.screenshot({ path, ...(clip && { clip }) });
    written.push(path);
  };

  await shoot('status-glance.png');

  await page.locator('[data-testid="filter-stage"]').selectOption('failed');
  await page.locator(`[data-testid="table-count"][data-shown="${status.summary.byStage.failed}"]`).waitFor();
  const card = page.locator('.table-card');
  await card.evaluate((element) => element.scrollIntoView({ block: 'start' }));
  const box = await card.boundingBox();
  if (!box) throw new Error('the table is not on the page');
  await shoot('status-table.png', {
    x: 0,
    y: box.y,
    width: VIEWPORT.width,
    height: Math.min(VIEWPORT.height - box.y, 720),
  });

  await page.locator('[data-testid="filter-stage"]').selectOption('pr');
  const waiting = status.rows.find((row) => row.pr?.state === 'open' && row.pr.waitsFor === 'checks');
  if (!waiting) throw new Error('the sample has no open PR waiting for checks');
  await page.locator(`[data-testid="row"][data-key="${waiting.key}"]`).click();
  await page.locator('[data-testid="timeline"]').waitFor();
  await shoot('status-timeline.png');

  for (const path of written) {
    const { size } = statSync(path);
    console.log(`${path}  ${(size / 1024).toFixed(0)} KiB`);
    if (size > MAX_BYTES) {
      console.error(`${path} is over ${MAX_BYTES / 1024} KiB: clip it smaller`);
      process.exitCode = 1;
    }
  }
} finally {
  await browser.close();
  await server.close();
}
