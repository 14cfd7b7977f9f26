// The copy of the registry caches' credentials before a Shoot write, and the cleanup after it reconciled, against
// an in-memory Garden and SKR that record what was asked of them.
import { describe, expect, it } from 'vitest';
import type { ObjectRef } from '../adapters/kube/resources.js';
import type { KubeObject } from '../model/kube-object.js';
import type { KubeResult } from '../model/kube-result.js';
import { testShoot } from '../test/helpers/test-shoot.js';
import { rotatedSecretName, type RegistryCacheStub } from './registry-cache-plan.js';
import {
  deleteGoneRuntimesSecrets,
  deleteUnusedSecrets,
  syncRegistryCaches,
  CleanupFailed,
} from './registry-cache-sync.js';
import type { SkrApi, SkrConnect } from './skr-connect.js';

const UID = '1e0c54f2-7d4b-4b5e-a1f4-3c2b9d8e7f60';
const NAME = `reg-cache-${UID}`;

const stub = (name = NAME, uid = UID): RegistryCacheStub => ({
  path: `shoots/c-1/registry-cache/secret-${name}.yaml`,
  object: {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name,
      namespace: 'garden-p',
      labels: {
        'kyma-project.io/runtime-id': 'rt-1',
        'kyma-project.io/registry-cache-id': uid,
        'app.kubernetes.io/managed-by': 'infrastructure-manager',
      },
      annotations: {
        'kyma-project.io/registry-cache-name': 'c',
        'kyma-project.io/registry-cache-namespace': 'kyma-system',
        'kimops.kyma-project.io/registry-cache-secret': 'creds',
      },
    },
    immutable: true,
  },
});

const ok = <T>(body: T): KubeResult<T> => ({ ok: true, status: 200, body });
const missing = (name: string): KubeResult<never> => ({
  ok: false,
  status: 404,
  error: { message: `secrets "${name}" not found`, reason: 'NotFound' },
});

/** Objects by "namespace/name"; every call recorded as "VERB namespace/name". */
function store(objects: Record<string, KubeObject>, calls: string[], prefix: string) {
  const key = (ref: ObjectRef) => `${ref.namespace ?? ''}/${ref.name ?? ''}`;
  return {
    get: <T extends KubeObject>(ref: ObjectRef) => {
      calls.push(`${prefix}GET ${ref.kind} ${key(ref)}`);
      const found = objects[key(ref)];
      return Promise.resolve(found ? ok(found as T) : missing(ref.name ?? ''));
    },
    create: <T extends KubeObject>(object: T) => {
      const k = `${object.metadata.namespace ?? ''}/${object.metadata.name}`;
      calls.push(`${prefix}CREATE ${object.kind} ${k}`);
      if (objects[k]) return Promise.resolve({ ok: false, status: 409, error: { message: 'exists' } } as KubeResult<T>);
      objects[k] = object;
      return Promise.resolve(ok(object));
    },
    patch: <T extends KubeObject>(ref: ObjectRef, patch: unknown) => {
      calls.push(`${prefix}PATCH ${ref.kind} ${key(ref)} ${JSON.stringify(patch)}`);
      return Promise.resolve(ok({} as T));
    },
  };
}

function setup(garden: Record<string, KubeObject>, skrObjects: Record<string, KubeObject>, connectFails?: string) {
  const calls: string[] = [];
  const connect: SkrConnect = () =>
    Promise.resolve(
      connectFails
        ? { ok: false, message: connectFails }
        : { ok: true, client: { ...store(skrObjects, calls, 'SKR '), close: () => {} } as unknown as SkrApi },
    );
  const run = () =>
    syncRegistryCaches({
      candidates: [{ shoot: 'c-1', tree: 't2', live: testShoot(), stubs: [stub()] }],
      garden: store(garden, calls, ''),
      namespace: 'garden-p',
      connect,
      concurrency: 1,
    });
  return { calls, run };
}

