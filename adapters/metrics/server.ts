// The Prometheus scrape endpoint of a long-running kimops command (`--metrics-port`): GET /metrics answers
// the registry's text exposition; anything else is a 404 (405 for another method on /metrics). Plain
// HTTP on a loopback address by default, like the webhook receiver: expose it through the usual
// ServiceMonitor/ingress. The metrics themselves are defined next to what they measure (applier/metrics.ts).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { DEFAULT_HOST } from '../loopback.js';

const METRICS_PATH = '/metrics';

export interface MetricsServer {
  url: string;
  close(): Promise<void>;
}

export async function startMetricsServer({
  port,
  host = DEFAULT_HOST,
  registry,
}: {
  port: number;
  host?: string;
  registry: Registry;
}): Promise<MetricsServer> {
  const server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (path !== METRICS_PATH) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end(`not found: metrics are at ${METRICS_PATH}\n`);
      return;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { 'content-type': 'text/plain', allow: 'GET, HEAD' }).end('use GET\n');
      return;
    }
    registry.metrics().then(
      (text) =>
        response
          .writeHead(200, { 'content-type': registry.contentType })
          .end(request.method === 'HEAD' ? undefined : text),
      (error: unknown) =>
        response
          .writeHead(500, { 'content-type': 'text/plain' })
          .end(`metrics failed: ${error instanceof Error ? error.message : String(error)}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${bound}${METRICS_PATH}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
