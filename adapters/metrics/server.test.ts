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

  it('refuses a port in use with the error, not a crash later', async () => {
    server = await startMetricsServer({ port: 0, registry: new Registry() });
    const port = Number(new URL(server.url).port);
    await expect(startMetricsServer({ port, registry: new Registry() })).rejects.toThrow(/EADDRINUSE/);
  });
});
