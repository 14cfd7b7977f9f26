// The informer against a loopback server playing the API for what a real kube-apiserver cannot be
// made to do on demand: expire a watch, go silent, refuse connections, lose events between watches.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventually } from '../../test/helpers/testenv.js';
import { Informer, type Change, type InformerOptions } from './informer.js';
import { KubeClient } from './kube-client.js';
import type { KubeObject } from '../../model/kube-object.js';

const RUNTIME = { apiVersion: 'infrastructuremanager.kyma-project.io/v1', kind: 'Runtime' };
const PATH = '/apis/infrastructuremanager.kyma-project.io/v1/namespaces/kcp-system/runtimes';
const LABEL = 'test-kubeconfig';

interface Call {
  url: URL;
  /** Resolves when the client has closed the connection (or the server ended it). */
  closed: Promise<void>;
}

/** The API: `list` answers LIST calls, `watch` handles WATCH calls (default: open and silent). */
class FakeApi {
  readonly lists: Call[] = [];
  readonly watches: Call[] = [];
  list: (url: URL) => { status: number; body: unknown } = () => ({ status: 200, body: listOf([], '1') });
  watch: (res: ServerResponse, url: URL) => void = (res) =>
    res.writeHead(200, { 'Content-Type': 'application/json' }).flushHeaders();
  private readonly server: Server = createServer((req: IncomingMessage, res) => {
    const url = new URL(req.url ?? '/', 'http://api');
    const closed = new Promise<void>((resolve) => res.on('close', resolve));
    if (url.searchParams.get('watch') === '1') {
      this.watches.push({ url, closed });
      this.watch(res, url);
    } else {
      this.lists.push({ url, closed });
      const { status, body } = this.list(url);
      res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
    }
  });

