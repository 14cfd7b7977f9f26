// A list+watch cache of one resource type, the way client-go's reflector keeps one: LIST (paged),
// then WATCH from the list's resourceVersion, resuming after each server-side timeout. Plain watches
// stall silently (a proxy drops the stream, a server stops sending), so a watchdog restarts a
// watch that has been quiet too long, and a periodic relist repairs whatever a watch missed.
// Failures never escape: they are logged with the fix and retried with backoff until the API is back.
import type { KubeClient, ListAllResult, WatchEnd, WatchEvent } from './kube-client.js';
import type { KubeObject } from '../../model/kube-object.js';
import { resourcePath, resourceType } from './resources.js';
import { backoffDelayMs } from '../../model/backoff.js';

/** client-go's reflector pages its LIST by 500 (pager.defaultPageSize). */
export const DEFAULT_PAGE_SIZE = 500;
/** client-go asks for watch timeouts of 5 min, jittered up to 10 min (reflector minWatchTimeout), so watches of many clients do not end together. */
const MIN_WATCH_TIMEOUT_SECONDS = 300;
/** A watch quiet for its timeout plus this long has stalled: the server would have closed it. Servers send bookmarks about every minute. */
const WATCHDOG_GRACE_MS = 30_000;
/** Periodic full relist, a resync that repairs anything a watch missed. Our choice; controller-runtime's SyncPeriod default is 10 h, KIM's runtime controller resyncs every few minutes. */
const DEFAULT_RELIST_MS = 10 * 60_000;
/** Retry after failures: 0.5 s doubling up to 30 s, each delay shortened by up to 20 % at random (client-go's reflector backoff: 800 ms to 30 s with jitter). */
const BACKOFF_INITIAL_MS = 500;
const BACKOFF_MAX_MS = 30_000;
const BACKOFF_JITTER = 0.2;
/** A watch that ends sooner than this without events counts as a failure, so a server closing every watch at once is not hammered. */
const QUICK_CLOSE_MS = 1_000;

export interface InformerOptions {
  /** Only this namespace; all namespaces when unset. */
  namespace?: string;
  labelSelector?: string;
  pageSize?: number;
  /** The server-side watch timeout before jitter (each watch asks for 1–2× this). */
  watchTimeoutSeconds?: number;
  /** Restart a watch after this long without any event or bookmark; default: the watch's timeout + WATCHDOG_GRACE_MS. */
  watchdogMs?: number;
  relistMs?: number;
  backoffInitialMs?: number;
  backoffMaxMs?: number;
  /** Failures, recoveries, watchdog restarts: one line each, naming the resource, the kubeconfig and the fix. */
  log?: (message: string) => void;
  /**
   * Applied to every object before it is cached or passed to listeners (listed items as their page arrives,
   * watch events as they come): a cache that needs only part of each object holds only that part.
   */
  transform?: (object: KubeObject) => KubeObject;
  /** Jitter source (tests pass a constant). */
  random?: () => number;
}

type ChangeType = 'added' | 'modified' | 'deleted';

export interface Change<T> {
  type: ChangeType;
  /** For `deleted`, the last state the informer knew. */
  object: T;
}

export type ChangeListener<T> = (change: Change<T>) => void;

function cacheKey(namespace: string | undefined, name: string): string {
  return `${namespace ?? ''}/${name}`;
}

const keyOf = (object: KubeObject) => cacheKey(object.metadata.namespace, object.metadata.name);

type WatchOutcome = WatchEnd | { reason: 'watchdog'; quietMs: number } | { reason: 'relist' };

export class Informer<T extends KubeObject> {
  private cache = new Map<string, T>();
  private readonly listeners = new Set<ChangeListener<T>>();
  private resourceVersion: string | undefined;
  private lastListAt = 0;
  private failures = 0;
  private running: Promise<void> | undefined;
  private stopped = false;
  /** Ends whatever is in flight: the current list page, watch or backoff sleep. */
  private readonly stopController = new AbortController();
  private readonly syncedPromise: Promise<void>;
  private resolveSynced!: () => void;
  private rejectSynced!: (error: Error) => void;
  private readonly options: Required<
    Omit<InformerOptions, 'namespace' | 'labelSelector' | 'watchdogMs' | 'transform'>
  > &
    Pick<InformerOptions, 'namespace' | 'labelSelector' | 'watchdogMs' | 'transform'>;
  /** The last failure while it lasts (the cache may be stale then); undefined once the API answers again. */
  private lastFailure: string | undefined;

