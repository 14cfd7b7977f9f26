// KIM's RegistryCacheConfigured from the applier's facts, for Runtimes with caches only.
import { describe, expect, it } from 'vitest';
import type { LiveRuntime } from '../model/runtime.js';
import { registryCacheCondition } from './registry-cache-condition.js';
import { runtimeStatus, type StatusShoot } from './status.js';

const withCaches = { spec: { imageRegistryCache: [{ name: 'c' }] } };
const shoot = (skrTree = 't1') => ({
  metadata: {
    name: 's',
    annotations: {
      'kimops.kyma-project.io/applied-tree': 't1',
      'kimops.kyma-project.io/skr-applied-tree': skrTree,
    },
  },
});

describe('registryCacheCondition', () => {
  it('says nothing for a Runtime without caches, whatever the facts', () => {
    expect(
      registryCacheCondition({ spec: {} }, shoot(), { registryCacheError: { message: 'x', tree: 't2' } }),
    ).toBeUndefined();
    expect(registryCacheCondition({ spec: { imageRegistryCache: [] } }, shoot(), {})).toBeUndefined();
  });

  it('is False with the copy’s message while the copy fails', () => {
    const message = 'failed to copy secret for registry cache c: secrets "creds" not found';
    expect(registryCacheCondition(withCaches, shoot(), { registryCacheError: { message, tree: 't2' } })).toEqual({
      type: 'RegistryCacheConfigured',
      status: 'False',
      reason: 'RegistryCacheGardenClusterConfigurationFailed',
      message,
    });
  });

  it('is False with the cleanup’s message when the cleanup of the applied tree failed', () => {
    const message = 'failed to delete unused garden secret reg-cache-x: forbidden';
    const skrError = { step: 'registry-cache' as const, message, tree: 't1' };
    expect(registryCacheCondition(withCaches, shoot('t0'), { skrError })).toMatchObject({
      status: 'False',
      reason: 'RegistryCacheGardenClusterCleanupFailed',
      message,
    });
    // An error of another tree is stale: the SKR phase of the applied tree has not run yet.
    expect(registryCacheCondition(withCaches, shoot('t0'), { skrError: { ...skrError, tree: 't0' } })).toBeUndefined();
  });

  it('is False with the client’s message when no SKR client was had for the applied tree', () => {
    const skrError = { step: 'client' as const, message: 'request adminkubeconfig: 403', tree: 't1' };
    expect(registryCacheCondition(withCaches, shoot('t0'), { skrError })?.reason).toBe(
      'RegistryCacheGardenClusterConfigurationFailed',
    );
  });

  it('is True with KIM’s message once the SKR phase, cleanup included, ran for the applied tree', () => {
    expect(registryCacheCondition(withCaches, shoot(), {})).toEqual({
      type: 'RegistryCacheConfigured',
      status: 'True',
      reason: 'RegistryCacheConfigured',
      message: 'Registry cache configured successfully',
    });
    expect(registryCacheCondition(withCaches, shoot('t0'), {})).toBeUndefined();
    expect(registryCacheCondition(withCaches, undefined, {})).toBeUndefined();
  });

  it('is True for a cache with credentials only once the applier copied them for the applied tree', () => {
    const withCredentials = { spec: { imageRegistryCache: [{ name: 'c', config: { secretReferenceName: 'creds' } }] } };
    const synced = (tree: string) => {
      const s = shoot();
      return {
        metadata: {
          ...s.metadata,
          annotations: { ...s.metadata.annotations, 'kimops.kyma-project.io/registry-cache-synced-tree': tree },
        },
      };
    };
    // The SKR phase ran, but the copy never succeeded for this tree (a failed copy let the Shoot be written).
    expect(registryCacheCondition(withCredentials, shoot(), {})).toBeUndefined();
    expect(registryCacheCondition(withCredentials, synced('t0'), {})).toBeUndefined();
    expect(registryCacheCondition(withCredentials, synced('t1'), {})?.status).toBe('True');
    const message = 'failed to copy secret for registry cache c: secrets "creds" not found';
    expect(
      registryCacheCondition(withCredentials, synced('t0'), { registryCacheError: { message, tree: 't1' } }),
    ).toMatchObject({ status: 'False', message });
  });
});

describe('runtimeStatus with registry caches', () => {
  const live = (caches: unknown[], status?: unknown): LiveRuntime =>
    ({
      metadata: {
        name: 'rt-1',
        namespace: 'kcp-system',
        generation: 2,
        labels: { 'kyma-project.io/runtime-id': 'rt-1' },
      },
      spec: { shoot: { name: 's' }, imageRegistryCache: caches },
      ...(status !== undefined && { status }),
    }) as LiveRuntime;
  const reconciled: StatusShoot = {
    metadata: {
      name: 's',
      generation: 5,
      annotations: {
        'infrastructuremanager.kyma-project.io/runtime-generation': '2',
        'kimops.kyma-project.io/applied-tree': 't1',
        'kimops.kyma-project.io/skr-applied-tree': 't1',
      },
    },
    spec: { extensions: [{ type: 'shoot-oidc-service', disabled: false }] },
    status: {
      observedGeneration: 5,
      lastOperation: { type: 'Reconcile', state: 'Succeeded', progress: 100, lastUpdateTime: '2026-07-01T10:00:00Z' },
    },
  };
  const now = new Date('2026-07-01T12:00:00Z');
  const of = (runtime: LiveRuntime) =>
    runtimeStatus({ runtime, shoot: reconciled, kubeconfigReady: true, pipeline: {}, now }).conditions?.find(
      (c) => c.type === 'RegistryCacheConfigured',
    );

  it('sets KIM’s condition on a Runtime with caches, and leaves one from before alone on a Runtime without', () => {
    expect(of(live([{ name: 'c' }]))).toMatchObject({
      status: 'True',
      message: 'Registry cache configured successfully',
    });
    const before = {
      conditions: [
        {
          type: 'RegistryCacheConfigured',
          status: 'False',
          reason: 'RegistryCacheGardenClusterCleanupFailed',
          message: 'old',
          lastTransitionTime: '2026-06-01T00:00:00Z',
        },
      ],
    };
    expect(of(live([], before))).toMatchObject({ status: 'False', message: 'old' });
  });
});
