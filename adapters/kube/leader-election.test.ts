// Leader election against an in-memory Lease store that honours resourceVersion (409 on a stale one) and
// validates Leases as the API server does, on a fake clock: every timing below is fake time, exact, and
// independent of how busy the machine is.
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../model/errors.js';
import type { KubeResult } from '../../model/kube-result.js';
import {
  acquireLeadership,
  defaultIdentity,
  LeadershipEnded,
  type Lease,
  type LeaseClient,
  type LeaseClock,
  type LeaderElectionOptions,
  type Leadership,
} from './leader-election.js';

const START = Date.parse('2026-01-01T00:00:00Z');
const PATH = '/apis/coordination.k8s.io/v1/namespaces/kcp-system/leases';
const MICRO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;

/** Lets every promise chain that needs no timer run to its end. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

class FakeClock implements LeaseClock {
  private t = START;
  private seq = 0;
  private timers: { at: number; seq: number; fire: () => void }[] = [];

  now(): number {
    return this.t;
  }

  sleep(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason as Error);
      const timer = {
        at: this.t + Math.max(0, ms),
        seq: this.seq++,
        fire: () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = () => {
        this.timers = this.timers.filter((t) => t !== timer);
        reject(signal.reason as Error);
      };
      this.timers.push(timer);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  /**
   * Runs the timers due within `ms` of fake time in order, everything they start settling before the next
   * instant. Timers due at the same instant fire together: two candidates then race as two processes can.
   */
  async advance(ms: number): Promise<void> {
    const end = this.t + ms;
    for (;;) {
      await settle();
      const at = Math.min(...this.timers.map((t) => t.at));
      if (!(at <= end)) break;
      const due = this.timers.filter((t) => t.at === at).sort((a, b) => a.seq - b.seq);
      this.timers = this.timers.filter((t) => t.at !== at);
      this.t = at;
      for (const timer of due) timer.fire();
    }
    this.t = end;
    await settle();
  }

  /** Moves time on without firing timers: a process paused (SIGSTOP, a long GC) between two of its steps. */
  jump(ms: number): void {
    this.t += ms;
  }

  /** Advances timer by timer until `done()` holds; fails after `maxMs` of fake time. */
  async until(done: () => boolean, maxMs: number): Promise<number> {
    const end = this.t + maxMs;
    await settle();
    while (!done()) {
      const at = Math.min(...this.timers.map((t) => t.at));
      if (!(at <= end)) throw new Error(`not done within ${maxMs} ms of fake time`);
      await this.advance(at - this.t);
    }
    return this.t;
  }
}

interface Write {
  by: string;
  method: string;
  at: number;
  status: number;
  spec: Lease['spec'];
}

type Behaviour = 'ok' | 'hang' | number;

/** One Lease namespace in memory; each candidate talks to it through a client of its own, which can fail. */
class LeaseStore {
  leases = new Map<string, Lease>();
  writes: Write[] = [];
  private version = 0;
  constructor(private readonly clock: FakeClock) {}

  get(name = 'generate-dev'): Lease | undefined {
    return this.leases.get(name);
  }

  /** A write by someone outside the election (an admin, another elector's view): a new resourceVersion. */
  put(lease: Lease): void {
    this.leases.set(lease.metadata.name, {
      ...structuredClone(lease),
      metadata: { ...lease.metadata, resourceVersion: String(++this.version) },
    });
  }