  constructor(
    private readonly client: KubeClient,
    private readonly type: { apiVersion: string; kind: string },
    options: InformerOptions = {},
  ) {
    resourceType(type.apiVersion, type.kind); // an unknown kind fails here, not in the loop
    this.options = {
      pageSize: DEFAULT_PAGE_SIZE,
      watchTimeoutSeconds: MIN_WATCH_TIMEOUT_SECONDS,
      relistMs: DEFAULT_RELIST_MS,
      backoffInitialMs: BACKOFF_INITIAL_MS,
      backoffMaxMs: BACKOFF_MAX_MS,
      log: () => {},
      random: Math.random,
      ...options,
    };
    this.syncedPromise = new Promise<void>((resolve, reject) => {
      this.resolveSynced = resolve;
      this.rejectSynced = reject;
    });
    this.syncedPromise.catch(() => {}); // rejected only by stop(); callers of synced() still see it
  }

  /** Lists, then watches until stop(). Calling it again does nothing. */
  start(): void {
    if (this.stopped) throw new Error(`${this.describe()} was stopped; create a new one`);
    this.running ??= this.run();
  }

  /** Resolves once the first full list is in the cache (and its `added` changes delivered); rejects if stopped before. */
  synced(): Promise<void> {
    return this.syncedPromise;
  }

  items(): T[] {
    return [...this.cache.values()];
  }

  get(namespace: string | undefined, name: string): T | undefined {
    return this.cache.get(cacheKey(namespace, name));
  }

