// The Prometheus scrape endpoint of a long-running kimops command (`--metrics-port`): GET /metrics answers
// the registry's text exposition; /healthz and /readyz answer the loop's probes (200 or 503 with one line
// saying why), for the kubelet's liveness and readiness checks; anything else is a 404 (405 for another
// method). Plain HTTP on a loopback address by default, like the webhook receiver: expose it through the usual
// ServiceMonitor/ingress. The metrics themselves are defined next to what they measure (applier/metrics.ts).
// The status page's server answers the same three paths with the same handler (adapters/status-page/).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { DEFAULT_HOST } from '../loopback.js';

const METRICS_PATH = '/metrics';

export interface ProbeResult {
  ok: boolean;
  /** One line for whoever reads the probe (`kubectl describe pod` shows it on failure). */
  message: string;
}

/** What /healthz (live) and /readyz (ready) answer; without it both are 404. */
export interface Probes {
  live(): ProbeResult;
  ready(): ProbeResult;
}

export interface MetricsServer {
  url: string;
  close(): Promise<void>;
}

/** Answers /metrics (with a registry), /healthz and /readyz (with probes); false for any other path, unanswered. */
export type MetricsHandler = (request: IncomingMessage, response: ServerResponse) => boolean;

export function metricsHandler({ registry, probes }: { registry?: Registry; probes?: Probes }): MetricsHandler {
  return (request, response) => {
    const path = (request.url ?? '').split('?')[0];
    const probe = probes && (path === '/healthz' ? probes.live : path === '/readyz' ? probes.ready : undefined);
    const metrics = registry && path === METRICS_PATH ? registry : undefined;
    if (!metrics && !probe) return false;
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { 'content-type': 'text/plain', allow: 'GET, HEAD' }).end('use GET\n');
      return true;
    }
    if (probe) {
      const result = probe.call(probes);
      response
        .writeHead(result.ok ? 200 : 503, { 'content-type': 'text/plain' })
        .end(request.method === 'HEAD' ? undefined : `${result.ok ? 'ok' : 'not ok'}: ${result.message}\n`);
      return true;
    }
    metrics?.metrics().then(
      (text) =>
        response
          .writeHead(200, { 'content-type': metrics.contentType })
          .end(request.method === 'HEAD' ? undefined : text),
      (error: unknown) =>
        response
          .writeHead(500, { 'content-type': 'text/plain' })
          .end(`metrics failed: ${error instanceof Error ? error.message : String(error)}\n`),
    );
    return true;
  };
}

/**
 * `server` listening on `host:port` (port 0: any free one): its origin (`http://host:port`, an IPv6 host in
 * brackets) and a close that ends open connections too, so a held stream never keeps a stopping process alive.
 */
export async function listen(
  server: Server,
  port: number,
  host: string,
): Promise<{ origin: string; close(): Promise<void> }> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const { port: bound } = server.address() as AddressInfo;
  return {
    origin: `http://${host.includes(':') ? `[${host}]` : host}:${bound}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export async function startMetricsServer({
  port,
  host = DEFAULT_HOST,
  registry,
  probes,
}: {
  port: number;
  host?: string;
  registry: Registry;
  probes?: Probes;
}): Promise<MetricsServer> {
  const handle = metricsHandler({ registry, ...(probes && { probes }) });
  const server = createServer((request, response) => {
    if (!handle(request, response))
      response.writeHead(404, { 'content-type': 'text/plain' }).end(`not found: metrics are at ${METRICS_PATH}\n`);
  });
  const { origin, close } = await listen(server, port, host);
  return { url: `${origin}${METRICS_PATH}`, close };
}
