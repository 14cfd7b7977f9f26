// The Garden as the applier writes to it: requests paced by a token bucket (KIM's client limits, so the
// applier is no harder on gardener-apiserver than the controller it replaces) and transient failures —
// a conflict, throttling, a 5xx, a dropped connection — retried with exponential backoff before they
// count as the Shoot's failure. A 4xx that will not change (400, 403, 404, 422) is returned at once.
import type { KubeResult } from '../model/kube-result.js';
import type { KubeObject } from '../model/kube-object.js';
import type { ObjectRef } from '../adapters/kube/resources.js';
import { DEFAULT_APPLY } from '../model/kimops-config.js';
import type { GardenWriter } from './garden-writer.js';
import { backoffDelayMs } from '../model/backoff.js';

/** Tries per request, the first included; with the delays below a transient failure gets ~3.5 s to pass. */
const DEFAULT_ATTEMPTS = 4;
const DEFAULT_BASE_DELAY_MS = 500;
const DEFAULT_MAX_DELAY_MS = 10_000;

export interface Pacing {
  qps?: number;
  burst?: number;
  attempts?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Injectable for tests; a real timer when absent. */
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

/**
 * 0: unreachable; 409: the object changed under us; 429: the server throttles; 5xx: it failed — except the
 * 500 a server-side apply gets for a manifest the API's schema does not know (a field it does not declare):
 * that answer will not change, the manifest must.
 */
export function isTransient(result: KubeResult<unknown>): boolean {
  if (result.ok) return false;
  if (result.status === 500 && SCHEMA_REFUSAL.test(result.error.message ?? '')) return false;
  return result.status === 0 || result.status === 409 || result.status === 429 || result.status >= 500;
}

/** apimachinery's message when it cannot build the typed object of an apply. */
export const SCHEMA_REFUSAL = /failed to create typed patch object/;

export function pacedWriter(garden: GardenWriter, pacing: Pacing = {}): GardenWriter {
  const qps = pacing.qps ?? DEFAULT_APPLY.qps;
  const burst = pacing.burst ?? DEFAULT_APPLY.burst;
  const attempts = Math.max(1, pacing.attempts ?? DEFAULT_ATTEMPTS);
  const base = pacing.baseDelayMs ?? DEFAULT_BASE_DELAY_MS;
  const max = pacing.maxDelayMs ?? DEFAULT_MAX_DELAY_MS;
  const sleep = pacing.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const now = pacing.now ?? Date.now;
  let tokens = burst;
  let refilled = now();

  /** Waits for a token: the bucket holds `burst` and refills at `qps` per second. */
  const token = async () => {
    for (;;) {
      const t = now();
      tokens = Math.min(burst, tokens + ((t - refilled) / 1000) * qps);
      refilled = t;
      if (tokens >= 1) {
        tokens -= 1;
        return;
      }
      await sleep(Math.ceil(((1 - tokens) / qps) * 1000));
    }
  };

  const paced = async <T>(
    call: () => Promise<KubeResult<T>>,
    final: (result: KubeResult<T>) => boolean = () => false,
  ): Promise<KubeResult<T>> => {
    for (let attempt = 1; ; attempt++) {
      await token();
      const result = await call();
      if (result.ok || !isTransient(result) || final(result) || attempt >= attempts) return result;
      await sleep(backoffDelayMs(attempt, { initialMs: base, maxMs: max }));
    }
  };

  return {
    apply: <T extends KubeObject>(object: T, fieldManager: string, options?: { force?: boolean }) =>
      paced(() => garden.apply(object, fieldManager, options)),
    // A create that finds the object there (409 AlreadyExists) will find it again: it is an answer, not a race.
    create: <T extends KubeObject>(object: T) =>
      paced(
        () => garden.create(object),
        (result) => !result.ok && result.status === 409,
      ),
    patch: <T extends KubeObject>(ref: ObjectRef, patch: unknown) => paced(() => garden.patch<T>(ref, patch)),
    delete: (ref: ObjectRef) => paced(() => garden.delete(ref)),
    get: <T extends KubeObject>(ref: ObjectRef) => paced(() => garden.get<T>(ref)),
  };
}
