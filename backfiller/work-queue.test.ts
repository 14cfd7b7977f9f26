import { describe, expect, it } from 'vitest';
import { WorkQueue } from './work-queue.js';

/** A processor whose runs the test finishes by hand: no timers, every step in the test's order. */
function scripted<K>() {
  const started: K[] = [];
  const pending = new Map<K, ((result: string) => void)[]>();
  const process = (key: K) =>
    new Promise<string>((resolve) => {
      started.push(key);
      pending.set(key, [...(pending.get(key) ?? []), resolve]);
    });
  /** Finishes the oldest running run of `key` with `result`, then lets the queue react. */
  const finish = async (key: K, result = `${String(key)} done`) => {
    const resolve = pending.get(key)?.shift();
    if (!resolve) throw new Error(`${String(key)} is not running`);
    resolve(result);
    await settled();
  };
  const running = () => [...pending].filter(([, list]) => list.length > 0).map(([key]) => key);
  return { process, started, finish, running };
}

/** Every promise callback queued so far has run. */
const settled = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('WorkQueue', () => {
  it('queues a key at most once: adding a queued key again does not run it twice', async () => {
    const work = scripted<string>();
    const queue = new WorkQueue({ process: work.process, concurrency: 1 });
    queue.add('a');
    queue.add('b');
    queue.add('b');
    queue.add('b', 'routine');
    await work.finish('a');
    await work.finish('b');
    expect(work.started).toEqual(['a', 'b']);
    await queue.idle();
  });

  it('never runs a key twice at once: added while running, it runs once more after, however often it was added', async () => {
    const work = scripted<string>();
    const queue = new WorkQueue({ process: work.process, concurrency: 4 });
    queue.add('a');
    queue.add('a');
    queue.add('a', 'routine');
    expect(work.running()).toEqual(['a']);
    await work.finish('a');
    expect(work.started).toEqual(['a', 'a']);
    await work.finish('a');
    expect(work.started).toEqual(['a', 'a']);
    await queue.idle();
  });

  it('runs at most `concurrency` keys at once, starting the next as one finishes', async () => {
    const work = scripted<string>();
    const queue = new WorkQueue({ process: work.process, concurrency: 2 });
    for (const key of ['a', 'b', 'c', 'd']) queue.add(key);
    expect(work.running()).toEqual(['a', 'b']);
    await work.finish('b');
    expect(work.running()).toEqual(['a', 'c']);
    await work.finish('a');
    await work.finish('c');
    expect(work.running()).toEqual(['d']);
    await work.finish('d');
    expect(work.started).toEqual(['a', 'b', 'c', 'd']);
  });

  it('runs urgent keys before routine ones, and an urgent add moves a queued routine key ahead', async () => {
    const work = scripted<string>();
    const queue = new WorkQueue({ process: work.process, concurrency: 1 });
    queue.add('busy');
    queue.add('r1', 'routine');
    queue.add('r2', 'routine');
    queue.add('u1', 'urgent');
    queue.add('r2', 'urgent');
    queue.add('u1', 'routine'); // already urgent: stays where it is
    for (const key of ['busy', 'u1', 'r2', 'r1']) await work.finish(key);
    expect(work.started).toEqual(['busy', 'u1', 'r2', 'r1']);
  });

  it('a key added while it runs runs again as urgent, ahead of queued routine keys', async () => {
    const work = scripted<string>();
    const queue = new WorkQueue({ process: work.process, concurrency: 1 });
    queue.add('a');
    queue.add('r', 'routine');
    queue.add('a', 'routine');
    await work.finish('a');
    expect(work.running()).toEqual(['a']);
    await work.finish('a');
    await work.finish('r');
    expect(work.started).toEqual(['a', 'a', 'r']);
  });

  it('done resolves with the result of a run that starts after the call: the last one, when it runs again', async () => {
    const work = scripted<string>();
    const queue = new WorkQueue({ process: work.process, concurrency: 1 });
    queue.add('busy');
    const first = queue.done('a', 'routine');
    const second = queue.done('a', 'routine'); // still queued: the same run answers both
    await work.finish('busy');
    await work.finish('a', 'run 1');
    expect(await first).toBe('run 1');
    expect(await second).toBe('run 1');

    const early = queue.done('a');
    const later = queue.done('a'); // a run has started already: the one after it answers both
    await work.finish('a', 'run 2');
    await work.finish('a', 'run 3');
    expect(await early).toBe('run 3');
    expect(await later).toBe('run 3');
  });

  it('runs nothing until ready, then everything queued meanwhile on pump()', async () => {
    const work = scripted<string>();
    let ready = false;
    const queue = new WorkQueue({ process: work.process, concurrency: 2, ready: () => ready });
    queue.add('a');
    queue.add('b', 'routine');
    await settled();
    expect(work.started).toEqual([]);
    let idle = false;
    void queue.idle().then(() => (idle = true));
    await settled();
    expect(idle).toBe(false);
    ready = true;
    queue.pump();
    expect(work.running()).toEqual(['a', 'b']);
    await work.finish('a');
    await work.finish('b');
    expect(idle).toBe(true);
  });

  it('idle resolves at once when nothing is queued or running, and after the last run otherwise', async () => {
    const work = scripted<string>();
    const queue = new WorkQueue({ process: work.process, concurrency: 1 });
    await queue.idle();
    queue.add('a');
    let idle = false;
    void queue.idle().then(() => (idle = true));
    await settled();
    expect(idle).toBe(false);
    await work.finish('a');
    expect(idle).toBe(true);
  });

  it('close drops queued keys (their done callers get undefined), lets running ones finish without a rerun, and takes no more', async () => {
    const work = scripted<string>();
    const queue = new WorkQueue({ process: work.process, concurrency: 1 });
    const running = queue.done('a');
    queue.add('a'); // would run again after
    const dropped = queue.done('b');
    queue.close();
    expect(await dropped).toBeUndefined();
    queue.add('c');
    expect(await queue.done('c')).toBeUndefined();
    let idle = false;
    void queue.idle().then(() => (idle = true));
    await settled();
    expect(idle).toBe(false);
    await work.finish('a', 'last');
    expect(await running).toBe('last');
    expect(idle).toBe(true);
    expect(work.started).toEqual(['a']);
  });

  it('a run that rejects answers its done callers with undefined and the queue carries on', async () => {
    const started: string[] = [];
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const queue = new WorkQueue<string, string>({
        process: async (key) => {
          started.push(key);
          if (key === 'bad') throw new Error('bug');
          return key;
        },
        concurrency: 1,
      });
      const bad = queue.done('bad');
      const good = queue.done('good');
      expect(await bad).toBeUndefined();
      expect(await good).toBe('good');
      await settled();
      expect(started).toEqual(['bad', 'good']);
      expect(unhandled).toEqual([new Error('bug')]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
