// Credentials as a Pod holds them, on the real plane: a ServiceAccount's token mounted in a folder laid out as
// the kubelet lays it out (the `..data` symlink swapped on each update), and a kubeconfig mounted from a Secret.
// A client resolved from them works; when the token is rotated — the new one mounted, the old one then really
// revoked by deleting its ServiceAccount — the same client and a running informer keep working without a
// restart and without a single failed attempt.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { informersOn } from '../../adapters/kube/informer-factory.js';
import { KubeClient } from '../../adapters/kube/kube-client.js';
import { podNamespace } from '../../adapters/kube/kubeconfig-source.js';
import type { KubeObject } from '../../model/kube-object.js';
import { createTestNamespace } from '../helpers/projects.js';
import { connect, eventually } from '../helpers/testenv.js';
import { kubeletWrite } from '../helpers/kubelet-mount.js';

const env = connect(inject('testenvStateDir'));
const admin = env.kcp;
const CONFIGMAPS = { apiVersion: 'v1', kind: 'ConfigMap' } as const;

/** The plane's server and CA, as a Pod would find them (KUBERNETES_SERVICE_HOST/PORT, ca.crt). */
function plane(): { host: string; port: string; ca: string; server: string } {
  const config = new KubeConfig();
  config.loadFromFile(join(env.stateDir, 'kcp.kubeconfig'));
  const cluster = config.getCurrentCluster();
  const url = new URL(cluster?.server ?? '');
  return {
    host: url.hostname,
    port: url.port,
    ca: Buffer.from(cluster?.caData ?? '', 'base64').toString('utf8'),
    server: url.origin,
  };
}

async function must<T>(what: string, result: Promise<{ ok: boolean; status: number; body?: T }>): Promise<T> {
  const answer = await result;
  if (!answer.ok) throw new Error(`${what}: ${answer.status} ${JSON.stringify(answer)}`);
  return answer.body as T;
}

/**
 * A new ServiceAccount (kimops-1, kimops-2, …) and a token for it. The Role is bound to the namespace's
 * ServiceAccounts group, so each new one may read what the one before could.
 */
let accounts = 0;
async function freshServiceAccount(namespace: string): Promise<{ name: string; token: string }> {
  const name = `kimops-${++accounts}`;
  // ServiceAccounts are not in kimops's table of kinds (adapters/kube/resources.ts): raw paths.
  await must(
    'create the ServiceAccount',
    admin.request('POST', `/api/v1/namespaces/${namespace}/serviceaccounts`, {
      body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name } },
    }),
  );
  const minted = await must<{ status: { token: string } }>(
    'TokenRequest',
    admin.request('POST', `/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`, {
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } },
    }),
  );
  return { name, token: minted.status.token };
}

/** A client that only ever sends `token`: shows when the plane refuses it. */
function fixedTokenClient(token: string): KubeClient {
  const { server, ca } = plane();
  const config = new KubeConfig();
  config.loadFromClusterAndUser(
    { name: 'plane', server, skipTLSVerify: false, caData: Buffer.from(ca).toString('base64') },
    { name: 'old', token },
  );
  return KubeClient.fromKubeConfig(config, 'the old token');
}