  client(by: string): LeaseClient & { behaviour: Behaviour } {
    const client = {
      behaviour: 'ok' as Behaviour,
      request: <T>(method: string, path: string, options: { body?: unknown; signal?: AbortSignal } = {}) => {
        const answer = (result: KubeResult<unknown>) => Promise.resolve(result as KubeResult<T>);
        const unreachable = { ok: false as const, status: 0, error: { message: 'cannot reach the API server' } };
        if (options.signal?.aborted) return answer(unreachable);
        // Never answers, not even to the signal: the elector's deadlines must not rely on the client's.
        if (client.behaviour === 'hang') return new Promise<KubeResult<T>>(() => {});
        if (typeof client.behaviour === 'number')
          return answer({ ok: false, status: client.behaviour, error: { message: `status ${client.behaviour}` } });
        const result = this.handle(method, path, options.body as Lease | undefined);
        if (method !== 'GET')
          this.writes.push({
            by,
            method,
            at: this.clock.now(),
            status: result.status,
            spec: structuredClone((options.body as Lease).spec),
          });
        return answer(result);
      },
    };
    return client;
  }

  private handle(method: string, path: string, body: Lease | undefined): KubeResult<Lease> {
    const fail = (status: number, reason: string) => ({
      ok: false as const,
      status,
      error: { reason, message: reason },
    });
    const name = path.startsWith(`${PATH}/`) ? decodeURIComponent(path.slice(PATH.length + 1)) : undefined;
    if (method === 'GET') {
      const lease = name === undefined ? undefined : this.leases.get(name);
      return lease ? { ok: true, status: 200, body: structuredClone(lease) } : fail(404, 'NotFound');
    }
    if (!body) return fail(400, 'BadRequest');
    const invalid = invalidLease(body);
    if (invalid) return fail(422, `Invalid: ${invalid}`);
    if (method === 'POST' && path === PATH) {
      if (this.leases.has(body.metadata.name)) return fail(409, 'AlreadyExists');
    } else if (method === 'PUT' && name === body.metadata.name) {
      const current = this.leases.get(name);
      if (!current) return fail(404, 'NotFound');
      if (body.metadata.resourceVersion !== current.metadata.resourceVersion) return fail(409, 'Conflict');
    } else return fail(405, 'MethodNotAllowed');
    const stored = {
      ...structuredClone(body),
      metadata: { ...body.metadata, resourceVersion: String(++this.version) },
    };
    this.leases.set(stored.metadata.name, stored);
    return { ok: true, status: method === 'POST' ? 201 : 200, body: structuredClone(stored) };
  }
}

/** What kube-apiserver's Lease validation and MicroTime decoding would refuse. */
function invalidLease(lease: Lease): string | undefined {
  const spec = lease.spec ?? {};
  if (lease.apiVersion !== 'coordination.k8s.io/v1' || lease.kind !== 'Lease') return 'not a Lease';
  if (lease.metadata.namespace !== 'kcp-system') return 'wrong namespace';
  const duration = spec.leaseDurationSeconds;
  if (duration !== null && duration !== undefined && (!Number.isInteger(duration) || duration <= 0))
    return 'leaseDurationSeconds';
  const transitions = spec.leaseTransitions;
  if (transitions !== null && transitions !== undefined && (!Number.isInteger(transitions) || transitions < 0))
    return 'leaseTransitions';
  for (const field of ['acquireTime', 'renewTime'] as const) {
    const value = spec[field];
    if (typeof value === 'string' && !MICRO_TIME.test(value)) return field;
  }
  return undefined;
}

function setup() {
  const clock = new FakeClock();
  const store = new LeaseStore(clock);
  const logs: string[] = [];
  const options = (identity: string, extra: Partial<LeaderElectionOptions> = {}) => {
    const client = store.client(identity);
    return {
      client,
      options: {
        client,
        namespace: 'kcp-system',
        name: 'generate-dev',
        identity,
        clock,
        random: () => 0,
        log: (line: string) => logs.push(`${identity}: ${line}`),
        ...extra,
      } satisfies LeaderElectionOptions,
    };
  };
  return { clock, store, logs, options };
}

/** An acquisition whose outcome the test can look at without awaiting it. */
function start(options: LeaderElectionOptions, signal = new AbortController().signal) {
  const state: { leadership?: Leadership; error?: unknown } = {};
  const promise = acquireLeadership(options, signal).then(
    (leadership) => (state.leadership = leadership),
    (error: unknown) => (state.error = error),
  );
  return { state, promise };
}

