// What `kimops status` prints and the status page shows: one landscape at one moment, built from what the three
// components wrote (Runtime status and the generator's annotation, the Shoots' applied markers and Gardener's last
// operation, main, the open pull requests, the kubeconfig Secrets' last sync). A versioned JSON document, so a
// script may read `kimops status -o json` and the page may read `/api/status` the same way. Types only.
import type { RuntimeState } from '../model/runtime-status.js';

export const STATUS_API_VERSION = 'kimops.kyma-project.io/status/v1';

/**
 * Where a Runtime's newest change is, in the order it moves: `change` (the generator has not proposed it yet),
 * `pr` (its pull request is open), `merged` (on main, not yet on the Shoot), `applied` (on the Shoot, Gardener
 * still working or the Runtime not Ready yet), `ready`. Apart from the order: `failed` (the Runtime is Failed, or
 * the pipeline reports an error for its newest generation), `deleting`, `kim` (KIM leads it: kimops only shadows).
 */
export const STAGES = ['change', 'pr', 'merged', 'applied', 'ready', 'failed', 'deleting', 'kim'] as const;
export type Stage = (typeof STAGES)[number];

/** The timeline's steps; each one's time is when it happened, where something recorded it (RFC 3339). */
export interface Timeline {
  /** The Runtime's newest change: its newest write by anyone but kimops (managedFields), else its creation. */
  changed?: string;
  /** Its pull request opened (the forge's createdAt). */
  proposed?: string;
  /** Its pull request merged (the merge commit's committer time on main). */
  merged?: string;
  /** kimops last applied the Shoot (the Shoot's managedFields entry of field manager kimops). */
  applied?: string;
  /** The Runtime turned Ready (its Provisioned condition's lastTransitionTime while Ready). */
  ready?: string;
}

export interface RowPullRequest {
  number: number;
  /** Only http(s) URLs are kept: the page links to it. */
  url: string;
  /** The change class from its `kimops:` label (e.g. `update-disruptive`), when the PR is open and labelled. */
  class?: string;
  state: 'open' | 'waiting-for-review' | 'merged' | 'blocked';
  openedAt?: string;
  /** What the PR waits for, in words: `review`, `checks`, `never merges: Gardener would reject it`, … */
  waitsFor?: string;
}

/**
 * The Shoot against main: `in-sync` (the Shoot was last applied from main's folder), `out-of-sync` (main moved on
 * since), `drifted` (applied from main's folder but the live Shoot differs on fields main sets), `not-applied`
 * (in main, no Shoot or never applied by kimops), `not-in-main` (a Shoot main does not hold), `unknown` (a source
 * could not be read).
 */
export type SyncState = 'in-sync' | 'out-of-sync' | 'drifted' | 'not-applied' | 'not-in-main' | 'unknown';

export interface RuntimeRow {
  /** `<namespace>/<name>` of the Runtime; `shoot/<name>` for a live Shoot no Runtime names. Unique in a status. */
  key: string;
  runtime?: {
    namespace: string;
    name: string;
    /** The label kyma-project.io/runtime-id. */
    id?: string;
    generation?: number;
    state?: RuntimeState;
    leader: 'kimops' | 'kim';
  };
  /** The Shoot's name (the Runtime's spec.shootName). */
  shoot: string;
  stage: Stage;
  pr?: RowPullRequest;
  /** main's tree of the Shoot's folder (short), when main holds it. */
  mainTree?: string;
  /** The commit and tree the Shoot was last applied from (its kimops annotations, short). */
  applied?: { commit?: string; tree?: string };
  sync: SyncState;
  /** Fields main sets that the live Shoot differs in, when `drifted` (a few, for the eye). */
  drift?: string[];
  /** Gardener's `status.lastOperation` of the Shoot. */
  lastOperation?: { type: string; state: string; progress: number; at?: string; description?: string };
  /** From the kubeconfig Secret's last-sync annotation and the kubeconfig expiration kimops is told. */
  kubeconfig?: { syncedAt: string; expiresAt: string };
  /** Why it is failed or stuck, in words a reviewer reads (credentials cut). */
  failure?: { reason: string; message: string };
  timeline: Timeline;
}

export interface StatusPullRequest {
  number: number;
  url: string;
  title: string;
  class?: string;
  openedAt?: string;
  waitsFor?: string;
  /** The Shoot of a Shoot's own PR; absent for a rollout's or the bootstrap's. */
  shoot?: string;
}

/** A landscape-wide change rolling out in waves (its PR title says `wave n/m`). */
export interface Rollout {
  name: string;
  pr: number;
  url: string;
  wave?: { number: number; of: number };
  shoots?: number;
  openedAt?: string;
  waitsFor?: string;
}

/** Durations of one stage over the Runtimes whose newest change has both ends recorded, in seconds. */
export interface LatencyHistogram {
  /** `propose`: changed → proposed, `merge`: → merged, `apply`: → applied, `ready`: → ready, `total`: changed → ready. */
  stage: 'propose' | 'merge' | 'apply' | 'ready' | 'total';
  /** Cumulative, as Prometheus: how many took at most `le` seconds; the last bucket is +Inf (`le: null`). */
  buckets: { le: number | null; count: number }[];
  count: number;
  sum: number;
}

/** One source the status was built from, and whether it could be read. */
export interface SourceState {
  name: 'kcp' | 'garden' | 'repo' | 'forge' | 'kubeconfigs';
  /** `skipped`: not configured (no flag given); `failed`: the message says why, the rows lack what it gives. */
  state: 'read' | 'skipped' | 'failed';
  message?: string;
}

export interface StatusSummary {
  runtimes: number;
  /** Rows for live Shoots no Runtime names. */
  orphanedShoots: number;
  byState: Partial<Record<RuntimeState | 'Unknown', number>>;
  byStage: Partial<Record<Stage, number>>;
  byClass: Record<string, number>;
  openPullRequests: number;
  oldestPullRequestOpenedAt?: string;
  drifted: number;
  outOfSync: number;
  failed: number;
  /** Kubeconfigs that expire within the hour (or have). */
  kubeconfigsExpiring: number;
}

export interface LandscapeStatus {
  apiVersion: typeof STATUS_API_VERSION;
  landscape: string;
  generatedAt: string;
  sources: SourceState[];
  main?: { commit: string; committedAt?: string };
  summary: StatusSummary;
  pullRequests: StatusPullRequest[];
  rollouts: Rollout[];
  latency: LatencyHistogram[];
  /** Sorted by key. */
  rows: RuntimeRow[];
}

/**
 * What the page's live stream sends after the first full status: the rows that changed or went, and everything
 * landscape-wide anew (small next to the rows).
 */
export interface StatusUpdate extends Omit<LandscapeStatus, 'rows'> {
  changed: RuntimeRow[];
  removed: string[];
}
