// @ts-check
// The page's small helpers: elements built with text only (a row's text is never parsed as HTML), durations,
// times and counts as an SRE reads them, and the one check of a link's address.

/** The stages in the order a change moves, then the others (status/landscape-status.ts STAGES). */
export const STAGES = ['change', 'pr', 'merged', 'applied', 'ready', 'failed', 'deleting', 'kim'];
/** Runtime states as KIM names them, and `Unknown` for a row without one. */
export const STATES = ['Ready', 'Pending', 'Failed', 'Terminating', 'Unknown'];

/**
 * An element with a class and text; `children` are elements or strings (as text nodes, never markup).
 * @param {string} tag
 * @param {{ className?: string, text?: string, title?: string, testid?: string, data?: Record<string, string> }} [options]
 * @param {(Node | string)[]} children
 * @returns {HTMLElement}
 */
export function el(tag, options = {}, ...children) {
  const element = document.createElement(tag);
  if (options.className) element.className = options.className;
  if (options.text !== undefined) element.textContent = options.text;
  if (options.title) element.title = options.title;
  if (options.testid) element.dataset.testid = options.testid;
  for (const [name, value] of Object.entries(options.data ?? {})) element.dataset[name] = value;
  element.append(...children);
  return element;
}

/**
 * A link to the forge that opens apart from the page and tells it nothing of where it came from; only http(s)
 * addresses become links, anything else is shown as text.
 * @param {string | undefined} url
 * @param {string} text
 * @returns {HTMLElement}
 */
export function link(url, text) {
  const href = safeUrl(url);
  if (!href) return el('span', { text });
  const anchor = /** @type {HTMLAnchorElement} */ (el('a', { text }));
  anchor.href = href;
  anchor.target = '_blank';
  anchor.rel = 'noopener noreferrer';
  return anchor;
}

/** @param {string | undefined} url */
function safeUrl(url) {
  if (!url) return undefined;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.href : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `3h 12m`, `45s`, `2d 4h`: two units at most, enough to compare at a glance.
 * @param {number} seconds
 */
export function duration(seconds) {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${s % 60 ? ` ${s % 60}s` : ''}`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h${s % 3600 >= 60 ? ` ${Math.floor((s % 3600) / 60)}m` : ''}`;
  return `${Math.floor(s / 86_400)}d${s % 86_400 >= 3600 ? ` ${Math.floor((s % 86_400) / 3600)}h` : ''}`;
}

/**
 * Seconds from `from` to `to` (RFC 3339), or undefined when either is missing.
 * @param {string | undefined} from
 * @param {string | undefined} to
 */
export function secondsBetween(from, to) {
  if (!from || !to) return undefined;
  const seconds = (Date.parse(to) - Date.parse(from)) / 1000;
  return Number.isFinite(seconds) ? seconds : undefined;
}

/**
 * `2026-12-02 09:48:12`, in UTC as the landscape's logs are.
 * @param {string | undefined} iso
 */
export function utc(iso) {
  if (!iso) return '';
  const ms = Date.parse(iso);
  return Number.isFinite(ms) ? new Date(ms).toISOString().slice(0, 19).replace('T', ' ') : iso;
}

const numbers = new Intl.NumberFormat('en-US');

/** @param {number} n */
export function count(n) {
  return numbers.format(n);
}

/**
 * What a pull request waits for, as a phrase: `review` reads "waits for review"; a sentence of its own
 * (`never merges: Gardener would reject it`) is shown as it is.
 * @param {string} waitsFor
 */
export function waiting(waitsFor) {
  return waitsFor.includes(':') ? waitsFor : `waits for ${waitsFor}`;
}

/**
 * The text of a row's STATE cell and the class that colours it; the text says it, the colour only helps.
 * @param {string | undefined} state
 */
export function stateLabel(state) {
  const known = state && STATES.includes(state) ? state : 'Unknown';
  return { text: known, className: `state state-${known.toLowerCase()}` };
}