  onChange(listener: ChangeListener<T>): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Ends the watch, any request and timer; resolves when nothing of this informer runs any more. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.stopController.abort();
    this.rejectSynced(new Error(`${this.describe()} stopped before its first list`));
    await this.running;
  }

  private async run(): Promise<void> {
    let needList = true;
    while (!this.stopped) {
      if (needList) {
        const listed = await this.list();
        if (this.stopped) return;
        if (!listed.ok) {
          await this.backoff(listed.message);
          continue;
        }
        this.replace(listed.items, listed.resourceVersion);
        this.succeeded();
        needList = false;
        this.resolveSynced();
      }
      const outcome = await this.watch();
      if (this.stopped) return;
      switch (outcome.reason) {
        case 'closed':
          break; // the server's timeout: resume from the last resourceVersion
        case 'gone':
          // client-go's reflector does the same: the resourceVersion is compacted away, only a list can resume.
          this.options.log(`${this.describe()}: watch expired (${outcome.message}); listing again`);
          needList = true;
          break;
        case 'relist':
          needList = true;
          break;
        case 'watchdog':
          this.options.log(
            `${this.describe()}: no event or bookmark for ${outcome.quietMs / 1000} s; restarting the watch from resourceVersion ${this.resourceVersion ?? '(none)'}`,
          );
          // Until the new watch is accepted the cache may be behind: say so.
          this.lastFailure = `the watch went silent for ${outcome.quietMs / 1000} s and is being restarted`;
          break;
        case 'failed':
          await this.backoff(outcome.message);
          break;
        case 'aborted':
          return;
      }
    }
  }

  /** All pages; a 410 on a `continue` token (expired between pages) fails the list and it starts over after backoff. */
  private list(): Promise<ListAllResult<T>> {
    return this.client.listAll<T>(this.ref(), {
      labelSelector: this.options.labelSelector,
      limit: this.options.pageSize,
      signal: this.stopController.signal,
      ...(this.options.transform && { map: this.options.transform }),
    });
  }

  /** One watch, ended by the server, a failure, the watchdog, the relist period or stop(). */
  private async watch(): Promise<WatchOutcome> {
    const untilRelist = this.lastListAt + this.options.relistMs - Date.now();
    if (untilRelist <= 0) return { reason: 'relist' };
    const timeoutSeconds = Math.round(this.options.watchTimeoutSeconds * (1 + this.options.random()));
    const watchdogMs = this.options.watchdogMs ?? timeoutSeconds * 1000 + WATCHDOG_GRACE_MS;
    const controller = new AbortController();
    const onStop = () => controller.abort();
    this.stopController.signal.addEventListener('abort', onStop, { once: true });
    let ended: 'watchdog' | 'relist' | undefined;
    const end = (why: 'watchdog' | 'relist') => {
      ended = why;
      controller.abort();
    };
    let watchdog = setTimeout(() => end('watchdog'), watchdogMs);
    const relist = setTimeout(() => end('relist'), untilRelist);
    const startedAt = Date.now();
    let events = 0;
    try {
      const result = await this.client.watch<T>(
        this.ref(),
        // Accepted: the cache is in step again (the backoff still counts until the watch proves itself).
        {
          resourceVersion: this.resourceVersion,
          timeoutSeconds,
          labelSelector: this.options.labelSelector,
          onOpen: () => (this.lastFailure = undefined),
        },
        (event) => {
          events++;
          clearTimeout(watchdog);
          watchdog = setTimeout(() => end('watchdog'), watchdogMs);
          this.apply(event);
          this.succeeded();
        },
        controller.signal,
      );
      if (result.reason === 'aborted' && ended === 'watchdog') return { reason: 'watchdog', quietMs: watchdogMs };
      if (result.reason === 'aborted' && ended === 'relist') return { reason: 'relist' };
      if (result.reason === 'closed' && events === 0 && Date.now() - startedAt < QUICK_CLOSE_MS) {
        return {
          reason: 'failed',
          status: 0,
          message: `watch ${this.path()} on ${this.client.server} (kubeconfig ${this.client.label}) ended at once without events — check the API server and any proxy in between`,
        };
      }
      if (result.reason === 'closed') this.succeeded();
      return result;
    } finally {
      clearTimeout(watchdog);
      clearTimeout(relist);
      this.stopController.signal.removeEventListener('abort', onStop);
    }
  }

  private apply(received: WatchEvent<T>): void {
    const version = received.object.metadata?.resourceVersion;
    if (received.type === 'BOOKMARK') {
      if (version) this.resourceVersion = version;
      return;
    }
    const event = this.options.transform
      ? { type: received.type, object: this.options.transform(received.object) as T }
      : received;
    const key = keyOf(event.object);
    const known = this.cache.get(key);
    if (version) this.resourceVersion = version;
    if (event.type === 'DELETED') {
      if (!known) return; // already gone (a relist saw it first)
      this.cache.delete(key);
      this.emit({ type: 'deleted', object: event.object });
      return;
    }
    // ADDED for a cached object, or MODIFIED for an unknown one, is what client-go's DeltaFIFO also maps by the cache.
    this.cache.set(key, event.object);
    if (!known) this.emit({ type: 'added', object: event.object });
    else if (known.metadata.resourceVersion !== version) this.emit({ type: 'modified', object: event.object });
  }

  /** A full list replaces the cache; what differs from before is emitted as changes. */
  private replace(items: T[], resourceVersion: string | undefined): void {
    const previous = this.cache;
    this.cache = new Map(items.map((item) => [keyOf(item), item]));
    this.resourceVersion = resourceVersion;
    this.lastListAt = Date.now();
    for (const [key, object] of previous) if (!this.cache.has(key)) this.emit({ type: 'deleted', object });
    for (const [key, object] of this.cache) {
      const before = previous.get(key);
      if (!before) this.emit({ type: 'added', object });
      else if (before.metadata.resourceVersion !== object.metadata.resourceVersion)
        this.emit({ type: 'modified', object });
    }
  }

  private emit(change: Change<T>): void {
    for (const listener of this.listeners) {
      try {
        listener(change);
      } catch (error) {
        // One faulty listener must not stop the others or the informer.
        this.options.log(
          `${this.describe()}: a change listener failed on ${change.type} ${keyOf(change.object)}: ${(error as Error).message}`,
        );
      }
    }
  }

  /** Why the cache may be stale: the failure the informer is retrying after, or undefined while it is in step. */
  failing(): string | undefined {
    return this.lastFailure;
  }

  private async backoff(message: string): Promise<void> {
    this.lastFailure = message;
    const delay = backoffDelayMs(
      this.failures + 1,
      { initialMs: this.options.backoffInitialMs, maxMs: this.options.backoffMaxMs, jitter: BACKOFF_JITTER },
      this.options.random,
    );
    this.failures++;
    this.options.log(`${this.describe()}: ${message}; retrying in ${formatDelay(delay)} (attempt ${this.failures})`);
    await sleep(delay, this.stopController.signal);
  }

  private succeeded(): void {
    this.lastFailure = undefined;
    if (this.failures === 0) return;
    this.options.log(`${this.describe()}: API reachable again after ${this.failures} failed attempt(s)`);
    this.failures = 0;
  }

  private ref() {
    return { apiVersion: this.type.apiVersion, kind: this.type.kind, namespace: this.options.namespace };
  }

  private path(): string {
    return resourcePath(this.ref());
  }

  private describe(): string {
    const where = this.options.namespace ? ` in namespace ${this.options.namespace}` : '';
    const selector = this.options.labelSelector ? ` (labels ${this.options.labelSelector})` : '';
    return `informer for ${this.type.kind} ${this.type.apiVersion}${where}${selector} (kubeconfig ${this.client.label})`;
  }
}

function formatDelay(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** Resolves after `ms`, or at once when `signal` aborts; leaves no timer behind. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
