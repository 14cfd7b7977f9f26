import { describe, expect, it } from 'vitest';
import type { PullRequest } from '../adapters/forge/forge.js';
import { PIPELINE_ANNOTATION } from '../model/contract.js';
import { pipelineAnnotationValue, type GeneratorFacts } from '../model/pipeline-facts.js';
import type { RuntimeStatus } from '../model/runtime-status.js';
import { buildStatus } from './build-status.js';
import type { StatusInput, StatusRuntime, StatusShoot } from './status-input.js';

const NOW = new Date('2026-12-02T12:00:00Z');
const TREE_A = 'a'.repeat(40);
const TREE_B = 'b'.repeat(40);
const MERGE = 'c'.repeat(40);
const PR_URL = (n: number) => `https://github.com/acme/landscape-dev/pull/${n}`;

function readyStatus(at: string): Partial<RuntimeStatus> {
  return {
    state: 'Ready',
    conditions: [
      { type: 'Provisioned', status: 'True', reason: 'ConfigurationCompleted', message: '', lastTransitionTime: at },
    ],
  };
}

function runtime(
  name: string,
  shoot: string,
  change: Partial<StatusRuntime> = {},
  facts?: GeneratorFacts,
): StatusRuntime {
  return {
    namespace: 'kcp-system',
    name,
    labels: { 'kyma-project.io/runtime-id': `id-${name}` },
    ...(facts && { annotations: { [PIPELINE_ANNOTATION]: pipelineAnnotationValue(facts) } }),
    generation: 1,
    creationTimestamp: '2026-12-02T10:00:00Z',
    managedFields: [{ manager: 'keb', operation: 'Update', time: '2026-12-02T10:00:00Z' }],
    shootName: shoot,
    status: readyStatus('2026-12-02T10:20:00Z'),
    ...change,
  };
}

function shoot(name: string, tree: string | undefined, change: Partial<StatusShoot> = {}): StatusShoot {
  return {
    name,
    ...(tree && {
      annotations: { 'kimops.kyma-project.io/applied-tree': tree, 'kimops.kyma-project.io/applied-commit': MERGE },
    }),
    managedFields: [{ manager: 'kimops', operation: 'Apply', time: '2026-12-02T10:05:00Z' }],
    lastOperation: { type: 'Reconcile', state: 'Succeeded', progress: 100, lastUpdateTime: '2026-12-02T10:15:00Z' },
    // Told, and none: as the gatherer reads a Shoot applied from main's folder.
    drift: [],
    ...change,
  };
}

function pr(number: number, branch: string, change: Partial<PullRequest> = {}): PullRequest {
  return {
    number,
    url: PR_URL(number),
    branch,
    base: 'main',
    headSha: 'd'.repeat(40),
    title: `[dev] ${branch}`,
    body: '',
    state: 'open',
    merged: false,
    labels: [],
    ...change,
  };
}

