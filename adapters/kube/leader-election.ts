// Leader election on a coordination.k8s.io/v1 Lease, with the semantics of client-go's LeaderElector run with
// ReleaseOnCancel (read for behaviour only, written anew here):
//
// - Acquire: GET the Lease; absent → CREATE it as ours. Held by another holder → wait until the record has not
//   changed for its leaseDurationSeconds, measured on OUR clock from when we first saw it in that state (the
//   observed time), never from its renewTime, which another machine's clock wrote. Expired or released (empty
//   holderIdentity) → UPDATE it as ours with the resourceVersion of the GET: a 409 means another candidate won.
//   Between attempts: retryPeriod stretched by up to 1.2 × itself at random (client-go's JitterUntil).
// - Renew: every retryPeriod, GET + UPDATE with renewTime = now. No renewal within renewDeadline of the last
//   success, or the GET names another holder → leadership is lost: the Leadership's signal aborts at once and
//   the Lease is never written again by this elector. A request still open at the deadline is cut.
// - Release: UPDATE the Lease to holderIdentity '' and leaseDurationSeconds 1, so a standby takes over on its
//   next attempt instead of after leaseDuration.
//
// Safety rests on leaseDuration > renewDeadline: a leader that cannot renew stops at renewDeadline, a standby
// takes over no earlier than leaseDuration after it saw the last renewal, so the two never overlap (as long as
// both clocks run at the same rate; they need not agree on the time).
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { ConfigError } from '../../model/errors.js';
import type { KubeObject } from '../../model/kube-object.js';
import { describeFailure, fixFor, type KubeResult } from '../../model/kube-result.js';
import type { KubeClient } from './kube-client.js';

/**
 * What the elector needs of a `KubeClient`: plain requests (the Lease kind is not in resources.ts's table), each
 * with a signal that cuts it. A unit test passes an in-memory Lease store that answers 409 on a stale
 * resourceVersion.
 */
export type LeaseClient = Pick<KubeClient, 'request'>;

/** The fields of a coordination.k8s.io/v1 Lease the elector reads and writes; times are MicroTime. */
export interface Lease extends KubeObject {
  spec?: {
    holderIdentity?: string | null;
    leaseDurationSeconds?: number | null;
    acquireTime?: string | null;
    renewTime?: string | null;
    leaseTransitions?: number | null;
    [key: string]: unknown;
  };
}

/** Time for the elector; unit tests pass a fake one. */
export interface LeaseClock {
  /** Milliseconds since the epoch: deadlines, expiry, and the Lease's acquireTime and renewTime. */
  now(): number;
  /** Resolves after `ms`; rejects with `signal.reason` when `signal` aborts first. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

export interface LeaderElectionOptions {
  client: LeaseClient;
  namespace: string;
  /** The Lease's name, one per (loop, landscape); the caller chooses it. */
  name: string;
  /** Unique per process (`defaultIdentity()`); written as the Lease's holderIdentity. */
  identity: string;
  /** 15 s: how long a standby waits on a record that stopped changing. Whole seconds. */
  leaseDurationMs?: number;
  /** 10 s: how long a leader goes on without a successful renewal. Less than leaseDurationMs. */
  renewDeadlineMs?: number;
  /** 2 s: between attempts to acquire (jittered) or renew. renewDeadlineMs must exceed 1.2 × this. */
  retryPeriodMs?: number;
  clock?: LeaseClock;
  /** [0, 1) for the jitter of acquire attempts; Math.random unless a test pins it. */
  random?: () => number;
  /** One line per event worth reading: acquired, waiting on a holder, a failed request and its fix, lost, released. */
  log?: (line: string) => void;
  /** Called after each successful renewal with the clock's time (a metric, a test). */
  onRenewed?: (atMs: number) => void;
}

/** Why a Leadership's signal aborted: `lost` (renewals failed, another holder) or `released`. */
export class LeadershipEnded extends Error {
  override readonly name = 'LeadershipEnded';
  constructor(
    /** `<namespace>/<name>` of the Lease. */
    readonly lease: string,
    readonly reason: 'lost' | 'released',
    message: string,
  ) {
    super(message);
  }
}

export interface Leadership {
  /** Aborted the moment leadership is lost or released, with a `LeadershipEnded`; pass it to the leader's work. */
  readonly signal: AbortSignal;
  /** What the Lease held when this process took it. */
  readonly takenFrom: TakenFrom;
  /** False once the signal aborted, and already once renewDeadline passed since the last renewal. */
  isLeader(): boolean;
  /**
   * Stops renewing and, if still leader, hands the Lease back (holderIdentity '', leaseDurationSeconds 1). Never
   * throws: a release that fails is logged, and the Lease then expires. Calling it again returns the same promise.
   */
  release(): Promise<void>;
}

