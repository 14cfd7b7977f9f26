// @ts-check
// One Runtime's way from its newest change to Ready, in a side panel: each step with its time and how long it took
// after the one before, the pull request linked, and what else the status knows of the row (sync, drift, Gardener's
// last operation, the kubeconfig, why it failed).
import { duration, el, link, secondsBetween, stateLabel, utc, waiting } from './format.js';

/** @typedef {Record<string, any>} Row */

const STEPS = [
  { id: 'changed', label: 'Changed', hint: 'the Runtime’s newest change' },
  { id: 'proposed', label: 'PR opened', hint: 'the generator proposed it' },
  { id: 'merged', label: 'Merged', hint: 'on main' },
  { id: 'applied', label: 'Applied', hint: 'kimops applied the Shoot' },
  { id: 'ready', label: 'Ready', hint: 'the Runtime turned Ready' },
];

/** @param {HTMLElement} panel  the aside the page holds for it */
export function createTimeline(panel) {
  /** @type {Row | undefined} */
  let shown;
  /** @type {(() => void) | undefined} */
  let onClose;
  panel.hidden = true;
  document.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && shown) close();
  });

  function close() {
    shown = undefined;
    panel.hidden = true;
    panel.replaceChildren();
    onClose?.();
  }

  return {
    /** @param {Row} row @param {() => void} closed */
    open(row, closed) {
      shown = row;
      onClose = closed;
      render(panel, row, close);
      panel.hidden = false;
    },
    /** The row anew after an update; closed when it went. @param {Map<string, Row>} rows */
    refresh(rows) {
      if (!shown) return;
      const row = rows.get(shown.key);
      if (!row) close();
      else if (row !== shown) {
        shown = row;
        render(panel, row, close);
      }
    },
  };
}

/** @param {HTMLElement} panel @param {Row} row @param {() => void} close */
function render(panel, row, close) {
  const closeButton = el('button', { className: 'close', text: '×', title: 'Close (Esc)', testid: 'timeline-close' });
  closeButton.setAttribute('aria-label', 'Close the timeline');
  closeButton.addEventListener('click', close);
  const state = stateLabel(row.runtime?.state);
  panel.replaceChildren(
    el(
      'header',
      { className: 'panel-head' },
      el(
        'div',
        {},
        el('h2', { className: 'mono', text: row.key, testid: 'timeline-key' }),
        el('div', { className: 'muted mono', text: `Shoot ${row.shoot}` }),
      ),
      closeButton,
    ),
    el(
      'div',
      { className: 'chips' },
      el('span', { className: state.className, text: state.text }),
      el('span', { className: `stage stage-${row.stage}`, text: row.stage }),
    ),
    steps(row),
    pullRequest(row),
    details(row),
  );
}

/** @param {Row} row */
function steps(row) {
  const list = el('ol', { className: 'steps', testid: 'timeline-steps' });
  let previous;
  for (const step of STEPS) {
    const at = row.timeline?.[step.id];
    const took = secondsBetween(previous, at);
    list.append(
      el(
        'li',
        { className: at ? 'step done' : 'step', data: { step: step.id } },
        el('span', { className: 'step-label', text: step.label, title: step.hint }),
        el('span', { className: 'step-time num', text: at ? utc(at) : '—' }),
        el('span', { className: 'step-took num', text: took === undefined ? '' : `+${duration(took)}` }),
      ),
    );
    if (at) previous = at;
  }
  const total = secondsBetween(row.timeline?.changed, row.timeline?.ready);
  if (total !== undefined)
    list.append(
      el(
        'li',
        { className: 'step total' },
        el('span', { className: 'step-label', text: 'Change to Ready' }),
        el('span', {}),
        el('span', { className: 'step-took num', text: duration(total) }),
      ),
    );
  return list;
}

/** @param {Row} row */
function pullRequest(row) {
  if (!row.pr) return el('p', { className: 'muted', text: 'No pull request for its newest change.' });
  const pr = row.pr;
  const anchor = link(pr.url, `#${pr.number}`);
  anchor.dataset.testid = 'timeline-pr';
  return el(
    'section',
    { className: 'panel-section' },
    el('h3', { text: 'Pull request' }),
    el(
      'p',
      {},
      anchor,
      ` ${pr.state.replaceAll('-', ' ')}${pr.class ? ` · ${pr.class}` : ''}${pr.waitsFor ? ` · ${waiting(pr.waitsFor)}` : ''}`,
    ),
  );
}

/** @param {Row} row */
function details(row) {
  const list = el('dl', { className: 'details' });
  /** @param {string} term @param {string | undefined} value @param {string} [className] */
  const add = (term, value, className) => {
    if (value) list.append(el('dt', { text: term }), el('dd', { text: value, className: className ?? '' }));
  };
  add('Runtime ID', row.runtime?.id, 'mono');
  add('Generation', row.runtime?.generation === undefined ? undefined : String(row.runtime.generation), 'num');
  add('Led by', row.runtime?.leader);
  add('Sync', row.sync, `sync sync-${row.sync}`);
  add('Drift', row.drift?.join(', '), 'mono warn');
  add('Main’s tree', row.mainTree, 'mono');
  add(
    'Applied from',
    row.applied &&
      [row.applied.commit && `commit ${row.applied.commit}`, row.applied.tree && `tree ${row.applied.tree}`]
        .filter(Boolean)
        .join(', '),
    'mono',
  );
  const operation = row.lastOperation;
  add(
    'Last operation',
    operation &&
      `${operation.type} ${operation.state} ${operation.progress}%${operation.at ? ` at ${utc(operation.at)}` : ''}`,
  );
  add('Gardener says', operation?.description);
  add(
    'Kubeconfig',
    row.kubeconfig && `synced ${utc(row.kubeconfig.syncedAt)}, expires ${utc(row.kubeconfig.expiresAt)}`,
  );
  add('Failure', row.failure && `${row.failure.reason}: ${row.failure.message}`, 'bad');
  return el('section', { className: 'panel-section' }, el('h3', { text: 'Details' }), list);
}
