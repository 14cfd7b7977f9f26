// `kimops status --state … --class …`: the rows a reader asked for. A state is a Runtime state (Ready, Pending,
// Failed, Terminating, Unknown), a stage (pr, merged, failed, …) or a sync state (drifted, out-of-sync, …); a class
// is the `kimops:` label of the row's PR, with or without its prefix. Values of one flag are alternatives, the two
// flags both hold. The summary stays the landscape's. Pure.
import { PR_LABEL_PREFIX } from '../model/contract.js';
import { STAGES, type LandscapeStatus, type RuntimeRow, type SyncState } from './landscape-status.js';

const RUNTIME_STATES = ['Ready', 'Pending', 'Failed', 'Terminating', 'Unknown'] as const;
const SYNC_STATES: readonly SyncState[] = [
  'in-sync',
  'out-of-sync',
  'drifted',
  'not-applied',
  'not-in-main',
  'unknown',
];

/** Every value --state takes, as help and errors list them. */
export const STATE_FILTERS: readonly string[] = [...RUNTIME_STATES, ...STAGES, ...SYNC_STATES];

export interface RowFilter {
  states?: readonly string[];
  classes?: readonly string[];
}

/**
 * The values of `states` --state does not know, for the usage error. Matched as written: `Failed` is the Runtime
 * state, `failed` the stage, `Unknown` a state and `unknown` a sync state, and each means something else.
 */
export function unknownStates(states: readonly string[]): string[] {
  const known = new Set(STATE_FILTERS);
  return states.filter((state) => !known.has(state));
}

export function filterRows(status: LandscapeStatus, filter: RowFilter): LandscapeStatus {
  const states = filter.states?.length ? new Set(filter.states) : undefined;
  const classes = filter.classes?.length
    ? new Set(
        filter.classes.map((name) => (name.startsWith(PR_LABEL_PREFIX) ? name.slice(PR_LABEL_PREFIX.length) : name)),
      )
    : undefined;
  if (!states && !classes) return status;
  const matches = (row: RuntimeRow) =>
    (!states || rowStates(row).some((state) => states.has(state))) &&
    (!classes || (row.pr?.class !== undefined && classes.has(row.pr.class)));
  return { ...status, rows: status.rows.filter(matches) };
}

function rowStates(row: RuntimeRow): string[] {
  return [...(row.runtime ? [row.runtime.state ?? 'Unknown'] : []), row.stage, row.sync];
}