/** A landscape of every kind of row: Ready and in sync, drifted, in a PR, merged not applied, failed, KIM's, an orphan. */
function input(change: Partial<StatusInput> = {}): StatusInput {
  return {
    landscape: 'dev',
    sources: [
      { name: 'kcp', state: 'read' },
      { name: 'garden', state: 'read' },
      { name: 'repo', state: 'read' },
      { name: 'forge', state: 'read' },
      { name: 'kubeconfigs', state: 'read' },
    ],
    runtimes: [
      runtime(
        'r-ready',
        's-ready',
        {},
        { generation: 1, proposal: { url: PR_URL(1), state: 'merged', commit: MERGE } },
      ),
      runtime('r-drift', 's-drift'),
      runtime(
        'r-pr',
        's-pr',
        { generation: 2, status: { state: 'Ready' } },
        { generation: 2, proposal: { url: PR_URL(5), state: 'waiting-for-review' } },
      ),
      runtime('r-merged', 's-merged', { status: { state: 'Pending' } }),
      runtime('r-failed', 's-failed', {
        status: {
          state: 'Failed',
          conditions: [
            {
              type: 'Ready',
              status: 'False',
              reason: 'GardenerErr',
              message: 'refused: token: abc123secret',
              lastTransitionTime: '2026-12-02T10:00:00Z',
            },
          ],
        },
      }),
      runtime('r-kim', 's-kim', { labels: { 'kimops.kyma-project.io/leader': 'kim' } }),
      runtime('r-gone', 's-gone', { deletionTimestamp: '2026-12-02T11:00:00Z' }),
    ],
    shoots: [
      shoot('s-ready', TREE_A),
      shoot('s-drift', TREE_A, { drift: ['spec.provider.workers[cpu-worker-0].maximum'] }),
      shoot('s-pr', TREE_A),
      shoot('s-failed', TREE_A),
      shoot('s-kim', undefined),
      shoot('s-gone', TREE_A),
      shoot('s-orphan', undefined, {
        lastOperation: { type: 'Reconcile', state: 'Error', progress: 40, description: 'quota' },
      }),
    ],
    main: {
      commit: MERGE,
      committedAt: '2026-12-02T10:04:00Z',
      folders: new Map([
        ['s-ready', TREE_A],
        ['s-drift', TREE_A],
        ['s-pr', TREE_A],
        ['s-merged', TREE_B],
        ['s-failed', TREE_A],
        ['s-kim', TREE_A],
        ['s-gone', TREE_A],
      ]),
    },
    mergedAt: new Map([[MERGE, '2026-12-02T10:04:00Z']]),
    pullRequests: [
      pr(1, 'kimops/dev/s-ready', { state: 'closed', merged: true, createdAt: '2026-12-02T10:01:00Z' }),
      pr(5, 'kimops/dev/s-pr', { labels: ['kimops:update-disruptive'], createdAt: '2026-12-02T09:00:00Z' }),
      pr(6, 'kimops/dev-rollout/landscape-12345678', {
        title: '[dev] rollout: machine images, wave 1/4, 3 shoots',
        labels: ['kimops:rollout'],
        createdAt: '2026-12-02T11:00:00Z',
      }),
    ],
    kubeconfigSyncs: new Map([
      ['id-r-ready', '2026-12-02T11:30:00Z'],
      ['id-r-drift', '2026-12-01T12:30:00Z'],
    ]),
    kubeconfigExpirationSeconds: 86_400,
    fieldManager: 'kimops',
    ...change,
  };
}

