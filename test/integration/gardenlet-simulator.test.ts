// The gardenlet simulator against the real gardener-apiserver: the status a Shoot goes through,
// deletion once confirmed, injected faults, and an admin kubeconfig that really works.
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { CONTENT_TYPE, KubeClient } from '../../adapters/kube/kube-client.js';
import type { Shoot } from '../../model/shoot.js';
import { GARDENER_FINALIZER, GardenletSimulator } from '../helpers/gardenlet-simulator.js';
import { connect, eventually, planeAsShootCluster } from '../helpers/testenv.js';
import { createRendered, deleteShoot, exampleRuntime, getShoot, render } from '../helpers/shoots.js';
import { useTestProject } from '../helpers/projects.js';
import { useTempDir } from '../helpers/temp-dir.js';

const env = connect(inject('testenvStateDir'));
// Each file gets its own Project, so its Shoots never meet another file's.
const project = useTestProject(env, 'dev');
const simulator = new GardenletSimulator({
  garden: env.garden,
  intervalMs: 20,
  progressSteps: [30, 60],
  runtimeCluster: planeAsShootCluster(env),
});
const dir = useTempDir('simulator');
let names: string[] = [];

beforeAll(() => simulator.start());
afterAll(() => simulator.stop());
afterEach(async () => {
  for (const name of names) {
    simulator.heal(project.namespace, name);
    await deleteShoot(env.garden, project.namespace, name);
    await eventually(`${name} to be gone`, async () =>
      (await getShoot(env.garden, project.namespace, name)) ? undefined : true,
    );
  }
  names = [];
  expect(simulator.problems).toEqual([]);
});

async function create(name: string): Promise<Shoot> {
  names.push(name);
  return createRendered(env.garden, render(exampleRuntime('gcp.yaml', name), project.settings));
}

const state = (shoot: Shoot | undefined) => {
  const op = shoot?.status?.lastOperation;
  return op ? `${op.type} ${op.state}` : 'none';
};

/** Every lastOperation the Shoot shows while `until` is not yet true. */
async function watchStates(name: string, until: (shoot: Shoot | undefined) => boolean): Promise<string[]> {
  const seen: string[] = [];
  await eventually(
    `${name} to settle`,
    async () => {
      const shoot = await getShoot(env.garden, project.namespace, name);
      const current = state(shoot);
      if (seen.at(-1) !== current) seen.push(current);
      return until(shoot) ? true : undefined;
    },
    30_000,
    5,
  );
  return seen;
}

