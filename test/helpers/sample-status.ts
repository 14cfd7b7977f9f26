// Test support: a synthetic LandscapeStatus of any size, the same for the same arguments, with every stage, state,
// change class and sync state, some failures and drift, open PRs, rollouts in waves and latency histograms, for
// the status page's browser test, its screenshots and the bench. The summary and histograms are counted from the
// rows, so a test may compare what the page shows with the data.
import {
  STATUS_API_VERSION,
  type LandscapeStatus,
  type LatencyHistogram,
  type Rollout,
  type RuntimeRow,
  type Stage,
  type StatusPullRequest,
  type StatusSummary,
  type SyncState,
  type Timeline,
} from '../../status/landscape-status.js';
import { seededRandom } from './seeded-random.js';

const GENERATED_AT = Date.parse('2026-12-02T10:00:00Z');
const FORGE = 'https://github.example.com/kyma/landscape-dev/pull';
/** The builder's buckets (docs/status.md), seconds: 10 s to a day. */
const BUCKETS = [10, 30, 60, 120, 300, 600, 1800, 3600, 7200, 21_600, 86_400];

/** Mostly Ready, as a landscape is: twenty rows' stages, repeated. */
const STAGE_CYCLE: Stage[] = [
  ...Array<Stage>(11).fill('ready'),
  'pr',
  'pr',
  'pr',
  'merged',
  'applied',
  'change',
  'failed',
  'deleting',
  'kim',
];
const CLASSES = ['update', 'update-disruptive', 'create', 'delete', 'metadata-only', 'immutable', 'skr', 'shadow'];
const WAITS_FOR = ['review', 'checks', 'review by the code owners', 'never merges: Gardener would reject it'];
const FAILURES = [
  {
    reason: 'ConversionFailed',
    message: 'spec.shoot.provider.workers[0].machine.type: m5.huge is not offered in eu-west-1',
  },
  {
    reason: 'ShootCreationFailed',
    message: 'Gardener: infrastructure: quota exceeded for resource "vpc" in eu-central-1',
  },
  { reason: 'ApplyRefused', message: 'the Garden refused the Shoot: admission webhook denied the request' },
];
const DRIFT_FIELDS = [
  'spec.kubernetes.version',
  'spec.provider.workers[0].maximum',
  'spec.maintenance.timeWindow.begin',
];
const LAST_OPERATIONS = ['Reconcile', 'Create', 'Reconcile', 'Reconcile', 'Delete'];

export interface SampleOptions {
  landscape?: string;
}

/** `rows` rows: Runtimes `kcp-system/rt-00000`…, and one live Shoot no Runtime names per 200 (keys `shoot/…`). */
export function sampleStatus(rows: number, { landscape = 'dev' }: SampleOptions = {}): LandscapeStatus {
  const random = seededRandom(rows);
  const orphans = Math.floor(rows / 200);
  const list: RuntimeRow[] = [];
  let prNumber = 1000;
  for (let i = 0; i < rows - orphans; i++) list.push(runtimeRow(i, random, () => ++prNumber));
  for (let i = 0; i < orphans; i++) list.push(orphanRow(i));
  const rollouts = sampleRollouts(prNumber);
  const pullRequests = [...rowPullRequests(list), ...rollouts.map(rolloutPullRequest)];
  return {
    apiVersion: STATUS_API_VERSION,
    landscape,
    generatedAt: iso(GENERATED_AT),
    sources: [
      { name: 'kcp', state: 'read' },
      { name: 'garden', state: 'read' },
      { name: 'repo', state: 'read' },
      { name: 'forge', state: 'read' },
      { name: 'kubeconfigs', state: 'failed', message: 'kcp-system: secrets is forbidden for the ServiceAccount' },
    ],
    main: { commit: '4f2a9c1', committedAt: iso(GENERATED_AT - 12 * 60_000) },
    summary: summarise(list, pullRequests),
    pullRequests,
    rollouts,
    latency: histograms(list),
    rows: list,
  };
}

