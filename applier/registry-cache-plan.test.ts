// The registry caches' stubs, garden Secrets, replacement names and cleanup, as KIM decides them.
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../model/kube-object.js';
import {
  deletingRuntimes,
  gardenSecretOf,
  goneRuntimeSecrets,
  goneSecretsQuery,
  isCacheSecret,
  keptSecrets,
  referencedSecrets,
  registryCacheCopyDue,
  registryCacheStubProblem,
  rotatedSecretName,
  sameData,
  staleRotations,
  stubFacts,
  unusedSecrets,
  type RegistryCacheStub,
} from './registry-cache-plan.js';
import { testShoot } from '../test/helpers/test-shoot.js';

const UID = '1e0c54f2-7d4b-4b5e-a1f4-3c2b9d8e7f60';

function stub(name = `reg-cache-${UID}`, uid = UID): RegistryCacheStub['object'] {
  return {
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
  };
}

describe('registryCacheStubProblem', () => {
  it('accepts the generator’s stub', () => {
    expect(registryCacheStubProblem(stub())).toBeUndefined();
  });

  it.each<[string, (s: KubeObject) => void, string]>([
    ['data', (s) => (s.data = { password: 'eA==' }), 'data'],
    ['another kind', (s) => (s.kind = 'ConfigMap'), 'kind'],
    ['no name', (s) => (s.metadata.name = ''), 'metadata.name'],
    [
      'no source',
      (s) => delete s.metadata.annotations?.['kimops.kyma-project.io/registry-cache-secret'],
      'metadata.annotations.kimops.kyma-project.io/registry-cache-secret',
    ],
    [
      'another manager',
      (s) => ((s.metadata.labels as Record<string, string>)['app.kubernetes.io/managed-by'] = 'x'),
      'metadata.labels.app.kubernetes.io/managed-by',
    ],
    ['mutable', (s) => (s.immutable = false), 'immutable'],
  ])('refuses a stub with %s', (_, edit, field) => {
    const value = stub() as KubeObject;
    edit(value);
    expect(registryCacheStubProblem(value)?.field).toBe(field);
  });
});

describe('gardenSecretOf', () => {
  it('is the stub with the SKR’s data verbatim, immutable, no type', () => {
    const secret = gardenSecretOf(stub(), { username: 'dQ==', password: 'cA==' });
    expect(secret).toEqual({ ...stub(), data: { username: 'dQ==', password: 'cA==' } });
    expect(secret.type).toBeUndefined();
    expect(gardenSecretOf(stub(), {}, 'other').metadata.name).toBe('other');
  });
});

describe('stubFacts', () => {
  it('reads where the data comes from', () => {
    expect(stubFacts(stub())).toEqual({
      name: `reg-cache-${UID}`,
      namespace: 'garden-p',
      runtimeId: 'rt-1',
      cacheUid: UID,
      cacheName: 'c',
      cacheNamespace: 'kyma-system',
      source: 'creds',
    });
  });
});

describe('sameData and rotatedSecretName', () => {
  it('compares keys and bytes', () => {
    expect(sameData({ a: 'x', b: 'y' }, { b: 'y', a: 'x' })).toBe(true);
    expect(sameData({ a: 'x' }, { a: 'y' })).toBe(false);
    expect(sameData({ a: 'x' }, { a: 'x', b: 'y' })).toBe(false);
    expect(sameData(undefined, {})).toBe(true);
  });

  it('names a replacement by the data, the same for the same data whatever the key order', () => {
    const name = rotatedSecretName(UID, { username: 'dQ==', password: 'cA==' });
    expect(name).toMatch(new RegExp(`^reg-cache-${UID}-[0-9a-f]{10}$`));
    expect(rotatedSecretName(UID, { password: 'cA==', username: 'dQ==' })).toBe(name);
    expect(rotatedSecretName(UID, { username: 'dQ==', password: 'cQ==' })).not.toBe(name);
  });

  it('shortens a name that would not fit a label, still by the uid and the data, and keeps it one', () => {
    const long = 'x'.repeat(60);
    const name = rotatedSecretName(long, { password: 'cA==' });
    expect(name).toHaveLength(63);
    expect(name).toMatch(/^reg-cache-x{42}-[0-9a-f]{10}$/);
    expect(rotatedSecretName(long, { password: 'cA==' })).toBe(name);
    // Two uids alike in their first 42 characters get two names for the same data.
    expect(rotatedSecretName(`${'x'.repeat(59)}y`, { password: 'cA==' })).not.toBe(name);
  });
});

