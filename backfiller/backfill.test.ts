import { describe, expect, it } from 'vitest';
import type { KubeClient, KubeObject, KubeResult } from '../adapters/kube/kube-client.js';
import { backfillWatcher, reconcileRuntime, type Lookup, type RuntimeObject, type ShootObject, type WatchedKind } from './backfill.js';
import { RUNTIME_FINALIZER } from './status.js';

const NOW = new Date('2026-01-01T00:00:00Z');
const ok = <T>(body: T): KubeResult<T> => ({ ok: true, status: 200, body });
const fail = (status: number): KubeResult<never> => ({ ok: false, status, error: { message: `status ${status}` } });

function runtime(overrides: Partial<RuntimeObject['metadata']> = {}): RuntimeObject {
  return {
    apiVersion: 'infrastructuremanager.kyma-project.io/v1',
    kind: 'Runtime',
    metadata: { name: 'rt', namespace: 'kcp-system', generation: 1, resourceVersion: '10', labels: { 'kyma-project.io/runtime-id': 'rid' }, finalizers: [RUNTIME_FINALIZER], ...overrides },
    spec: { shoot: { name: 'c-1' } },
  };
}

/** A KubeClient double: every call recorded; answers from `answer`, else 200 with the request body. */
function fakeClient(answer: (method: string, args: unknown[]) => KubeResult<unknown> | undefined = () => undefined) {
  const calls: { method: string; args: unknown[] }[] = [];
  const call = (method: string) => async (...args: unknown[]) => {
    calls.push({ method, args });
    return answer(method, args) ?? ok(args[0] ?? {});
  };
  const client = {
    label: 'fake.kubeconfig',
    server: 'https://fake',
    get: call('get'),
    replace: call('replace'),
    patch: call('patch'),
    apply: call('apply'),
    create: call('create'),
    delete: call('delete'),
    request: call('request'),
  } as unknown as KubeClient;
  return { client, calls };
}

const noShoot: Lookup = { shoot: async () => undefined, gardenerCluster: async () => undefined, secret: async () => undefined };

describe('reconcileRuntime', () => {
  it('writes the status through /status with the resourceVersion read, and one Event per changed condition', async () => {
    const kcp = fakeClient();
    const outcome = await reconcileRuntime({ kcp: kcp.client, garden: fakeClient().client, gardenNamespace: 'garden-p', now: () => NOW }, runtime(), noShoot);
    expect(outcome).toMatchObject({ state: 'Pending', statusWritten: true, errors: [] });
    const write = kcp.calls.find((c) => c.method === 'replace');
    expect(write?.args[1]).toBe('status');
    expect((write?.args[0] as KubeObject).metadata.resourceVersion).toBe('10');
    expect(outcome.events).toBe(kcp.calls.filter((c) => c.method === 'create').length);
    expect(outcome.events).toBeGreaterThan(0);
  });

  it('on a 409 reads the Runtime again and writes once more; a second 409 leaves it to the next pass', async () => {
    let puts = 0;
    const kcp = fakeClient((method) => {
      if (method === 'replace') return ++puts <= 2 ? fail(409) : undefined;
      if (method === 'get') return ok(runtime({ resourceVersion: '11' }));
      return undefined;
    });
    const outcome = await reconcileRuntime({ kcp: kcp.client, garden: fakeClient().client, gardenNamespace: 'garden-p', now: () => NOW }, runtime(), noShoot);
    expect(puts).toBe(2);
    expect(kcp.calls.filter((c) => c.method === 'replace').map((c) => (c.args[0] as KubeObject).metadata.resourceVersion)).toEqual(['10', '11']);
    expect(outcome).toMatchObject({ statusWritten: false, conflict: true, errors: [] });
  });

  it('adds the finalizer with a merge patch carrying the resourceVersion', async () => {
    const kcp = fakeClient((method) => (method === 'patch' ? ok(runtime({ resourceVersion: '11' })) : undefined));
    const outcome = await reconcileRuntime({ kcp: kcp.client, garden: fakeClient().client, gardenNamespace: 'garden-p', now: () => NOW }, runtime({ finalizers: [] }), noShoot);
    expect(outcome.finalizer).toBe('added');
    // The status write carries the resourceVersion the patch answered with.
    expect((kcp.calls.find((c) => c.method === 'replace')?.args[0] as KubeObject).metadata.resourceVersion).toBe('11');
    expect(kcp.calls.find((c) => c.method === 'patch')?.args[1]).toEqual({ metadata: { finalizers: [RUNTIME_FINALIZER], resourceVersion: '10' } });
  });

  it('keeps the finalizer of a deleted Runtime while a GET still finds the Shoot, releases it once Gardener answers 404', async () => {
    const shoot: ShootObject = { apiVersion: 'core.gardener.cloud/v1beta1', kind: 'Shoot', metadata: { name: 'c-1', namespace: 'garden-p', deletionTimestamp: '2026-01-01T00:00:00Z' } };
    const deleting = runtime({ deletionTimestamp: '2026-01-01T00:00:00Z' });
    const kcp = fakeClient();
    const stillThere = fakeClient((method) => (method === 'get' ? ok(shoot) : undefined));
    const held = await reconcileRuntime({ kcp: kcp.client, garden: stillThere.client, gardenNamespace: 'garden-p', now: () => NOW }, deleting, noShoot);
    expect(held).toMatchObject({ state: 'Terminating', errors: [] });
    expect(held.finalizer).toBeUndefined();

    const gone = fakeClient((method) => (method === 'get' ? fail(404) : undefined));
    const kcp2 = fakeClient();
    const released = await reconcileRuntime({ kcp: kcp2.client, garden: gone.client, gardenNamespace: 'garden-p', now: () => NOW }, deleting, noShoot);
    expect(released.finalizer).toBe('released');
    const methods = kcp2.calls.map((c) => c.method);
    // Status first, then the GardenerCluster and Secret, the finalizer last.
    expect(methods.indexOf('replace')).toBeLessThan(methods.lastIndexOf('delete'));
    expect(methods.at(-1)).toBe('patch');
    expect(kcp2.calls.at(-1)?.args[1]).toMatchObject({ metadata: { finalizers: [] } });
  });

  it('names an unreachable API as such', async () => {
    const kcp = fakeClient((method) => (method === 'replace' ? fail(0) : undefined));
    const outcome = await reconcileRuntime({ kcp: kcp.client, garden: fakeClient().client, gardenNamespace: 'garden-p', now: () => NOW }, runtime(), noShoot);
    expect(outcome.unreachable).toBe(true);
    expect(outcome.errors[0]).toContain('write status of Runtime kcp-system/rt on https://fake (kubeconfig fake.kubeconfig)');
  });
});