describe('gardenlet simulator', () => {
  it('creates: finalizer, Create Pending → Processing → Succeeded, observedGeneration and status fields', async () => {
    const created = await create('t-sim-create');
    const states = await watchStates('t-sim-create', (s) => s?.status?.lastOperation?.state === 'Succeeded');
    expect(states.at(-1)).toBe('Create Succeeded');
    expect(states).toContain('Create Processing');
    const shoot = await getShoot(env.garden, project.namespace, 't-sim-create');
    expect(shoot?.metadata.finalizers).toContain(GARDENER_FINALIZER);
    expect(shoot?.status).toMatchObject({
      observedGeneration: shoot?.metadata.generation,
      hibernated: false,
      technicalID: `shoot--${project.namespace.replace('garden-', '')}--t-sim-create`,
      uid: created.metadata.uid,
      gardener: { name: 'gardenlet-simulator' },
    });
  });

  it('reconciles a spec change: generation ahead of observedGeneration until Reconcile Succeeded', async () => {
    await create('t-sim-update');
    await watchStates('t-sim-update', (s) => s?.status?.lastOperation?.state === 'Succeeded');
    const ref = {
      apiVersion: 'core.gardener.cloud/v1beta1',
      kind: 'Shoot',
      namespace: project.namespace,
      name: 't-sim-update',
    };
    const patched = await env.garden.patch(
      ref,
      { spec: { kubernetes: { kubeAPIServer: { runtimeConfig: { 'apps/v1': true } } } } },
      CONTENT_TYPE.mergePatch,
    );
    expect(patched.ok).toBe(true);
    const states = await watchStates(
      't-sim-update',
      (s) => s?.status?.lastOperation?.type === 'Reconcile' && s.status.lastOperation.state === 'Succeeded',
    );
    expect(states.at(-1)).toBe('Reconcile Succeeded');
    const shoot = await getShoot(env.garden, project.namespace, 't-sim-update');
    expect(shoot?.status?.observedGeneration).toBe(shoot?.metadata.generation);
  });

  it('deletes a confirmed Shoot through Delete Succeeded, then releases the finalizer', async () => {
    await create('t-sim-delete');
    await watchStates('t-sim-delete', (s) => s?.status?.lastOperation?.state === 'Succeeded');
    names = []; // deleted by the test itself
    await deleteShoot(env.garden, project.namespace, 't-sim-delete');
    const states = await watchStates('t-sim-delete', (s) => s === undefined);
    expect(states).toEqual(expect.arrayContaining(['Delete Pending', 'Delete Succeeded', 'none']));
  });

  it('ends an operation in an injected fault with lastErrors codes, and recovers once healed', async () => {
    simulator.inject(project.namespace, 't-sim-fault', {
      state: 'Failed',
      codes: ['ERR_INFRA_QUOTA_EXCEEDED'],
      description: 'quota exceeded',
    });
    await create('t-sim-fault');
    await watchStates('t-sim-fault', (s) => s?.status?.lastOperation?.state === 'Failed');
    const failed = await getShoot(env.garden, project.namespace, 't-sim-fault');
    expect(failed?.status?.lastErrors).toEqual([
      expect.objectContaining({ description: 'quota exceeded', codes: ['ERR_INFRA_QUOTA_EXCEEDED'] }),
    ]);

    // Failed is final until the spec changes; Error is retried by Gardener until it succeeds.
    simulator.inject(project.namespace, 't-sim-fault', { state: 'Error', codes: ['ERR_CONFIGURATION_PROBLEM'] });
    const ref = {
      apiVersion: 'core.gardener.cloud/v1beta1',
      kind: 'Shoot',
      namespace: project.namespace,
      name: 't-sim-fault',
    };
    await env.garden.patch(
      ref,
      { spec: { kubernetes: { kubeAPIServer: { runtimeConfig: { 'apps/v1': true } } } } },
      CONTENT_TYPE.mergePatch,
    );
    await watchStates('t-sim-fault', (s) => s?.status?.lastOperation?.state === 'Error');
    simulator.heal(project.namespace, 't-sim-fault');
    const states = await watchStates('t-sim-fault', (s) => s?.status?.lastOperation?.state === 'Succeeded');
    // Like Gardener: a Shoot whose creation never succeeded is still being created.
    expect(states.at(-1)).toBe('Create Succeeded');
    expect((await getShoot(env.garden, project.namespace, 't-sim-fault'))?.status?.lastErrors).toBeUndefined();
  });

  it('makes shoots/adminkubeconfig answer with a kubeconfig that works against the local kube-apiserver', async () => {
    await create('t-sim-admin');
    await watchStates('t-sim-admin', (s) => s?.status?.lastOperation?.state === 'Succeeded');
    const request = await env.garden.request<{ status: { kubeconfig: string; expirationTimestamp: string } }>(
      'POST',
      `/apis/core.gardener.cloud/v1beta1/namespaces/${project.namespace}/shoots/t-sim-admin/adminkubeconfig`,
      {
        body: {
          apiVersion: 'authentication.gardener.cloud/v1alpha1',
          kind: 'AdminKubeconfigRequest',
          spec: { expirationSeconds: 3600 },
        },
      },
    );
    expect(request.ok ? 'issued' : request.error.message).toBe('issued');
    if (!request.ok) return;
    const kubeconfig = await dir.write(
      'admin.kubeconfig',
      Buffer.from(request.body.status.kubeconfig, 'base64').toString('utf8'),
    );
    const shootCluster = KubeClient.fromKubeconfigFile(kubeconfig);
    expect(shootCluster.server).toBe(env.plane.kubeApiserverUrl);
    // kube-apiserver reloads its client CA bundle (the plane appended the Shoot CA); it may take a moment.
    const namespaces = await eventually(
      'the admin kubeconfig to be accepted',
      async () => {
        const listed = await shootCluster.list({ apiVersion: 'v1', kind: 'Namespace' });
        return listed.ok ? listed.body.items.map((n) => n.metadata.name) : undefined;
      },
      50_000,
      500,
    );
    expect(namespaces).toContain('kube-system');
  });
});