  async listen(port = 0): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(port, '127.0.0.1', resolve));
    return (this.server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    if (!this.server.listening) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

function runtime(name: string, resourceVersion: string, label = 'x'): KubeObject {
  return { ...RUNTIME, metadata: { name, namespace: 'kcp-system', resourceVersion, labels: { label } } };
}

function listOf(items: KubeObject[], resourceVersion: string, next?: string) {
  return {
    kind: 'RuntimeList',
    apiVersion: RUNTIME.apiVersion,
    metadata: { resourceVersion, ...(next && { continue: next }) },
    items,
  };
}

const line = (type: string, object: unknown) => `${JSON.stringify({ type, object })}\n`;

function clientFor(port: number): KubeClient {
  const config = new KubeConfig();
  config.loadFromOptions({
    clusters: [{ name: 'fake', server: `http://127.0.0.1:${port}`, skipTLSVerify: true }],
    users: [{ name: 'u', token: 'secret-token' }],
    contexts: [{ name: 'fake', cluster: 'fake', user: 'u' }],
    currentContext: 'fake',
  });
  return KubeClient.fromKubeConfig(config, LABEL);
}

let api: FakeApi;
let informer: Informer<KubeObject> | undefined;
let logs: string[];
let changes: string[];

beforeEach(() => {
  api = new FakeApi();
  logs = [];
  changes = [];
});

afterEach(async () => {
  await informer?.stop();
  informer = undefined;
  await api.close();
});

/** An informer on Runtimes in kcp-system with test timings, recording its log and its changes as `type name@rv`. */
function start(port: number, options: InformerOptions = {}): Informer<KubeObject> {
  informer = new Informer<KubeObject>(clientFor(port), RUNTIME, {
    namespace: 'kcp-system',
    watchTimeoutSeconds: 60,
    relistMs: 60_000,
    backoffInitialMs: 20,
    backoffMaxMs: 50,
    random: () => 0,
    log: (message) => logs.push(message),
    ...options,
  });
  informer.onChange((c: Change<KubeObject>) =>
    changes.push(`${c.type} ${c.object.metadata.name}@${c.object.metadata.resourceVersion}`),
  );
  informer.start();
  return informer;
}

const rvOf = (call: Call | undefined) => call?.url.searchParams.get('resourceVersion');

describe('Informer', () => {
  it('lists page by page with limit and continue, then watches from the list resourceVersion', async () => {
    api.list = (url) =>
      url.searchParams.get('continue') === 'page-2'
        ? { status: 200, body: listOf([runtime('c', '4')], '5') }
        : { status: 200, body: listOf([runtime('a', '2'), runtime('b', '3')], '5', 'page-2') };
    const informer = start(await api.listen(), { pageSize: 2, labelSelector: 'kyma-project.io/region=eu' });
    await informer.synced();
    expect(api.lists.map((c) => c.url.pathname + c.url.search)).toEqual([
      `${PATH}?labelSelector=kyma-project.io%2Fregion%3Deu&limit=2`,
      `${PATH}?labelSelector=kyma-project.io%2Fregion%3Deu&limit=2&continue=page-2`,
    ]);
    expect(changes).toEqual(['added a@2', 'added b@3', 'added c@4']);
    expect(informer.items().map((o) => o.metadata.name)).toEqual(['a', 'b', 'c']);
    expect(informer.get('kcp-system', 'b')?.metadata.resourceVersion).toBe('3');
    expect(informer.get('other', 'b')).toBeUndefined();
    await eventually('the watch', async () => api.watches[0]);
    const watch = api.watches[0]?.url.searchParams;
    expect(Object.fromEntries(watch ?? [])).toEqual({
      watch: '1',
      allowWatchBookmarks: 'true',
      resourceVersion: '5',
      timeoutSeconds: '60',
      labelSelector: 'kyma-project.io/region=eu',
    });
  });

  it('applies watch events split across chunks; unchanged MODIFIED and unknown DELETED are no changes; bookmarks move the resourceVersion', async () => {
    api.list = () => ({ status: 200, body: listOf([runtime('a', '1')], '1') });
    api.watch = async (res, url) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      if (url.searchParams.get('resourceVersion') !== '1') return void res.flushHeaders(); // the resumed watch stays open
      const events = [
        line('ADDED', runtime('b', '2')),
        line('MODIFIED', runtime('a', '1')), // same resourceVersion: not a change
        line('MODIFIED', runtime('a', '3', 'äöü')),
        line('DELETED', runtime('b', '4')),
        line('DELETED', runtime('unknown', '5')),
        line('BOOKMARK', { kind: 'Runtime', metadata: { resourceVersion: '6' } }),
      ].join('');
      // Cut in three at odd places, one inside a multi-byte character, pausing so the chunks arrive apart.
      const bytes = Buffer.from(events);
      const cuts = [7, bytes.indexOf(Buffer.from('ö')) + 1, bytes.length];
      let from = 0;
      for (const to of cuts) {
        res.write(bytes.subarray(from, to));
        from = to;
        await new Promise((resolve) => setTimeout(resolve, 15));
      }
      res.end(); // like the server's timeoutSeconds: the informer resumes
    };
    const informer = start(await api.listen());
    await eventually('the resumed watch', async () => api.watches[1]);
    expect(changes).toEqual(['added a@1', 'added b@2', 'modified a@3', 'deleted b@4']);
    expect(rvOf(api.watches[1])).toBe('6');
    expect(informer.items().map((o) => o.metadata.labels)).toEqual([{ label: 'äöü' }]);
    expect(api.lists).toHaveLength(1); // a normal end resumes, it does not relist
    expect(logs).toEqual([]);
  });

  it('relists at once when the watch answers 410 Gone, emitting what changed meanwhile', async () => {
    api.list = () =>
      api.lists.length === 1
        ? { status: 200, body: listOf([runtime('a', '1'), runtime('b', '1')], '10') }
        : { status: 200, body: listOf([runtime('a', '12'), runtime('c', '11')], '20') };
    api.watch = (res, url) => {
      if (url.searchParams.get('resourceVersion') === '10') {
        res.writeHead(410, { 'Content-Type': 'application/json' }).end(
          JSON.stringify({
            kind: 'Status',
            code: 410,
            reason: 'Expired',
            message: 'too old resource version: 10 (15)',
          }),
        );
      } else res.writeHead(200).flushHeaders();
    };
    const informer = start(await api.listen());
    await eventually('the watch after the relist', async () => (rvOf(api.watches.at(-1)) === '20' ? true : undefined));
    expect(api.lists).toHaveLength(2);
    expect(changes).toEqual(['added a@1', 'added b@1', 'deleted b@1', 'modified a@12', 'added c@11']);
    expect(
      informer
        .items()
        .map((o) => o.metadata.name)
        .sort(),
    ).toEqual(['a', 'c']);
    expect(logs).toEqual([expect.stringContaining('watch expired (too old resource version: 10 (15)); listing again')]);
  });

  it('restarts a watch that goes silent once the watchdog fires, from the last resourceVersion', async () => {
    api.list = () => ({ status: 200, body: listOf([runtime('a', '1')], '7') });
    start(await api.listen(), { watchdogMs: 150 });
    await eventually('a second watch', async () => api.watches[1], 5_000);
    await api.watches[0]?.closed; // the stalled connection was closed by the client, not left open
    expect(rvOf(api.watches[1])).toBe('7');
    expect(api.lists).toHaveLength(1);
    expect(logs[0]).toBe(
      `informer for Runtime infrastructuremanager.kyma-project.io/v1 in namespace kcp-system (kubeconfig ${LABEL}): no event or bookmark for 0.15 s; restarting the watch from resourceVersion 7`,
    );
  });

  it('keeps a watch that sends bookmarks alive past the watchdog', async () => {
    api.list = () => ({ status: 200, body: listOf([], '1') });
    api.watch = (res, url) => {
      res.writeHead(200, { 'Content-Type': 'application/json' }).flushHeaders();
      if (url.searchParams.get('resourceVersion') !== '1') return;
      // Twelve bookmarks 50 ms apart: 600 ms in all, well past a 400 ms watchdog (with room for a slow machine).
      let sent = 0;
      const timer = setInterval(() => {
        sent++;
        res.write(line('BOOKMARK', { kind: 'Runtime', metadata: { resourceVersion: String(100 + sent) } }));
        if (sent === 12) {
          clearInterval(timer);
          res.end();
        }
      }, 50);
      res.on('close', () => clearInterval(timer));
    };
    start(await api.listen(), { watchdogMs: 400 });
    await eventually('the resumed watch', async () => api.watches[1], 5_000);
    expect(rvOf(api.watches[1])).toBe('112');
    expect(logs).toEqual([]);
  });

  it('relists periodically, repairing what a stalled watch missed: deleted, modified and added objects', async () => {
    api.list = () =>
      api.lists.length === 1
        ? { status: 200, body: listOf([runtime('a', '1'), runtime('b', '1')], '10') }
        : { status: 200, body: listOf([runtime('a', '12'), runtime('c', '11')], '20') };
    // The watch stays open and silent (b's deletion never arrives); the watchdog is far away.
    const informer = start(await api.listen(), { relistMs: 200, watchdogMs: 60_000 });
    await eventually('the periodic relist', async () => api.lists[1], 5_000);
    await api.watches[0]?.closed;
    await eventually('the watch after the relist', async () => (rvOf(api.watches.at(-1)) === '20' ? true : undefined));
    expect(changes).toEqual(['added a@1', 'added b@1', 'deleted b@1', 'modified a@12', 'added c@11']);
    expect(informer.get('kcp-system', 'b')).toBeUndefined();
    expect(logs).toEqual([]);
  });

  it('backs off while the API refuses connections, says why and how to fix it, and recovers on its own', async () => {
    // A port nothing listens on yet.
    const port = await api.listen();
    await api.close();
    api = new FakeApi();
    api.list = () => ({ status: 200, body: listOf([runtime('a', '1')], '3') });
    const informer = start(port);
    await eventually('four failed attempts', async () => (logs.length >= 4 ? true : undefined), 5_000);
    const prefix = `informer for Runtime infrastructuremanager.kyma-project.io/v1 in namespace kcp-system (kubeconfig ${LABEL}): `;
    expect(logs[0]).toMatch(
      new RegExp(
        `^${escape(prefix)}list ${escape(PATH)} on http://127\\.0\\.0\\.1:${port} \\(kubeconfig ${LABEL}\\): unreachable: cannot reach .*ECONNREFUSED.* — check that the API server runs`,
      ),
    );
    // 20 ms doubling, capped at 50 ms (no jitter: random() is 0).
    expect(logs.slice(0, 4).map((l) => l.replace(/.*retrying in /, ''))).toEqual([
      '20 ms (attempt 1)',
      '40 ms (attempt 2)',
      '50 ms (attempt 3)',
      '50 ms (attempt 4)',
    ]);
    await api.listen(port);
    await informer.synced();
    expect(informer.items().map((o) => o.metadata.name)).toEqual(['a']);
    expect(logs.at(-1)).toMatch(new RegExp(`^${escape(prefix)}API reachable again after \\d+ failed attempt\\(s\\)$`));
  });

  it('transforms listed items and watched objects before caching them and telling listeners', async () => {
    api.list = () => ({ status: 200, body: listOf([runtime('a', '1')], '1') });
    api.watch = (res, url) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      if (url.searchParams.get('resourceVersion') === '1')
        res.write(line('MODIFIED', runtime('a', '2', 'y')) + line('ADDED', runtime('b', '3')));
      res.flushHeaders();
    };
    const seen: unknown[] = [];
    const informer = start(await api.listen(), {
      transform: (object) => ({
        ...object,
        metadata: {
          name: object.metadata.name,
          resourceVersion: object.metadata.resourceVersion,
          namespace: 'kcp-system',
        },
      }),
    });
    informer.onChange((change) => seen.push(change.object.metadata));
    await eventually('the watched events', async () => (changes.length === 3 ? true : undefined));
    expect(changes).toEqual(['added a@1', 'modified a@2', 'added b@3']);
    // No labels anywhere: the cache and the listeners got the transformed objects only.
    expect(informer.items().map((o) => o.metadata)).toEqual([
      { name: 'a', resourceVersion: '2', namespace: 'kcp-system' },
      { name: 'b', resourceVersion: '3', namespace: 'kcp-system' },
    ]);
    expect(seen).toEqual([
      { name: 'a', resourceVersion: '1', namespace: 'kcp-system' },
      { name: 'a', resourceVersion: '2', namespace: 'kcp-system' },
      { name: 'b', resourceVersion: '3', namespace: 'kcp-system' },
    ]);
  });

  it('says while it fails that its cache may be stale, and stops saying so once a watch is accepted again', async () => {
    api.list = () => ({ status: 200, body: listOf([runtime('a', '1')], '1') });
    let refuse = true;
    api.watch = (res) => {
      if (refuse)
        res
          .writeHead(503, { 'Content-Type': 'application/json' })
          .end(JSON.stringify({ kind: 'Status', code: 503, message: 'down for maintenance' }));
      else res.writeHead(200, { 'Content-Type': 'application/json' }).flushHeaders();
    };
    const informer = start(await api.listen());
    await informer.synced();
    await eventually('a failed watch', async () => informer.failing());
    expect(informer.failing()).toMatch(/down for maintenance/);
    refuse = false;
    // Accepted but silent: no event is needed to be in step again.
    await eventually('the cache in step', async () => (informer.failing() === undefined ? true : undefined));
    expect(api.lists).toHaveLength(1);
  });

  it('names the fix for 403 and 5xx answers', async () => {
    const answers = [
      {
        status: 403,
        body: {
          kind: 'Status',
          code: 403,
          reason: 'Forbidden',
          message: 'runtimes is forbidden: User "kimops" cannot list',
        },
      },
      { status: 503, body: { kind: 'Status', code: 503, reason: 'ServiceUnavailable', message: 'etcd unavailable' } },
    ];
    api.list = () => answers.shift() ?? { status: 200, body: listOf([], '1') };
    await start(await api.listen()).synced();
    expect(logs[0]).toMatch(
      /: 403 Forbidden: runtimes is forbidden: User "kimops" cannot list — grant the kubeconfig's identity list and watch on \/apis\/infrastructuremanager\.kyma-project\.io\/v1\/namespaces\/kcp-system\/runtimes; retrying in 20 ms/,
    );
    expect(logs[1]).toMatch(
      /: 503 ServiceUnavailable: etcd unavailable — the API server is overloaded or failing; kimops retries — check its health if this persists; retrying in 40 ms/,
    );
    expect(logs[2]).toMatch(/API reachable again after 2 failed attempt\(s\)$/);
  });

  it('stop() ends a pending backoff at once, rejects synced() and leaves no timer behind', async () => {
    const port = await api.listen();
    await api.close();
    const timersBefore = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const informer = start(port, { backoffInitialMs: 600_000, backoffMaxMs: 600_000 });
    const synced = informer.synced();
    await eventually('the first failure', async () => logs[0]);
    await informer.stop(); // would take 10 minutes if the backoff sleep were not cancelled
    await expect(synced).rejects.toThrow(/stopped before its first list/);
    expect(process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length).toBeLessThanOrEqual(timersBefore);
  });

  it('stop() closes the open watch and its timers', async () => {
    const timersBefore = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const informer = start(await api.listen());
    await eventually('the watch', async () => api.watches[0]);
    await informer.stop();
    await api.watches[0]?.closed;
    expect(process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length).toBeLessThanOrEqual(timersBefore);
  });

  it('keeps notifying the other listeners when one throws, and unsubscribes', async () => {
    api.list = () => ({ status: 200, body: listOf([runtime('a', '1'), runtime('b', '1')], '1') });
    informer = new Informer<KubeObject>(clientFor(await api.listen()), RUNTIME, {
      namespace: 'kcp-system',
      log: (m) => logs.push(m),
    });
    informer.onChange(() => {
      throw new Error('listener bug');
    });
    const seen: string[] = [];
    const unsubscribe = informer.onChange((c) => {
      seen.push(c.object.metadata.name);
      unsubscribe();
    });
    informer.start();
    await informer.synced();
    expect(seen).toEqual(['a']);
    expect(logs[0]).toMatch(/a change listener failed on added kcp-system\/a: listener bug$/);
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
