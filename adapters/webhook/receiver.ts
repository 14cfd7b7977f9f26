// A GitHub webhook receiver for `kimops apply --watch` (issue 6): a push to the watched branch asks for a
// sync at once instead of at the next poll. Every delivery is checked against X-Hub-Signature-256 (an
// HMAC-SHA256 of the raw body bytes with the shared secret, compared in constant time) before its body
// is even parsed. Plain HTTP on a loopback address by default: a reverse proxy or ingress terminates TLS.
// Outcomes are values, passed to `log`; bad input never throws and no response carries a stack trace.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isJsonObject } from '../../model/json.js';
import { MAIN_BRANCH } from '../../model/contract.js';
import { DEFAULT_HOST } from '../loopback.js';

/**
 * The largest body read. GitHub caps webhook payloads at 25 MB, but a push event lists at most 20 commits
 * (with their added/removed/modified paths): even a generator commit touching every Shoot of a large
 * landscape stays well below this. A larger delivery is refused (413) without being buffered — polling
 * still syncs that commit — so a client cannot make the receiver hold 25 MB per request.
 */
export const MAX_BODY_BYTES = 5 * 1024 * 1024;

/** A delivery whose upload (headers and body) takes longer is cut off: a slow client cannot hold a socket. */
const REQUEST_TIMEOUT_MS = 30_000;

/** What became of one delivery: the HTTP status answered and why. */
export interface WebhookOutcome {
  status: number;
  /** X-GitHub-Event and X-GitHub-Delivery, when the request carried them. */
  event?: string;
  delivery?: string;
  /** Set when the delivery asked for a sync: the pushed commit. */
  sha?: string;
  message: string;
}

export interface WebhookReceiverOptions {
  /** 0 picks a free port (read it from the result). */
  port: number;
  host?: string;
  /** The webhook's secret, as configured on GitHub. */
  secret: string;
  /** Pushes to other branches are answered and ignored. */
  branch?: string;
  /** A verified push to the branch: the commit it moved the branch to. */
  onPush: (sha: string) => void;
  log?: (outcome: WebhookOutcome) => void;
}

export interface WebhookReceiver {
  url: string;
  port: number;
  /** Stops listening and closes open connections; the port is free once this settles. */
  close(): Promise<void>;
}

const SIGNATURE_HEADER = 'x-hub-signature-256';
const SIGNATURE = /^sha256=([0-9a-f]{64})$/i;
/** A commit id: SHA-1 or SHA-256 repositories. */
const SHA = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

export async function startWebhookReceiver(options: WebhookReceiverOptions): Promise<WebhookReceiver> {
  if (options.secret === '') throw new Error('a webhook receiver needs a non-empty secret');
  const host = options.host ?? DEFAULT_HOST;
  const branch = options.branch ?? MAIN_BRANCH;
  const key = Buffer.from(options.secret, 'utf8');

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      // Not expected: answer without detail, keep the server up.
      finish(
        response,
        { status: 500, message: `internal error: ${error instanceof Error ? error.message : String(error)}` },
        'internal error',
      );
    });
  });
  server.requestTimeout = REQUEST_TIMEOUT_MS;
  server.headersTimeout = Math.min(server.headersTimeout, REQUEST_TIMEOUT_MS);

  const finish = (response: ServerResponse, outcome: WebhookOutcome, body = outcome.message) => {
    options.log?.(outcome);
    if (response.headersSent) return;
    response.writeHead(outcome.status, {
      'content-type': 'text/plain; charset=utf-8',
      ...(outcome.status >= 400 && { connection: 'close' }),
    });
    response.end(`${body}\n`);
  };

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const event = headerOf(request, 'x-github-event');
    const delivery = headerOf(request, 'x-github-delivery');
    const ids = { ...(event !== undefined && { event }), ...(delivery !== undefined && { delivery }) };
    const answer = (status: number, message: string, sha?: string) =>
      finish(response, { status, ...ids, ...(sha !== undefined && { sha }), message });

    if (request.method !== 'POST') {
      request.resume();
      response.setHeader('allow', 'POST');
      answer(405, `${request.method ?? 'this method'} is not accepted: GitHub delivers webhooks with POST`);
      return;
    }
    const body = await readBody(request);
    if (body === 'too-large')
      return answer(413, `body over ${MAX_BODY_BYTES} bytes refused; the next poll syncs the commit`);
    if (body === 'aborted') return answer(400, 'the request ended before its body was complete');

    const signature = headerOf(request, SIGNATURE_HEADER);
    if (signature === undefined) return answer(401, 'missing X-Hub-Signature-256 header: set a secret on the webhook');
    const given = SIGNATURE.exec(signature)?.[1];
    if (given === undefined)
      return answer(401, 'malformed X-Hub-Signature-256 header: expected sha256=<64 hex digits>');
    const expected = createHmac('sha256', key).update(body).digest();
    if (!timingSafeEqual(Buffer.from(given, 'hex'), expected)) {
      return answer(
        401,
        'X-Hub-Signature-256 does not match the body: check that the webhook and kimops share the same secret',
      );
    }

    if (event === undefined) return answer(400, 'missing X-GitHub-Event header');
    let payload: unknown;
    try {
      payload = JSON.parse(body.toString('utf8'));
    } catch {
      return answer(400, "body is not JSON: set the webhook's content type to application/json");
    }
    if (event === 'ping') return answer(200, 'pong');
    if (event !== 'push') return answer(202, `${event} event ignored: only push events start a sync`);

    const { ref, after, deleted } = isJsonObject(payload) ? payload : {};
    if (typeof ref !== 'string') return answer(400, 'push event without a ref');
    if (ref !== `refs/heads/${branch}`)
      return answer(202, `push to ${ref} ignored: only refs/heads/${branch} is synced`);
    if (deleted === true) return answer(202, `push deleting ${ref} ignored`);
    if (typeof after !== 'string' || !SHA.test(after)) return answer(400, 'push event without a commit id in "after"');
    options.onPush(after);
    return answer(202, `push to ${ref} at ${after.slice(0, 12)}: sync requested`, after);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  // After listening, a socket error belongs to one request (node answers it); keep the server up.
  server.on('error', (error) => options.log?.({ status: 500, message: `webhook receiver: ${error.message}` }));
  const { port } = server.address() as AddressInfo;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${port}/`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The raw body, or why there is none: bytes beyond MAX_BODY_BYTES are read and dropped, never kept. */
function readBody(request: IncomingMessage): Promise<Buffer | 'too-large' | 'aborted'> {
  return new Promise((resolve) => {
    const declared = Number(request.headers['content-length']);
    let size = 0;
    let tooLarge = Number.isFinite(declared) && declared > MAX_BODY_BYTES;
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) tooLarge = true;
      if (!tooLarge) chunks.push(chunk);
      else chunks.length = 0;
    });
    request.on('end', () => resolve(tooLarge ? 'too-large' : Buffer.concat(chunks)));
    request.on('aborted', () => resolve('aborted'));
    request.on('error', () => resolve('aborted'));
  });
}

function headerOf(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' ? value : undefined;
}