const DEFAULTS = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 };
/** client-go's JitterFactor for acquire attempts: each wait is retryPeriod × (1 + 1.2 × random). */
const JITTER_FACTOR = 1.2;

/** hostname_uuid, as client-go's callers make it: unique per process, and it says which host holds the Lease. */
export function defaultIdentity(): string {
  return `${hostname()}_${randomUUID()}`;
}

/**
 * Resolves once this process holds the Lease; rejects with the abort reason when `signal` aborts first (a Lease
 * acquired in that instant is released again), or with a ConfigError for impossible options. `signal` governs
 * the acquisition only: afterwards the caller ends leadership with `release()`.
 */
export async function acquireLeadership(options: LeaderElectionOptions, signal: AbortSignal): Promise<Leadership> {
  const elector = new Elector(options);
  let lastLine: string | undefined;
  const logOnce = (line: string) => {
    if (line !== lastLine) elector.log(line);
    lastLine = line;
  };
  for (;;) {
    signal.throwIfAborted();
    const attempt = await elector.tryAcquireOrRenew('acquire', signal);
    if (attempt.kind === 'ok') {
      if (signal.aborted) {
        await elector.releaseLease();
        signal.throwIfAborted();
      }
      elector.log(
        `lease ${elector.lease}: acquired by ${elector.identity} (transitions ${attempt.lease.spec?.leaseTransitions ?? 0})`,
      );
      return elector.lead(attempt.startedAt, attempt.takenFrom);
    }
    if (attempt.kind === 'held')
      logOnce(`lease ${elector.lease}: held by ${attempt.holder}; waiting for it to expire or be released`);
    else if (attempt.kind === 'failed') logOnce(`${attempt.message}; retrying`);
    const waitMs = elector.retryPeriodMs * (1 + JITTER_FACTOR * elector.random());
    await elector.clock.sleep(waitMs, signal);
  }
}

/**
 * What the Lease held when we took it: none yet (created), nobody (released by its last holder, or ours already),
 * or another holder's record that expired — a leader that died or could not renew: worth an alert.
 */
export type TakenFrom = 'created' | 'released' | 'expired';

type Attempt =
  | { kind: 'ok'; lease: Lease; startedAt: number; takenFrom: TakenFrom }
  | { kind: 'held'; holder: string }
  | { kind: 'lost'; holder: string }
  | Failed;
type Failed = { kind: 'failed'; message: string };

class Elector {
  readonly identity: string;
  readonly lease: string;
  readonly clock: LeaseClock;
  readonly random: () => number;
  readonly log: (line: string) => void;
  readonly retryPeriodMs: number;
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly client: LeaseClient;
  private readonly namespace: string;
  private readonly name: string;
  private readonly onRenewed: ((atMs: number) => void) | undefined;
  /** The record last seen (its spec's election fields) and when, on our clock: expiry is judged from this. */
  private observed: { key: string; atMs: number } | undefined;

  constructor(options: LeaderElectionOptions) {
    this.client = options.client;
    this.namespace = options.namespace;
    this.name = options.name;
    this.identity = options.identity;
    this.lease = `${options.namespace}/${options.name}`;
    this.clock = options.clock ?? realClock;
    this.random = options.random ?? Math.random;
    this.log = options.log ?? (() => {});
    this.onRenewed = options.onRenewed;
    this.leaseDurationMs = options.leaseDurationMs ?? DEFAULTS.leaseDurationMs;
    this.renewDeadlineMs = options.renewDeadlineMs ?? DEFAULTS.renewDeadlineMs;
    this.retryPeriodMs = options.retryPeriodMs ?? DEFAULTS.retryPeriodMs;
    const refuse = (field: string, detail: string) => {
      throw new ConfigError(`leader election on lease ${this.lease}`, field, detail);
    };
    if (!options.namespace || !options.name) refuse('name', 'a Lease needs a namespace and a name');
    if (!options.identity) refuse('identity', 'pass a non-empty identity, e.g. defaultIdentity()');
    if (!(this.retryPeriodMs > 0)) refuse('retryPeriod', 'must be positive');
    if (!(this.leaseDurationMs >= 1000) || this.leaseDurationMs % 1000 !== 0)
      refuse('leaseDuration', 'must be whole seconds, at least 1 s (the Lease holds leaseDurationSeconds)');
    if (!(this.renewDeadlineMs < this.leaseDurationMs)) refuse('renewDeadline', 'must be less than leaseDuration');
    if (!(this.renewDeadlineMs > JITTER_FACTOR * this.retryPeriodMs))
      refuse('renewDeadline', `must be more than ${JITTER_FACTOR} × retryPeriod`);
  }

  private path(withName = true): string {
    const collection = `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(this.namespace)}/leases`;
    return withName ? `${collection}/${encodeURIComponent(this.name)}` : collection;
  }