const writesBy = (store: LeaseStore, by: string) => store.writes.filter((w) => w.by === by);

describe('acquireLeadership', () => {
  it('creates an absent Lease as ours, at once, with the fields Kubernetes validates', async () => {
    const { clock, store, options } = setup();
    const leadership = await acquireLeadership(options('a').options, new AbortController().signal);
    expect(clock.now()).toBe(START);
    expect(leadership.isLeader()).toBe(true);
    expect(leadership.takenFrom).toBe('created');
    expect(leadership.signal.aborted).toBe(false);
    expect(store.get()?.spec).toEqual({
      holderIdentity: 'a',
      leaseDurationSeconds: 15,
      acquireTime: '2026-01-01T00:00:00.000000Z',
      renewTime: '2026-01-01T00:00:00.000000Z',
      leaseTransitions: 0,
    });
    expect(writesBy(store, 'a')).toMatchObject([{ method: 'POST', status: 201 }]);
    await leadership.release();
  });

  it('writes times as MicroTime, microseconds included', async () => {
    const { clock, store, options } = setup();
    await clock.advance(1_234.5678);
    const leadership = await acquireLeadership(options('a').options, new AbortController().signal);
    expect(store.get()?.spec?.renewTime).toBe('2026-01-01T00:00:01.234567Z');
    expect(store.get()?.spec?.acquireTime).toBe('2026-01-01T00:00:01.234567Z');
    await leadership.release();
  });

  it('renews every retryPeriod, renewTime as MicroTime of the clock, acquireTime and transitions kept', async () => {
    const { clock, store, options } = setup();
    const renewals: number[] = [];
    const leadership = await acquireLeadership(
      options('a', { onRenewed: (at) => renewals.push(at - START) }).options,
      new AbortController().signal,
    );
    await clock.advance(6_500);
    expect(renewals).toEqual([2_000, 4_000, 6_000]);
    const spec = store.get()?.spec;
    expect(spec?.renewTime).toBe('2026-01-01T00:00:06.000000Z');
    expect(spec?.renewTime).toMatch(MICRO_TIME);
    expect(spec?.acquireTime).toBe('2026-01-01T00:00:00.000000Z');
    expect(spec?.leaseTransitions).toBe(0);
    expect(writesBy(store, 'a').map((w) => w.method)).toEqual(['POST', 'PUT', 'PUT', 'PUT']);
    await leadership.release();
  });

  it('keeps a standby waiting as long as the holder renews, without writing', async () => {
    const { clock, store, logs, options } = setup();
    const a = await acquireLeadership(options('a').options, new AbortController().signal);
    const b = start(options('b').options);
    await clock.advance(120_000);
    expect(b.state.leadership).toBeUndefined();
    expect(a.isLeader()).toBe(true);
    expect(writesBy(store, 'b')).toEqual([]);
    expect(logs.filter((l) => l.startsWith('b: '))).toEqual([
      'b: lease kcp-system/generate-dev: held by a; waiting for it to expire or be released',
    ]);
    await a.release();
    await clock.until(() => b.state.leadership !== undefined, 5_000);
    await b.state.leadership?.release();
  });

  // The standby sees the last renewal on its next attempt (at most one retryPeriod later, no jitter here) and
  // takes over on its first attempt leaseDuration after that: leaseDuration + retryPeriod after it saw the
  // renewal, leaseDuration + 2 × retryPeriod after the renewal at worst, whatever the phase of the two loops.
  it.each([0, 1, 1_000, 1_999])(
    'takes over from a crashed holder leaseDuration to leaseDuration + 2 × retryPeriod after its last renewal (standby %i ms out of phase)',
    async (offset) => {
      const { clock, store, options } = setup();
      let lastRenewal = START;
      let lostAt: number | undefined;
      const a = options('a', { onRenewed: (at) => (lastRenewal = at) });
      const leader = await acquireLeadership(a.options, new AbortController().signal);
      leader.signal.addEventListener('abort', () => (lostAt = clock.now()));
      await clock.advance(offset);
      const b = start(options('b').options);
      await clock.advance(21_000 - offset);
      a.client.behaviour = 'hang'; // a crash, as the Lease sees it: no more writes
      const tookOver = await clock.until(() => b.state.leadership !== undefined, 60_000);
      expect(lastRenewal).toBe(START + 20_000);
      expect(tookOver - lastRenewal).toBeGreaterThanOrEqual(15_000);
      expect(tookOver - lastRenewal).toBeLessThanOrEqual(15_000 + 2 * 2_000);
      // The old leader stopped at renewDeadline, before the standby could take over.
      expect(lostAt).toBe(lastRenewal + 10_000);
      expect(leader.isLeader()).toBe(false);
      expect(store.get()?.spec).toMatchObject({ holderIdentity: 'b', leaseTransitions: 1 });
      expect(b.state.leadership?.takenFrom).toBe('expired');
      expect(writesBy(store, 'a').every((w) => w.at <= lastRenewal + 2_000)).toBe(true);
      await b.state.leadership?.release();
    },
  );

  it('judges expiry by its own clock from when it saw the record change, not by renewTime', async () => {
    const { clock, store, options } = setup();
    // Written by a holder whose clock is an hour behind: by renewTime it expired long ago.
    store.put({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'generate-dev', namespace: 'kcp-system' },
      spec: {
        holderIdentity: 'old',
        leaseDurationSeconds: 15,
        acquireTime: '2025-12-31T23:00:00.000000Z',
        renewTime: '2025-12-31T23:00:00.000000Z',
        leaseTransitions: 4,
      },
    });
    const b = start(options('b').options);
    const tookOver = await clock.until(() => b.state.leadership !== undefined, 60_000);
    expect(tookOver - START).toBeGreaterThanOrEqual(15_000);
    expect(tookOver - START).toBeLessThanOrEqual(17_000);
    expect(store.get()?.spec).toMatchObject({
      holderIdentity: 'b',
      leaseTransitions: 5,
      acquireTime: microTimeAt(tookOver),
    });
    await b.state.leadership?.release();
  });

  it('waits retryPeriod × (1 + 1.2 × random) between attempts, as JitterUntil', async () => {
    const { clock, store, options } = setup();
    await acquireLeadership(options('a').options, new AbortController().signal);
    const gets: number[] = [];
    const b = options('b', { random: () => 0.5 });
    const request = b.client.request.bind(b.client);
    b.client.request = ((...args: Parameters<LeaseClient['request']>) => {
      if (args[0] === 'GET') gets.push(clock.now() - START);
      return request(...args);
    }) as typeof b.client.request;
    start(b.options);
    await clock.advance(10_000);
    expect(gets).toEqual([0, 3_200, 6_400, 9_600]);
    expect(writesBy(store, 'b')).toEqual([]);
  });

  it('rejects with the abort reason when its signal aborts while it waits', async () => {
    const { clock, options } = setup();
    await acquireLeadership(options('a').options, new AbortController().signal);
    const abort = new AbortController();
    const b = start(options('b').options, abort.signal);
    await clock.advance(5_000);
    const reason = new Error('shutting down');
    abort.abort(reason);
    await b.promise;
    expect(b.state.error).toBe(reason);
  });

  it('logs a refused request once, with the Lease and the fix, and retries until it is allowed', async () => {
    const { clock, store, logs, options } = setup();
    const a = options('a');
    a.client.behaviour = 403;
    const started = start(a.options);
    await clock.advance(20_000);
    expect(started.state.leadership).toBeUndefined();
    expect(logs).toEqual([
      "a: lease kcp-system/generate-dev: get failed: 403: status 403 — the kubeconfig's identity (the ServiceAccount) " +
        'may not get leases: grant get, create and update on leases.coordination.k8s.io in namespace kcp-system; retrying',
    ]);
    a.client.behaviour = 'ok';
    await clock.until(() => started.state.leadership !== undefined, 5_000);
    expect(store.get()?.spec?.holderIdentity).toBe('a');
    await started.state.leadership?.release();
  });

  it('refuses options client-go refuses', async () => {
    const { options } = setup();
    const signal = new AbortController().signal;
    for (const extra of [
      { renewDeadlineMs: 15_000 },
      { retryPeriodMs: 9_000 },
      { leaseDurationMs: 15_500 },
      { identity: '' },
    ]) {
      await expect(acquireLeadership({ ...options('a').options, ...extra }, signal)).rejects.toBeInstanceOf(
        ConfigError,
      );
    }
  });
});

