import { describe, expect, it } from 'vitest';
import {
  APPLIED_TREE_ANNOTATION,
  PIPELINE_ANNOTATION,
  RUNTIME_FINALIZER,
  SKR_APPLIED_TREE_ANNOTATION,
} from '../model/contract.js';
import type { KubeObject } from '../model/kube-object.js';
import type { Lookup } from './lookups.js';
import type { RuntimeObject, ShootObject } from './objects.js';
import { reconcileRuntime } from './reconcile-runtime.js';
import { StepError } from './step-error.js';
import {
  fail,
  fakeClient,
  noShoot,
  NOW,
  ok,
  runtime,
  shootObject,
  succeededShoot,
} from '../test/helpers/backfiller-doubles.js';

/** `succeededShoot` whose SKR the applier configured for the tree it applied (skr-status.ts): it can be Ready. */
const configuredShoot = (): Lookup => {
  const shoot = shootObject();
  shoot.metadata.annotations = {
    ...shoot.metadata.annotations,
    [APPLIED_TREE_ANNOTATION]: 'tree-1',
    [SKR_APPLIED_TREE_ANNOTATION]: 'tree-1',
  };
  return { ...succeededShoot(), shoot: async () => shoot };
};

describe('reconcileRuntime', () => {
  it('writes the status through /status with the resourceVersion read, and one Event per changed condition', async () => {
    const kcp = fakeClient();
    const outcome = await reconcileRuntime(
      { kcp: kcp.client, garden: fakeClient().client, gardenNamespace: 'garden-p', now: () => NOW },
      runtime(),
      noShoot,
    );
    expect(outcome).toMatchObject({ state: 'Pending', statusWritten: true, errors: [] });
    const write = kcp.calls.find((c) => c.method === 'replace');
    expect(write?.args[1]).toBe('status');
    expect((write?.args[0] as KubeObject).metadata.resourceVersion).toBe('10');
    expect(outcome.events).toBe(kcp.calls.filter((c) => c.method === 'create').length);
    expect(outcome.events).toBeGreaterThan(0);
  });

  it('writes the generator’s facts from the Runtime’s annotation and the applier’s from its report into the status', async () => {
    const written = async (read: RuntimeObject, lookup: Lookup) => {
      const kcp = fakeClient();
      await reconcileRuntime(
        { kcp: kcp.client, garden: fakeClient().client, gardenNamespace: 'garden-p', now: () => NOW },
        read,
        lookup,
      );
      const status = (
        kcp.calls.find((c) => c.method === 'replace')?.args[0] as {
          status: { state: string; conditions: { type: string; reason: string; message: string }[] };
        }
      ).status;
      return { state: status.state, provisioned: status.conditions.find((c) => c.type === 'Provisioned') };
    };
    const unconvertible = runtime({
      annotations: {
        [PIPELINE_ANNOTATION]: JSON.stringify({ generation: 1, conversionError: 'metadata.labels: region missing' }),
      },
    });
    expect(await written(unconvertible, noShoot)).toEqual({
      state: 'Failed',
      provisioned: expect.objectContaining({
        reason: 'ConversionErr',
        message: 'Runtime conversion error metadata.labels: region missing',
      }),
    });
    const noSeed: Lookup = {
      ...noShoot,
      applyFacts: (shoot) =>
        shoot === 'c-1' ? { generation: 1, seedNotFound: 'Cannot find available seed for the region x.' } : undefined,
    };
    expect(await written(runtime(), noSeed)).toEqual({
      state: 'Failed',
      provisioned: expect.objectContaining({
        reason: 'SeedNotFound',
        message: 'Cannot find available seed for the region x.',
      }),
    });
    // About an older generation than KEB's newest change: Pending, not Failed.
    expect((await written(runtime({ generation: 2 }), noSeed)).state).toBe('Pending');
  });

  it('on a 409 reads the Runtime again and writes once more; a second 409 leaves it to the next pass', async () => {
    let puts = 0;
    const kcp = fakeClient((method) => {
      if (method === 'replace') return ++puts <= 2 ? fail(409) : undefined;
      if (method === 'get') return ok(runtime({ resourceVersion: '11' }));
      return undefined;
    });
    const outcome = await reconcileRuntime(
      { kcp: kcp.client, garden: fakeClient().client, gardenNamespace: 'garden-p', now: () => NOW },
      runtime(),
      noShoot,
    );
    expect(puts).toBe(2);
    expect(
      kcp.calls.filter((c) => c.method === 'replace').map((c) => (c.args[0] as KubeObject).metadata.resourceVersion),
    ).toEqual(['10', '11']);
    expect(outcome).toMatchObject({ statusWritten: false, conflict: true, errors: [] });
  });

  it('adds the finalizer with a merge patch carrying the resourceVersion', async () => {
    const kcp = fakeClient((method) => (method === 'patch' ? ok(runtime({ resourceVersion: '11' })) : undefined));
    const outcome = await reconcileRuntime(
      { kcp: kcp.client, garden: fakeClient().client, gardenNamespace: 'garden-p', now: () => NOW },
      runtime({ finalizers: [] }),
      noShoot,
    );
    expect(outcome.finalizer).toBe('added');
    // The status write carries the resourceVersion the patch answered with.
    expect((kcp.calls.find((c) => c.method === 'replace')?.args[0] as KubeObject).metadata.resourceVersion).toBe('11');
    expect(kcp.calls.find((c) => c.method === 'patch')?.args[1]).toEqual({
      metadata: { finalizers: [RUNTIME_FINALIZER], resourceVersion: '10' },
    });
  });

  it('keeps the finalizer of a deleted Runtime while a GET still finds the Shoot, releases it once Gardener answers 404', async () => {
    const shoot: ShootObject = {
      apiVersion: 'core.gardener.cloud/v1beta1',
      kind: 'Shoot',
      metadata: { name: 'c-1', namespace: 'garden-p', deletionTimestamp: '2026-01-01T00:00:00Z' },
    };
    const deleting = runtime({ deletionTimestamp: '2026-01-01T00:00:00Z' });
    const kcp = fakeClient();
    const stillThere = fakeClient((method) => (method === 'get' ? ok(shoot) : undefined));
    const held = await reconcileRuntime(
      { kcp: kcp.client, garden: stillThere.client, gardenNamespace: 'garden-p', now: () => NOW },
      deleting,
      noShoot,
    );
    expect(held).toMatchObject({ state: 'Terminating', errors: [] });
    expect(held.finalizer).toBeUndefined();

    const gone = fakeClient((method) => (method === 'get' ? fail(404) : undefined));
    const kcp2 = fakeClient();
    const released = await reconcileRuntime(
      { kcp: kcp2.client, garden: gone.client, gardenNamespace: 'garden-p', now: () => NOW },
      deleting,
      noShoot,
    );
    expect(released.finalizer).toBe('released');
    const methods = kcp2.calls.map((c) => c.method);
    // Status first, then the GardenerCluster and Secret, the finalizer last.
    expect(methods.indexOf('replace')).toBeLessThan(methods.lastIndexOf('delete'));
    expect(methods.at(-1)).toBe('patch');
    expect(kcp2.calls.at(-1)?.args[1]).toMatchObject({ metadata: { finalizers: [] } });
  });

  it('one Event per changed KIM condition only: a first status makes one Event (Provisioned), not one per kimops condition', async () => {
    const kcp = fakeClient();
    const outcome = await reconcileRuntime(
      { kcp: kcp.client, garden: fakeClient().client, gardenNamespace: 'garden-p', now: () => NOW },
      runtime(),
      noShoot,
    );
    const events = kcp.calls.filter((c) => c.method === 'create').map((c) => (c.args[0] as { reason?: string }).reason);
    expect(events).toEqual(['Initialised']);
    expect(outcome.events).toBe(1);
  });

  it('a 409 on the GardenerCluster apply does not keep the status from being written, and the Runtime is not Ready', async () => {
    const kcp = fakeClient((method, args) =>
      method === 'apply' && (args[0] as KubeObject).kind === 'GardenerCluster' ? fail(409) : undefined,
    );
    const outcome = await reconcileRuntime(
      { kcp: kcp.client, garden: fakeClient().client, gardenNamespace: 'garden-p', now: () => NOW },
      runtime(),
      succeededShoot(),
    );
    expect(outcome).toMatchObject({ statusWritten: true, state: 'Pending' });
    const written = kcp.calls.find((c) => c.method === 'replace')?.args[0] as {
      status?: { conditions?: { type: string; reason: string }[] };
    };
    expect(written.status?.conditions?.find((c) => c.type === 'KubeconfigReady')).toMatchObject({
      reason: 'GardenerClusterCRCreated',
    });
    expect(outcome.errors).toHaveLength(1);
    expect(outcome.errors[0]).toContain('apply GardenerCluster kcp-system/rid');
    expect(outcome.errors[0]).toContain("KIM's GardenerCluster controller is off");
    // kimops takes over the fields it sets (KIM's manager owns them on a GardenerCluster KIM created).
    expect(kcp.calls.find((c) => c.method === 'apply')?.args[2]).toEqual({ force: true });
  });

  it('a new generation shows Pending even when the kubeconfig steps fail (adminkubeconfig unreachable)', async () => {
    const kcp = fakeClient();
    const garden = fakeClient((method) => (method === 'request' ? fail(0) : undefined));
    const ready = {
      state: 'Ready',
      conditions: [
        {
          type: 'Provisioned',
          status: 'True',
          reason: 'ShootCreationCompleted',
          message: 'Shoot creation completed',
          lastTransitionTime: '2026-01-01T00:00:00Z',
          observedGeneration: 1,
        },
      ],
    };
    const bumped = { ...runtime({ generation: 2 }), status: ready };
    const outcome = await reconcileRuntime(
      { kcp: kcp.client, garden: garden.client, gardenNamespace: 'garden-p', now: () => NOW },
      bumped,
      succeededShoot(),
    );
    expect(outcome).toMatchObject({ statusWritten: true, state: 'Pending', unreachable: true });
    expect(outcome.errors[0]).toContain('adminkubeconfig of Shoot garden-p/c-1');
  });

  it('creates the Secret and writes Ready in the same pass; a failed Secret read keeps a Ready Runtime Ready', async () => {
    const kcp = fakeClient();
    const garden = fakeClient((method) =>
      method === 'request'
        ? ok({ status: { kubeconfig: Buffer.from('apiVersion: v1\nkind: Config\n').toString('base64') } })
        : undefined,
    );
    const outcome = await reconcileRuntime(
      { kcp: kcp.client, garden: garden.client, gardenNamespace: 'garden-p', now: () => NOW },
      runtime(),
      configuredShoot(),
    );
    expect(outcome).toMatchObject({ statusWritten: true, state: 'Ready', kubeconfig: 'created', errors: [] });

    const readyRuntime = {
      ...runtime(),
      status: (kcp.calls.filter((c) => c.method === 'replace').at(-1)?.args[0] as RuntimeObject).status,
    };
    const broken: Lookup = {
      ...configuredShoot(),
      secret: async () =>
        Promise.reject(new StepError('read Secret kcp-system/kubeconfig-rid on https://fake: status 500', false)),
    };
    const kcp2 = fakeClient();
    const again = await reconcileRuntime(
      { kcp: kcp2.client, garden: fakeClient().client, gardenNamespace: 'garden-p', now: () => NOW },
      readyRuntime,
      broken,
    );
    expect(again.state).toBe('Ready');
    expect(kcp2.calls.filter((c) => c.method === 'replace')).toHaveLength(0);
  });

  it('names an unreachable API as such', async () => {
    const kcp = fakeClient((method) => (method === 'replace' ? fail(0) : undefined));
    const outcome = await reconcileRuntime(
      { kcp: kcp.client, garden: fakeClient().client, gardenNamespace: 'garden-p', now: () => NOW },
      runtime(),
      noShoot,
    );
    expect(outcome.unreachable).toBe(true);
    expect(outcome.errors[0]).toContain(
      'write status of Runtime kcp-system/rt on https://fake (kubeconfig fake.kubeconfig)',
    );
  });

  describe('a Runtime KIM leads (ADR 0011)', () => {
    const context = (defaultLeader?: 'kimops' | 'kim') => {
      const kcp = fakeClient();
      const garden = fakeClient();
      return {
        kcp,
        garden,
        context: {
          kcp: kcp.client,
          garden: garden.client,
          gardenNamespace: 'garden-p',
          now: () => NOW,
          ...(defaultLeader && { defaultLeader }),
        },
      };
    };
    const labelled = (leader: string) =>
      runtime({ labels: { 'kyma-project.io/runtime-id': 'rid', 'kimops.kyma-project.io/leader': leader } });

    it.each<[string, RuntimeObject, 'kimops' | 'kim' | undefined]>([
      ['labelled kim', labelled('kim'), undefined],
      ['without label where the landscape defaults to kim', runtime(), 'kim'],
      ['with a label kimops cannot read', labelled('KIM'), undefined],
      [
        'being deleted, its Shoot gone',
        runtime({ labels: { 'kimops.kyma-project.io/leader': 'kim' }, deletionTimestamp: '2026-01-01T00:00:00Z' }),
        undefined,
      ],
    ])(
      '%s: nothing is read or written, not its status, finalizer, GardenerCluster or Secret',
      async (_, read, leader) => {
        const { kcp, garden, context: ctx } = context(leader);
        const outcome = await reconcileRuntime(ctx, read, configuredShoot());
        expect(outcome).toEqual({
          runtime: 'kcp-system/rt',
          statusWritten: false,
          conflict: false,
          events: 0,
          errors: [],
          unreachable: false,
          ledByKim: true,
        });
        expect([...kcp.calls, ...garden.calls]).toEqual([]);
      },
    );

    it('labelled kimops in a landscape that defaults to kim: reconciled as ever', async () => {
      const { kcp, context: ctx } = context('kim');
      const outcome = await reconcileRuntime(ctx, labelled('kimops'), configuredShoot());
      expect(outcome.ledByKim).toBeUndefined();
      expect(kcp.calls.some((c) => c.method === 'replace')).toBe(true);
    });
  });
});
