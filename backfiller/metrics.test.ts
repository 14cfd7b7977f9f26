import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import type { RuntimeStatus } from '../model/runtime-status.js';
import {
  backfillerMetrics,
  readyAfterSeconds,
  type RuntimeProgress,
  runtimeStateSeries,
  StageClock,
} from './metrics.js';

const runtime = {
  metadata: { name: 'rt-1', labels: { 'kyma-project.io/runtime-id': 'id-1' } },
  spec: { shoot: { name: 'c-1', provider: { type: 'aws' } } },
};
const condition = (
  type: string,
  status: 'True' | 'False' | 'Unknown',
  message: string,
  lastTransitionTime = '2026-11-30T10:00:00Z',
) => ({ type, status, reason: 'R', message, lastTransitionTime });
const pending: RuntimeStatus = {
  state: 'Pending',
  conditions: [condition('Provisioned', 'Unknown', 'Shoot update is in progress', '2026-11-30T10:00:00Z')],
};
const ready: RuntimeStatus = {
  state: 'Ready',
  conditions: [
    condition('Provisioned', 'True', 'Runtime processing completed successfully'),
    condition('Configured', 'True', 'Administrators configured'),
  ],
};

async function series(registry: Registry, name = 'infrastructure_manager_im_runtime_state'): Promise<string[]> {
  const metric = await registry.getSingleMetric(name)?.get();
  return (metric?.values ?? []).map((v) => `${JSON.stringify(v.labels)} ${v.value}`);
}

describe('runtimeStateSeries', () => {
  it('carries KIM labels, the message of the last condition, or KIM "No value"', () => {
    expect(runtimeStateSeries(runtime, ready)).toEqual({
      runtimeId: 'id-1',
      runtimeName: 'rt-1',
      shoot: 'c-1',
      provider: 'aws',
      state: 'Ready',
      message: 'Administrators configured',
    });
    expect(runtimeStateSeries(runtime, { state: 'Pending' }).message).toBe('No value');
  });
});

describe('readyAfterSeconds', () => {
  it('measures from the Provisioned condition leaving True to the write that makes the Runtime Ready again, and only then', () => {
    const now = new Date('2026-11-30T10:00:42Z');
    expect(readyAfterSeconds(pending, ready, now)).toBe(42);
    expect(readyAfterSeconds(ready, ready, now)).toBeUndefined();
    expect(readyAfterSeconds(pending, { ...pending, state: 'Failed' }, now)).toBeUndefined();
    expect(readyAfterSeconds(undefined, ready, now)).toBeUndefined();
  });
});

describe('backfillerMetrics', () => {
  it('keeps one series per Runtime, replacing the old one when a label changes, and removes it on release', async () => {
    const registry = new Registry();
    const metrics = backfillerMetrics(registry, 'dev');
    metrics.observed({ series: runtimeStateSeries(runtime, pending) });
    expect(await series(registry)).toEqual([
      `${JSON.stringify({ runtimeId: 'id-1', runtimeName: 'rt-1', shoot: 'c-1', provider: 'aws', state: 'Pending', message: 'Shoot update is in progress' })} 1`,
    ]);
    metrics.observed({ series: runtimeStateSeries(runtime, ready), readyAfterSeconds: 42 });
    expect(await series(registry)).toEqual([
      `${JSON.stringify({ runtimeId: 'id-1', runtimeName: 'rt-1', shoot: 'c-1', provider: 'aws', state: 'Ready', message: 'Administrators configured' })} 1`,
    ]);
    const histogram = await registry.getSingleMetric('kimops_backfiller_change_to_ready_seconds')?.get();
    expect(
      histogram?.values.find(
        (v) => (v as { metricName?: string }).metricName === 'kimops_backfiller_change_to_ready_seconds_sum',
      )?.value,
    ).toBe(42);
    metrics.released('id-1');
    expect(await series(registry)).toEqual([]);
  });

  it("serves KIM's GardenerCluster state and kubeconfig expiration, one series per runtime, replaced on change and removed on release", async () => {
    const registry = new Registry();
    const metrics = backfillerMetrics(registry, 'dev');
    const expiration = (expires: number) => ({
      labels: {
        runtimeId: 'id-1',
        shoot: 'c-1',
        expires: String(expires),
        rotationDuration: '51840',
        expirationDuration: '86400',
      },
      value: expires,
    });
    metrics.observedKubeconfig({
      runtimeId: 'id-1',
      cluster: { runtimeId: 'id-1', shoot: 'c-1', state: 'Ready', reason: 'KubeconfigSecretCreated' },
      expiration: expiration(1_800_000_000),
    });
    expect(await series(registry, 'infrastructure_manager_im_gardener_clusters_state')).toEqual([
      `${JSON.stringify({ runtimeId: 'id-1', shoot: 'c-1', state: 'Ready', reason: 'KubeconfigSecretCreated' })} 1`,
    ]);
    expect(await series(registry, 'infrastructure_manager_im_kubeconfig_expiration')).toEqual([
      `${JSON.stringify(expiration(1_800_000_000).labels)} 1800000000`,
    ]);
    metrics.observedKubeconfig({
      runtimeId: 'id-1',
      cluster: { runtimeId: 'id-1', shoot: 'c-1', state: 'Ready', reason: 'KubeconfigSecretRotated' },
      expiration: expiration(1_800_050_000),
    });
    expect(await series(registry, 'infrastructure_manager_im_gardener_clusters_state')).toEqual([
      `${JSON.stringify({ runtimeId: 'id-1', shoot: 'c-1', state: 'Ready', reason: 'KubeconfigSecretRotated' })} 1`,
    ]);
    expect(await series(registry, 'infrastructure_manager_im_kubeconfig_expiration')).toEqual([
      `${JSON.stringify(expiration(1_800_050_000).labels)} 1800050000`,
    ]);
    // A Secret without a readable last-sync: KIM has no expiration series for it.
    metrics.observedKubeconfig({
      runtimeId: 'id-1',
      cluster: { runtimeId: 'id-1', shoot: 'c-1', state: 'Error', reason: 'FailedToGetKubeconfig' },
    });
    expect(await series(registry, 'infrastructure_manager_im_kubeconfig_expiration')).toEqual([]);
    metrics.released('id-1');
    expect(await series(registry, 'infrastructure_manager_im_gardener_clusters_state')).toEqual([]);
  });
});

