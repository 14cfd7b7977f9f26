// The status page of a running service: its static files (status/page/), the current LandscapeStatus as JSON
// (/api/status) and its changes as server-sent events (/api/events), and, when given a registry and probes, the
// same /metrics, /healthz and /readyz as the metrics endpoint. Read-only: GET and HEAD only. Plain HTTP on a
// loopback address by default, like the metrics endpoint; every answer forbids the page to load anything from
// elsewhere (Content-Security-Policy), so the page works on a closed network and a row's text cannot run as code.
import { readFileSync, readdirSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { promisify } from 'node:util';
import { createGzip, gzip, constants as zlib } from 'node:zlib';
import type { Registry } from 'prom-client';
import { packagePath } from '../../model/package-root.js';
import { DEFAULT_HOST } from '../loopback.js';
import { listen, metricsHandler, type Probes } from '../metrics/server.js';

/**
 * What the server shows: the newest status and each change of it as it happens (status/status-feed.ts: a
 * LandscapeStatus and StatusUpdates). The server sends them as they are and reads only when each was made, so it
 * knows nothing of the status's contents, as an adapter knows nothing of what the view decides.
 */
export interface StatusSource {
  current(): StatusDocument | undefined;
  subscribe(listener: (update: StatusDocument) => void): () => void;
}

/**
 * A status or an update: JSON with the moment it was made (RFC 3339), the id of its server-sent event, and a
 * status's rows, which the server writes last and one to a line (statusJson).
 */
interface StatusDocument {
  generatedAt: string;
  rows?: unknown[];
}

export interface StatusServer {
  /** The page's address, `http://host:port/`. */
  url: string;
  close(): Promise<void>;
}

const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'self'; style-src 'self'; script-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};
const CONTENT_TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
};
/** A proxy or idle timeout may close a quiet stream; a comment line now and then keeps it open. */
const HEARTBEAT_MS = 15_000;
/**
 * A client that reads slower than the updates come is cut off; it reconnects and gets the whole status anew. Twice
 * a status of 10,000 rows: with MAX_STREAMS, what slow pages can hold stays within the service's memory.
 */
const MAX_BUFFERED_BYTES = 16 * 1024 * 1024;
/** Open live streams at most, by default; the next is refused (503, retry) rather than let readers exhaust the service. */
const MAX_STREAMS = 100;

const gzipAsync = promisify(gzip);

export async function startStatusServer({
  port,
  host = DEFAULT_HOST,
  feed,
  registry,
  probes,
  maxStreams = MAX_STREAMS,
}: {
  port: number;
  host?: string;
  feed: StatusSource;
  registry?: Registry;
  probes?: Probes;
  maxStreams?: number;
}): Promise<StatusServer> {
  const files = pageFiles();
  const metrics = metricsHandler({ ...(registry && { registry }), ...(probes && { probes }) });
  const body = serialised();
  // Each new status is serialised and compressed as it comes, not when the first page asks for it.
  const prepare = () =>
    setImmediate(() => {
      const status = feed.current();
      if (status) body.status(status);
    });
  prepare();
  const stopPreparing = feed.subscribe(prepare);
  let streams = 0;
  const server = createServer((request, response) => {
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) response.setHeader(name, value);
    if (!hostAllowed(host, request.headers.host)) {
      text(response, 421, 'this page answers to localhost, 127.0.0.1 or [::1] only: open it by one of them');
      return;
    }
    if (metrics(request, response)) return;
    // Split by hand, not by `new URL`: a request-target it refuses (`GET http://[`) would throw out of the server.
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    const file = files.get(path === '/' ? '/index.html' : path);
    if (!file && path !== '/api/status' && path !== '/api/events') {
      text(response, 404, `not found: ${path} (the status page is at /)`);
      return;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.setHeader('allow', 'GET, HEAD');
      text(response, 405, 'the status page is read-only: use GET');
      return;
    }
    if (file) {
      response.writeHead(200, { 'content-type': file.type, 'cache-control': 'no-cache' });
      response.end(request.method === 'HEAD' ? undefined : file.body);
    } else if (path === '/api/status') serveStatus(request, response, feed.current(), body);
    else if (streams >= maxStreams) {
      response.setHeader('retry-after', '30');
      text(response, 503, `${maxStreams} live streams are open already: try again shortly`);
    } else {
      streams += 1;
      response.on('close', () => (streams -= 1));
      serveEvents(request, response, feed, body);
    }
  });
  const { origin, close } = await listen(server, port, host);
  return {
    url: `${origin}/`,
    close: () => {
      stopPreparing();
      return close();
    },
  };
}

/**
 * The page's files, read once at the start: every .html, .js and .css file of status/page/ by its name. A request
 * is only ever looked up in this map, never joined to a path, so nothing outside those files can be served.
 */
function pageFiles(): Map<string, { type: string; body: Buffer }> {
  const folder = packagePath('status', 'page');
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch (error) {
    throw new Error(`the status page's files are missing (${folder}: ${String(error)}): reinstall kimops`, {
      cause: error,
    });
  }
  const files = new Map<string, { type: string; body: Buffer }>();
  for (const name of names) {
    const type = CONTENT_TYPES[/^[a-z0-9-]+\.(html|js|css)$/.exec(name)?.[1] ?? ''];
    if (type) files.set(`/${name}`, { type, body: readFileSync(`${folder}/${name}`) });
  }
  if (!files.has('/index.html')) throw new Error(`the status page has no ${folder}/index.html: reinstall kimops`);
  return files;
}

interface Serialised {
  /** The status as JSON and gzipped, made once per status however many pages ask. */
  status(status: StatusDocument): { json: string; gzipped: Promise<Buffer> };
  /** An update as JSON, made once however many streams send it. */
  update(update: StatusDocument): string;
}