const source = (data: Record<string, string>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 'creds', namespace: 'kyma-system' },
  type: 'kubernetes.io/basic-auth',
  data,
});

describe('syncRegistryCaches', () => {
  it('creates a missing garden Secret from the SKR’s data, without its type', async () => {
    const garden: Record<string, KubeObject> = {};
    const { run } = setup(garden, { 'kyma-system/creds': source({ username: 'dQ==', password: 'cA==' }) });
    const result = await run();
    expect(result.failed).toEqual([]);
    expect(result.synced[0]?.lines).toEqual([
      `created Secret garden-p/${NAME} from the SKR's kyma-system/creds`,
      'recorded kimops.kyma-project.io/registry-cache-synced-tree t2 on Shoot c-1',
    ]);
    expect(garden[`garden-p/${NAME}`]).toMatchObject({ immutable: true, data: { username: 'dQ==', password: 'cA==' } });
    expect(garden[`garden-p/${NAME}`]?.type).toBeUndefined();
  });

  it('leaves a garden Secret with the same data alone', async () => {
    const data = { username: 'dQ==', password: 'cA==' };
    const { calls, run } = setup(
      { [`garden-p/${NAME}`]: { ...stub().object, data } },
      { 'kyma-system/creds': source(data) },
    );
    const result = await run();
    expect(result.synced).toEqual([
      { shoot: 'c-1', lines: ['recorded kimops.kyma-project.io/registry-cache-synced-tree t2 on Shoot c-1'] },
    ]);
    expect(calls.filter((call) => !call.includes('GET'))).toEqual([
      `PATCH Shoot garden-p/c-1 {"metadata":{"annotations":{"kimops.kyma-project.io/registry-cache-synced-tree":"t2"}}}`,
    ]);
  });

  it('replaces one whose SKR data changed: marks it dirty, creates the new one, names it on the Shoot', async () => {
    const data = { username: 'dQ==', password: 'bmV3' };
    const garden: Record<string, KubeObject> = {
      [`garden-p/${NAME}`]: { ...stub().object, data: { password: 'b2xk' } },
    };
    const { calls, run } = setup(garden, { 'kyma-system/creds': source(data) });
    const result = await run();
    const rotated = rotatedSecretName(UID, data);
    expect(result.failed).toEqual([]);
    expect(calls.filter((call) => !call.includes('GET'))).toEqual([
      `PATCH Secret garden-p/${NAME} {"metadata":{"labels":{"kyma-project.io/dirty":"true"}}}`,
      `CREATE Secret garden-p/${rotated}`,
      `PATCH Shoot garden-p/c-1 {"metadata":{"annotations":{"registry-cache.kimops.kyma-project.io/${UID}":"${rotated}"}}}`,
      `PATCH Shoot garden-p/c-1 {"metadata":{"annotations":{"kimops.kyma-project.io/registry-cache-synced-tree":"t2"}}}`,
    ]);
    expect(garden[`garden-p/${rotated}`]?.data).toEqual(data);
  });

  it('fails with KIM’s message and holds the Shoot when the missing Secret cannot be copied', async () => {
    const { run } = setup({}, {});
    const result = await run();
    expect(result.failed).toEqual([
      {
        shoot: 'c-1',
        lines: [],
        hold: true,
        error: { message: 'failed to copy secret for registry cache c: secrets "creds" not found', tree: 't2' },
      },
    ]);
  });

  it('does not hold a Shoot whose Secrets all exist when the SKR cannot be reached, and says why', async () => {
    const { run } = setup({ [`garden-p/${NAME}`]: { ...stub().object, data: {} } }, {}, 'request adminkubeconfig: 403');
    const result = await run();
    expect(result.failed.map((f) => [f.hold, f.error.message])).toEqual([[false, 'request adminkubeconfig: 403']]);
  });

  it('records no synced tree when the copy fails, so the next sync copies again', async () => {
    const { calls, run } = setup({ [`garden-p/${NAME}`]: { ...stub().object, data: {} } }, {});
    const result = await run();
    expect(result.failed).toHaveLength(1);
    expect(calls.filter((call) => call.startsWith('PATCH'))).toEqual([]);
  });

  it('takes a replacement that exists already (409) when it is this cache’s with the data, clearing its dirty mark', async () => {
    const data = { password: 'bmV3' };
    const rotated = rotatedSecretName(UID, data);
    const garden: Record<string, KubeObject> = {
      [`garden-p/${NAME}`]: { ...stub().object, data: { password: 'b2xk' } },
      [`garden-p/${rotated}`]: {
        ...stub().object,
        metadata: {
          ...stub().object.metadata,
          name: rotated,
          labels: { ...stub().object.metadata.labels, 'kyma-project.io/dirty': 'true' },
        },
        data,
      },
    };
    const { calls, run } = setup(garden, { 'kyma-system/creds': source(data) });
    const result = await run();
    expect(result.failed).toEqual([]);
    expect(calls).toContain(`GET Secret garden-p/${rotated}`);
    expect(calls).toContain(`PATCH Secret garden-p/${rotated} {"metadata":{"labels":{"kyma-project.io/dirty":null}}}`);
  });

  it('refuses a replacement that exists (409) with other data, with KIM’s message', async () => {
    const data = { password: 'bmV3' };
    const rotated = rotatedSecretName(UID, data);
    const garden: Record<string, KubeObject> = {
      [`garden-p/${NAME}`]: { ...stub().object, data: { password: 'b2xk' } },
      [`garden-p/${rotated}`]: { ...stub().object, metadata: { ...stub().object.metadata, name: rotated }, data: {} },
    };
    const { calls, run } = setup(garden, { 'kyma-system/creds': source(data) });
    const result = await run();
    expect(result.failed[0]?.error.message).toBe(
      `failed to replace secret for registry cache c: Secret garden-p/${rotated} exists with other data than the SKR's kyma-system/creds: delete it, the next sync copies it again`,
    );
    expect(calls.filter((call) => call.startsWith('PATCH Shoot'))).toEqual([]);
  });

  it('neither compares nor marks dirty a Secret of the name that is not this cache’s', async () => {
    const foreign = { ...stub().object, metadata: { name: NAME, namespace: 'garden-p', labels: {} }, data: {} };
    const { calls, run } = setup({ [`garden-p/${NAME}`]: foreign }, { 'kyma-system/creds': source({ a: 'Yg==' }) });
    const result = await run();
    expect(result.failed[0]?.error.message).toBe(
      `failed to replace secret for registry cache c: Secret garden-p/${NAME} exists but is not this cache's (labels app.kubernetes.io/managed-by=infrastructure-manager, kyma-project.io/registry-cache-id=${UID}): rename or remove it`,
    );
    expect(calls.filter((call) => !call.includes('GET'))).toEqual([]);
  });

  it('holds the Shoot of a stub outside its namespace, and says which file', async () => {
    const misplaced = stub();
    misplaced.object.metadata.namespace = 'garden-other';
    const calls: string[] = [];
    const result = await syncRegistryCaches({
      candidates: [{ shoot: 'c-1', tree: 't2', live: testShoot(), stubs: [misplaced] }],
      garden: store({}, calls, ''),
      namespace: 'garden-p',
      connect: () => Promise.reject(new Error('not to be called')),
      concurrency: 1,
    });
    expect(result.failed.map((f) => [f.hold, f.error.message])).toEqual([
      [
        true,
        `${misplaced.path}: metadata.namespace garden-other is not the Shoot's namespace garden-p: fix the file or remove it`,
      ],
    ]);
    expect(calls).toEqual([]);
  });

  it('says “replace” when the SKR Secret of an existing copy is gone', async () => {
    const { run } = setup({ [`garden-p/${NAME}`]: { ...stub().object, data: {} } }, {});
    const result = await run();
    expect(result.failed[0]?.error.message).toBe(
      'failed to replace secret for registry cache c: secrets "creds" not found',
    );
    expect(result.failed[0]?.hold).toBe(false);
  });
});

