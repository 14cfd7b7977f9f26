// @ts-check
// The page's live stream (/api/events, server-sent events): the whole status when it connects, then the rows that
// changed. The browser reconnects by itself and sends the id of the last event it got, so the server sends the
// whole status again only when the page missed something. A stream the server refused is retried after a pause.

const RETRY_MS = 5000;

/**
 * @typedef {Record<string, any>} Status  a LandscapeStatus
 * @typedef {'connecting' | 'live' | 'reconnecting'} Connection
 * @param {string | undefined} since  the generatedAt of the status the page already shows
 * @param {{ status: (status: Status) => void, update: (update: Status) => void, connection: (state: Connection) => void }} on
 */
export function connect(since, on) {
  const source = new EventSource(since ? `api/events?since=${encodeURIComponent(since)}` : 'api/events');
  source.addEventListener('open', () => on.connection('live'));
  source.addEventListener('status', (event) => on.status(JSON.parse(event.data)));
  source.addEventListener('update', (event) => on.update(JSON.parse(event.data)));
  source.addEventListener('error', () => {
    on.connection('reconnecting');
    if (source.readyState === EventSource.CLOSED) setTimeout(() => connect(undefined, on), RETRY_MS);
  });
}

/**
 * The status with an update applied (status/status-delta.ts makes the update): changed rows replaced or added by
 * key, removed ones dropped, everything landscape-wide taken from the update. The rows stay sorted by key.
 * @param {Status} status
 * @param {Status} update
 * @returns {Status}
 */
export function applyUpdate(status, update) {
  const { changed, removed, ...landscape } = update;
  const incoming = new Map(changed.map((/** @type {any} */ row) => [row.key, row]));
  const gone = new Set(removed);
  const rows = status.rows
    .filter((/** @type {any} */ row) => !gone.has(row.key))
    .map((/** @type {any} */ row) => {
      const next = incoming.get(row.key);
      incoming.delete(row.key);
      return next ?? row;
    });
  if (incoming.size) {
    rows.push(...incoming.values());
    rows.sort((/** @type {any} */ a, /** @type {any} */ b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }
  return { ...landscape, rows };
}