function runtimeRow(i: number, random: () => number, nextPr: () => number): RuntimeRow {
  const stage = STAGE_CYCLE[i % STAGE_CYCLE.length] as Stage;
  const name = `rt-${String(i).padStart(5, '0')}`;
  const shoot = `c-${(i * 2654435761).toString(36).slice(-7)}`;
  const changedAt = GENERATED_AT - Math.round((0.2 + random() * 48) * 3600) * 1000;
  const timeline = timelineOf(stage, changedAt, random);
  const sync = syncOf(stage, i);
  const row: RuntimeRow = {
    key: `kcp-system/${name}`,
    runtime: {
      namespace: 'kcp-system',
      name,
      id: `${name}-${shoot}`,
      generation: 1 + (i % 7),
      state: stateOf(stage),
      leader: stage === 'kim' ? 'kim' : 'kimops',
    },
    shoot,
    stage,
    sync,
    mainTree: stage === 'change' || stage === 'pr' ? undefined : hex(i, 7),
    applied:
      stage === 'ready' || stage === 'applied' || stage === 'failed'
        ? { commit: hex(i + 7, 7), tree: hex(i, 7) }
        : undefined,
    lastOperation: {
      type: stage === 'deleting' ? 'Delete' : (LAST_OPERATIONS[i % LAST_OPERATIONS.length] as string),
      state: stage === 'failed' ? 'Failed' : stage === 'applied' || stage === 'deleting' ? 'Processing' : 'Succeeded',
      progress: stage === 'applied' || stage === 'deleting' ? 10 + (i % 80) : 100,
      at: iso(timeline.applied ? Date.parse(timeline.applied) + 60_000 : changedAt - 3_600_000),
    },
    kubeconfig: {
      syncedAt: iso(GENERATED_AT - ((i * 37) % 480) * 60_000),
      expiresAt: iso(GENERATED_AT + (((i * 53) % 1440) - 30) * 60_000),
    },
    timeline,
  };
  if (stage === 'pr' || stage === 'change' || stage === 'merged') {
    const number = stage === 'change' ? undefined : nextPr();
    if (number !== undefined)
      row.pr = {
        number,
        url: `${FORGE}/${number}`,
        class: CLASSES[Math.floor(i / 3) % CLASSES.length],
        state: stage === 'merged' ? 'merged' : i % 3 === 0 ? 'waiting-for-review' : 'open',
        openedAt: timeline.proposed,
        waitsFor: stage === 'merged' ? undefined : WAITS_FOR[i % WAITS_FOR.length],
      };
  }
  if (sync === 'drifted') row.drift = DRIFT_FIELDS.slice(0, 1 + (i % DRIFT_FIELDS.length));
  if (stage === 'failed') row.failure = FAILURES[i % FAILURES.length];
  if (stage === 'failed' && row.lastOperation) row.lastOperation.description = row.failure?.message;
  return row;
}

function orphanRow(i: number): RuntimeRow {
  const shoot = `orphan-${String(i).padStart(4, '0')}`;
  return { key: `shoot/${shoot}`, shoot, stage: 'ready', sync: 'not-in-main', timeline: {} };
}

/** The steps a row of `stage` has passed, each some minutes after the one before. */
function timelineOf(stage: Stage, changedAt: number, random: () => number): Timeline {
  const steps = { change: 1, pr: 2, merged: 3, applied: 4, ready: 5, failed: 4, deleting: 4, kim: 1 }[stage];
  const gaps = [0, 30 + random() * 600, 60 + random() * 7200, 20 + random() * 300, 120 + random() * 1800];
  const names: (keyof Timeline)[] = ['changed', 'proposed', 'merged', 'applied', 'ready'];
  const timeline: Timeline = {};
  let at = changedAt;
  for (let step = 0; step < steps; step++) {
    at += Math.round(gaps[step] as number) * 1000;
    timeline[names[step] as keyof Timeline] = iso(Math.min(at, GENERATED_AT));
  }
  return timeline;
}

function stateOf(stage: Stage): NonNullable<RuntimeRow['runtime']>['state'] {
  if (stage === 'failed') return 'Failed';
  if (stage === 'deleting') return 'Terminating';
  if (stage === 'applied') return 'Pending';
  return 'Ready';
}

function syncOf(stage: Stage, i: number): SyncState {
  if (stage === 'merged') return 'out-of-sync';
  if (stage === 'change' || stage === 'pr') return i % 2 ? 'in-sync' : 'not-applied';
  if (stage === 'kim') return 'unknown';
  return i % 97 === 0 ? 'drifted' : 'in-sync';
}

