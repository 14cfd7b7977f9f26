// The Kubernetes client against a real HTTP server on loopback: paths, content types, field
// manager and the mapping of answers (and of no answer) to result values.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useTempDir } from '../../test/helpers/temp-dir.js';
import { CONTENT_TYPE, KubeClient, type WatchEvent } from './kube-client.js';
import { describeFailure } from '../../model/kube-result.js';
import type { KubeObject } from '../../model/kube-object.js';

const dir = useTempDir('kube');

interface Seen {
  method: string;
  url: string;
  contentType?: string;
  authorization?: string;
  body: string;
}

let server: Server;
let seen: Seen[];
let answer: (req: IncomingMessage) => { status: number; body: unknown };

beforeEach(async () => {
  seen = [];
  answer = () => ({ status: 200, body: { kind: 'Shoot' } });
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({
        method: req.method ?? '',
        url: req.url ?? '',
        contentType: req.headers['content-type'],
        authorization: req.headers.authorization,
        body: Buffer.concat(chunks).toString(),
      });
      const { status, body } = answer(req);
      res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});

afterEach(async () => {
  server.closeAllConnections(); // watches a test left open
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

async function client(port = (server.address() as AddressInfo).port): Promise<KubeClient> {
  return KubeClient.fromKubeconfigFile(await kubeconfigFor(port));
}

function kubeconfigFor(port: number): Promise<string> {
  return dir.write(
    'kubeconfig',
    `apiVersion: v1
kind: Config
clusters: [{name: test, cluster: {server: "http://127.0.0.1:${port}", insecure-skip-tls-verify: true}}]
users: [{name: garden, user: {token: secret-token}}]
contexts: [{name: test, context: {cluster: test, user: garden}}]
current-context: test
`,
  );
}

const shoot = {
  apiVersion: 'core.gardener.cloud/v1beta1',
  kind: 'Shoot',
  metadata: { name: 'c-1', namespace: 'garden-kyma-dev' },
  spec: {},
};

describe('KubeClient', () => {
  it('server-side applies with the field manager, force and the apply content type', async () => {
    const kube = await client();
    const result = await kube.apply(shoot, 'kimops', { force: true });
    expect(result.ok).toBe(true);
    expect(seen).toEqual([
      {
        method: 'PATCH',
        url: '/apis/core.gardener.cloud/v1beta1/namespaces/garden-kyma-dev/shoots/c-1?fieldManager=kimops&force=true',
        contentType: CONTENT_TYPE.apply,
        authorization: 'Bearer secret-token',
        body: JSON.stringify(shoot),
      },
    ]);
  });

  it('addresses subresources and core-group paths', async () => {
    const kube = await client();
    await kube.patch(
      { ...shoot, name: 'c-1', namespace: 'garden-kyma-dev' },
      { status: {} },
      CONTENT_TYPE.mergePatch,
      'status',
    );
    await kube.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'kcp-system' } });
    await kube.list({ apiVersion: 'core.gardener.cloud/v1beta1', kind: 'CloudProfile' }, 'a=b');
    expect(seen.map((s) => `${s.method} ${s.url} ${s.contentType ?? ''}`)).toEqual([
      `PATCH /apis/core.gardener.cloud/v1beta1/namespaces/garden-kyma-dev/shoots/c-1/status ${CONTENT_TYPE.mergePatch}`,
      `POST /api/v1/namespaces/kcp-system/configmaps ${CONTENT_TYPE.json}`,
      'GET /apis/core.gardener.cloud/v1beta1/cloudprofiles?labelSelector=a%3Db ',
    ]);
  });

  it('asks for metadata only when told, on every page, and plain JSON otherwise', async () => {
    const accepts: (string | undefined)[] = [];
    answer = (req) => {
      accepts.push(req.headers.accept);
      return new URL(req.url ?? '/', 'http://api').searchParams.get('continue') === 'next'
        ? { status: 200, body: { kind: 'PartialObjectMetadataList', metadata: {}, items: null } }
        : { status: 200, body: { metadata: { continue: 'next' }, items: [] } };
    };
    const kube = await client();
    const secrets = { apiVersion: 'v1', kind: 'Secret', namespace: 'kcp-system' };
    // The server's empty PartialObjectMetadataList has `items: null`: an empty list, not a failure.
    expect(await kube.listAll(secrets, { metadataOnly: true })).toEqual({
      ok: true,
      items: [],
      resourceVersion: undefined,
    });
    await kube.listPage(secrets);
    expect(accepts).toEqual([
      'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json',
      'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json',
      'application/json',
    ]);
  });

  it('lists every page and maps each item as its page arrives', async () => {
    const item = (name: string) => ({ metadata: { name, managedFields: [{ manager: 'x' }] }, spec: { big: name } });
    answer = (req) =>
      new URL(req.url ?? '/', 'http://api').searchParams.get('continue') === 'next'
        ? { status: 200, body: { metadata: { resourceVersion: '7' }, items: [item('c')] } }
        : {
            status: 200,
            body: { metadata: { resourceVersion: '7', continue: 'next' }, items: [item('a'), item('b')] },
          };
    const mapped: string[] = [];
    const result = await (
      await client()
    ).listAll(
      { apiVersion: 'core.gardener.cloud/v1beta1', kind: 'Shoot', namespace: 'garden-kyma-dev' },
      {
        limit: 2,
        map: (object) => {
          // The second page is not yet asked for while the first page's items are mapped.
          mapped.push(`${object.metadata.name} after ${seen.length} request(s)`);
          return { apiVersion: 'core.gardener.cloud/v1beta1', kind: 'Shoot', metadata: { name: object.metadata.name } };
        },
      },
    );
    expect(result).toEqual({
      ok: true,
      resourceVersion: '7',
      items: ['a', 'b', 'c'].map((name) => ({
        apiVersion: 'core.gardener.cloud/v1beta1',
        kind: 'Shoot',
        metadata: { name },
      })),
    });
    expect(mapped).toEqual(['a after 1 request(s)', 'b after 1 request(s)', 'c after 2 request(s)']);
    expect(seen.map((s) => s.url)).toEqual([
      '/apis/core.gardener.cloud/v1beta1/namespaces/garden-kyma-dev/shoots?limit=2',
      '/apis/core.gardener.cloud/v1beta1/namespaces/garden-kyma-dev/shoots?limit=2&continue=next',
    ]);
  });

  it('returns credentials it cannot prepare as a failure naming the kubeconfig, not a throw', async () => {
    const kubeconfig = await dir.write(
      'plain-http',
      `apiVersion: v1
kind: Config
clusters: [{name: test, cluster: {server: "http://127.0.0.1:1"}}]
users: [{name: garden, user: {token: secret-token}}]
contexts: [{name: test, context: {cluster: test, user: garden}}]
current-context: test
`,
    );
    const result = await KubeClient.fromKubeconfigFile(kubeconfig).get(shoot);
    expect(result).toEqual({
      ok: false,
      status: 0,
      error: {
        message: expect.stringMatching(
          new RegExp(
            `^kubeconfig ${kubeconfig}: cannot prepare credentials for http://127\\.0\\.0\\.1:1: .*skipTLSVerify.* — check the kubeconfig's cluster and user entries$`,
          ),
        ),
      },
    });
    expect(seen).toEqual([]);
  });

  it('returns Kubernetes errors as values with reason and message', async () => {
    answer = () => ({
      status: 409,
      body: { kind: 'Status', reason: 'Conflict', message: 'the object has been modified', code: 409 },
    });
    const result = await (await client()).replace(shoot);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.status).toBe(409);
    expect(describeFailure(result)).toBe('409 Conflict: the object has been modified');
  });

  it('reports an unreachable server with the kubeconfig and the fix', async () => {
    const port = (server.address() as AddressInfo).port;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    server = createServer().listen(0, '127.0.0.1'); // keep afterEach's close() valid
    const result = await (await client(port)).get(shoot);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.status).toBe(0);
    expect(describeFailure(result)).toMatch(
      /^unreachable: cannot reach http:\/\/127\.0\.0\.1:\d+ \(kubeconfig .*kubeconfig\): .*ECONNREFUSED.* — check that the API server runs/,
    );
  });

  it('gives up on a server that accepts the request and never answers, naming the deadline', async () => {
    const stalled = createServer(() => {}); // holds every request open
    await new Promise<void>((resolve) => stalled.listen(0, '127.0.0.1', resolve));
    try {
      const kube = KubeClient.fromKubeconfigFile(await kubeconfigFor((stalled.address() as AddressInfo).port), {
        deadlineMs: 200,
      });
      const result = await kube.listPage({
        apiVersion: 'core.gardener.cloud/v1beta1',
        kind: 'Shoot',
        namespace: 'garden-kyma-dev',
      });
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(result.status).toBe(0);
      expect(describeFailure(result)).toMatch(
        /cannot reach http:\/\/127\.0\.0\.1:\d+ .*: no answer within 0\.2 s \(GET \/apis\/core\.gardener\.cloud\/v1beta1\/namespaces\/garden-kyma-dev\/shoots\) — check that the API server runs/,
      );
    } finally {
      stalled.closeAllConnections();
      await new Promise<void>((resolve) => stalled.close(() => resolve()));
    }
  });

  it('gives up on an answer whose body stalls half way', async () => {
    const stalled = createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('{"items": ['); // and nothing more
    });
    await new Promise<void>((resolve) => stalled.listen(0, '127.0.0.1', resolve));
    try {
      const kube = KubeClient.fromKubeconfigFile(await kubeconfigFor((stalled.address() as AddressInfo).port), {
        deadlineMs: 200,
      });
      const result = await kube.get({
        apiVersion: shoot.apiVersion,
        kind: 'Shoot',
        namespace: 'garden-kyma-dev',
        name: 'c-1',
      });
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(describeFailure(result)).toMatch(
        /no answer within 0\.2 s \(GET \/apis\/core\.gardener\.cloud\/v1beta1\/namespaces\/garden-kyma-dev\/shoots\/c-1\)/,
      );
    } finally {
      stalled.closeAllConnections();
      await new Promise<void>((resolve) => stalled.close(() => resolve()));
    }
  });

  it('answers within the deadline are not affected by it', async () => {
    const kube = KubeClient.fromKubeconfigFile(await kubeconfigFor((server.address() as AddressInfo).port), {
      deadlineMs: 5_000,
    });
    const result = await kube.get(shoot);
    expect(result).toMatchObject({ ok: true, status: 200, body: { kind: 'Shoot' } });
  });

  it('reuses one connection for its requests, and close() ends it (a later request opens a new one)', async () => {
    const sockets = new Set<unknown>();
    server.on('connection', (socket) => sockets.add(socket));
    const kube = await client();
    for (let i = 0; i < 3; i++)
      expect((await kube.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'n', name: 'c' })).ok).toBe(true);
    expect(sockets.size).toBe(1);
    kube.close();
    expect((await kube.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'n', name: 'c' })).ok).toBe(true);
    expect(sockets.size).toBe(2);
  });

  it('refuses kinds it does not know, naming where to add them', async () => {
    const kube = await client();
    expect(() => kube.get({ apiVersion: 'v1', kind: 'Pod', name: 'p' })).toThrow(
      /add it to adapters\/kube\/resources\.ts/,
    );
    expect(seen).toEqual([]);
  });
});

