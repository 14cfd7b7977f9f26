// Doubles for the backfiller's unit tests: an API that records every call, and the Runtime and Shoot most tests
// start from. Only tests import this file.
import type { ListAllResult } from '../../adapters/kube/kube-client.js';
import type { ObjectRef } from '../../adapters/kube/resources.js';
import type { KubeResult } from '../../model/kube-result.js';
import { LABEL_RUNTIME_ID, RUNTIME_FINALIZER } from '../../model/contract.js';
import type { KubeObject } from '../../model/kube-object.js';
import type { Lookup } from '../../backfiller/lookups.js';
import type { RuntimeObject, ShootObject } from '../../backfiller/objects.js';
import type { GardenPort, KcpPort } from '../../backfiller/ports.js';

export const NOW = new Date('2026-01-01T00:00:00Z');
export const ok = <T>(body: T): KubeResult<T> => ({ ok: true, status: 200, body });
export const fail = (status: number): KubeResult<never> => ({
  ok: false,
  status,
  error: { message: `status ${status}` },
});

export function runtime(overrides: Partial<RuntimeObject['metadata']> = {}): RuntimeObject {
  return {
    apiVersion: 'infrastructuremanager.kyma-project.io/v1',
    kind: 'Runtime',
    metadata: {
      name: 'rt',
      namespace: 'kcp-system',
      generation: 1,
      resourceVersion: '10',
      labels: { [LABEL_RUNTIME_ID]: 'rid' },
      finalizers: [RUNTIME_FINALIZER],
      ...overrides,
    },
    spec: { shoot: { name: 'c-1' } },
  };
}

interface Call {
  method: string;
  args: unknown[];
}

/** Both APIs in one double: every call recorded; answers from `answer`, else 200 with the request body. */
export function fakeClient(
  answer: (method: string, args: unknown[]) => KubeResult<unknown> | undefined = () => undefined,
) {
  const calls: Call[] = [];
  // The double answers whatever `answer` says, typed as the caller asked (as the API's JSON is).
  const respond = async <T>(method: string, args: unknown[]): Promise<KubeResult<T>> => {
    calls.push({ method, args });
    return (answer(method, args) ?? ok(args[0] ?? {})) as KubeResult<T>;
  };
  const client: KcpPort & GardenPort = {
    label: 'fake.kubeconfig',
    server: 'https://fake',
    get: <T extends KubeObject>(...args: [ref: ObjectRef]) => respond<T>('get', args),
    listAll: async <T extends KubeObject>(...args: [ref: Omit<ObjectRef, 'name'>]): Promise<ListAllResult<T>> => {
      calls.push({ method: 'listAll', args });
      return { ok: true, items: [], resourceVersion: undefined };
    },
    replace: <T extends KubeObject>(...args: [object: T, subresource?: string]) => respond<T>('replace', args),
    patch: <T extends KubeObject>(
      ...args: [ref: ObjectRef, patch: unknown, contentType?: string, subresource?: string]
    ) => respond<T>('patch', args),
    apply: <T extends KubeObject>(...args: [object: T, fieldManager: string, options?: { force?: boolean }]) =>
      respond<T>('apply', args),
    create: <T extends KubeObject>(...args: [object: T]) => respond<T>('create', args),
    delete: (...args: [ref: ObjectRef]) => respond<unknown>('delete', args),
    request: <T>(...args: [method: string, path: string, options?: { body?: unknown }]) => respond<T>('request', args),
  };
  return { client, calls };
}

export const noShoot: Lookup = {
  shoot: async () => undefined,
  gardenerCluster: async () => undefined,
  secret: async () => undefined,
  applyFacts: () => undefined,
};

export const shootObject = (name = 'c-1'): ShootObject => ({
  apiVersion: 'core.gardener.cloud/v1beta1',
  kind: 'Shoot',
  metadata: {
    name,
    namespace: 'garden-p',
    generation: 3,
    annotations: { 'infrastructuremanager.kyma-project.io/runtime-generation': '1' },
  },
  spec: { dns: { domain: 'c-1.example.com' } },
  status: {
    observedGeneration: 3,
    lastOperation: {
      type: 'Create',
      state: 'Succeeded',
      progress: 100,
      description: 'done',
      lastUpdateTime: '2026-01-01T00:00:00Z',
    },
  },
});

/** A Shoot whose Create succeeded (Runtime generation 1 on it); no GardenerCluster, no Secret yet. */
export const succeededShoot = (): Lookup => ({
  shoot: async () => shootObject(),
  gardenerCluster: async () => undefined,
  secret: async () => undefined,
  applyFacts: () => undefined,
});