describe('deleteUnusedSecrets', () => {
  const listed = (items: KubeObject[], calls: string[]) => ({
    listAll: <T extends KubeObject>(_ref: Omit<ObjectRef, 'name'>, options?: { labelSelector?: string }) => {
      calls.push(`LIST ${options?.labelSelector ?? ''}`);
      return Promise.resolve({ ok: true as const, items: items as T[], resourceVersion: '1' });
    },
    delete: (ref: ObjectRef) => {
      calls.push(`DELETE ${ref.name ?? ''}`);
      return Promise.resolve(
        ref.name === 'refused'
          ? ({ ok: false, status: 403, error: { message: 'forbidden' } } as KubeResult<unknown>)
          : ok({}),
      );
    },
    patch: <T extends KubeObject>(ref: ObjectRef, patch: unknown) => {
      calls.push(`PATCH ${ref.kind} ${ref.name ?? ''} ${JSON.stringify(patch)}`);
      return Promise.resolve(ok({} as T));
    },
  });
  const secret = (name: string, uid: string, dirty = false): KubeObject => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name,
      labels: { 'kyma-project.io/registry-cache-id': uid, ...(dirty && { 'kyma-project.io/dirty': 'true' }) },
    },
  });

  it('deletes the Runtime’s dirty and unneeded Secrets, keeping one the live Shoot still names', async () => {
    const calls: string[] = [];
    const shoot = testShoot();
    shoot.spec.resources = [{ name: 'named', resourceRef: { apiVersion: 'v1', kind: 'Secret', name: 'named' } }];
    const lines = await deleteUnusedSecrets(
      listed([secret(NAME, UID), secret('old', UID, true), secret('named', 'gone', true)], calls),
      'garden-p',
      shoot,
      [stub()],
    );
    expect(calls).toEqual([
      'LIST kyma-project.io/runtime-id=rt-1,app.kubernetes.io/managed-by=infrastructure-manager',
      'DELETE old',
    ]);
    expect(lines).toEqual(['deleted Secret garden-p/old: no registry cache of the Shoot uses it']);
  });

  it('deletes a second Secret of a stub’s cache, keeping the replacement recorded on the Shoot', async () => {
    const calls: string[] = [];
    const shoot = testShoot();
    shoot.metadata.annotations = { [`registry-cache.kimops.kyma-project.io/${UID}`]: `${NAME}-0123456789` };
    const lines = await deleteUnusedSecrets(
      listed([secret(NAME, UID), secret('renamed-away', UID), secret(`${NAME}-0123456789`, UID)], calls),
      'garden-p',
      shoot,
      [stub()],
    );
    expect(calls.slice(1)).toEqual(['DELETE renamed-away']);
    expect(lines).toEqual(['deleted Secret garden-p/renamed-away: no registry cache of the Shoot uses it']);
  });

  it('removes the Shoot’s rotation records of caches without a stub, keeping those of its stubs', async () => {
    const calls: string[] = [];
    const shoot = testShoot();
    shoot.metadata.annotations = {
      [`registry-cache.kimops.kyma-project.io/${UID}`]: `${NAME}-0123456789`,
      'registry-cache.kimops.kyma-project.io/gone-uid': 'reg-cache-gone-uid-0123456789',
    };
    const lines = await deleteUnusedSecrets(listed([], calls), 'garden-p', shoot, [stub()]);
    expect(calls.slice(1)).toEqual([
      'PATCH Shoot c-1 {"metadata":{"annotations":{"registry-cache.kimops.kyma-project.io/gone-uid":null}}}',
    ]);
    expect(lines).toEqual([
      'removed registry-cache.kimops.kyma-project.io/gone-uid from Shoot c-1: no registry cache of it',
    ]);
  });

  it('takes the Runtime from the Shoot when no stub is left, and fails with KIM’s message', async () => {
    const calls: string[] = [];
    const shoot = testShoot();
    shoot.metadata.annotations = { 'infrastructuremanager.kyma-project.io/runtime-id': 'rt-9' };
    const run = deleteUnusedSecrets(listed([secret('refused', UID)], calls), 'garden-p', shoot, []);
    await expect(run).rejects.toThrow(CleanupFailed);
    await expect(run).rejects.toThrow('failed to delete unused garden secret refused: forbidden');
    expect(calls[0]).toBe('LIST kyma-project.io/runtime-id=rt-9,app.kubernetes.io/managed-by=infrastructure-manager');
  });
});