  private failure(verb: string, result: { status: number; error: { message?: string } }): Failed {
    const fix =
      result.status === 0
        ? '' // the client's message already says what to check
        : ` — ${
            result.status === 403
              ? `the kubeconfig's identity (the ServiceAccount) may not ${verb} leases: grant get, create and update on leases.coordination.k8s.io in namespace ${this.namespace}`
              : result.status === 404
                ? `namespace ${this.namespace} may not exist, or the API server does not serve coordination.k8s.io/v1 leases`
                : result.status === 409
                  ? 'another candidate wrote it first'
                  : fixFor(result.status, this.path())
          }`;
    return { kind: 'failed', message: `lease ${this.lease}: ${verb} failed: ${describeFailure(result)}${fix}` };
  }

  /**
   * One request, its answer as a value; when `signal` aborts first the answer is a failure at once, whether or not
   * the client honours the signal: a deadline must hold even for a request that never returns.
   */
  private send(method: string, path: string, signal: AbortSignal, body?: Lease): Promise<KubeResult<Lease>> {
    const cutOff: KubeResult<Lease> = { ok: false, status: 0, error: { message: 'no answer before the deadline' } };
    if (signal.aborted) return Promise.resolve(cutOff);
    return new Promise((resolve) => {
      const onAbort = () => resolve(cutOff);
      signal.addEventListener('abort', onAbort, { once: true });
      this.client.request<Lease>(method, path, { body, signal }).then(
        (result) => {
          signal.removeEventListener('abort', onAbort);
          resolve(result);
        },
        (error: unknown) => {
          signal.removeEventListener('abort', onAbort);
          resolve({ ok: false, status: 0, error: { message: String(error) } });
        },
      );
    });
  }

  /** Notes when the record changed, on our clock (client-go's observedTime). */
  private observe(spec: Lease['spec']): void {
    const key = JSON.stringify([
      spec?.holderIdentity ?? '',
      spec?.leaseDurationSeconds ?? null,
      spec?.acquireTime ?? null,
      spec?.renewTime ?? null,
      spec?.leaseTransitions ?? null,
    ]);
    if (this.observed?.key !== key) this.observed = { key, atMs: this.clock.now() };
  }

  /** One attempt, client-go's tryAcquireOrRenew; in `renew` mode another holder means `lost`, not `held`. */
  async tryAcquireOrRenew(mode: 'acquire' | 'renew', signal: AbortSignal): Promise<Attempt> {
    const startedAt = this.clock.now();
    const got = await this.send('GET', this.path(), signal);
    if (!got.ok && got.status !== 404) return this.failure('get', got);
    if (signal.aborted) return { kind: 'failed', message: `lease ${this.lease}: attempt cut off` };
    const now = this.clock.now();
    if (!got.ok) {
      const lease: Lease = {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: this.name, namespace: this.namespace },
        spec: this.record(undefined, now),
      };
      const created = await this.send('POST', this.path(false), signal, lease);
      return this.written(created, 'create', startedAt, 'created');
    }
    const old = got.body;
    this.observe(old.spec);
    const holder = old.spec?.holderIdentity ?? '';
    if (mode === 'renew' && holder !== this.identity) return { kind: 'lost', holder: holder || '(nobody)' };
    if (mode === 'acquire' && holder !== '' && holder !== this.identity) {
      const expiresAt = (this.observed?.atMs ?? now) + (old.spec?.leaseDurationSeconds ?? 0) * 1000;
      if (expiresAt > now) return { kind: 'held', holder };
    }
    const lease: Lease = { ...old, spec: { ...old.spec, ...this.record(old.spec, now) } };
    const replaced = await this.send('PUT', this.path(), signal, lease);
    const takenFrom = holder === '' || holder === this.identity ? 'released' : 'expired';
    return this.written(replaced, 'update', startedAt, takenFrom);
  }

  private written(result: KubeResult<Lease>, verb: string, startedAt: number, takenFrom: TakenFrom): Attempt {
    if (!result.ok) return this.failure(verb, result);
    this.observe(result.body.spec);
    return { kind: 'ok', lease: result.body, startedAt, takenFrom };
  }

  /** Our record: a renewal keeps acquireTime and leaseTransitions, a change of holder counts one transition. */
  private record(old: Lease['spec'], now: number): NonNullable<Lease['spec']> {
    const ours = old?.holderIdentity === this.identity;
    return {
      holderIdentity: this.identity,
      leaseDurationSeconds: this.leaseDurationMs / 1000,
      acquireTime: ours && old.acquireTime ? old.acquireTime : microTime(now),
      renewTime: microTime(now),
      leaseTransitions: old ? (old.leaseTransitions ?? 0) + (ours ? 0 : 1) : 0,
    };
  }

  /**
   * Hands the Lease back if it still names us: holderIdentity '', leaseDurationSeconds 1 (client-go's
   * ReleaseOnCancel). The resourceVersion of the GET guards it, so it cannot undo another holder's takeover.
   */
  async releaseLease(): Promise<void> {
    const cut = new AbortController();
    this.clock.sleep(this.renewDeadlineMs, cut.signal).then(
      () => cut.abort(),
      () => {},
    );
    try {
      const got = await this.send('GET', this.path(), cut.signal);
      if (!got.ok) return this.log(`${this.failure('get', got).message}; the lease expires instead`);
      if ((got.body.spec?.holderIdentity ?? '') !== this.identity) return;
      const now = microTime(this.clock.now());
      const spec = { ...got.body.spec, holderIdentity: '', leaseDurationSeconds: 1, acquireTime: now, renewTime: now };
      const put = await this.send('PUT', this.path(), cut.signal, { ...got.body, spec });
      if (!put.ok) return this.log(`${this.failure('update', put).message}; the lease expires instead`);
      this.observe(put.body.spec);
      this.log(`lease ${this.lease}: released by ${this.identity}`);
    } finally {
      cut.abort();
    }
  }

  /** Leadership from an acquisition that started at `acquiredAt`: renewals every retryPeriod until lost or released. */
  lead(acquiredAt: number, takenFrom: TakenFrom): Leadership {
    const ended = new AbortController();
    const stop = new AbortController();
    let lastSuccess = acquiredAt;
    let lost = false;
    const lose = (why: string) => {
      lost = true;
      const message = `lease ${this.lease}: leadership lost by ${this.identity}: ${why}`;
      this.log(message);
      ended.abort(new LeadershipEnded(this.lease, 'lost', message));
    };
    const renewing = (async () => {
      for (;;) {
        const deadline = lastSuccess + this.renewDeadlineMs;
        const overdue = () =>
          this.clock.now() >= deadline &&
          (lose(`no renewal succeeded within ${this.renewDeadlineMs / 1000} s of the last one`), true);
        if (overdue()) return;
        try {
          await this.clock.sleep(Math.min(this.retryPeriodMs, deadline - this.clock.now()), stop.signal);
        } catch {
          return; // released
        }
        if (overdue()) return;
        // One attempt, cut at the deadline (or by release): a hung request must not keep us leader past it.
        const cut = new AbortController();
        const done = new AbortController();
        this.clock.sleep(deadline - this.clock.now(), done.signal).then(
          () => cut.abort(),
          () => {},
        );
        const attempt = await this.tryAcquireOrRenew('renew', AbortSignal.any([stop.signal, cut.signal]));
        done.abort();
        if (stop.signal.aborted) return;
        if (attempt.kind === 'ok') {
          lastSuccess = attempt.startedAt;
          this.onRenewed?.(this.clock.now());
        } else if (attempt.kind === 'lost') {
          return lose(`the lease is now held by ${attempt.holder}`);
        } else if (attempt.kind === 'failed') {
          this.log(
            `${attempt.message}; renewal failed, leadership ends ${this.renewDeadlineMs / 1000} s after the last one`,
          );
        }
      }
    })();
    const isLeader = () => !ended.signal.aborted && this.clock.now() < lastSuccess + this.renewDeadlineMs;
    let released: Promise<void> | undefined;
    return {
      signal: ended.signal,
      takenFrom,
      isLeader,
      release: () =>
        (released ??= (async () => {
          const message = `lease ${this.lease}: released by ${this.identity}`;
          if (!ended.signal.aborted) ended.abort(new LeadershipEnded(this.lease, 'released', message));
          stop.abort();
          await renewing;
          // Never a write once leadership is lost, or could be: past the deadline a standby may already lead.
          if (lost || this.clock.now() >= lastSuccess + this.renewDeadlineMs) return;
          await this.releaseLease();
        })()),
    };
  }
}

/** Kubernetes' MicroTime: RFC 3339 in UTC with exactly six fractional digits (`2026-01-02T03:04:05.123456Z`). */
function microTime(ms: number): string {
  const wholeMs = Math.floor(ms);
  const micros = Math.floor((ms - Math.floor(wholeMs / 1000) * 1000) * 1000);
  return `${new Date(wholeMs).toISOString().slice(0, 19)}.${String(micros).padStart(6, '0')}Z`;
}

// Monotonic, like Go's time.Now() for comparisons: the wall time at start plus the monotonic time since. A clock
// step (NTP, an operator) can then neither stretch a leader's renew deadline nor shorten a standby's wait; the
// Lease's MicroTimes stay within the drift since start of the wall clock, and nothing compares them across clocks.
const realClock: LeaseClock = {
  now: () => performance.timeOrigin + performance.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason as Error);
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal.reason as Error);
      };
      const timer = setTimeout(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal.addEventListener('abort', onAbort, { once: true });
    }),
};
