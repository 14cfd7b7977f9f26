// @ts-check
// Every row of the landscape in one table that stays fast at 10,000 Runtimes: rows have one fixed height, so the
// table knows where each one is without measuring; only the rows in view (and a few around them) exist in the
// DOM, a small pool of elements re-filled as it scrolls, one paint per animation frame. Filters (text, state,
// stage, class) and the sort narrow and order a list of the rows, never the DOM.
import { STAGES, STATES, count, duration, el, secondsBetween, stateLabel, waiting } from './format.js';

const ROW_HEIGHT = 28;
/** The sticky header above the rows: style.css gives .thead this height. */
const HEADER_HEIGHT = 30;
/** Rows rendered beyond each edge of the view, so a quick scroll shows no gap. */
const OVERSCAN = 12;

/**
 * @typedef {Record<string, any>} Row  a RuntimeRow of status/landscape-status.ts
 * @typedef {{ id: string, label: string, text: (row: Row, now: string) => string, order: (row: Row) => string | number, className?: (row: Row, now: string) => string }} Column
 */

/** @type {Column[]} */
const COLUMNS = [
  { id: 'key', label: 'Name', text: (row) => row.key, order: (row) => row.key, className: () => 'mono' },
  { id: 'shoot', label: 'Shoot', text: (row) => row.shoot, order: (row) => row.shoot, className: () => 'mono' },
  {
    id: 'state',
    label: 'State',
    text: (row) => stateLabel(row.runtime?.state).text,
    order: (row) => STATES.indexOf(stateLabel(row.runtime?.state).text),
    className: (row) => stateLabel(row.runtime?.state).className,
  },
  {
    id: 'stage',
    label: 'Stage',
    text: (row) => row.stage,
    order: (row) => STAGES.indexOf(row.stage),
    className: (row) => `stage stage-${row.stage}`,
  },
  {
    id: 'pr',
    label: 'PR',
    text: pullRequest,
    order: (row) => row.pr?.number ?? Infinity,
  },
  {
    id: 'sync',
    label: 'Sync',
    text: (row) => row.sync,
    order: (row) => row.sync,
    className: (row) => `sync sync-${row.sync}`,
  },
  {
    id: 'operation',
    label: 'Last operation',
    text: (row) =>
      row.lastOperation
        ? `${row.lastOperation.type} ${row.lastOperation.state}${row.lastOperation.progress < 100 ? ` ${row.lastOperation.progress}%` : ''}`
        : '',
    order: (row) => (row.lastOperation ? `${row.lastOperation.state} ${row.lastOperation.type}` : '~'),
    className: (row) => (row.lastOperation?.state === 'Failed' ? 'bad' : ''),
  },
  {
    id: 'kubeconfig',
    label: 'Kubeconfig expires',
    text: (row, now) => expiry(row, now),
    order: (row) => row.kubeconfig?.expiresAt ?? '~',
    className: (row, now) => ((secondsBetween(now, row.kubeconfig?.expiresAt) ?? Infinity) < 3600 ? 'warn num' : 'num'),
  },
  { id: 'message', label: 'Message', text: message, order: message, className: (row) => (row.failure ? 'bad' : '') },
];

/** `#1001 · 1d 7h · update`: the PR, how long it has been open, its class. @param {Row} row @param {string} now */
function pullRequest(row, now) {
  if (!row.pr) return '';
  const age = row.pr.state === 'merged' ? 'merged' : secondsBetween(row.pr.openedAt, now);
  const parts = [`#${row.pr.number}`, typeof age === 'number' ? duration(age) : age, row.pr.class];
  return parts.filter(Boolean).join(' · ');
}

/** @param {Row} row @param {string} now */
function expiry(row, now) {
  const seconds = secondsBetween(now, row.kubeconfig?.expiresAt);
  if (seconds === undefined) return '';
  return seconds < 0 ? `expired ${duration(-seconds)} ago` : `in ${duration(seconds)}`;
}

/** What a reviewer reads first about a row: why it failed, what drifted, what its PR waits for. @param {Row} row */
export function message(row) {
  if (row.failure) return `${row.failure.reason}: ${row.failure.message}`;
  if (row.drift?.length) return `drifted: ${row.drift.join(', ')}`;
  if (row.pr?.waitsFor && row.pr.state !== 'merged') return waiting(row.pr.waitsFor);
  return row.lastOperation?.description ?? '';
}