describe('deleteGoneRuntimesSecrets', () => {
  it('lists the registry caches’ Secrets once and deletes those of Runtimes without a live Shoot', async () => {
    const calls: string[] = [];
    const secrets: KubeObject[] = [
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'kept', labels: { 'kyma-project.io/runtime-id': 'rt-1' } },
      },
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'gone', labels: { 'kyma-project.io/runtime-id': 'rt-2' } },
      },
    ];
    const shoot = testShoot();
    shoot.metadata.annotations = { 'infrastructuremanager.kyma-project.io/runtime-id': 'rt-1' };
    const result = await deleteGoneRuntimesSecrets(
      {
        listAll: <T extends KubeObject>(_ref: Omit<ObjectRef, 'name'>, options?: { labelSelector?: string }) => {
          calls.push(`LIST ${options?.labelSelector ?? ''}`);
          return Promise.resolve({ ok: true as const, items: secrets as T[], resourceVersion: '1' });
        },
        delete: (ref: ObjectRef) => {
          calls.push(`DELETE ${ref.name ?? ''}`);
          return Promise.resolve(ok({}));
        },
      },
      'garden-p',
      [shoot],
    );
    expect(calls).toEqual([
      'LIST app.kubernetes.io/managed-by=infrastructure-manager,kyma-project.io/registry-cache-id,kyma-project.io/runtime-id',
      'DELETE gone',
    ]);
    expect(result).toEqual({
      lines: ['deleted Secret garden-p/gone: the Shoot of its Runtime is gone'],
      failures: [],
    });
  });
});