describe('losing leadership', () => {
  it('fires at renewDeadline after the last renewal when renewals fail, and writes nothing after', async () => {
    const { clock, store, logs, options } = setup();
    let lastRenewal = START;
    const a = options('a', { onRenewed: (at) => (lastRenewal = at) });
    const leadership = await acquireLeadership(a.options, new AbortController().signal);
    await clock.advance(5_000);
    a.client.behaviour = 503;
    const lostAt = await clock.until(() => leadership.signal.aborted, 60_000);
    expect(lastRenewal).toBe(START + 4_000);
    expect(lostAt).toBe(lastRenewal + 10_000);
    expect(leadership.isLeader()).toBe(false);
    expect(leadership.signal.reason).toBeInstanceOf(LeadershipEnded);
    expect((leadership.signal.reason as LeadershipEnded).reason).toBe('lost');
    expect(logs.at(-1)).toBe(
      'a: lease kcp-system/generate-dev: leadership lost by a: no renewal succeeded within 10 s of the last one',
    );
    a.client.behaviour = 'ok';
    const writes = store.writes.length;
    await clock.advance(60_000);
    await leadership.release();
    expect(store.writes.length).toBe(writes);
    expect(store.get()?.spec?.holderIdentity).toBe('a');
  });

  it('fires at renewDeadline when a renewal hangs, cutting the request', async () => {
    const { clock, options } = setup();
    const a = options('a');
    const leadership = await acquireLeadership(a.options, new AbortController().signal);
    await clock.advance(1_000);
    a.client.behaviour = 'hang';
    const lostAt = await clock.until(() => leadership.signal.aborted, 60_000);
    expect(lostAt).toBe(START + 10_000);
  });

  it('is no longer leader, and releases nothing, once paused past renewDeadline', async () => {
    const { clock, store, options } = setup();
    const leadership = await acquireLeadership(options('a').options, new AbortController().signal);
    await clock.advance(3_000);
    clock.jump(10_000); // the renewal due at 4 s has not run yet
    expect(leadership.isLeader()).toBe(false);
    const writes = writesBy(store, 'a').length;
    await leadership.release();
    expect(writesBy(store, 'a').length).toBe(writes);
    expect(store.get()?.spec?.holderIdentity).toBe('a');
  });

  it('fires at once when the Lease names another holder, and never writes it again', async () => {
    const { clock, store, logs, options } = setup();
    const leadership = await acquireLeadership(options('a').options, new AbortController().signal);
    await clock.advance(3_000);
    const lease = store.get() as Lease;
    store.put({ ...lease, spec: { ...lease.spec, holderIdentity: 'intruder' } });
    const lostAt = await clock.until(() => leadership.signal.aborted, 60_000);
    expect(lostAt).toBe(START + 4_000);
    expect(logs.at(-1)).toBe(
      'a: lease kcp-system/generate-dev: leadership lost by a: the lease is now held by intruder',
    );
    const writes = writesBy(store, 'a').length;
    await clock.advance(30_000);
    await leadership.release();
    expect(writesBy(store, 'a').length).toBe(writes);
    expect(store.get()?.spec?.holderIdentity).toBe('intruder');
  });
});

