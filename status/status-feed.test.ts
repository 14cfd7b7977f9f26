import { describe, expect, it } from 'vitest';
import { sampleStatus } from '../test/helpers/sample-status.js';
import type { StatusUpdate } from './landscape-status.js';
import { statusFeed } from './status-feed.js';

describe('statusFeed', () => {
  it('holds nothing before the first status, then the newest one', () => {
    const feed = statusFeed();
    expect(feed.current()).toBeUndefined();
    const first = sampleStatus(10);
    feed.publish(first);
    expect(feed.current()).toBe(first);
  });

  it('tells each listener the rows that changed since the status before; the first status is all new', () => {
    const feed = statusFeed();
    const heard: StatusUpdate[] = [];
    feed.subscribe((update) => heard.push(update));
    feed.publish(sampleStatus(10));
    const next = sampleStatus(10);
    const [first] = next.rows;
    if (first?.stage !== 'ready') throw new Error('the sample starts with a Ready row');
    next.rows[0] = { ...first, stage: 'failed' };
    feed.publish(next);
    expect(heard.map((update) => update.changed.length)).toEqual([10, 1]);
    expect(heard[1]?.changed[0]).toEqual({ ...first, stage: 'failed' });
  });

  it('stops telling a listener that unsubscribed, and keeps telling the others', () => {
    const feed = statusFeed();
    const heard: string[] = [];
    const stop = feed.subscribe(() => heard.push('a'));
    feed.subscribe(() => heard.push('b'));
    feed.publish(sampleStatus(3));
    stop();
    feed.publish(sampleStatus(3));
    expect(heard).toEqual(['a', 'b', 'b']);
  });
});