describe('credentials from mounted files, rotated while kimops runs', () => {
  let namespace: string;
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kimops-kube-credentials-'));
    namespace = await createTestNamespace(admin, 'kimops-sa-');
    const rbac = `/apis/rbac.authorization.k8s.io/v1/namespaces/${namespace}`;
    await must(
      'create the Role',
      admin.request('POST', `${rbac}/roles`, {
        body: {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'Role',
          metadata: { name: 'read-configmaps' },
          rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] }],
        },
      }),
    );
    await must(
      'create the RoleBinding',
      admin.request('POST', `${rbac}/rolebindings`, {
        body: {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'RoleBinding',
          metadata: { name: 'read-configmaps' },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'read-configmaps' },
          subjects: [
            { kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: `system:serviceaccounts:${namespace}` },
          ],
        },
      }),
    );
  });
  afterAll(async () => {
    await admin.delete({ apiVersion: 'v1', kind: 'Namespace', name: namespace });
    await rm(dir, { recursive: true, force: true });
  });

  /**
   * The kubelet's order: the new token is mounted, then the old one stops being valid — here not by expiry
   * but revoked outright (its ServiceAccount deleted), and not before the plane refuses it.
   */
  async function rotate(write: (token: string) => Promise<void>, old: { name: string; token: string }): Promise<void> {
    const next = await freshServiceAccount(namespace);
    await write(next.token);
    await must(
      'delete the old ServiceAccount',
      admin.request('DELETE', `/api/v1/namespaces/${namespace}/serviceaccounts/${old.name}`),
    );
    const oldClient = fixedTokenClient(old.token);
    await eventually(
      'the old token refused',
      async () => ((await oldClient.list({ ...CONFIGMAPS, namespace })).status === 401 ? true : undefined),
      20_000,
    );
    oldClient.close();
  }

  async function configMap(name: string): Promise<void> {
    await must(
      `create ConfigMap ${name}`,
      admin.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data: { a: name } }),
    );
  }

  /** The client and an informer on it, across a rotation that revokes the token they started with. */
  async function survivesRotation(
    client: KubeClient,
    write: (token: string) => Promise<void>,
    first: { name: string; token: string },
    prefix: string,
  ): Promise<void> {
    const listed = await client.list({ ...CONFIGMAPS, namespace });
    expect(listed.ok).toBe(true);
    const logged: string[] = [];
    // Watches the server ends every 2 s: each is opened again with whatever credentials are current.
    const informer = informersOn(client)<KubeObject>(CONFIGMAPS, {
      namespace,
      watchTimeoutSeconds: 2,
      random: () => 0,
      log: (line) => logged.push(line),
    });
    informer.start();
    try {
      await informer.synced();
      await configMap(`${prefix}-before`);
      await eventually('the informer saw the first ConfigMap', async () =>
        informer.get(namespace, `${prefix}-before`) ? true : undefined,
      );
      await rotate(write, first);
      expect((await client.list({ ...CONFIGMAPS, namespace })).ok).toBe(true);
      // Past the open watch's end: the informer has watched again with the new token.
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      await configMap(`${prefix}-after`);
      await eventually('the informer saw the ConfigMap made after the rotation', async () =>
        informer.get(namespace, `${prefix}-after`) ? true : undefined,
      );
      expect(informer.failing()).toBeUndefined();
      expect(logged.filter((line) => /401|Unauthorized/.test(line))).toEqual([]);
    } finally {
      await informer.stop();
      client.close();
    }
  }

  it("in a Pod: resolves the ServiceAccount's folder and follows its rotated token", async () => {
    const { host, port, ca } = plane();
    const mount = join(dir, 'serviceaccount');
    const first = await freshServiceAccount(namespace);
    const write = (next: string) => kubeletWrite(mount, { token: next, 'ca.crt': ca, namespace });
    await write(first.token);
    expect(podNamespace({ serviceAccountDir: mount })).toBe(namespace);
    const client = KubeClient.forCluster(
      { option: '--kcp-kubeconfig' },
      // No periodic look within the test: the client finds the new token through the plane's 401 alone.
      {
        env: { KUBERNETES_SERVICE_HOST: host, KUBERNETES_SERVICE_PORT: port },
        serviceAccountDir: mount,
        checkEveryMs: 3_600_000,
      },
    );
    expect(client.label).toBe(`in-cluster ServiceAccount ${mount}`);
    await survivesRotation(client, write, first, 'pod');
  });

  it('from a kubeconfig Secret: follows the file the kubelet swaps', async () => {
    const { server, ca } = plane();
    const mount = join(dir, 'garden-kubeconfig');
    const kubeconfig = (token: string) => `apiVersion: v1
kind: Config
clusters: [{name: plane, cluster: {server: "${server}", certificate-authority-data: ${Buffer.from(ca).toString('base64')}}}]
users: [{name: kimops, user: {token: ${token}}}]
contexts: [{name: plane, context: {cluster: plane, user: kimops, namespace: ${namespace}}}]
current-context: plane
`;
    const first = await freshServiceAccount(namespace);
    const write = (next: string) => kubeletWrite(mount, { kubeconfig: kubeconfig(next) });
    await write(first.token);
    // KUBECONFIG, as a Deployment would set it for the mounted Secret; the default look every 10 s.
    const client = KubeClient.forCluster(
      { option: '--garden-kubeconfig', context: 'plane', contextOption: '--garden-context' },
      { env: { KUBECONFIG: join(mount, 'kubeconfig') } },
    );
    await survivesRotation(client, write, first, 'file');
  });
});
