// A keyed work queue in the manner of client-go's workqueue: a key is queued at most once, never processed twice
// at the same time, and at most `concurrency` keys run at once. Two priorities, because an event (KEB waits for
// the status four seconds after its update) must not wait behind a periodic pass over every key. Nothing here
// knows what a key stands for; there are no retries: a failed key is left to whoever adds it next.

/** `urgent` keys run before `routine` ones; a queued routine key added again as urgent moves ahead. */
type Priority = 'urgent' | 'routine';

interface WorkQueueOptions<K, R> {
  /**
   * Processes one key; its result goes to the key's `done` callers. It should not reject: a rejection leaves
   * those callers with undefined and surfaces as an unhandled rejection, as a bug should.
   */
  process(key: K): Promise<R | undefined>;
  /** Keys processed at once. */
  concurrency: number;
  /** Whether keys may run yet (e.g. once the caches they read have synced); queued keys wait until `pump()`. */
  ready?: () => boolean;
}

export class WorkQueue<K, R> {
  // Insertion-ordered sets: a key is in at most one of them.
  private readonly urgent = new Set<K>();
  private readonly routine = new Set<K>();
  private readonly running = new Set<K>();
  /** Keys added while they ran: they run once more, as urgent, before their `done` callers hear. */
  private readonly again = new Set<K>();
  private readonly waiters = new Map<K, ((result: R | undefined) => void)[]>();
  private idleWaiters: (() => void)[] = [];
  private closed = false;

  constructor(private readonly options: WorkQueueOptions<K, R>) {}

  /** Queues `key` unless it is queued already (then an urgent add moves it ahead); one running now runs again after. */
  add(key: K, priority: Priority = 'urgent'): void {
    if (this.closed) return;
    if (this.running.has(key)) {
      this.again.add(key);
      return;
    }
    if (this.urgent.has(key)) return;
    if (this.routine.has(key)) {
      if (priority === 'urgent') {
        this.routine.delete(key);
        this.urgent.add(key);
      }
      return;
    }
    (priority === 'urgent' ? this.urgent : this.routine).add(key);
    this.pump();
  }

  /**
   * Queues `key` (as `add`) and resolves with the result of a run that started after this call — the last one
   * when the key was added again meanwhile — or with undefined when the queue is closed before such a run.
   */
  done(key: K, priority: Priority = 'urgent'): Promise<R | undefined> {
    if (this.closed) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      this.waiters.set(key, [...(this.waiters.get(key) ?? []), resolve]);
      this.add(key, priority);
    });
  }

  /** Starts queued keys up to the concurrency, when `ready`; call it once `ready` turns true. */
  pump(): void {
    while (!this.closed && (this.options.ready?.() ?? true) && this.running.size < this.options.concurrency) {
      const key = takeFirst(this.urgent) ?? takeFirst(this.routine);
      if (key === undefined) break;
      this.running.add(key);
      void this.run(key);
    }
    this.checkIdle();
  }

  /** Resolves when no key is queued or running. */
  idle(): Promise<void> {
    return new Promise((resolve) => {
      this.idleWaiters.push(resolve);
      this.checkIdle();
    });
  }

  /** Drops the queued keys (their `done` callers get undefined); running keys finish, and are not run again. */
  close(): void {
    this.closed = true;
    const dropped = [...this.urgent, ...this.routine];
    this.urgent.clear();
    this.routine.clear();
    for (const key of dropped) this.settle(key, undefined);
    this.checkIdle();
  }

  private async run(key: K): Promise<void> {
    let result: R | undefined;
    try {
      result = await this.options.process(key);
    } finally {
      this.running.delete(key);
      if (this.again.delete(key) && !this.closed) this.add(key, 'urgent');
      else this.settle(key, result);
      this.pump();
    }
  }

  private settle(key: K, result: R | undefined): void {
    const waiting = this.waiters.get(key);
    this.waiters.delete(key);
    for (const resolve of waiting ?? []) resolve(result);
  }

  private checkIdle(): void {
    if (this.urgent.size > 0 || this.routine.size > 0 || this.running.size > 0) return;
    const waiting = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiting) resolve();
  }
}

function takeFirst<K>(set: Set<K>): K | undefined {
  for (const key of set) {
    set.delete(key);
    return key;
  }
  return undefined;
}
