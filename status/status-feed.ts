// The newest LandscapeStatus of a running service and who listens for its changes: each status published is held
// as the current one, and every listener hears what changed since the one before (statusUpdate). The status
// page's server reads the current status for a new page and streams the updates to the open ones. Pure state.
import type { LandscapeStatus, StatusUpdate } from './landscape-status.js';
import { statusUpdate } from './status-delta.js';

type Listener = (update: StatusUpdate) => void;

export interface StatusFeed {
  /** The newest status, undefined until the first is published. */
  current(): LandscapeStatus | undefined;
  /** `listener` hears each status published from now on, until the returned function is called. */
  subscribe(listener: Listener): () => void;
  publish(status: LandscapeStatus): void;
}

export function statusFeed(): StatusFeed {
  let current: LandscapeStatus | undefined;
  const listeners = new Set<Listener>();
  return {
    current: () => current,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    publish(status) {
      // The first status is all new: every row counts as changed.
      const update = statusUpdate(current ?? { ...status, rows: [] }, status);
      current = status;
      for (const listener of [...listeners]) listener(update);
    },
  };
}