function sampleRollouts(after: number): Rollout[] {
  return [
    { name: 'Kubernetes 1.33 → 1.34', wave: { number: 2, of: 5 }, shoots: 412, hours: 30, waitsFor: 'review' },
    { name: 'Garden Linux 1877.3', wave: { number: 4, of: 4 }, shoots: 96, hours: 5, waitsFor: 'checks' },
    { name: 'machine image eu-west-1 rotation', wave: { number: 1, of: 3 }, shoots: 40, hours: 2 },
  ].map(({ hours, ...rollout }, i) => ({
    ...rollout,
    pr: after + 1 + i,
    url: `${FORGE}/${after + 1 + i}`,
    openedAt: iso(GENERATED_AT - hours * 3_600_000),
  }));
}

function rowPullRequests(rows: RuntimeRow[]): StatusPullRequest[] {
  return rows.flatMap(({ pr, shoot }) =>
    pr && pr.state !== 'merged'
      ? [
          {
            number: pr.number,
            url: pr.url,
            title: `${pr.class ?? 'change'}: ${shoot}`,
            class: pr.class,
            openedAt: pr.openedAt,
            waitsFor: pr.waitsFor,
            shoot,
          },
        ]
      : [],
  );
}

function rolloutPullRequest(rollout: Rollout): StatusPullRequest {
  const title = `rollout: ${rollout.name}${rollout.wave ? ` wave ${rollout.wave.number}/${rollout.wave.of}` : ''}`;
  return {
    number: rollout.pr,
    url: rollout.url,
    title,
    class: 'rollout',
    openedAt: rollout.openedAt,
    waitsFor: rollout.waitsFor,
  };
}

function summarise(rows: RuntimeRow[], pullRequests: StatusPullRequest[]): StatusSummary {
  const summary: StatusSummary = {
    runtimes: 0,
    orphanedShoots: 0,
    byState: {},
    byStage: {},
    byClass: {},
    openPullRequests: pullRequests.length,
    oldestPullRequestOpenedAt: pullRequests.flatMap((pr) => (pr.openedAt ? [pr.openedAt] : [])).sort()[0],
    drifted: 0,
    outOfSync: 0,
    failed: 0,
    kubeconfigsExpiring: 0,
  };
  for (const pr of pullRequests) if (pr.class) count(summary.byClass, pr.class);
  const inAnHour = GENERATED_AT + 3_600_000;
  for (const row of rows) {
    if (row.runtime) summary.runtimes++;
    else summary.orphanedShoots++;
    if (row.runtime) count(summary.byState, row.runtime.state ?? 'Unknown');
    count(summary.byStage, row.stage);
    if (row.sync === 'drifted') summary.drifted++;
    if (row.sync === 'out-of-sync') summary.outOfSync++;
    if (row.failure) summary.failed++;
    if (row.kubeconfig && Date.parse(row.kubeconfig.expiresAt) <= inAnHour) summary.kubeconfigsExpiring++;
  }
  return summary;
}

function histograms(rows: RuntimeRow[]): LatencyHistogram[] {
  const spans: [LatencyHistogram['stage'], keyof Timeline, keyof Timeline][] = [
    ['propose', 'changed', 'proposed'],
    ['merge', 'proposed', 'merged'],
    ['apply', 'merged', 'applied'],
    ['ready', 'applied', 'ready'],
    ['total', 'changed', 'ready'],
  ];
  return spans.map(([stage, from, to]) => {
    const seconds = rows.flatMap(({ timeline }) => {
      const start = timeline[from];
      const end = timeline[to];
      return start && end ? [(Date.parse(end) - Date.parse(start)) / 1000] : [];
    });
    return {
      stage,
      buckets: [...BUCKETS, null].map((le) => ({ le, count: seconds.filter((s) => le === null || s <= le).length })),
      count: seconds.length,
      sum: seconds.reduce((a, b) => a + b, 0),
    };
  });
}

function count<K extends string>(counts: Partial<Record<K, number>>, key: K): void {
  counts[key] = (counts[key] ?? 0) + 1;
}

function hex(i: number, length: number): string {
  return ((i + 1) * 2_654_435_761).toString(16).padStart(length, '0').slice(-length);
}

function iso(ms: number): string {
  return new Date(ms).toISOString().replace('.000Z', 'Z');
}