describe('release', () => {
  it('hands the Lease back so a standby takes over on its next attempt, not after leaseDuration', async () => {
    const { clock, store, options } = setup();
    const a = await acquireLeadership(options('a').options, new AbortController().signal);
    const b = start(options('b').options);
    await clock.advance(7_000);
    await a.release();
    expect(a.signal.aborted).toBe(true);
    expect((a.signal.reason as LeadershipEnded).reason).toBe('released');
    expect(a.isLeader()).toBe(false);
    expect(store.get()?.spec).toMatchObject({ holderIdentity: '', leaseDurationSeconds: 1, leaseTransitions: 0 });
    expect(store.get()?.spec?.renewTime).toMatch(MICRO_TIME);
    const released = clock.now();
    const tookOver = await clock.until(() => b.state.leadership !== undefined, 60_000);
    expect(tookOver - released).toBeLessThanOrEqual(2_000);
    expect(store.get()?.spec).toMatchObject({ holderIdentity: 'b', leaseDurationSeconds: 15, leaseTransitions: 1 });
    expect(b.state.leadership?.takenFrom).toBe('released');
    // Released once: a second call writes nothing more.
    const writes = writesBy(store, 'a').length;
    await a.release();
    expect(writesBy(store, 'a').length).toBe(writes);
    await b.state.leadership?.release();
  });

  it('counts a transition at every change of holder', async () => {
    const { clock, store, options } = setup();
    const signal = new AbortController().signal;
    const holders = ['a', 'b', 'c', 'a'];
    let previous: Leadership | undefined;
    for (const [index, identity] of holders.entries()) {
      await previous?.release();
      await clock.advance(1_000);
      previous = await acquireLeadership(options(identity).options, signal);
      await clock.advance(5_000); // renewals do not count
      expect(store.get()?.spec).toMatchObject({ holderIdentity: identity, leaseTransitions: index });
    }
    await previous?.release();
  });
});

