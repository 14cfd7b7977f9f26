// The Kubernetes client against a real HTTP server on loopback: paths, content types, field
// manager and the mapping of answers (and of no answer) to result values.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useTempDir } from '../../test/helpers/temp-dir.js';
import { CONTENT_TYPE, describeFailure, KubeClient } from './kube-client.js';

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
      seen.push({ method: req.method ?? '', url: req.url ?? '', contentType: req.headers['content-type'], authorization: req.headers.authorization, body: Buffer.concat(chunks).toString() });
      const { status, body } = answer(req);
      res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});

afterEach(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

async function client(port = (server.address() as AddressInfo).port): Promise<KubeClient> {
  const kubeconfig = await dir.write(
    'kubeconfig',
    `apiVersion: v1
kind: Config
clusters: [{name: test, cluster: {server: "http://127.0.0.1:${port}", insecure-skip-tls-verify: true}}]
users: [{name: garden, user: {token: secret-token}}]
contexts: [{name: test, context: {cluster: test, user: garden}}]
current-context: test
`,
  );
  return KubeClient.fromKubeconfigFile(kubeconfig);
}

const shoot = { apiVersion: 'core.gardener.cloud/v1beta1', kind: 'Shoot', metadata: { name: 'c-1', namespace: 'garden-kyma-dev' }, spec: {} };

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
    await kube.patch({ ...shoot, name: 'c-1', namespace: 'garden-kyma-dev' }, { status: {} }, CONTENT_TYPE.mergePatch, 'status');
    await kube.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'kcp-system' } });
    await kube.list({ apiVersion: 'core.gardener.cloud/v1beta1', kind: 'CloudProfile' }, 'a=b');
    expect(seen.map((s) => `${s.method} ${s.url} ${s.contentType ?? ''}`)).toEqual([
      `PATCH /apis/core.gardener.cloud/v1beta1/namespaces/garden-kyma-dev/shoots/c-1/status ${CONTENT_TYPE.mergePatch}`,
      `POST /api/v1/namespaces/kcp-system/configmaps ${CONTENT_TYPE.json}`,
      'GET /apis/core.gardener.cloud/v1beta1/cloudprofiles?labelSelector=a%3Db ',
    ]);
  });

  it('returns Kubernetes errors as values with reason and message', async () => {
    answer = () => ({ status: 409, body: { kind: 'Status', reason: 'Conflict', message: 'the object has been modified', code: 409 } });
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
    expect(describeFailure(result)).toMatch(/^unreachable: cannot reach http:\/\/127\.0\.0\.1:\d+ \(kubeconfig .*kubeconfig\): .*ECONNREFUSED.* — check that the API server runs/);
  });

  it('refuses kinds it does not know, naming where to add them', async () => {
    const kube = await client();
    expect(() => kube.get({ apiVersion: 'v1', kind: 'Pod', name: 'p' })).toThrow(/add it to adapters\/kube\/resources\.ts/);
    expect(seen).toEqual([]);
  });
});
