// @ts-check
// The landscape at a glance: the counts, Runtimes by state and by stage, change-to-Ready latency per stage, the
// pull requests waiting, the rollouts and their waves, the drifted and the failed rows, and the sources that
// could not be read. All of it is the status's own numbers (LandscapeStatus.summary, .latency, .pullRequests,
// .rollouts, .sources); only the lists of drifted and failed rows are picked from the rows.
import { bars, histogramChart } from './charts.js';
import { STAGES, STATES, count, duration, el, link, secondsBetween, waiting } from './format.js';
import { message } from './table.js';

/** A list shows this many entries; the table shows them all. */
const LIST_LIMIT = 100;

const LATENCY_TITLES = {
  propose: 'Change → PR',
  merge: 'PR → merged',
  apply: 'Merged → applied',
  ready: 'Applied → Ready',
  total: 'Change → Ready',
};

/**
 * @typedef {Record<string, any>} Status  a LandscapeStatus of status/landscape-status.ts
 * @typedef {{ onOpen: (row: Record<string, any>) => void, onFilter: (filter: { stage?: string, text?: string }) => void }} Handlers
 */

/**
 * @param {(testid: string) => HTMLElement} region  the page's element of that data-testid
 * @param {Status} status
 * @param {Handlers} handlers
 * @param {boolean} [partial]  the status holds only its first rows: the lists picked from the rows wait for the rest
 */
export function renderSummary(region, status, handlers, partial = false) {
  const summary = status.summary;
  const now = status.generatedAt;
  sourcesBanner(region('sources-banner'), status.sources);
  region('counts').replaceChildren(
    tile('Runtimes', summary.runtimes, 'count-runtimes'),
    tile('Ready', summary.byState.Ready ?? 0, 'count-ready', 'good'),
    tile('Failed', summary.failed, 'count-failed', summary.failed ? 'bad' : ''),
    tile(
      'Open PRs',
      summary.openPullRequests,
      'count-open-prs',
      '',
      summary.oldestPullRequestOpenedAt
        ? `oldest ${duration(secondsBetween(summary.oldestPullRequestOpenedAt, now) ?? 0)}`
        : '',
    ),
    tile('Out of sync', summary.outOfSync, 'count-out-of-sync'),
    tile('Drifted', summary.drifted, 'count-drifted', summary.drifted ? 'warn' : ''),
    tile(
      'Kubeconfigs expiring',
      summary.kubeconfigsExpiring,
      'count-kubeconfigs-expiring',
      summary.kubeconfigsExpiring ? 'warn' : '',
      'within the hour',
    ),
    tile('Orphaned Shoots', summary.orphanedShoots, 'count-orphaned-shoots', '', 'without a Runtime'),
  );
  region('by-state').replaceChildren(
    bars(
      STATES.map((state) => ({
        label: state,
        value: summary.byState[state] ?? 0,
        className: `fill-${state.toLowerCase()}`,
        testid: `count-state-${state}`,
      })),
    ),
  );
  region('by-stage').replaceChildren(
    bars(
      STAGES.map((stage) => ({
        label: stage,
        value: summary.byStage[stage] ?? 0,
        className: `fill-stage-${stage}`,
        testid: `count-stage-${stage}`,
      })),
    ),
  );
  region('latency').replaceChildren(
    ...(status.latency.length
      ? status.latency.map((/** @type {any} */ histogram) =>
          histogramChart(
            histogram,
            LATENCY_TITLES[/** @type {keyof LATENCY_TITLES} */ (histogram.stage)] ?? histogram.stage,
          ),
        )
      : [el('p', { className: 'muted', text: 'No change has both ends recorded yet.' })]),
  );
  region('pull-requests').replaceChildren(pullRequests(status.pullRequests, now, handlers));
  region('rollouts').replaceChildren(rollouts(status.rollouts, now));
  if (partial) {
    for (const id of ['drift', 'failures'])
      region(id).replaceChildren(el('p', { className: 'muted', text: 'Loading the rows…' }));
    for (const id of ['count-drift-list', 'count-failure-list']) region(id).textContent = '';
    return;
  }
  const drifted = status.rows.filter((/** @type {any} */ row) => row.sync === 'drifted');
  region('drift').replaceChildren(
    rowList(
      drifted,
      (row) => row.drift?.join(', ') ?? 'drifted',
      'drift-row',
      handlers,
      { text: 'drifted:' },
      'Nothing drifted: every Shoot applied from main is as main says.',
    ),
  );
  const failed = status.rows.filter((/** @type {any} */ row) => row.failure);
  region('failures').replaceChildren(
    rowList(failed, message, 'failure-row', handlers, { stage: 'failed' }, 'No failures.'),
  );
  region('count-drift-list').textContent = count(drifted.length);
  region('count-failure-list').textContent = count(failed.length);
}