describe('buildStatus', () => {
  const status = buildStatus(input(), NOW);
  const row = (key: string) => {
    const found = status.rows.find((r) => r.key === key);
    if (!found) throw new Error(`no row ${key}`);
    return found;
  };

  it('has a row per Runtime and per Shoot no Runtime names, sorted by key', () => {
    expect(status.rows.map((r) => r.key)).toEqual([
      'kcp-system/r-drift',
      'kcp-system/r-failed',
      'kcp-system/r-gone',
      'kcp-system/r-kim',
      'kcp-system/r-merged',
      'kcp-system/r-pr',
      'kcp-system/r-ready',
      'shoot/s-orphan',
    ]);
    expect(status).toMatchObject({
      apiVersion: 'kimops.kyma-project.io/status/v1',
      landscape: 'dev',
      generatedAt: '2026-12-02T12:00:00.000Z',
      main: { commit: MERGE, committedAt: '2026-12-02T10:04:00Z' },
    });
  });

  it('gives each row its stage and sync', () => {
    expect(Object.fromEntries(status.rows.map((r) => [r.key, [r.stage, r.sync]]))).toEqual({
      'kcp-system/r-drift': ['ready', 'drifted'],
      'kcp-system/r-failed': ['failed', 'in-sync'],
      'kcp-system/r-gone': ['deleting', 'in-sync'],
      'kcp-system/r-kim': ['kim', 'not-applied'],
      'kcp-system/r-merged': ['merged', 'not-applied'],
      'kcp-system/r-pr': ['pr', 'in-sync'],
      'kcp-system/r-ready': ['ready', 'in-sync'],
      'shoot/s-orphan': ['applied', 'not-in-main'],
    });
  });

  it('tells a Ready Runtime whole: PR, trees, operation, kubeconfig and timeline', () => {
    expect(row('kcp-system/r-ready')).toEqual({
      key: 'kcp-system/r-ready',
      runtime: {
        namespace: 'kcp-system',
        name: 'r-ready',
        id: 'id-r-ready',
        generation: 1,
        state: 'Ready',
        leader: 'kimops',
      },
      shoot: 's-ready',
      stage: 'ready',
      pr: { number: 1, url: PR_URL(1), state: 'merged', openedAt: '2026-12-02T10:01:00Z' },
      mainTree: TREE_A.slice(0, 12),
      applied: { commit: MERGE.slice(0, 12), tree: TREE_A.slice(0, 12) },
      sync: 'in-sync',
      lastOperation: { type: 'Reconcile', state: 'Succeeded', progress: 100, at: '2026-12-02T10:15:00Z' },
      kubeconfig: { syncedAt: '2026-12-02T11:30:00Z', expiresAt: '2026-12-03T11:30:00Z' },
      timeline: {
        changed: '2026-12-02T10:00:00Z',
        proposed: '2026-12-02T10:01:00Z',
        merged: '2026-12-02T10:04:00Z',
        applied: '2026-12-02T10:05:00Z',
        ready: '2026-12-02T10:20:00Z',
      },
    });
  });

  it('names the drifted fields', () => {
    expect(row('kcp-system/r-drift').drift).toEqual(['spec.provider.workers[cpu-worker-0].maximum']);
  });

  it("takes an open PR's class and what it waits for from the proposal", () => {
    expect(row('kcp-system/r-pr').pr).toEqual({
      number: 5,
      url: PR_URL(5),
      class: 'update-disruptive',
      state: 'waiting-for-review',
      openedAt: '2026-12-02T09:00:00Z',
      waitsFor: 'review',
    });
  });

  it('says why a Runtime failed, credentials cut', () => {
    expect(row('kcp-system/r-failed').failure).toEqual({
      reason: 'GardenerErr',
      message: 'refused: token: [redacted]',
    });
    expect(row('shoot/s-orphan').failure).toEqual({ reason: 'Shoot Reconcile Error', message: 'quota' });
  });

  it('says a leader label kimops cannot read, and reads a malformed last operation as no value', () => {
    const odd = buildStatus(
      input({
        runtimes: [runtime('r-odd', 's-odd', { labels: { 'kimops.kyma-project.io/leader': 'KIMOPS' } })],
        shoots: [
          shoot('s-odd', TREE_A, {
            lastOperation: {
              type: 'Reconcile',
              state: 'Failed',
              description: 42,
            } as unknown as StatusShoot['lastOperation'],
          }),
        ],
      }),
      NOW,
    ).rows[0];
    expect(odd?.stage).toBe('kim');
    expect(odd?.failure?.reason).toBe('LeaderLabel');
    expect(odd?.failure?.message).toMatch(
      /^metadata\.labels\[kimops\.kyma-project\.io\/leader\]: must be "kimops" or "kim"/,
    );
    expect(odd?.lastOperation).toEqual({ type: 'Reconcile', state: 'Failed', progress: 0 });
  });

  it("calls a Shoot's sync unknown when its drift could not be told", () => {
    const untold = buildStatus(input({ shoots: [shoot('s-ready', TREE_A, { drift: undefined })] }), NOW);
    expect(untold.rows.find((r) => r.key === 'kcp-system/r-ready')?.sync).toBe('unknown');
  });

  it('counts the landscape', () => {
    expect(status.summary).toEqual({
      runtimes: 7,
      orphanedShoots: 1,
      byState: { Ready: 5, Pending: 1, Failed: 1 },
      byStage: { ready: 2, failed: 1, deleting: 1, kim: 1, merged: 1, pr: 1, applied: 1 },
      byClass: { 'update-disruptive': 1, rollout: 1 },
      openPullRequests: 2,
      oldestPullRequestOpenedAt: '2026-12-02T09:00:00Z',
      drifted: 1,
      outOfSync: 0,
      failed: 1,
      // Synced a day minus half an hour ago: expires within the hour.
      kubeconfigsExpiring: 1,
    });
    expect(status.rollouts).toEqual([
      {
        name: 'landscape-12345678',
        pr: 6,
        url: PR_URL(6),
        wave: { number: 1, of: 4 },
        shoots: 3,
        openedAt: '2026-12-02T11:00:00Z',
      },
    ]);
    expect(status.pullRequests.map((p) => [p.number, p.shoot, p.waitsFor])).toEqual([
      [5, 's-pr', 'review'],
      [6, undefined, undefined],
    ]);
  });

  it("measures the latency of the changes that reached each stage's end", () => {
    // r-ready took 20 min from change to Ready; r-drift's Shoot was never proposed by a PR of its own (no merge to
    // attribute its apply to), r-kim (KIM's) and r-gone (deleted) are not counted, r-pr's PR is older than its
    // change, r-failed and r-merged are not Ready.
    expect(status.latency.find((h) => h.stage === 'total')).toMatchObject({ count: 1, sum: 1200 });
    expect(status.latency.find((h) => h.stage === 'propose')).toMatchObject({ count: 1, sum: 60 });
    expect(status.latency.find((h) => h.stage === 'merge')).toMatchObject({ count: 1, sum: 180 });
  });

  it('marks sync unknown and shows the Shoots when only the Garden was read', () => {
    const garden = buildStatus(
      input({
        sources: [
          { name: 'kcp', state: 'skipped', message: 'no --kcp-kubeconfig given' },
          { name: 'garden', state: 'read' },
          {
            name: 'repo',
            state: 'failed',
            message: 'fetch https://x-access-token:ghp_0123456789abcdefghijklmn@github.com/a/b.git: 503',
          },
        ],
        runtimes: undefined,
        main: undefined,
        pullRequests: undefined,
        kubeconfigSyncs: undefined,
      }),
      NOW,
    );
    expect(garden.rows.map((r) => [r.key, r.stage, r.sync])).toEqual([
      ['shoot/s-drift', 'ready', 'unknown'],
      ['shoot/s-failed', 'ready', 'unknown'],
      ['shoot/s-gone', 'ready', 'unknown'],
      ['shoot/s-kim', 'ready', 'unknown'],
      ['shoot/s-orphan', 'applied', 'unknown'],
      ['shoot/s-pr', 'ready', 'unknown'],
      ['shoot/s-ready', 'ready', 'unknown'],
    ]);
    expect(garden.summary).toMatchObject({ runtimes: 0, orphanedShoots: 7, openPullRequests: 0 });
    expect(garden.main).toBeUndefined();
    expect(garden.sources.map((s) => s.state)).toEqual(['skipped', 'read', 'failed']);
    expect(garden.sources[2]?.message).toBe('fetch https://[redacted]@github.com/a/b.git: 503');
  });

  it("falls back on the Runtime's copy of the last operation when the Garden was not read", () => {
    const kcpOnly = buildStatus(
      input({
        shoots: undefined,
        main: { commit: MERGE, folders: new Map([['s-1', TREE_A]]) },
        runtimes: [
          runtime('r-1', 's-1', {
            status: {
              state: 'Pending',
              shootLastOperation: {
                type: 'Create',
                state: 'Processing',
                progress: 50,
                description: 'creating',
                lastUpdateTime: '2026-12-02T11:59:00Z',
              },
            },
          }),
        ],
      }),
      NOW,
    );
    expect(kcpOnly.rows).toHaveLength(1);
    expect(kcpOnly.rows[0]).toMatchObject({
      stage: 'applied',
      sync: 'unknown',
      lastOperation: {
        type: 'Create',
        state: 'Processing',
        progress: 50,
        at: '2026-12-02T11:59:00Z',
        description: 'creating',
      },
    });
  });
});
