// The watching applier's caches against a loopback API: what they list, keep and hand to a sync, and when
// they start over (a rotated kubeconfig, another field manager).
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useTempDir } from '../test/helpers/temp-dir.js';
import { eventually } from '../test/helpers/testenv.js';
import { kubeconfigFile } from '../adapters/kube/informer-factory.js';
import { GardenCaches } from './garden-caches.js';

const dir = useTempDir('apply-caches');
const NAMESPACE = 'garden-p';
const managedFields = [
  { manager: 'kimops', operation: 'Apply', fieldsV1: { 'f:spec': {} } },
  { manager: 'kim', operation: 'Apply', fieldsV1: { 'f:spec': {} } },
];
/** As compactShoot and compactCompanion keep them: fieldsV1 as its JSON text. */
const compacted = managedFields.map((entry) => ({ ...entry, fieldsV1: JSON.stringify(entry.fieldsV1) }));

let server: Server;
let lists: { path: string; authorization: string | undefined }[];
let caches: GardenCaches | undefined;
/** The Shoots' open watches, to send events on. */
let shootWatches: ServerResponse[];
/** Shoots listed besides c-1. */
let moreShoots: object[];
/** ConfigMaps answered 403, as for an identity that may only read Shoots. */
let configMapsForbidden: boolean;