/** @param {HTMLElement} banner @param {{ name: string, state: string, message?: string }[]} sources */
function sourcesBanner(banner, sources) {
  const failed = sources.filter((source) => source.state === 'failed');
  banner.hidden = failed.length === 0;
  banner.replaceChildren(
    ...failed.map((source) =>
      el(
        'p',
        { data: { source: source.name } },
        el('strong', { text: `${source.name} could not be read` }),
        `: ${source.message ?? 'no reason given'}. What it gives is missing from the rows; the rest is shown.`,
      ),
    ),
  );
}

/** @param {string} label @param {number} value @param {string} testid @param {string} [tone] @param {string} [note] */
function tile(label, value, testid, tone = '', note = '') {
  return el(
    'div',
    { className: `tile ${tone}` },
    el('span', { className: 'tile-label', text: label }),
    el('span', { className: 'tile-value num', text: count(value), testid, data: { value: String(value) } }),
    el('span', { className: 'tile-note', text: note }),
  );
}

/** Oldest first: the one that waits longest is the one to look at. @param {any[]} list @param {string} now @param {Handlers} handlers */
function pullRequests(list, now, handlers) {
  if (!list.length) return el('p', { className: 'muted', text: 'No open pull requests.' });
  const sorted = [...list].sort((a, b) => (a.openedAt ?? '~').localeCompare(b.openedAt ?? '~'));
  const table = el('table', { className: 'list' });
  table.append(
    el('thead', {}, el('tr', {}, ...['PR', 'Class', 'Age', 'Waits for', 'Title'].map((h) => el('th', { text: h })))),
  );
  const body = el('tbody');
  for (const pr of sorted.slice(0, LIST_LIMIT)) {
    const age = secondsBetween(pr.openedAt, now);
    body.append(
      el(
        'tr',
        { testid: 'pr-row', data: { number: String(pr.number) } },
        el('td', { className: 'num' }, link(pr.url, `#${pr.number}`)),
        el('td', { text: pr.class ?? '' }),
        el('td', {
          className: `num ${age !== undefined && age > 86_400 ? 'warn' : ''}`,
          text: age === undefined ? '' : duration(age),
        }),
        el('td', { text: pr.waitsFor ?? '' }),
        el('td', { className: 'ellipsis', text: pr.title, title: pr.title }),
      ),
    );
  }
  table.append(body);
  return more(table, list.length, handlers, { stage: 'pr' }, 'open PRs');
}

/** @param {any[]} list @param {string} now */
function rollouts(list, now) {
  if (!list.length) return el('p', { className: 'muted', text: 'No rollout in progress.' });
  const items = el('div', { className: 'rollouts' });
  for (const rollout of list) {
    const fill = el('div', { className: 'bar-fill fill-rollout' });
    const wave = rollout.wave;
    fill.style.width = wave ? `${(wave.number / Math.max(1, wave.of)) * 100}%` : '0%';
    const age = secondsBetween(rollout.openedAt, now);
    items.append(
      el(
        'div',
        { className: 'rollout', testid: 'rollout' },
        el(
          'div',
          { className: 'rollout-head' },
          el('span', { className: 'rollout-name', text: rollout.name }),
          link(rollout.url, `#${rollout.pr}`),
        ),
        el('div', { className: 'bar-track' }, fill),
        el(
          'div',
          { className: 'muted rollout-meta' },
          `${wave ? `wave ${wave.number}/${wave.of}` : 'waves unknown'}${rollout.shoots === undefined ? '' : ` · ${count(rollout.shoots)} Shoots`}${age === undefined ? '' : ` · open ${duration(age)}`}${rollout.waitsFor ? ` · ${waiting(rollout.waitsFor)}` : ''}`,
        ),
      ),
    );
  }
  return items;
}

/**
 * Rows as a clickable list (each opens its timeline), the first LIST_LIMIT of them.
 * @param {any[]} rows @param {(row: any) => string} describe @param {string} testid @param {Handlers} handlers
 * @param {{ stage?: string, text?: string }} filter  the table's filter that shows them all
 * @param {string} none
 */
function rowList(rows, describe, testid, handlers, filter, none) {
  if (!rows.length) return el('p', { className: 'muted', text: none });
  const list = el('ul', { className: 'rowlist' });
  for (const row of rows.slice(0, LIST_LIMIT)) {
    const button = el(
      'button',
      { className: 'rowlist-item', testid, data: { key: row.key } },
      el('span', { className: 'mono', text: row.key }),
      el('span', { className: 'ellipsis', text: describe(row), title: describe(row) }),
    );
    button.setAttribute('type', 'button');
    button.addEventListener('click', () => handlers.onOpen(row));
    list.append(el('li', {}, button));
  }
  return more(list, rows.length, handlers, filter, 'rows');
}

/** @param {HTMLElement} list @param {number} total @param {Handlers} handlers @param {{ stage?: string, text?: string }} filter @param {string} what */
function more(list, total, handlers, filter, what) {
  if (total <= LIST_LIMIT) return list;
  const button = el('button', {
    className: 'more',
    text: `${count(total - LIST_LIMIT)} more ${what}: show all in the table`,
  });
  button.setAttribute('type', 'button');
  button.addEventListener('click', () => handlers.onFilter(filter));
  return el('div', {}, list, button);
}
