// A loopback HTTP proxy in front of the Garden API, for tests and benchmarks that need to see or cut the
// applier's traffic: every request is forwarded over https with the upstream kubeconfig's credentials,
// bodies streamed both ways (watches work), and recorded once it completes. stop() makes the Garden look
// unreachable (the listener closes: ECONNREFUSED), start() brings it back on the same port. Nothing in it is
// Gardener's: put in front of the KCP's kubeconfig, it records a loop's KCP traffic the same way.
//
// The proxy's own kubeconfig is plain http without credentials: @kubernetes/client-node refuses an
// http server unless the cluster says insecure-skip-tls-verify, so it does (there is no TLS to verify).
import { writeFileSync } from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { stringify } from 'yaml';

export interface ProxiedRequest {
  method: string;
  /** When the request arrived (ms since the epoch). */
  at: number;
  /** The request target as the client sent it: path and query, e.g. `/api/v1/namespaces?limit=500`. */
  path: string;
  /**
   * The Garden's status code; 502 when the Garden could not be reached or failed mid-response before its
   * headers; 0 when the request was cut before it reached the Garden (the client went away mid-body).
   */
  status: number;
}

export interface GardenProxy {
  /** A kubeconfig file (written into options.dir) pointing at the proxy: http://127.0.0.1:<port>, no credentials. */
  kubeconfigPath: string;
  url: string;
  /** Completed requests, in order (watch requests appear when they end). */
  readonly requests: readonly ProxiedRequest[];
  reset(): void;
  /** Close the listener and destroy open connections: the Garden looks unreachable (ECONNREFUSED). */
  stop(): Promise<void>;
  /** Listen again on the same port. */
  start(): Promise<void>;
  close(): Promise<void>;
}

/** Headers that belong to one connection, never forwarded (RFC 9110 §7.6.1). */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);
/** How long stop() lets requests that already reached the Garden finish before it cuts them. */
const DRAIN_MS = 10_000;

interface Upstream {
  url: URL;
  agent: https.Agent;
  /** Authorization (a token) when the kubeconfig has one; client certificates live in the agent. */
  headers: Record<string, string>;
}

/** The upstream server, TLS material and credentials of a kubeconfig's current context. */
async function upstreamOf(kubeconfig: string): Promise<Upstream> {
  const config = new KubeConfig();
  config.loadFromFile(kubeconfig);
  const cluster = config.getCurrentCluster();
  if (!cluster) throw new Error(`garden proxy: ${kubeconfig} has no current cluster`);
  const url = new URL(cluster.server);
  if (url.protocol !== 'https:')
    throw new Error(
      `garden proxy: ${kubeconfig} points at ${cluster.server}; the proxy forwards to https servers only`,
    );
  const options: https.RequestOptions = {};
  await config.applyToHTTPSOptions(options);
  const agent = new https.Agent({
    keepAlive: true,
    ...(options.ca !== undefined && { ca: options.ca }),
    ...(options.cert !== undefined && { cert: options.cert }),
    ...(options.key !== undefined && { key: options.key }),
    ...(options.servername !== undefined && { servername: options.servername }),
    ...(options.rejectUnauthorized !== undefined && { rejectUnauthorized: options.rejectUnauthorized }),
  });
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(options.headers ?? {}))
    if (typeof value === 'string') headers[name] = value;
  if (options.auth) headers.authorization = `Basic ${Buffer.from(options.auth).toString('base64')}`;
  return { url, agent, headers };
}

function forwardedHeaders(headers: http.IncomingHttpHeaders | http.OutgoingHttpHeaders): http.OutgoingHttpHeaders {
  const out: http.OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers))
    if (value !== undefined && !HOP_BY_HOP.has(name.toLowerCase())) out[name] = value;
  return out;
}

/**
 * Every request but a read (GET: get, list and watch alike) the proxy saw since request number `from`, as
 * `METHOD path`: what a test that must prove "writes nothing" asserts empty.
 */
export function writesSeen(proxy: Pick<GardenProxy, 'requests'>, from = 0): string[] {
  return proxy.requests
    .slice(from)
    .filter((r) => r.method !== 'GET')
    .map((r) => `${r.method} ${r.path}`);
}