describe('deleteGoneRuntimesSecrets for given Runtimes', () => {
  it('lists only their Secrets, and reports a failed LIST', async () => {
    const calls: string[] = [];
    const result = await deleteGoneRuntimesSecrets(
      {
        listAll: <T extends KubeObject>(_ref: Omit<ObjectRef, 'name'>, options?: { labelSelector?: string }) => {
          calls.push(`LIST ${options?.labelSelector ?? ''}`);
          return Promise.resolve(
            options?.labelSelector?.includes('rt-bad')
              ? { ok: false as const, status: 403, message: 'forbidden' }
              : {
                  ok: true as const,
                  items: [
                    {
                      apiVersion: 'v1',
                      kind: 'Secret',
                      metadata: { name: 'x', labels: { 'kyma-project.io/runtime-id': 'rt-2' } },
                    },
                  ] as unknown as T[],
                  resourceVersion: '1',
                },
          );
        },
        delete: (ref: ObjectRef) => {
          calls.push(`DELETE ${ref.name ?? ''}`);
          return Promise.resolve(ok({}));
        },
      },
      'garden-p',
      [],
      ['rt-2', 'rt-bad'],
    );
    expect(calls).toEqual([
      'LIST kyma-project.io/runtime-id=rt-2,app.kubernetes.io/managed-by=infrastructure-manager',
      'LIST kyma-project.io/runtime-id=rt-bad,app.kubernetes.io/managed-by=infrastructure-manager',
      'DELETE x',
    ]);
    expect(result.failures).toEqual(['failed to list garden secrets: forbidden']);
  });
});