describe('registryCacheCopyDue', () => {
  const cached = (synced?: string) => {
    const shoot = testShoot();
    shoot.spec.extensions = [...(shoot.spec.extensions ?? []), { type: 'registry-cache' }];
    shoot.spec.resources = [{ name: 'c', resourceRef: { apiVersion: 'v1', kind: 'Secret', name: 'reg-cache-1' } }];
    if (synced)
      shoot.metadata.annotations = {
        ...shoot.metadata.annotations,
        'kimops.kyma-project.io/registry-cache-synced-tree': synced,
      };
    return shoot;
  };

  it('is due for a changed folder, and again while the copy has not succeeded for the applied tree', () => {
    expect(registryCacheCopyDue({ action: 'update', tree: 't2', appliedTree: 't1', live: testShoot() })).toBe(true);
    // A copy that failed while the Secrets existed: the Shoot was written, its tree is applied, the copy is still due.
    expect(registryCacheCopyDue({ action: 'unchanged', tree: 't2', appliedTree: 't2', live: cached() })).toBe(true);
    expect(registryCacheCopyDue({ action: 'unchanged', tree: 't2', appliedTree: 't2', live: cached('t1') })).toBe(true);
    expect(registryCacheCopyDue({ action: 'unchanged', tree: 't2', appliedTree: 't2', live: cached('t2') })).toBe(
      false,
    );
  });

  it('reads no folder of a Shoot that cannot have stubs, nor of one not written', () => {
    expect(registryCacheCopyDue({ action: 'unchanged', tree: 't2', appliedTree: 't2', live: testShoot() })).toBe(false);
    expect(registryCacheCopyDue({ action: 'create', tree: 't2' })).toBe(false);
    expect(registryCacheCopyDue({ action: 'blocked', tree: 't2', appliedTree: 't1', live: cached() })).toBe(false);
  });
});

describe('isCacheSecret', () => {
  it('is KIM’s managed-by label and the stub’s cache uid, both', () => {
    const own = gardenSecretOf(stub(), {}) as unknown as Parameters<typeof isCacheSecret>[0];
    expect(isCacheSecret(own, UID)).toBe(true);
    expect(isCacheSecret(own, 'other')).toBe(false);
    expect(isCacheSecret({ metadata: { name: 'x', labels: { 'kyma-project.io/registry-cache-id': UID } } }, UID)).toBe(
      false,
    );
  });
});