beforeEach(async () => {
  lists = [];
  shootWatches = [];
  moreShoots = [];
  configMapsForbidden = false;
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://api');
    if (configMapsForbidden && url.pathname.endsWith('/configmaps'))
      return void res
        .writeHead(403, { 'Content-Type': 'application/json' })
        .end(JSON.stringify({ kind: 'Status', status: 'Failure', reason: 'Forbidden', code: 403 }));
    if (url.searchParams.get('watch') === '1') {
      if (url.pathname.endsWith('/shoots')) shootWatches.push(res);
      return void res.writeHead(200, { 'Content-Type': 'application/json' }).flushHeaders();
    }
    lists.push({ path: `${url.pathname}${url.search}`, authorization: req.headers.authorization });
    const items = url.pathname.endsWith('/shoots')
      ? [
          {
            metadata: { name: 'c-1', namespace: NAMESPACE, resourceVersion: '5', managedFields },
            spec: { region: 'eu' },
            status: { conditions: [{ type: 'x' }] },
          },
          ...moreShoots,
        ]
      : [{ metadata: { name: 'auth', namespace: NAMESPACE, resourceVersion: '6', managedFields }, data: { a: 'b' } }];
    res
      .writeHead(200, { 'Content-Type': 'application/json' })
      .end(JSON.stringify({ metadata: { resourceVersion: '9' }, items }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});

afterEach(async () => {
  await caches?.stop();
  caches = undefined;
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const kubeconfig = (token: string, context = 'g') =>
  dir.write(
    'garden.kubeconfig',
    `apiVersion: v1
kind: Config
clusters: [{name: g, cluster: {server: "http://127.0.0.1:${(server.address() as AddressInfo).port}", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: ${token}}}]
contexts: [{name: ${context}, context: {cluster: g, user: u}}]
current-context: ${context}
`,
  );

describe('GardenCaches', () => {
  it('lists each kind once, hands out compacted objects, and lists nothing more while nothing changed', async () => {
    caches = new GardenCaches(kubeconfigFile(await kubeconfig('one'), '--garden-kubeconfig'), () => {});
    const live = await caches.live(NAMESPACE, 'kimops');
    expect(live.shoots()).toEqual([
      {
        apiVersion: 'core.gardener.cloud/v1beta1',
        kind: 'Shoot',
        // kimops's applies and KIM's (a hand-back applies KIM's again), of Shoots and companions alike.
        metadata: { name: 'c-1', namespace: NAMESPACE, resourceVersion: '5', managedFields: compacted },
        spec: { region: 'eu' },
        status: {},
      },
    ]);
    expect(live.companions()).toEqual([
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'auth', namespace: NAMESPACE, resourceVersion: '6', managedFields: compacted },
        data: { a: 'b' },
      },
    ]);
    expect(live.failing()).toBeUndefined();
    await caches.live(NAMESPACE, 'kimops');
    expect(lists.map((l) => l.path).sort()).toEqual([
      `/api/v1/namespaces/${NAMESPACE}/configmaps?labelSelector=kimops.kyma-project.io%2Fmanaged-by%3Dkimops%2Ckimops.kyma-project.io%2Fshoot&limit=500`,
      `/apis/core.gardener.cloud/v1beta1/namespaces/${NAMESPACE}/shoots?limit=500`,
    ]);
  });

  it('keeps the Shoots alone when asked, needing no right to ConfigMaps', async () => {
    configMapsForbidden = true;
    const file = kubeconfigFile(await kubeconfig('one'), '--garden-kubeconfig');
    caches = new GardenCaches(file, () => {});
    await expect(caches.live(NAMESPACE, 'kimops')).rejects.toThrow(/configmaps/i);
    await caches.stop();
    caches = new GardenCaches(file, () => {}, undefined, { companions: false });
    const live = await caches.live(NAMESPACE, 'kimops');
    expect(live.shoots().map((s) => s.metadata.name)).toEqual(['c-1']);
    expect(live.companions()).toEqual([]);
    expect(live.failing()).toBeUndefined();
  });

  it('fails with the reason while the Garden does not answer the first lists, and serves once it does', async () => {
    const port = (server.address() as AddressInfo).port;
    const path = await kubeconfig('one');
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    caches = new GardenCaches(kubeconfigFile(path, '--garden-kubeconfig'), () => {});
    await expect(caches.live(NAMESPACE, 'kimops')).rejects.toThrow(
      new RegExp(`Garden.*127\\.0\\.0\\.1:${port}.*ECONNREFUSED`),
    );
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    await eventually(
      'the caches filled',
      async () => (await caches?.live(NAMESPACE, 'kimops').catch(() => undefined)) ?? undefined,
      10_000,
    );
    expect((await caches.live(NAMESPACE, 'kimops')).shoots()).toHaveLength(1);
  });

  it('asks for a sync once when a Shoot’s reconcile ends with its SKR not configured from its tree', async () => {
    /** c-2 applied from `applied`, reconciled (or not) at generation 2, its SKR configured from `skr`. */
    const shoot = (resourceVersion: string, state: string, skr?: string, applied = 't1') => ({
      metadata: {
        name: 'c-2',
        namespace: NAMESPACE,
        resourceVersion,
        generation: 2,
        annotations: {
          'kimops.kyma-project.io/applied-tree': applied,
          ...(skr && { 'kimops.kyma-project.io/skr-applied-tree': skr }),
        },
      },
      spec: { region: 'eu' },
      status: { observedGeneration: 2, lastOperation: { type: 'Reconcile', state } },
    });
    moreShoots = [shoot('7', 'Processing')];
    let asked = 0;
    caches = new GardenCaches(
      kubeconfigFile(await kubeconfig('one'), '--garden-kubeconfig'),
      () => {},
      () => asked++,
    );
    await caches.live(NAMESPACE, 'kimops');
    await eventually('the watch', async () => (shootWatches.length > 0 ? true : undefined));
    expect(asked).toBe(0);
    const send = (object: object) => shootWatches[0]?.write(`${JSON.stringify({ type: 'MODIFIED', object })}\n`);
    send(shoot('8', 'Succeeded'));
    await eventually('a sync asked for', async () => (asked === 1 ? true : undefined));
    // Another status write of the same state, while the SKR is still not configured (it keeps failing): no more.
    send(shoot('9', 'Succeeded'));
    // Configured, then a new reconcile of a new tree ends: once again.
    send(shoot('10', 'Succeeded', 't1'));
    send(shoot('11', 'Succeeded', 't1', 't2'));
    await eventually('a second sync asked for', async () => (asked === 2 ? true : undefined));
    expect((await caches.live(NAMESPACE, 'kimops')).shoots().map((s) => s.metadata.resourceVersion)).toEqual([
      '5',
      '11',
    ]);
    expect(asked).toBe(2);
  });

  it('starts over for another field manager and another cluster, not for a rotated token', async () => {
    const path = await kubeconfig('one');
    caches = new GardenCaches(kubeconfigFile(path, '--garden-kubeconfig'), () => {});
    await caches.live(NAMESPACE, 'kimops');
    const asKim = await caches.live(NAMESPACE, 'kim');
    expect(asKim.shoots()[0]?.metadata.managedFields).toEqual([compacted[1]]);
    expect(lists).toHaveLength(4);
    // The kubelet renewed the token: the same cluster, nothing to list again (the client takes the new token).
    await kubeconfig('two');
    await caches.live(NAMESPACE, 'kim');
    expect(lists).toHaveLength(4);
    // Another context: another cluster as far as kimops can tell, so the caches start over with its credentials.
    await kubeconfig('three', 'g2');
    await caches.live(NAMESPACE, 'kim');
    expect(lists.map((l) => l.authorization)).toEqual([
      'Bearer one',
      'Bearer one',
      'Bearer one',
      'Bearer one',
      'Bearer three',
      'Bearer three',
    ]);
  });
});
