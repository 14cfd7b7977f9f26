// @ts-check
// Reads /api/status as it arrives. The server writes everything landscape-wide on the first line and then the
// rows, one to a line, sorted by key (adapters/status-page/server.ts statusJson): as soon as the first line and
// a screenful of rows are in, the page can show the summary and the top of the table, while the rest of a large
// landscape (10,000 rows are megabytes) is still on its way. The whole status is then parsed once, as it came.

/** Rows enough for the first screen of the table, sorted by key as it opens. */
const FIRST_ROWS = 100;

/**
 * @typedef {Record<string, any>} Status  a LandscapeStatus
 * @param {Response} response
 * @param {(head: Status) => Promise<void>} early  called at most once, with the first rows only, before the whole
 * status; reading waits for it (the page paints them first)
 * @returns {Promise<Status>}
 */
export async function readStatus(response, early) {
  if (!response.body) return response.json();
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  /** @type {string[]} */
  const chunks = [];
  let seen = '';
  let waiting = true;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    if (!waiting) continue;
    seen += value;
    const head = headOf(seen);
    if (head) {
      waiting = false;
      seen = '';
      await early(head);
    } else if (seen.length > 4 * 1024 * 1024) waiting = false; // megabytes without the lines: not in that form
  }
  return JSON.parse(chunks.join(''));
}

/**
 * The status of the first line with the FIRST_ROWS rows after it, once that many lines are in; undefined before,
 * or when the text is not in lines (then the page waits for the whole).
 * @param {string} text
 * @returns {Status | undefined}
 */
function headOf(text) {
  const lines = text.split('\n');
  // The first line, the rows, and a line not yet complete: a status of fewer rows ends before this many.
  if (lines.length < FIRST_ROWS + 2) return undefined;
  const [first = ''] = lines;
  if (!first.endsWith('"rows":[')) return undefined;
  const rows = lines.slice(1, FIRST_ROWS + 1).map((line) => line.replace(/,$/, ''));
  try {
    return JSON.parse(`${first}${rows.join(',')}]}`);
  } catch {
    return undefined;
  }
}