export async function startGardenProxy(options: { kubeconfig: string; dir: string }): Promise<GardenProxy> {
  const upstream = await upstreamOf(options.kubeconfig);
  const requests: ProxiedRequest[] = [];
  /** Client connections of the current listener, destroyed by stop(). */
  const sockets = new Set<Socket>();
  /** Requests forwarded and not yet finished: stop() waits for them (or cuts them if they stream). */
  const inFlight = new Map<http.ClientRequest, { streaming: boolean; done: Promise<void> }>();
  let server: http.Server | undefined;
  let port = 0;

  const handle = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const method = req.method ?? 'GET';
    const path = req.url ?? '/';
    const at = Date.now();
    let recorded = false;
    /** The client sent its whole body: the Garden may act on the request now. */
    let bodyComplete = false;
    let finish!: () => void;
    const done = new Promise<void>((resolve) => (finish = resolve));
    const record = (status: number) => {
      if (recorded) return;
      recorded = true;
      requests.push({ method, at, path, status });
      inFlight.delete(forward);
      finish();
    };
    const headers = { ...forwardedHeaders(req.headers), ...upstream.headers, host: upstream.url.host };
    const forward = https.request(new URL(path, upstream.url), { method, headers, agent: upstream.agent }, (answer) => {
      const entry = inFlight.get(forward);
      if (entry) entry.streaming = true;
      const status = answer.statusCode ?? 502;
      if (!res.destroyed) {
        res.writeHead(status, answer.statusMessage, forwardedHeaders(answer.headers));
        res.flushHeaders(); // a watch's client sees the 200 before the first event
      }
      answer.on('data', (chunk: Buffer) => void (res.destroyed || res.write(chunk)));
      answer.on('end', () => {
        res.end();
        record(status);
      });
      answer.on('error', () => {
        res.destroy();
        record(status);
      });
      answer.on('close', () => {
        if (!answer.complete) res.destroy();
        record(status);
      });
    });
    inFlight.set(forward, { streaming: false, done });
    forward.on('error', (error) => {
      if (!res.headersSent && !res.destroyed) {
        res.writeHead(502, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({ kind: 'Status', status: 'Failure', code: 502, message: `garden proxy: ${error.message}` }),
        );
      } else res.destroy();
      record(bodyComplete ? 502 : 0);
    });
    // The client going away mid-body cuts the request; once the body is complete the Garden is working on it,
    // so it runs to its end (a write the client sent is not undone by the client dying) unless it streams.
    req.on('end', () => (bodyComplete = true));
    req.pipe(forward);
    res.on('close', () => {
      if (!recorded && (!bodyComplete || inFlight.get(forward)?.streaming)) forward.destroy();
    });
  };

  const listen = (on: number) =>
    new Promise<void>((resolve, reject) => {
      const created = http.createServer(handle);
      created.on('connection', (socket) => {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
      });
      created.once('error', reject);
      created.listen(on, '127.0.0.1', () => {
        created.off('error', reject);
        server = created;
        port = (created.address() as AddressInfo).port;
        resolve();
      });
    });

  const stop = async () => {
    const current = server;
    server = undefined;
    if (current) {
      const closed = new Promise<void>((resolve) => current.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    }
    // Streams (watches) end now; requests the Garden is still working on are let finish, so that what the
    // Garden did and what `requests` says agree once stop() has returned.
    for (const [forward, entry] of inFlight) if (entry.streaming) forward.destroy();
    const pending = [...inFlight.values()].map((e) => e.done);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(pending), new Promise<void>((resolve) => (timer = setTimeout(resolve, DRAIN_MS)))]);
    clearTimeout(timer);
    for (const forward of inFlight.keys()) forward.destroy();
  };

  await listen(0);
  const url = `http://127.0.0.1:${port}`;
  const kubeconfigPath = join(options.dir, `garden-proxy-${port}.kubeconfig`);
  writeFileSync(
    kubeconfigPath,
    stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'garden-proxy', cluster: { server: url, 'insecure-skip-tls-verify': true } }],
      users: [{ name: 'garden-proxy', user: {} }],
      contexts: [{ name: 'garden-proxy', context: { cluster: 'garden-proxy', user: 'garden-proxy' } }],
      'current-context': 'garden-proxy',
    }),
  );

  return {
    kubeconfigPath,
    url,
    get requests() {
      return requests;
    },
    reset() {
      requests.length = 0;
    },
    stop,
    async start() {
      if (!server) await listen(port);
    },
    async close() {
      await stop();
      upstream.agent.destroy();
    },
  };
}