describe('StageClock', () => {
  const at = (seconds: number) => new Date(Date.parse('2026-12-01T10:00:00Z') + seconds * 1000);
  const progress = (
    generation: number,
    done: Partial<Pick<RuntimeProgress, 'created' | 'proposed' | 'merged' | 'applied' | 'ready'>> = {},
  ): RuntimeProgress => ({
    runtime: 'kcp-system/rt',
    generation,
    created: false,
    proposed: false,
    merged: false,
    applied: false,
    ready: false,
    ...done,
  });

  it('measures propose, merge, apply and ready of a new generation from the reconcile that first saw it', () => {
    const clock = new StageClock();
    expect(clock.observe(progress(1, { ready: true }), at(0))).toEqual([]); // Ready before: nothing under way
    expect(clock.observe(progress(2), at(10))).toEqual([]);
    expect(clock.observe(progress(2, { proposed: true }), at(12))).toEqual([{ stage: 'propose', seconds: 2 }]);
    expect(clock.observe(progress(2, { proposed: true, merged: true }), at(25))).toEqual([
      { stage: 'merge', seconds: 13 },
    ]);
    expect(clock.observe(progress(2, { merged: true }), at(26))).toEqual([]);
    expect(clock.observe(progress(2, { merged: true, applied: true }), at(40))).toEqual([
      { stage: 'apply', seconds: 15 },
    ]);
    expect(clock.observe(progress(2, { merged: true, applied: true, ready: true }), at(100))).toEqual([
      { stage: 'ready', seconds: 60 },
    ]);
    expect(clock.observe(progress(2, { merged: true, applied: true, ready: true }), at(110))).toEqual([]);
  });

  it('measures a Runtime KEB just created; not one whose change was under way before the clock saw it', () => {
    const clock = new StageClock();
    expect(clock.observe(progress(1, { created: true }), at(0))).toEqual([]);
    expect(clock.observe(progress(1, { merged: true, applied: true }), at(5))).toEqual([
      { stage: 'propose', seconds: 5 },
      { stage: 'merge', seconds: 0 },
      { stage: 'apply', seconds: 0 },
    ]);
    const restarted = new StageClock();
    expect(restarted.observe(progress(3, { merged: true }), at(0))).toEqual([]);
    expect(restarted.observe(progress(3, { merged: true, applied: true, ready: true }), at(9))).toEqual([]);
  });

  it('starts over for a newer generation, and forgets a Runtime that is gone', () => {
    const clock = new StageClock();
    clock.observe(progress(1, { ready: true }), at(0));
    clock.observe(progress(2), at(1));
    expect(clock.observe(progress(3), at(2))).toEqual([]);
    expect(clock.observe(progress(3, { merged: true }), at(5))).toEqual([
      { stage: 'propose', seconds: 3 },
      { stage: 'merge', seconds: 0 },
    ]);
    clock.forget('kcp-system/rt');
    expect(clock.observe(progress(3, { merged: true, applied: true }), at(6))).toEqual([]);
  });
});
