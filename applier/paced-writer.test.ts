import { describe, expect, it } from 'vitest';
import type { KubeResult } from '../model/kube-result.js';
import { isTransient, pacedWriter } from './paced-writer.js';
import type { GardenWriter } from './garden-writer.js';

const REF = { apiVersion: 'core.gardener.cloud/v1beta1', kind: 'Shoot', namespace: 'garden-x', name: 'a' };

/** A Garden answering from a script, one answer per GET; the last one repeats. */
function scripted(statuses: number[]): { garden: GardenWriter; calls: () => number } {
  let calls = 0;
  const answer = <T>(): Promise<KubeResult<T>> => {
    const status = statuses[Math.min(calls++, statuses.length - 1)] as number;
    return Promise.resolve(
      status >= 200 && status < 300
        ? { ok: true, status, body: {} as T }
        : { ok: false, status, error: { message: `HTTP ${status}` } },
    );
  };
  return { garden: { apply: answer, create: answer, patch: answer, delete: answer, get: answer }, calls: () => calls };
}

/** A clock that only moves when the writer sleeps. */
function clock() {
  let now = 0;
  const sleeps: number[] = [];
  return { now: () => now, sleep: async (ms: number) => void (sleeps.push(ms), (now += ms)), sleeps };
}

describe('pacedWriter', () => {
  it('retries conflicts, throttling, 5xx and dropped connections with doubling delays, then gives the last answer', async () => {
    const time = clock();
    const { garden, calls } = scripted([503, 429, 409, 200]);
    const result = await pacedWriter(garden, { ...time, qps: 1000, burst: 1000 }).get(REF);
    expect(result.ok).toBe(true);
    expect(calls()).toBe(4);
    expect(time.sleeps).toEqual([500, 1000, 2000]);

    const down = scripted([0]);
    const failed = await pacedWriter(down.garden, { ...clock(), qps: 1000, burst: 1000 }).apply(
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } },
      'kimops',
    );
    expect(failed).toMatchObject({ ok: false, status: 0 });
    expect(down.calls()).toBe(4);
  });

  it('returns a failure that will not change at once', async () => {
    for (const status of [400, 403, 404, 422]) {
      const { garden, calls } = scripted([status, 200]);
      expect((await pacedWriter(garden, { ...clock() }).patch(REF, {})).ok).toBe(false);
      expect(calls()).toBe(1);
      expect(isTransient({ ok: false, status, error: { message: 'no' } })).toBe(false);
    }
  });

  it('does not retry a schema refusal of an apply (500), nor a create that finds its object (409)', async () => {
    const refusal = {
      ok: false as const,
      status: 500,
      error: {
        message: 'failed to create typed patch object (/v1, Kind=ConfigMap): .spec: field not declared in schema',
      },
    };
    expect(isTransient(refusal)).toBe(false);
    expect(isTransient({ ok: false, status: 500, error: { message: 'etcdserver: request timed out' } })).toBe(true);
    const { garden, calls } = scripted([409, 200]);
    expect(
      (await pacedWriter(garden, { ...clock() }).create({ apiVersion: 'v1', kind: 'Event', metadata: { name: 'e' } }))
        .status,
    ).toBe(409);
    expect(calls()).toBe(1);
    expect((await pacedWriter(garden, { ...clock() }).patch(REF, {})).ok).toBe(true);
  });

  it('spends a burst at once, then paces requests at the QPS (KIM: 5/s, burst 5)', async () => {
    const time = clock();
    const { garden } = scripted([200]);
    const writer = pacedWriter(garden, time);
    for (let i = 0; i < 7; i++) await writer.delete(REF);
    // Five without waiting, then one every 200 ms.
    expect(time.sleeps).toEqual([200, 200]);
  });
});