/** The text a filter searches, lower-cased once per row object (an update brings new objects). */
const haystacks = new WeakMap();
/** @param {Row} row */
function haystack(row) {
  let text = haystacks.get(row);
  if (text === undefined) {
    text = [row.key, row.shoot, row.runtime?.id, row.pr && `#${row.pr.number}`, row.pr?.class, message(row)]
      .filter(Boolean)
      .join(' ')
      .toLowerCase();
    haystacks.set(row, text);
  }
  return text;
}

/**
 * @param {HTMLElement} root  where the filter bar and the table go
 * @param {{ onOpen: (row: Row) => void }} handlers
 */
export function createTable(root, { onOpen }) {
  /** @type {Row[]} */
  let rows = [];
  /** @type {Row[]} */
  let view = [];
  let now = '';
  let selected = '';
  let sort = { column: 'key', descending: false };
  let viewportHeight = 600;
  let loading = false;
  let painting = false;

  const text = /** @type {HTMLInputElement} */ (el('input', { testid: 'filter-text' }));
  text.type = 'search';
  text.placeholder = 'Filter: name, Shoot, PR #, class, message…';
  text.setAttribute('aria-label', 'Filter rows');
  const state = select('filter-state', 'All states', STATES);
  const stage = select('filter-stage', 'All stages', STAGES);
  const changeClass = select('filter-class', 'All classes', []);
  const shown = el('span', { className: 'table-count num', testid: 'table-count' });
  const filters = el('div', { className: 'filters' }, text, state, stage, changeClass, shown);

  const header = el('div', { className: 'thead' });
  header.setAttribute('role', 'row');
  for (const column of COLUMNS) {
    const button = el('button', { className: 'th', text: column.label });
    button.setAttribute('type', 'button');
    button.addEventListener('click', () => {
      sort = { column: column.id, descending: sort.column === column.id && !sort.descending };
      update();
    });
    const cell = el('span', { className: 'th-cell', data: { column: column.id } }, button);
    cell.setAttribute('role', 'columnheader');
    header.append(cell);
  }
  const body = el('div', { className: 'tbody' });
  body.setAttribute('role', 'rowgroup');
  const viewport = el('div', { className: 'viewport', testid: 'table' }, header, body);
  viewport.setAttribute('role', 'table');
  viewport.setAttribute('aria-label', 'Runtimes');
  root.append(filters, viewport);

  /** @type {HTMLElement[]} */
  const pool = [];
  const filled = new WeakMap();

  text.addEventListener('input', update);
  for (const choice of [state, stage, changeClass]) choice.addEventListener('change', update);
  viewport.addEventListener('scroll', schedule, { passive: true });
  body.addEventListener('click', (event) => openFrom(event.target));
  body.addEventListener('keydown', (event) => {
    if (event.key === 'Enter') openFrom(event.target);
  });
  new ResizeObserver(([entry]) => {
    viewportHeight = entry?.contentRect.height ?? viewportHeight;
    schedule();
  }).observe(viewport);

  /** @param {EventTarget | null} target */
  function openFrom(target) {
    const rowElement = /** @type {HTMLElement | null} */ (target instanceof HTMLElement ? target.closest('.tr') : null);
    const row = rowElement && filled.get(rowElement);
    if (row) onOpen(row);
  }

  function update() {
    const needle = text.value.trim().toLowerCase();
    const wanted = { state: state.value, stage: stage.value, class: changeClass.value };
    view = rows.filter(
      (row) =>
        (!wanted.state || stateLabel(row.runtime?.state).text === wanted.state) &&
        (!wanted.stage || row.stage === wanted.stage) &&
        (!wanted.class || row.pr?.class === wanted.class) &&
        (!needle || haystack(row).includes(needle)),
    );
    const column = COLUMNS.find((c) => c.id === sort.column) ?? COLUMNS[0];
    if (column && (column.id !== 'key' || sort.descending)) {
      const direction = sort.descending ? -1 : 1;
      view.sort((a, b) => {
        const x = column.order(a);
        const y = column.order(b);
        return (x < y ? -1 : x > y ? 1 : a.key < b.key ? -1 : 1) * direction;
      });
    }
    for (const cell of header.children) {
      const active = /** @type {HTMLElement} */ (cell).dataset.column === sort.column;
      cell.setAttribute('aria-sort', active ? (sort.descending ? 'descending' : 'ascending') : 'none');
    }
    shown.textContent = loading
      ? `${count(rows.length)} rows so far, loading the rest…`
      : view.length === rows.length
        ? `${count(rows.length)} rows`
        : `${count(view.length)} of ${count(rows.length)} rows`;
    shown.dataset.shown = String(view.length);
    shown.dataset.total = String(rows.length);
    shown.dataset.loading = String(loading);
    body.style.height = `${view.length * ROW_HEIGHT}px`;
    viewport.setAttribute('aria-rowcount', String(view.length + 1));
    paint();
  }

  function schedule() {
    if (painting) return;
    painting = true;
    requestAnimationFrame(() => {
      painting = false;
      paint();
    });
  }

  /** Fills the pool with the rows in view; reads the scroll position once, then only writes. */
  function paint() {
    const top = Math.max(0, viewport.scrollTop - HEADER_HEIGHT);
    const first = Math.max(0, Math.floor(top / ROW_HEIGHT) - OVERSCAN);
    const last = Math.min(view.length, Math.ceil((top + viewportHeight) / ROW_HEIGHT) + OVERSCAN);
    while (pool.length < last - first) pool.push(rowElement());
    pool.forEach((element, slot) => {
      const index = first + slot;
      const row = view[index];
      if (!row || index >= last) {
        if (element.isConnected) element.remove();
        return;
      }
      if (!element.isConnected) body.append(element);
      element.style.transform = `translateY(${index * ROW_HEIGHT}px)`;
      element.setAttribute('aria-rowindex', String(index + 2));
      element.classList.toggle('selected', row.key === selected);
      if (filled.get(element) !== row || element.dataset.now !== now) fill(element, row);
    });
  }

  /** @param {HTMLElement} element @param {Row} row */
  function fill(element, row) {
    filled.set(element, row);
    element.dataset.key = row.key;
    element.dataset.stage = row.stage;
    element.dataset.now = now;
    COLUMNS.forEach((column, i) => {
      const cell = /** @type {HTMLElement} */ (element.children[i]);
      const value = column.text(row, now);
      cell.textContent = value;
      cell.title = value;
      cell.className = `td ${column.className?.(row, now) ?? ''}`;
    });
  }

  function rowElement() {
    const element = el('div', { className: 'tr', testid: 'row' });
    element.setAttribute('role', 'row');
    element.tabIndex = 0;
    for (const column of COLUMNS) {
      const cell = el('span', { className: 'td', data: { column: column.id } });
      cell.setAttribute('role', 'cell');
      element.append(cell);
    }
    return element;
  }

  return {
    /**
     * The rows to show (sorted by key, as the status holds them) and the moment ages count to.
     * @param {Row[]} next
     * @param {string} generatedAt
     * @param {boolean} [partial]  only the first rows: the rest are on their way
     */
    setRows(next, generatedAt, partial = false) {
      rows = next;
      now = generatedAt;
      loading = partial;
      const classes = [...new Set(rows.flatMap((row) => (row.pr?.class ? [row.pr.class] : [])))].sort();
      setOptions(changeClass, 'All classes', classes);
      update();
    },
    /** @param {string} key */
    select(key) {
      selected = key;
      paint();
    },
    /** @param {{ stage?: string, text?: string }} filter */
    filter(filter) {
      if (filter.stage !== undefined) stage.value = filter.stage;
      if (filter.text !== undefined) text.value = filter.text;
      update();
      viewport.scrollIntoView({ block: 'start', behavior: 'smooth' });
    },
  };
}

/** @param {string} testid @param {string} all @param {string[]} values */
function select(testid, all, values) {
  const choice = /** @type {HTMLSelectElement} */ (el('select', { testid }));
  choice.setAttribute('aria-label', all.replace('All ', 'Filter by '));
  setOptions(choice, all, values);
  return choice;
}

/** The choices of a select, keeping the chosen one when it is still offered. @param {HTMLSelectElement} choice @param {string} all @param {string[]} values */
function setOptions(choice, all, values) {
  const current = choice.value;
  const wanted = ['', ...values];
  if ([...choice.options].map((option) => option.value).join('\n') === wanted.join('\n')) return;
  choice.replaceChildren(
    ...wanted.map((value) => {
      const option = /** @type {HTMLOptionElement} */ (el('option', { text: value || all }));
      option.value = value;
      return option;
    }),
  );
  choice.value = wanted.includes(current) ? current : '';
}
