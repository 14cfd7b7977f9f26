// @ts-check
// kimops's status page: one fetch of /api/status paints the summary and the first screen of rows as soon as they
// have arrived, then all the rows, then the live stream keeps them current. Read-only; every piece of data reaches
// the DOM as text.
import { applyUpdate, connect } from './live.js';
import { count, duration, utc } from './format.js';
import { readStatus } from './load.js';
import { renderSummary } from './summary.js';
import { createTable } from './table.js';
import { createTimeline } from './timeline.js';

/** @typedef {Record<string, any>} Status */

/** @param {string} testid */
function region(testid) {
  const found = document.querySelector(`[data-testid="${testid}"]`);
  if (!(found instanceof HTMLElement)) throw new Error(`the page has no region ${testid}`);
  return found;
}

/** @type {Status | undefined} */
let current;
/** @type {Map<string, Record<string, any>>} */
let byKey = new Map();

const timeline = createTimeline(region('timeline'));
const table = createTable(region('rows'), { onOpen: open });
const handlers = { onOpen: open, onFilter: table.filter };

/** @param {Record<string, any>} row */
function open(row) {
  table.select(row.key);
  timeline.open(row, () => table.select(''));
}

/**
 * @param {Status} status
 * @param {boolean} [partial]  only the first rows are in: what the rows alone tell (the lists of drifted and
 * failed rows, the count of all) waits for the rest
 */
function show(status, partial = false) {
  current = status;
  byKey = new Map(status.rows.map((/** @type {any} */ row) => [row.key, row]));
  region('landscape').textContent = status.landscape;
  region('main-commit').textContent = status.main ? `main ${status.main.commit}` : 'main unknown';
  region('main-commit').title = status.main?.committedAt ? `committed ${utc(status.main.committedAt)} UTC` : '';
  renderSummary(region, status, handlers, partial);
  table.setRows(status.rows, status.generatedAt, partial);
  timeline.refresh(byKey);
  region('table-total').textContent = partial ? '' : count(status.rows.length);
  tick();
}

/** "Updated 14:02:11 UTC, 12s ago": when the status was built, and how old that is now. */
function tick() {
  const updated = region('last-updated');
  if (!current) return;
  updated.dataset.generatedAt = current.generatedAt;
  const age = (Date.now() - Date.parse(current.generatedAt)) / 1000;
  updated.textContent = `Updated ${utc(current.generatedAt)} UTC${age >= 0 ? ` · ${duration(age)} ago` : ''}`;
}

/** @param {'connecting' | 'live' | 'reconnecting'} state */
function connection(state) {
  const live = region('live');
  live.dataset.state = state;
  live.textContent = { connecting: 'Connecting', live: 'Live', reconnecting: 'Reconnecting' }[state];
}

function loaded() {
  document.querySelector('[data-testid="loading"]')?.remove();
}

async function start() {
  try {
    const response = await fetch('api/status');
    if (response.ok) {
      let painted = false;
      const status = await readStatus(response, async (head) => {
        show(head, true);
        painted = true;
        await firstPaint();
      });
      performance.mark('kimops:status-parsed');
      show(status);
      // For the bench: the page holds every row.
      performance.mark('kimops:all-rows');
      if (!painted) await firstPaint();
    } else region('loading').textContent = (await response.text()).trim();
  } catch (error) {
    region('loading').textContent = `The status could not be loaded: ${String(error)}`;
  }
  if (current) loaded();
  connect(current?.generatedAt, {
    status(status) {
      loaded();
      show(status);
    },
    update(update) {
      if (current) show(applyUpdate(current, update));
    },
    connection,
  });
  ticking();
}

/**
 * Lets the browser paint what show() wrote, then marks it for the bench and the browser's performance panel: the
 * summary and the first screen of rows are on the screen (not merely in the DOM).
 * @returns {Promise<void>}
 */
function firstPaint() {
  loaded();
  return new Promise((resolve) =>
    requestAnimationFrame(() =>
      setTimeout(() => {
        performance.mark('kimops:first-paint');
        resolve();
      }),
    ),
  );
}

/** The age of the status, counted on each second. */
function ticking() {
  tick();
  setTimeout(ticking, 1000);
}

start();
