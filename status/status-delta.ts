// What the status page's live stream sends after its first full status: the rows that differ from the status
// the page already holds, and everything landscape-wide anew. At 10,000 Runtimes a pass changes a few rows, so
// sending only those keeps each update small, and the page re-renders only what moved. Pure.
import { jsonEqual } from '../model/clone.js';
import type { LandscapeStatus, StatusUpdate } from './landscape-status.js';

/** The update that turns `previous` into `next`: rows added or changed (deep-equal by key) and keys gone. */
export function statusUpdate(previous: LandscapeStatus, next: LandscapeStatus): StatusUpdate {
  const { rows, ...landscapeWide } = next;
  const before = new Map(previous.rows.map((row) => [row.key, row]));
  const changed = rows.filter((row) => {
    const old = before.get(row.key);
    return !old || !jsonEqual(old, row);
  });
  const kept = new Set(rows.map((row) => row.key));
  const removed = previous.rows.filter((row) => !kept.has(row.key)).map((row) => row.key);
  return { ...landscapeWide, changed, removed };
}