describe('KubeClient.watch', () => {
  const runtimes = { apiVersion: 'infrastructuremanager.kyma-project.io/v1', kind: 'Runtime', namespace: 'kcp-system' };
  let stream: (res: ServerResponse, req: IncomingMessage) => void;
  let closed: Promise<void>;

  beforeEach(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    let markClosed: () => void;
    closed = new Promise((resolve) => (markClosed = resolve));
    server = createServer((req, res) => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', authorization: req.headers.authorization, body: '' });
      res.on('close', () => markClosed());
      stream(res, req);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });

  const line = (type: string, object: unknown) => `${JSON.stringify({ type, object })}\n`;
  const runtime = (name: string, resourceVersion: string, label = 'x'): KubeObject => ({
    apiVersion: runtimes.apiVersion,
    kind: 'Runtime',
    metadata: { name, namespace: 'kcp-system', resourceVersion, labels: { label } },
  });
  // Separate writes with a pause so the client really receives separate chunks.
  const pause = () => new Promise((resolve) => setTimeout(resolve, 15));

  it('asks for a bookmarked watch from the resourceVersion and parses events split across chunks', async () => {
    const second = Buffer.from(line('MODIFIED', runtime('a', '3', 'äöü')));
    const cut = second.indexOf(Buffer.from('ö')) + 1; // inside the two bytes of ö
    stream = async (res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      const first = line('ADDED', runtime('a', '2'));
      res.write(first.slice(0, 10));
      await pause();
      res.write(first.slice(10) + second.subarray(0, cut).toString('latin1'), 'latin1');
      await pause();
      res.write(second.subarray(cut));
      await pause();
      res.end(
        line('BOOKMARK', { kind: 'Runtime', metadata: { resourceVersion: '7' } }) +
          line('DELETED', runtime('a', '8')).trimEnd(),
      ); // last event without newline
    };
    const events: WatchEvent<KubeObject>[] = [];
    const end = await (
      await client()
    ).watch(runtimes, { resourceVersion: '1', timeoutSeconds: 300, labelSelector: 'a=b' }, (e) => events.push(e));
    expect(end).toEqual({ reason: 'closed' });
    expect(seen.map((s) => s.url)).toEqual([
      '/apis/infrastructuremanager.kyma-project.io/v1/namespaces/kcp-system/runtimes?watch=1&allowWatchBookmarks=true&resourceVersion=1&timeoutSeconds=300&labelSelector=a%3Db',
    ]);
    expect(seen[0]?.authorization).toBe('Bearer secret-token');
    expect(events.map((e) => `${e.type} ${e.object.metadata.resourceVersion}`)).toEqual([
      'ADDED 2',
      'MODIFIED 3',
      'BOOKMARK 7',
      'DELETED 8',
    ]);
    expect((events[1]?.object.metadata.labels as Record<string, string>).label).toBe('äöü');
  });

  it('ends as gone on an ERROR event with code 410 and on an HTTP 410', async () => {
    const expired = {
      kind: 'Status',
      status: 'Failure',
      reason: 'Expired',
      code: 410,
      message: 'too old resource version: 1 (5)',
    };
    stream = (res) => {
      res.writeHead(200).write(line('ADDED', runtime('a', '2')) + line('ERROR', expired));
      // The server leaves the stream open: the client must end it on its own.
    };
    const kube = await client();
    expect(await kube.watch(runtimes, { resourceVersion: '1' }, () => {})).toEqual({
      reason: 'gone',
      message: 'too old resource version: 1 (5)',
    });
    await closed;
    stream = (res) => res.writeHead(410, { 'Content-Type': 'application/json' }).end(JSON.stringify(expired));
    expect(await kube.watch(runtimes, { resourceVersion: '1' }, () => {})).toEqual({
      reason: 'gone',
      message: 'too old resource version: 1 (5)',
    });
  });

  it('fails with the server, the kubeconfig and the fix on 403 and on an ERROR event', async () => {
    stream = (res) =>
      res.writeHead(403).end(
        JSON.stringify({
          kind: 'Status',
          reason: 'Forbidden',
          code: 403,
          message: 'runtimes is forbidden: User "x" cannot watch',
        }),
      );
    const kube = await client();
    const end = await kube.watch(runtimes, {}, () => {});
    expect(end).toMatchObject({ reason: 'failed', status: 403 });
    expect(end.reason === 'failed' && end.message).toMatch(
      /^watch \/apis\/infrastructuremanager\.kyma-project\.io\/v1\/namespaces\/kcp-system\/runtimes on http:\/\/127\.0\.0\.1:\d+ \(kubeconfig .*kubeconfig\): 403 Forbidden: runtimes is forbidden.* — grant the kubeconfig's identity list and watch on \/apis\/.*\/runtimes$/,
    );
    stream = (res) =>
      res
        .writeHead(200)
        .end(line('ERROR', { kind: 'Status', code: 500, reason: 'InternalError', message: 'etcd down' }));
    const failed = await kube.watch(runtimes, {}, () => {});
    expect(failed).toMatchObject({ reason: 'failed', status: 500 });
    expect(failed.reason === 'failed' && failed.message).toMatch(
      /500 InternalError: etcd down — the API server is overloaded or failing/,
    );
  });

  it('ends as aborted when the signal fires, closing the connection', async () => {
    stream = (res) => res.writeHead(200).flushHeaders();
    const controller = new AbortController();
    const watching = (await client()).watch(runtimes, {}, () => {}, controller.signal);
    await new Promise<void>((resolve) => server.once('request', () => resolve()));
    controller.abort();
    expect(await watching).toEqual({ reason: 'aborted' });
    await closed; // the server saw the connection go
  });

  it('fails with status 0 and the fix when nothing listens', async () => {
    const port = (server.address() as AddressInfo).port;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    server = createServer().listen(0, '127.0.0.1');
    const end = await (await client(port)).watch(runtimes, {}, () => {});
    expect(end).toMatchObject({ reason: 'failed', status: 0 });
    expect(end.reason === 'failed' && end.message).toMatch(
      /cannot reach http:\/\/127\.0\.0\.1:\d+ \(kubeconfig .*\): .*ECONNREFUSED.* — check that the API server runs/,
    );
  });
});