describe('racing candidates', () => {
  it('lets exactly one of two candidates create the Lease; the other waits', async () => {
    const { clock, store, options } = setup();
    const a = start(options('a').options);
    const b = start(options('b').options);
    await clock.advance(30_000);
    const leaders = [a, b].filter((c) => c.state.leadership?.isLeader());
    expect(leaders).toHaveLength(1);
    expect(store.writes.filter((w) => w.method === 'POST').map((w) => w.status)).toEqual([201, 409]);
    expect(store.get()?.spec?.holderIdentity).toBe(leaders[0] === a ? 'a' : 'b');
    await leaders[0]?.state.leadership?.release();
  });

  it('lets exactly one of two candidates take over an expired Lease; the other gets 409 and waits', async () => {
    const { clock, store, options } = setup();
    const old = options('old');
    await acquireLeadership(old.options, new AbortController().signal);
    const a = start(options('a').options);
    const b = start(options('b').options);
    await clock.advance(1_000);
    old.client.behaviour = 'hang'; // both candidates see the record stop changing at the same instant
    await clock.until(() => a.state.leadership !== undefined || b.state.leadership !== undefined, 60_000);
    await clock.advance(30_000);
    const leaders = [a, b].filter((c) => c.state.leadership?.isLeader());
    expect(leaders).toHaveLength(1);
    const takeovers = store.writes.filter((w) => w.by !== 'old');
    expect(takeovers.slice(0, 2).map((w) => [w.method, w.status])).toEqual([
      ['PUT', 200],
      ['PUT', 409],
    ]);
    expect(store.get()?.spec?.leaseTransitions).toBe(1);
    await leaders[0]?.state.leadership?.release();
  });
});

describe('defaultIdentity', () => {
  it('is the hostname and a random suffix, different per call', () => {
    const [one, two] = [defaultIdentity(), defaultIdentity()];
    expect(one).toMatch(/^.+_[0-9a-f-]{36}$/);
    expect(one).not.toBe(two);
  });
});

function microTimeAt(ms: number): string {
  return new Date(ms).toISOString().replace(/Z$/, '000Z');
}
