// @ts-check
// The landscape's numbers as pictures: horizontal bars (Runtimes by state, by stage) and the latency histograms
// (SVG, one per stage). Each bar carries its number as text, so the picture is never the only way to read it.
import { count, duration, el } from './format.js';

/**
 * One bar per entry, its length relative to the largest; the count beside it, right-aligned.
 * @param {{ label: string, value: number, className?: string, testid: string }[]} entries
 * @returns {HTMLElement}
 */
export function bars(entries) {
  const max = Math.max(1, ...entries.map((entry) => entry.value));
  const list = el('div', { className: 'bars' });
  for (const { label, value, className, testid } of entries) {
    const fill = el('div', { className: `bar-fill ${className ?? ''}` });
    fill.style.width = `${(value / max) * 100}%`;
    list.append(
      el(
        'div',
        { className: 'bar-row' },
        el('span', { className: 'bar-label', text: label }),
        el('div', { className: 'bar-track' }, fill),
        el('span', { className: 'num', text: count(value), testid, data: { value: String(value) } }),
      ),
    );
  }
  return list;
}

const SVG = 'http://www.w3.org/2000/svg';
const WIDTH = 230;
const HEIGHT = 92;
const AXIS = 14;
const LABEL = 11;

/**
 * @param {string} tag
 * @param {Record<string, string | number>} attributes
 * @param {string} [text]
 */
function svg(tag, attributes, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

/**
 * @typedef {{ stage: string, buckets: { le: number | null, count: number }[], count: number, sum: number }} Histogram
 */

/**
 * A histogram of one stage's durations: Prometheus's cumulative buckets turned into one bar per bucket, the
 * bucket's upper bound under it and its count above it, with the count, mean and median bucket as a caption.
 * @param {Histogram} histogram
 * @param {string} title
 * @returns {HTMLElement}
 */
export function histogramChart(histogram, title) {
  const perBucket = histogram.buckets.map((bucket, i) => ({
    le: bucket.le,
    count: bucket.count - (i > 0 ? (histogram.buckets[i - 1]?.count ?? 0) : 0),
  }));
  const max = Math.max(1, ...perBucket.map((bucket) => bucket.count));
  const slot = WIDTH / Math.max(1, perBucket.length);
  const chart = svg('svg', {
    viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
    class: 'histogram',
    role: 'img',
    'aria-label': `${title}: ${histogram.count} Runtimes`,
  });
  perBucket.forEach((bucket, i) => {
    const height = ((HEIGHT - AXIS - LABEL) * bucket.count) / max;
    const x = i * slot + 2;
    const bar = svg('rect', {
      x,
      y: HEIGHT - AXIS - height,
      width: slot - 4,
      height: Math.max(bucket.count ? 1 : 0, height),
      rx: 1.5,
      class: 'histogram-bar',
    });
    const range = bucket.le === null ? `over ${upper(perBucket[i - 1]?.le)}` : `at most ${upper(bucket.le)}`;
    bar.append(svg('title', {}, `${count(bucket.count)} took ${range}`));
    chart.append(bar);
    if (bucket.count)
      chart.append(
        svg(
          'text',
          { x: x + (slot - 4) / 2, y: HEIGHT - AXIS - height - 2, class: 'histogram-count' },
          short(bucket.count),
        ),
      );
    // Narrow bars label every other bound (and the last), so the labels never run into each other.
    if (slot >= 24 || i % 2 === 0 || i === perBucket.length - 1)
      chart.append(
        svg(
          'text',
          { x: x + (slot - 4) / 2, y: HEIGHT - 3, class: 'histogram-axis' },
          bucket.le === null ? '∞' : upper(bucket.le),
        ),
      );
  });
  const mean = histogram.count ? duration(histogram.sum / histogram.count) : '–';
  return el(
    'figure',
    { className: 'histogram-figure', testid: `latency-${histogram.stage}` },
    el(
      'figcaption',
      {},
      el('span', { className: 'histogram-title', text: title }),
      el('span', { className: 'muted', text: caption(histogram, mean) }),
    ),
    chart,
  );
}

/** @param {Histogram} histogram @param {string} mean */
function caption(histogram, mean) {
  if (!histogram.count) return 'none recorded';
  const half = histogram.buckets.find((bucket) => bucket.count >= histogram.count / 2);
  const median = half?.le === null || half === undefined ? 'more' : `≤ ${upper(half.le)}`;
  return `n ${count(histogram.count)} · mean ${mean} · p50 ${median}`;
}

/** A bucket's bound without seconds where minutes say it: 60 → 1m, 86400 → 1d. @param {number | null | undefined} le */
function upper(le) {
  if (le === null || le === undefined) return '∞';
  return duration(le).replace(' 0s', '');
}

/** 4307 → 4.3k: a bar's count in the space above it. @param {number} n */
function short(n) {
  return n < 1000 ? String(n) : n < 10_000 ? `${(n / 1000).toFixed(1)}k` : `${Math.round(n / 1000)}k`;
}