describe('unusedSecrets', () => {
  const secret = (name: string, uid: string, dirty = false) => ({
    metadata: {
      name,
      labels: { 'kyma-project.io/registry-cache-id': uid, ...(dirty && { 'kyma-project.io/dirty': 'true' }) },
    },
  });

  it('takes the dirty ones and those of caches no stub names, never one the Shoot names', () => {
    const listed = [
      secret('kept', UID),
      secret('dirty', UID, true),
      secret('removed', 'gone'),
      secret('named', 'gone'),
    ];
    const kept = new Map([[UID, new Set(['kept', 'dirty'])]]);
    expect(unusedSecrets(listed, kept, new Set(['named'])).map((s) => s.metadata.name)).toEqual(['dirty', 'removed']);
  });

  it('takes a second Secret of a kept cache, unless the Shoot names it', () => {
    const listed = [secret('kept', UID), secret('second', UID), secret('named', UID)];
    const kept = new Map([[UID, new Set(['kept'])]]);
    expect(unusedSecrets(listed, kept, new Set(['named'])).map((s) => s.metadata.name)).toEqual(['second']);
  });

  it('keeps for each stub its own Secret and the replacement the Shoot records for its cache', () => {
    const live = testShoot();
    live.metadata.annotations = {
      [`registry-cache.kimops.kyma-project.io/${UID}`]: 'rotated',
      'registry-cache.kimops.kyma-project.io/other': 'not-kept',
    };
    expect(keptSecrets([stubFacts(stub())], live)).toEqual(new Map([[UID, new Set([`reg-cache-${UID}`, 'rotated'])]]));
    expect(staleRotations(live, new Set([UID]))).toEqual({ 'registry-cache.kimops.kyma-project.io/other': null });
    expect(staleRotations(live, new Set([UID, 'other']))).toBeUndefined();
  });

  it('reads the Secrets the Shoot names from spec.resources', () => {
    const shoot = testShoot();
    shoot.spec.resources = [
      { name: 'x', resourceRef: { apiVersion: 'v1', kind: 'Secret', name: 'reg-cache-1' } },
      { name: 'y', resourceRef: { apiVersion: 'v1', kind: 'ConfigMap', name: 'cm' } },
    ];
    expect([...referencedSecrets(shoot)]).toEqual(['reg-cache-1']);
    expect(referencedSecrets(undefined).size).toBe(0);
  });
});

describe('goneRuntimeSecrets', () => {
  it('takes the Secrets of runtime ids no live Shoot carries, never one a live Shoot names', () => {
    const shoot = testShoot();
    shoot.metadata.annotations = { 'infrastructuremanager.kyma-project.io/runtime-id': 'rt-live' };
    shoot.spec.resources = [{ name: 'n', resourceRef: { apiVersion: 'v1', kind: 'Secret', name: 'named' } }];
    const secret = (name: string, runtimeId?: string) => ({
      metadata: {
        name,
        labels: runtimeId ? { 'kyma-project.io/runtime-id': runtimeId } : ({} as Record<string, string>),
      },
    });
    const listed = [secret('live', 'rt-live'), secret('gone', 'rt-gone'), secret('named', 'rt-gone'), secret('odd')];
    expect(goneRuntimeSecrets(listed, [shoot]).map((s) => s.metadata.name)).toEqual(['gone']);
  });
});

describe('goneSecretsQuery', () => {
  it('lists all at a listing sync and at a watching applier’s first, then only the Runtimes it saw go', () => {
    expect(goneSecretsQuery(false, true, [])).toBe('all');
    expect(goneSecretsQuery(true, false, [])).toBe('all');
    expect(goneSecretsQuery(true, true, ['rt-1'])).toEqual(['rt-1']);
    expect(goneSecretsQuery(true, true, [])).toBeUndefined();
  });
});

describe('deletingRuntimes', () => {
  it('remembers the runtime ids of Shoots being deleted or deleted by the plan', () => {
    const shoot = (name: string, runtimeId: string | undefined, deleting = false) => {
      const s = testShoot();
      s.metadata.name = name;
      s.metadata.annotations = runtimeId ? { 'infrastructuremanager.kyma-project.io/runtime-id': runtimeId } : {};
      if (deleting) s.metadata.deletionTimestamp = '2026-07-01T10:00:00Z';
      return s;
    };
    const live = [shoot('a', 'rt-a', true), shoot('b', 'rt-b'), shoot('c', 'rt-c'), shoot('d', undefined, true)];
    const entries = [
      { shoot: 'b', action: 'delete', live: live[1] },
      { shoot: 'c', action: 'update', live: live[2] },
    ];
    expect([...deletingRuntimes(entries, live)]).toEqual([
      ['a', 'rt-a'],
      ['b', 'rt-b'],
    ]);
  });
});