describe('KubeClient.forCluster: rotated credentials', () => {
  const runtimes = { apiVersion: 'infrastructuremanager.kyma-project.io/v1', kind: 'Runtime', namespace: 'kcp-system' };

  function kubeconfigWithToken(token: string): Promise<string> {
    return dir.write(
      'rotating.yaml',
      `apiVersion: v1
kind: Config
clusters: [{name: test, cluster: {server: "http://127.0.0.1:${(server.address() as AddressInfo).port}", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: ${token}}}]
contexts: [{name: test, context: {cluster: test, user: u}}]
current-context: test
`,
    );
  }

  /** Only `Bearer <valid>` is let in; a watch is answered with one event and closed. */
  let valid = 'one';
  beforeEach(() => {
    valid = 'one';
    answer = (req) =>
      req.headers.authorization === `Bearer ${valid}`
        ? { status: 200, body: req.url?.includes('watch=1') ? {} : { kind: 'Shoot' } }
        : { status: 401, body: { kind: 'Status', code: 401, reason: 'Unauthorized', message: 'Unauthorized' } };
  });

  // A check period no test waits out: what these tests show is the 401 path.
  const environment = { env: {}, checkEveryMs: 3_600_000 };

  it('reads the kubeconfig again after a 401 and retries once with the new token', async () => {
    const path = await kubeconfigWithToken('one');
    const kube = KubeClient.forCluster({ kubeconfig: path, option: '--garden-kubeconfig' }, environment);
    expect((await kube.get(shoot)).ok).toBe(true);
    valid = 'two'; // the old token is revoked ...
    await kubeconfigWithToken('two'); // ... and its successor mounted
    expect((await kube.apply(shoot, 'kimops')).ok).toBe(true);
    expect(seen.map((s) => [s.method, s.authorization])).toEqual([
      ['GET', 'Bearer one'],
      ['PATCH', 'Bearer one'],
      ['PATCH', 'Bearer two'],
    ]);
    expect(seen[2]?.body).toBe(seen[1]?.body);
    kube.close();
  });

  it('retries a 401 whose successor token another request already read, not only one it reads itself', async () => {
    const path = await kubeconfigWithToken('one');
    const kube = KubeClient.forCluster({ kubeconfig: path, option: '--garden-kubeconfig' }, environment);
    valid = 'two';
    await kubeconfigWithToken('two');
    // Both leave with the old token; the first 401 back reads the new file, the second finds nothing new to read.
    const [a, b] = await Promise.all([kube.get(shoot), kube.get(shoot)]);
    expect([a.ok, b.ok]).toEqual([true, true]);
    expect(seen.map((s) => s.authorization)).toEqual(['Bearer one', 'Bearer one', 'Bearer two', 'Bearer two']);
    kube.close();
  });

  it('does not retry a 401 when the file did not change, and says why a changed file could not be used', async () => {
    const path = await kubeconfigWithToken('one');
    const kube = KubeClient.forCluster({ kubeconfig: path, option: '--garden-kubeconfig' }, environment);
    valid = 'two';
    const refused = await kube.get(shoot);
    expect(refused).toMatchObject({ ok: false, status: 401 });
    expect(seen).toHaveLength(1);
    await dir.write('rotating.yaml', 'users: [{name: u, user: {token: two');
    const again = await kube.get(shoot);
    expect(again.ok ? '' : again.error.message).toBe(
      `Unauthorized (${path} changed but cannot be used: ${path} is not a usable kubeconfig: unexpected end of the stream within a flow collection (2:1))`,
    );
    expect(seen).toHaveLength(2);
    kube.close();
  });

  it('opens a watch refused with 401 again with the new token', async () => {
    const path = await kubeconfigWithToken('one');
    const kube = KubeClient.forCluster({ kubeconfig: path, option: '--kcp-kubeconfig' }, environment);
    valid = 'two';
    await kubeconfigWithToken('two');
    expect(await kube.watch(runtimes, {}, () => {})).toEqual({ reason: 'closed' });
    expect(seen.map((s) => s.authorization)).toEqual(['Bearer one', 'Bearer two']);
    kube.close();
  });

  it('picks up a rotated file on its own once the check period passed, without a refused request', async () => {
    const path = await kubeconfigWithToken('one');
    let now = 0;
    const kube = KubeClient.forCluster(
      { kubeconfig: path, option: '--kcp-kubeconfig' },
      { env: {}, checkEveryMs: 10_000, now: () => now },
    );
    await kube.get(shoot);
    await kubeconfigWithToken('two');
    valid = 'two';
    now = 10_000;
    expect((await kube.get(shoot)).ok).toBe(true);
    expect(seen.map((s) => s.authorization)).toEqual(['Bearer one', 'Bearer two']);
    kube.close();
  });
});