function serialised(): Serialised {
  let last: { status: StatusDocument; json: string; gzipped: Promise<Buffer> } | undefined;
  const updates = new WeakMap<StatusDocument, string>();
  return {
    status(status) {
      if (last?.status !== status) {
        const json = statusJson(status);
        // The fastest level: at 10,000 rows it packs the JSON about six-fold in a tenth of the time of the default.
        const gzipped = gzipAsync(json, { level: zlib.Z_BEST_SPEED });
        // Prepared before anyone asks: a failure is answered to whoever asks (serveStatus), never left unhandled.
        gzipped.catch(() => undefined);
        last = { status, json, gzipped };
      }
      return last;
    },
    update(update) {
      let json = updates.get(update);
      if (json === undefined) {
        json = JSON.stringify(update);
        updates.set(update, json);
      }
      return json;
    },
  };
}

/**
 * The status as JSON, everything landscape-wide on the first line and then its rows, one to a line: the same
 * document (JSON allows a line break between an array's elements, and JSON.stringify escapes those inside strings),
 * but a page that reads it as it comes can paint the summary and the first screen of rows from the first lines,
 * long before the last of 10,000 rows has arrived.
 */
export function statusJson(status: StatusDocument): string {
  const { rows, ...head } = status;
  if (!rows) return JSON.stringify(status);
  const first = JSON.stringify({ ...head, rows: [] });
  return `${first.slice(0, -2)}\n${rows.map((row) => JSON.stringify(row)).join(',\n')}\n]}`;
}

function serveStatus(
  request: IncomingMessage,
  response: ServerResponse,
  status: StatusDocument | undefined,
  body: Serialised,
): void {
  if (!status) {
    text(response, 503, 'no status yet: the first pass over the landscape has not finished');
    return;
  }
  const { json, gzipped } = body.status(status);
  const headers = { 'content-type': 'application/json', 'cache-control': 'no-store', vary: 'accept-encoding' };
  if (!acceptsGzip(request)) {
    response.writeHead(200, headers).end(request.method === 'HEAD' ? undefined : json);
    return;
  }
  gzipped.then(
    (zipped) =>
      response
        .writeHead(200, { ...headers, 'content-encoding': 'gzip' })
        .end(request.method === 'HEAD' ? undefined : zipped),
    (error: unknown) => text(response, 500, `the status could not be compressed: ${String(error)}`),
  );
}

/**
 * The live stream: the whole status once (event `status`), then each change (event `update`). Each event's id is
 * its status's generatedAt, so a page that reconnects, or comes with `?since=` the status it already holds, is
 * sent only what it lacks. Compressed as it goes when the client accepts gzip: the first event is the big one.
 */
function serveEvents(request: IncomingMessage, response: ServerResponse, feed: StatusSource, body: Serialised): void {
  const gzipped = acceptsGzip(request);
  response.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-store',
    'x-accel-buffering': 'no',
    ...(gzipped && { 'content-encoding': 'gzip', vary: 'accept-encoding' }),
  });
  if (request.method === 'HEAD') {
    response.end();
    return;
  }
  // Sent now, not with the first event: before the first status there is none, and the page's EventSource says
  // "Live" only once it has the headers.
  response.flushHeaders();
  const out = gzipped ? createGzip({ flush: zlib.Z_SYNC_FLUSH }) : undefined;
  out?.pipe(response);
  const send = (text: string) => {
    if (response.destroyed) return;
    if (response.writableLength + (out?.writableLength ?? 0) > MAX_BUFFERED_BYTES) {
      response.destroy();
      return;
    }
    if (out) {
      out.write(text);
      out.flush();
    } else response.write(text);
  };
  const since =
    request.headers['last-event-id'] ?? new URLSearchParams((request.url ?? '').split('?')[1] ?? '').get('since');
  let held = feed.current()?.generatedAt === since ? since : undefined;
  const sendStatus = (status: StatusDocument | undefined) => {
    if (!status) return;
    send(event('status', status.generatedAt, body.status(status).json));
    held = status.generatedAt;
  };
  if (held) send(': up to date\n\n');
  else sendStatus(feed.current());
  const unsubscribe = feed.subscribe((update) => {
    if (held) send(event('update', update.generatedAt, body.update(update)));
    else sendStatus(feed.current());
  });
  const heartbeat = setInterval(() => send(': heartbeat\n\n'), HEARTBEAT_MS);
  // The response's close, not the request's: that one comes as soon as the request has been read.
  response.on('close', () => {
    clearInterval(heartbeat);
    unsubscribe();
    out?.destroy();
  });
}

/** Each line of `json` a data line of its own; the browser joins them with line breaks, as they were. */
function event(name: string, id: string, json: string): string {
  return `event: ${name}\nid: ${id.replace(/[\r\n]/g, '')}\ndata: ${json.replaceAll('\n', '\ndata: ')}\n\n`;
}

function acceptsGzip(request: IncomingMessage): boolean {
  return /\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''));
}

function text(response: ServerResponse, status: number, line: string): void {
  response.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
  response.end(`${line}\n`);
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Bound to a loopback address, the page answers only requests for a loopback name: a web page elsewhere that
 * points a DNS name of its own at 127.0.0.1 (DNS rebinding) reads nothing. Bound to any other address (behind the
 * KCP's proxy or a Service) the Host is the proxy's to check.
 */
function hostAllowed(bound: string, hostHeader: string | undefined): boolean {
  if (!LOOPBACK_NAMES.has(bound) && bound !== '::1') return true;
  const name = (hostHeader ?? '').replace(/:\d+$/, '').toLowerCase();
  return LOOPBACK_NAMES.has(name);
}
