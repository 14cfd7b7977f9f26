// The generator's Runtimes from the KCP are a complete LIST or nothing: a Runtime absent from them is proof of
// its deletion (issue 14), so a list that broke off after some pages must never pass for the namespace's
// Runtimes. A loopback server plays the API, its second page failing as a real one can (an expired continue
// token, an API server restarting).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TransportError } from '../../model/errors.js';
import { KubeClient } from './kube-client.js';
import type { KubeObject } from '../../model/kube-object.js';
import { objectSource, type ObjectSource } from './object-source.js';

const RUNTIME = { apiVersion: 'infrastructuremanager.kyma-project.io/v1', kind: 'Runtime' };
const runtime = (name: string): KubeObject => ({
  ...RUNTIME,
  metadata: { name, namespace: 'kcp-system', resourceVersion: '5' },
});

let server: Server;
/** How each LIST call is answered, by its `continue` token ('' for the first page). */
let answer: (next: string, call: number) => { status: number; body: unknown };
let calls: string[];
let source: ObjectSource<KubeObject> | undefined;

beforeEach(async () => {
  calls = [];
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://api');
    if (url.searchParams.get('watch') === '1')
      return void res.writeHead(200, { 'Content-Type': 'application/json' }).flushHeaders();
    const next = url.searchParams.get('continue') ?? '';
    calls.push(next);
    const { status, body } = answer(next, calls.length);
    res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});

afterEach(async () => {
  await source?.stop();
  source = undefined;
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function kcp(): KubeClient {
  const config = new KubeConfig();
  config.loadFromOptions({
    clusters: [
      { name: 'kcp', server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, skipTLSVerify: true },
    ],
    users: [{ name: 'u', token: 't' }],
    contexts: [{ name: 'kcp', cluster: 'kcp', user: 'u' }],
    currentContext: 'kcp',
  });
  return KubeClient.fromKubeConfig(config, 'kcp.yaml');
}

const page = (items: KubeObject[], next?: string) => ({
  status: 200,
  body: {
    kind: 'RuntimeList',
    apiVersion: RUNTIME.apiVersion,
    metadata: { resourceVersion: '5', ...(next && { continue: next }) },
    items,
  },
});
const expired = {
  status: 410,
  body: {
    kind: 'Status',
    apiVersion: 'v1',
    status: 'Failure',
    reason: 'Expired',
    code: 410,
    message: 'The provided continue parameter is too old',
  },
};

describe('objectSource: the Runtimes of one namespace', () => {
  it('--once: fails the pass when a later page fails, instead of returning the pages it had', async () => {
    answer = (next) => (next === '' ? page([runtime('a'), runtime('b')], 'page-2') : expired);
    source = objectSource<KubeObject>(kcp(), RUNTIME, { namespace: 'kcp-system', watch: false, log: () => undefined });
    const failure = await source.items().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TransportError);
    expect((failure as Error).message).toContain('kubeconfig kcp.yaml');
    expect(calls).toEqual(['', 'page-2']);
  });

  it('--once: returns every page', async () => {
    answer = (next) => (next === '' ? page([runtime('a'), runtime('b')], 'page-2') : page([runtime('c')]));
    source = objectSource<KubeObject>(kcp(), RUNTIME, { namespace: 'kcp-system', watch: false, log: () => undefined });
    expect((await source.items()).map((r) => r.metadata.name)).toEqual(['a', 'b', 'c']);
  });

  it('--watch: answers only once a list went through to its last page', async () => {
    // The first list breaks off after page 1; the informer lists again (after its backoff) and gets both pages.
    answer = (next, call) =>
      next === '' ? page([runtime('a'), runtime('b')], 'page-2') : call === 2 ? expired : page([runtime('c')]);
    const logs: string[] = [];
    source = objectSource<KubeObject>(kcp(), RUNTIME, {
      namespace: 'kcp-system',
      watch: true,
      log: (line) => logs.push(line),
    });
    expect((await source.items()).map((r) => r.metadata.name).sort()).toEqual(['a', 'b', 'c']);
    expect(calls).toEqual(['', 'page-2', '', 'page-2']);
    expect(logs.join('\n')).toContain('410');
  });
});