function kind<T extends KubeObject>(items: T[]): WatchedKind<T> & { emit(type: 'added' | 'modified' | 'deleted', object: T): void } {
  const listeners = new Set<(change: { type: 'added' | 'modified' | 'deleted'; object: T }) => void>();
  return {
    items: () => items,
    get: (_namespace, name) => items.find((item) => item.metadata.name === name),
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    emit(type, object) {
      for (const listener of listeners) listener({ type, object });
    },
  };
}

describe('backfillWatcher', () => {
  it('reconciles a Runtime on its event and on its Shoot\'s event, never twice at once, and all of them on a full pass', async () => {
    const runtimes = kind([runtime(), { ...runtime(), metadata: { ...runtime().metadata, name: 'other' }, spec: { shoot: { name: 'c-2' } } }]);
    const shoots = kind<ShootObject>([]);
    let active = 0;
    let maxActive = 0;
    const kcp = fakeClient();
    const slowKcp = {
      ...kcp.client,
      label: 'fake.kubeconfig',
      server: 'https://fake',
      replace: async (...args: unknown[]) => {
        active++;
        maxActive = Math.max(maxActive, active);
        await new Promise((resolve) => setTimeout(resolve, 5));
        active--;
        return ok(args[0]);
      },
    } as unknown as KubeClient;
    const seen: string[] = [];
    const watcher = backfillWatcher({ kcp: slowKcp, garden: fakeClient().client, gardenNamespace: 'garden-p', now: () => NOW }, { runtimes, shoots, kcpNamespace: 'kcp-system' }, (o) => seen.push(o.runtime), 1);
    runtimes.emit('modified', runtime());
    runtimes.emit('modified', runtime());
    shoots.emit('modified', { apiVersion: 'core.gardener.cloud/v1beta1', kind: 'Shoot', metadata: { name: 'c-2', namespace: 'garden-p' } });
    await watcher.idle();
    // The second event of rt came while it ran: it runs once more after, not beside it.
    expect(seen.sort()).toEqual(['kcp-system/other', 'kcp-system/rt', 'kcp-system/rt']);
    const report = await watcher.fullPass();
    expect(report.outcomes.map((o) => o.runtime).sort()).toEqual(['kcp-system/other', 'kcp-system/rt']);
    expect(maxActive).toBe(1);
    watcher.close();
  });
});
