import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { Counter, Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import type { LandscapeStatus, StatusUpdate } from '../../status/landscape-status.js';
import { statusFeed } from '../../status/status-feed.js';
import { sampleStatus } from '../../test/helpers/sample-status.js';
import { startStatusServer, type StatusServer, type StatusSource } from './server.js';

let server: StatusServer | undefined;
const streams: AbortController[] = [];
afterEach(async () => {
  for (const stream of streams.splice(0)) stream.abort();
  await server?.close();
  server = undefined;
});

const at = (path: string, init?: RequestInit) => fetch(new URL(path, server?.url), init);

/** A GET without Accept-Encoding (fetch always sends one): the body as sent. */
function plainGet(path: string): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    httpRequest(new URL(path, server?.url), (response) => {
      let body = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
    })
      .on('error', reject)
      .end();
  });
}

/** The status line the server answers `requestLine` with, sent as raw bytes: no client parses the target first. */
function statusLineOf(requestLine: string, host = 'localhost'): Promise<string> {
  const { port } = new URL(server?.url ?? '');
  return new Promise((resolve, reject) => {
    let answer = '';
    connect(Number(port), '127.0.0.1', function (this: Socket) {
      this.end(`${requestLine}\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
    })
      .setEncoding('utf8')
      .on('data', (chunk: string) => (answer += chunk))
      .on('end', () => resolve(answer.split('\r\n')[0] ?? ''))
      .on('error', reject);
  });
}

interface ServerEvent {
  event: string;
  id?: string;
  data?: unknown;
  comment?: string;
}

/** The server-sent events of `path`, parsed as a browser's EventSource does, comments too. */
async function* events(path: string, headers: Record<string, string> = {}): AsyncGenerator<ServerEvent> {
  const abort = new AbortController();
  streams.push(abort);
  const response = await at(path, { headers, signal: abort.signal });
  expect(response.headers.get('content-type')).toBe('text/event-stream');
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const lines = block.split('\n').map((line) => ({ name: line.slice(0, line.indexOf(':')), line }));
      // A field's lines joined by line breaks, as the browser joins an event's data lines.
      const value = (name: string) => {
        const found = lines.filter((field) => field.name === name).map(({ line }) => line.slice(name.length + 2));
        return found.length ? found.join('\n') : undefined;
      };
      if (value('') !== undefined) yield { event: 'comment', comment: value('') };
      else yield { event: value('event') ?? 'message', id: value('id'), data: JSON.parse(value('data') ?? 'null') };
    }
  }
}

async function next(stream: AsyncGenerator<ServerEvent>): Promise<ServerEvent> {
  const { value, done } = await stream.next();
  if (done) throw new Error('the event stream ended');
  return value;
}

function moved(status: LandscapeStatus, index: number, generatedAt: string): LandscapeStatus {
  const rows = status.rows.map((row, i) => (i === index ? { ...row, stage: 'failed' as const } : row));
  return { ...status, generatedAt, rows };
}

describe('startStatusServer', () => {
  it('serves the page with headers that keep it to its own origin, and nothing outside its files', async () => {
    server = await startStatusServer({ port: 0, feed: statusFeed() });
    const page = await at('/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(await page.text()).toContain('<script type="module" src="app.js">');
    expect((await at('/app.js')).headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect((await at('/style.css')).headers.get('content-type')).toBe('text/css; charset=utf-8');
    for (const path of ['/package.json', '/../package.json', '/%2e%2e/package.json', '/page/app.js', '/app.js/'])
      expect([path, (await plainGet(path)).status]).toEqual([path, 404]);
    // A request-target no URL parser takes is a 404 like any other, not a crash of the server.
    expect(await statusLineOf('GET http://[ HTTP/1.1')).toBe('HTTP/1.1 404 Not Found');
    expect((await at('/')).status).toBe(200);
    const post = await at('/api/status', { method: 'POST' });
    expect([post.status, post.headers.get('allow')]).toEqual([405, 'GET, HEAD']);
    expect((await at('/', { method: 'HEAD' })).status).toBe(200);
  });

  it('answers /api/status 503 with the reason before the first status, then the status, gzipped if asked', async () => {
    const feed = statusFeed();
    server = await startStatusServer({ port: 0, feed });
    const early = await at('/api/status');
    expect([early.status, await early.text()]).toEqual([
      503,
      'no status yet: the first pass over the landscape has not finished\n',
    ]);
    const status = sampleStatus(40);
    feed.publish(status);
    const zipped = await at('/api/status', { headers: { 'accept-encoding': 'gzip' } });
    expect(zipped.headers.get('content-encoding')).toBe('gzip');
    expect(zipped.headers.get('cache-control')).toBe('no-store');
    expect(await zipped.json()).toEqual(status);
    const plain = await plainGet('/api/status');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers['content-type']).toBe('application/json');
    expect(JSON.parse(plain.body)).toEqual(status);
  });

  it('writes the status with everything landscape-wide first, then one row to a line, for a page that reads it as it comes', async () => {
    const feed = statusFeed();
    server = await startStatusServer({ port: 0, feed });
    const status = sampleStatus(40);
    const [failed] = status.rows.filter((row) => row.failure);
    if (failed?.failure) failed.failure.message = 'a message\nof two lines, "quoted"';
    feed.publish(status);
    const { body } = await plainGet('/api/status');
    const lines = body.split('\n');
    expect(lines).toHaveLength(status.rows.length + 2);
    const { rows, ...head } = status;
    expect(JSON.parse(`${lines[0]}]}`)).toEqual({ ...head, rows: [] });
    expect(lines.slice(1, -1).map((line) => JSON.parse(line.replace(/,$/, '')))).toEqual(rows);
    expect(lines.at(-1)).toBe(']}');
    expect(JSON.parse(body)).toEqual(status);
  });

  it('streams the whole status on connect, then each update; a page that connects early waits for the first', async () => {
    const feed = statusFeed();
    const counted = countingListeners(feed);
    server = await startStatusServer({ port: 0, feed: counted });
    const own = counted.listeners();
    const early = events('/api/events');
    const first = next(early);
    await waitForListeners(counted, own + 1);
    const status = sampleStatus(30);
    feed.publish(status);
    expect(await first).toEqual({ event: 'status', id: status.generatedAt, data: status });

    const late = events('/api/events', { 'accept-encoding': 'gzip' });
    expect((await next(late)).data).toEqual(status);

    const moving = moved(status, 7, '2026-12-02T10:01:00Z');
    feed.publish(moving);
    for (const stream of [early, late]) {
      const update = await next(stream);
      expect(update.event).toBe('update');
      expect(update.id).toBe('2026-12-02T10:01:00Z');
      expect((update.data as StatusUpdate).changed).toEqual([moving.rows[7]]);
      expect((update.data as StatusUpdate).removed).toEqual([]);
    }
  });

  it('answers a stream at once before the first status, so the page can say it is connected', async () => {
    server = await startStatusServer({ port: 0, feed: statusFeed() });
    for (const headers of [{}, { 'accept-encoding': 'gzip' }]) {
      const abort = new AbortController();
      streams.push(abort);
      // Well before the first heartbeat, which would send them anyway.
      const response = await at('/api/events', {
        headers,
        signal: AbortSignal.any([abort.signal, AbortSignal.timeout(2000)]),
      });
      expect(response.status).toBe(200);
    }
  });

  it('sends a page that already holds the current status (?since= or Last-Event-ID) only what follows', async () => {
    const feed = statusFeed();
    const status = sampleStatus(20);
    feed.publish(status);
    server = await startStatusServer({ port: 0, feed });
    for (const [path, headers] of [
      [`/api/events?since=${encodeURIComponent(status.generatedAt)}`, {}],
      ['/api/events?since=stale', { 'last-event-id': status.generatedAt }],
    ] as const) {
      const stream = events(path, headers);
      expect(await next(stream)).toEqual({ event: 'comment', comment: 'up to date' });
    }
    const stale = events('/api/events?since=2026-01-01T00:00:00Z');
    expect((await next(stale)).event).toBe('status');
  });

  it('forgets a stream when its page goes, and serves many at once', async () => {
    const feed = statusFeed();
    feed.publish(sampleStatus(5));
    const counted = countingListeners(feed);
    server = await startStatusServer({ port: 0, feed: counted });
    const own = counted.listeners();
    const pages = Array.from({ length: 12 }, () => events('/api/events'));
    await Promise.all(pages.map(next));
    expect(counted.listeners()).toBe(own + 12);
    for (const stream of streams.splice(0)) stream.abort();
    await waitForListeners(counted, own);
  });

  it('refuses a stream beyond its limit, and a Host that is not loopback while it listens on loopback', async () => {
    server = await startStatusServer({ port: 0, feed: statusFeed(), maxStreams: 1 });
    const first = events('/api/events');
    await first.next();
    const refused = await at('/api/events');
    expect([refused.status, refused.headers.get('retry-after')]).toEqual([503, '30']);
    expect(await refused.text()).toBe('1 live streams are open already: try again shortly\n');
    // A page elsewhere that points its own name at 127.0.0.1 (DNS rebinding) reads nothing.
    expect(await statusLineOf('GET /api/status HTTP/1.1', 'rebound.example:8090')).toBe(
      'HTTP/1.1 421 Misdirected Request',
    );
    expect(await statusLineOf('GET / HTTP/1.1', 'localhost:8090')).toBe('HTTP/1.1 200 OK');
  });

  it('answers /metrics, /healthz and /readyz when given a registry and probes, as the metrics endpoint does', async () => {
    const registry = new Registry();
    new Counter({ name: 'kimops_test_pages_total', help: 'pages', registers: [registry] }).inc(2);
    server = await startStatusServer({
      port: 0,
      feed: statusFeed(),
      registry,
      probes: { live: () => ({ ok: true, message: 'running' }), ready: () => ({ ok: false, message: 'no pass yet' }) },
    });
    expect(await (await at('/metrics')).text()).toContain('kimops_test_pages_total 2');
    expect((await at('/healthz')).status).toBe(200);
    const ready = await at('/readyz');
    expect([ready.status, await ready.text()]).toEqual([503, 'not ok: no pass yet\n']);
    expect(ready.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('has no /metrics or probes unless given them', async () => {
    server = await startStatusServer({ port: 0, feed: statusFeed() });
    for (const path of ['/metrics', '/healthz', '/readyz']) expect((await at(path)).status).toBe(404);
  });
});

/** `feed` with a count of its listeners (the server's own among them), to see a stream's subscription end with its page. */
function countingListeners(feed: StatusSource): StatusSource & { listeners(): number } {
  let listeners = 0;
  return {
    current: () => feed.current(),
    subscribe(listener) {
      listeners++;
      const stop = feed.subscribe(listener);
      return () => {
        listeners--;
        stop();
      };
    },
    listeners: () => listeners,
  };
}

/** Until `feed` has `count` listeners: the server subscribes when a stream's request arrives, a little later. */
async function waitForListeners(feed: ReturnType<typeof countingListeners>, count: number): Promise<void> {
  await expect.poll(() => feed.listeners()).toBe(count);
}
