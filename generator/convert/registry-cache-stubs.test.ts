// The registry caches' garden Secret names the render gives, in the decided order, and their data-less stubs.
import { describe, expect, it } from 'vitest';
import type { Runtime } from '../../model/runtime.js';
import type { Shoot } from '../../model/shoot.js';
import { testShoot } from '../../test/helpers/test-shoot.js';
import { registryCacheSecret } from './extenders/resources.js';
import { registryCacheStubs } from './registry-cache-stubs.js';

const UID = '1e0c54f2-7d4b-4b5e-a1f4-3c2b9d8e7f60';
const cache = {
  name: 'c',
  namespace: 'kyma-system',
  uid: UID,
  config: { upstream: 'ghcr.io', secretReferenceName: 'creds' },
};

function live(edit: (shoot: Shoot) => void = () => {}): Shoot {
  const shoot = testShoot();
  edit(shoot);
  return shoot;
}

/** The live Shoot naming KIM's copy for the cache's upstream. */
const withKimCopy = (shoot: Shoot) => {
  shoot.spec.resources = [
    { name: 'reg-cache-kim', resourceRef: { apiVersion: 'v1', kind: 'Secret', name: 'reg-cache-kim' } },
  ];
  shoot.spec.extensions = [
    {
      type: 'registry-cache',
      providerConfig: { caches: [{ upstream: 'ghcr.io', secretReferenceName: 'reg-cache-kim' }] },
    },
  ];
};
const rotated = (shoot: Shoot) => {
  shoot.metadata.annotations = { [`registry-cache.kimops.kyma-project.io/${UID}`]: `reg-cache-${UID}-0123456789` };
};

describe('registryCacheSecret', () => {
  it('names nothing for a cache without credentials', () => {
    expect(registryCacheSecret({ uid: UID, config: { upstream: 'ghcr.io' } }, {}, live(withKimCopy))).toBeUndefined();
  });

  it('prefers the given name, then the rotated one, then the live Shoot’s, then reg-cache-<uid>', () => {
    const both = live((s) => {
      withKimCopy(s);
      rotated(s);
    });
    expect(registryCacheSecret(cache, { [UID]: 'given' }, both)).toBe('given');
    expect(registryCacheSecret(cache, {}, both)).toBe(`reg-cache-${UID}-0123456789`);
    expect(registryCacheSecret(cache, {}, live(withKimCopy))).toBe('reg-cache-kim');
    expect(registryCacheSecret(cache, {}, live())).toBe(`reg-cache-${UID}`);
    expect(registryCacheSecret(cache, undefined, undefined)).toBe(`reg-cache-${UID}`);
  });

  it('refuses a name that is no Kubernetes name, naming the cache', () => {
    expect(() => registryCacheSecret({ ...cache, uid: 'Not_A_Uid' }, {}, live())).toThrow(
      'spec.imageRegistryCache[uid=Not_A_Uid]',
    );
  });

  it('refuses a given name longer than a label or with dots, naming --registry-cache-secret', () => {
    for (const given of ['a'.repeat(64), 'reg.cache']) {
      expect(() => registryCacheSecret(cache, { [UID]: given }, live())).toThrow(
        `--registry-cache-secret ${UID}=${given}: the garden Secret name is no Kubernetes name`,
      );
    }
    expect(registryCacheSecret(cache, { [UID]: 'a'.repeat(63) }, live())).toBe('a'.repeat(63));
  });
});

describe('registryCacheStubs', () => {
  const runtime = (caches: Runtime['spec']['imageRegistryCache']): Runtime =>
    ({ metadata: { name: 'rt-1', namespace: 'kcp-system' }, spec: { imageRegistryCache: caches } }) as Runtime;

  it('writes one data-less stub per cache with credentials, with KIM’s labels and annotations and the SKR source', () => {
    const stubs = registryCacheStubs(
      runtime([cache, { ...cache, uid: 'other', config: { upstream: 'quay.io' } }]),
      'garden-p',
      {},
      live(),
    );
    expect(stubs).toEqual([
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: {
          name: `reg-cache-${UID}`,
          namespace: 'garden-p',
          labels: {
            'kyma-project.io/runtime-id': 'rt-1',
            'kyma-project.io/registry-cache-id': UID,
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
    ]);
  });

  it('writes none in create mode (no registry-cache extension then)', () => {
    expect(registryCacheStubs(runtime([cache]), 'garden-p', {}, undefined)).toEqual([]);
  });
});
