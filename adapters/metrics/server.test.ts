import { Counter, Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { startMetricsServer, type MetricsServer } from './server.js';

let server: MetricsServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('startMetricsServer', () => {
  it('answers the registry on GET /metrics and 404 elsewhere', async () => {
    const registry = new Registry();
    new Counter({ name: 'kimops_test_things_total', help: 'things', registers: [registry] }).inc(3);
    server = await startMetricsServer({ port: 0, registry });
    const scraped = await fetch(server.url);
    expect(scraped.status).toBe(200);
    expect(scraped.headers.get('content-type')).toContain('text/plain');
    expect(await scraped.text()).toContain('kimops_test_things_total 3');
    expect((await fetch(server.url.replace('/metrics', '/other'))).status).toBe(404);
    expect((await fetch(server.url, { method: 'POST' })).status).toBe(405);
  });

  it('answers /healthz and /readyz from the probes: 200 or 503 with the reason', async () => {
    let ready = false;
    server = await startMetricsServer({
      port: 0,
      registry: new Registry(),
      probes: {
        live: () => ({ ok: true, message: 'running' }),
        ready: () => ({ ok: ready, message: ready ? 'last pass 1 s ago' : 'the first pass has not finished' }),
      },
    });
    const at = (path: string) => fetch(server?.url.replace('/metrics', path) ?? '');
    const live = await at('/healthz');
    expect([live.status, await live.text()]).toEqual([200, 'ok: running\n']);
    const notReady = await at('/readyz');
    expect([notReady.status, await notReady.text()]).toEqual([503, 'not ok: the first pass has not finished\n']);
    ready = true;
    expect((await at('/readyz')).status).toBe(200);
  });

  it('has no probes unless given them', async () => {
    server = await startMetricsServer({ port: 0, registry: new Registry() });
    expect((await fetch(server.url.replace('/metrics', '/healthz'))).status).toBe(404);
  });

  it('refuses a port in use with the error, not a crash later', async () => {
    server = await startMetricsServer({ port: 0, registry: new Registry() });
    const port = Number(new URL(server.url).port);
    await expect(startMetricsServer({ port, registry: new Registry() })).rejects.toThrow(/EADDRINUSE/);
  });
});
