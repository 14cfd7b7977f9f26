import { describe, expect, it } from 'vitest';
import type { LandscapeStatus, RuntimeRow } from './landscape-status.js';
import { statusText, summaryLine } from './status-text.js';

const NOW = new Date('2026-12-02T12:00:00Z');

function row(key: string, change: Partial<RuntimeRow>): RuntimeRow {
  return { key, shoot: key, stage: 'ready', sync: 'in-sync', timeline: {}, ...change };
}

const status: LandscapeStatus = {
  apiVersion: 'kimops.kyma-project.io/status/v1',
  landscape: 'dev',
  generatedAt: NOW.toISOString(),
  sources: [
    { name: 'kcp', state: 'read' },
    { name: 'garden', state: 'read' },
    { name: 'repo', state: 'read' },
    { name: 'forge', state: 'read' },
    { name: 'kubeconfigs', state: 'failed', message: 'kubeconfig Secrets in kcp-system: forbidden\n— grant list' },
  ],
  main: { commit: '1a2b3c4d5e6f7a8b9c0d1a2b3c4d5e6f7a8b9c0d' },
  summary: {
    runtimes: 2,
    orphanedShoots: 1,
    byState: { Ready: 1, Failed: 1 },
    byStage: { ready: 1, failed: 1, applied: 1 },
    byClass: { update: 1 },
    openPullRequests: 1,
    oldestPullRequestOpenedAt: '2026-12-02T10:00:00Z',
    drifted: 1,
    outOfSync: 0,
    failed: 1,
    kubeconfigsExpiring: 0,
  },
  pullRequests: [],
  rollouts: [],
  latency: [],
  rows: [
    row('kcp-system/r-1', {
      runtime: { namespace: 'kcp-system', name: 'r-1', id: 'id-1', state: 'Ready', leader: 'kimops' },
      shoot: 's-1',
      pr: { number: 12, url: '', state: 'open', class: 'update', openedAt: '2026-12-02T10:00:00Z', waitsFor: 'review' },
      mainTree: 'aaaaaaaaaaaa',
      applied: { commit: 'cccccccccccc', tree: 'aaaaaaaaaaaa' },
      sync: 'drifted',
      drift: ['spec.hibernation.enabled', 'spec.maintenance.autoUpdate.kubernetesVersion'],
      lastOperation: { type: 'Reconcile', state: 'Succeeded', progress: 100, at: '2026-12-02T11:55:00Z' },
      kubeconfig: { syncedAt: '2026-12-02T06:00:00Z', expiresAt: '2026-12-03T06:00:00Z' },
    }),
    row('kcp-system/r-2', {
      runtime: { namespace: 'kcp-system', name: 'r-2', state: 'Failed', leader: 'kimops' },
      shoot: 's-2',
      stage: 'failed',
      pr: { number: 9, url: '', state: 'merged', openedAt: '2026-11-28T10:00:00Z' },
      failure: { reason: 'GardenerErr', message: 'quota exceeded\n\u001b[31mred' },
      lastOperation: { type: 'Create', state: 'Failed', progress: 40, at: '2026-11-29T12:00:00Z' },
      kubeconfig: { syncedAt: '2026-12-01T06:00:00Z', expiresAt: '2026-12-02T06:00:00Z' },
    }),
    row('shoot/s-3', { stage: 'applied', sync: 'not-in-main' }),
  ],
};

describe('statusText', () => {
  it('starts with the summary line, then says which source failed, then the table', () => {
    const lines = statusText(status, 'text', NOW).split('\n');
    expect(lines[0]).toBe(
      'landscape dev: 2 Runtimes: 1 Ready, 1 Failed; 1 Shoot without a Runtime; 1 PR open (oldest 2h); ' +
        'main 1a2b3c4d5e6f; 0 out of sync, 1 drifted, 1 failed; kubeconfigs not read',
    );
    expect(lines[1]).toBe('kubeconfigs could not be read: kubeconfig Secrets in kcp-system: forbidden\\n— grant list');
    expect(lines.slice(3)).toEqual([
      'NAME             STATE    STAGE     PR                       APPLIED                LAST OPERATION           MESSAGE',
      'kcp-system/r-1   Ready    ready     #12 update 2h (review)   drifted cccccccccccc   Reconcile Succeeded 5m   live Shoot differs from main in spec.hibernation.enabled, spec.maintenance.autoUpdate.kubernetesVersion',
      'kcp-system/r-2   Failed   failed    #9 merged                in-sync                Create Failed 40% 3d     GardenerErr: quota exceeded \\x1b[31mred',
      'shoot/s-3        -        applied                            not-in-main',
      '',
    ]);
  });

  it('adds the Runtime ID, Shoot, main tree, drift and kubeconfig expiry when wide', () => {
    const cells = statusText(status, 'wide', NOW)
      .split('\n')
      .slice(3, 6)
      .map((line) => line.split(/ {3,}/));
    expect(cells[0]).toEqual([
      'NAME',
      'STATE',
      'STAGE',
      'PR',
      'APPLIED',
      'LAST OPERATION',
      'RUNTIME ID',
      'SHOOT',
      'MAIN TREE',
      'DRIFT',
      'KUBECONFIG EXPIRES',
      'MESSAGE',
    ]);
    expect(cells[1]?.slice(6, 11)).toEqual([
      'id-1',
      's-1',
      'aaaaaaaaaaaa',
      'spec.hibernation.enabled, spec.maintenance.autoUpdate.kubernetesVersion',
      'in 18h',
    ]);
    expect(cells[2]?.slice(6)).toEqual(['s-2', 'expired 6h ago', 'GardenerErr: quota exceeded \\x1b[31mred']);
  });
});

describe('summaryLine', () => {
  it('says which sources were not read instead of counting nothing', () => {
    const unread = {
      ...status,
      sources: [
        { name: 'kcp', state: 'skipped' },
        { name: 'kubeconfigs', state: 'read' },
      ],
      main: undefined,
      summary: { ...status.summary, orphanedShoots: 0, kubeconfigsExpiring: 2 },
    } as LandscapeStatus;
    expect(summaryLine(unread, NOW)).toBe(
      'landscape dev: Runtimes not read; PRs not read; main not read; sync not read, 1 failed; 2 kubeconfigs expiring',
    );
  });
});
