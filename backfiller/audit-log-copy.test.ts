import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../model/kube-object.js';
import { fakeClient, ok } from '../test/helpers/backfiller-doubles.js';
import { copyReadCredentials } from './audit-log-copy.js';
import type { SkrConnect, SkrPort } from './ports.js';

const SOURCE = { namespace: 'kcp-stage', name: 'pool-7-read' };
const READ = {
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 'pool-7-read', namespace: 'kcp-stage', resourceVersion: '7', labels: { kalm: 'x' } },
  type: 'Opaque',
  data: { clientid: 'Y2xpZW50', clientsecret: 'c2VjcmV0' },
};
const notFound = {
  ok: false as const,
  status: 404,
  error: { reason: 'NotFound', message: 'secrets "pool-7-read" not found' },
};

/** An SKR that records what it was asked and whether it was closed. */
function skrDouble(answer: (object: KubeObject) => ReturnType<SkrPort['apply']> = async (o) => ok(o)) {
  const seen = { connected: [] as string[], applied: [] as unknown[][], closed: 0 };
  const connect: SkrConnect = async (shoot) => {
    seen.connected.push(shoot);
    const client: SkrPort = {
      apply: async <T extends KubeObject>(object: T, ...rest: unknown[]) => {
        seen.applied.push([object, ...rest]);
        // The double answers as the caller typed it (as the API's JSON is).
        return (await answer(object)) as never;
      },
      close: () => void seen.closed++,
    };
    return { ok: true, client };
  };
  return { connect, seen };
}

describe('copyReadCredentials', () => {
  it("applies the source's type and data as kyma-system/auditlog-read-credentials, forced, as kimops, and closes the SKR client", async () => {
    const kcp = fakeClient((method) => (method === 'get' ? ok(READ) : undefined));
    const skr = skrDouble();
    expect(await copyReadCredentials({ kcp: kcp.client }, skr.connect, 'c-12345', SOURCE)).toEqual({});
    expect(kcp.calls).toEqual([{ method: 'get', args: [{ apiVersion: 'v1', kind: 'Secret', ...SOURCE }] }]);
    expect(skr.seen.connected).toEqual(['c-12345']);
    expect(skr.seen.applied).toEqual([
      [
        {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: {
            name: 'auditlog-read-credentials',
            namespace: 'kyma-system',
            labels: { 'operator.kyma-project.io/managed-by': 'infrastructure-manager' },
          },
          type: 'Opaque',
          data: READ.data,
        },
        'kimops',
        { force: true },
      ],
    ]);
    expect(skr.seen.closed).toBe(1);
  });

  it('a missing source asks no admin kubeconfig; each failure names its step', async () => {
    const skr = skrDouble();
    const missing = fakeClient(() => notFound);
    expect(await copyReadCredentials({ kcp: missing.client }, skr.connect, 'c-1', SOURCE)).toEqual({
      failure: { step: 'source', source: SOURCE, message: '404 NotFound: secrets "pool-7-read" not found' },
    });
    expect(skr.seen.connected).toEqual([]);

    const kcp = fakeClient((method) => (method === 'get' ? ok(READ) : undefined));
    const unreachable: SkrConnect = async () => ({
      ok: false,
      message: 'request adminkubeconfig of Shoot garden-p/c-1: 403',
    });
    expect(await copyReadCredentials({ kcp: kcp.client }, unreachable, 'c-1', SOURCE)).toEqual({
      failure: { step: 'client', message: 'request adminkubeconfig of Shoot garden-p/c-1: 403' },
    });

    const refusing = skrDouble(async () => ({
      ok: false,
      status: 403,
      error: { reason: 'Forbidden', message: 'denied by webhook' },
    }));
    expect(await copyReadCredentials({ kcp: kcp.client }, refusing.connect, 'c-1', SOURCE)).toEqual({
      failure: { step: 'apply', message: '403 Forbidden: denied by webhook' },
    });
    expect(refusing.seen.closed).toBe(1);
  });
});
