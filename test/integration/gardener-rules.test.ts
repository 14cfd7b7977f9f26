// Acceptance: what Gardener itself refuses, asserted on its own messages, and how server-side apply
// by kimops's field manager treats the worker list (the reason KIM needed a full update).
import { afterEach, describe, expect, inject, it } from 'vitest';
import { CONTENT_TYPE } from '../../adapters/kube/kube-client.js';
import type { KubeObject } from '../../model/kube-object.js';
import type { Shoot } from '../../model/shoot.js';
import { connect } from '../helpers/testenv.js';
import { createRendered, deleteShoot, exampleRuntime, getShoot, render } from '../helpers/shoots.js';
import { useTestProject } from '../helpers/projects.js';

const env = connect(inject('testenvStateDir'));
// Each file gets its own Project, so its Shoots never meet another file's.
const project = useTestProject(env, 'dev');
let names: string[] = [];

afterEach(async () => {
  for (const name of names) await deleteShoot(env.garden, project.namespace, name);
  names = [];
});

async function liveShoot(name: string, file = 'aws.yaml'): Promise<Shoot> {
  names.push(name);
  await createRendered(env.garden, render(exampleRuntime(file, name), project.settings));
  const live = await getShoot(env.garden, project.namespace, name);
  if (!live) throw new Error(`${name} was created`);
  return live;
}

async function update(shoot: Shoot) {
  return env.garden.replace(shoot as unknown as KubeObject);
}

describe('Gardener refuses changes to immutable fields', () => {
  it.each([
    [
      'region',
      (s: Shoot) => (s.spec.region = 'eu-west-2'),
      /spec\.region: Invalid value: "eu-west-2": field is immutable/,
    ],
    [
      'provider type',
      (s: Shoot) => (s.spec.provider.type = 'gcp'),
      /spec\.provider\.type: Invalid value: "gcp": field is immutable/,
    ],
    [
      'networking pods',
      (s: Shoot) => (s.spec.networking.pods = '10.200.0.0/13'),
      /spec\.networking\.pods: Invalid value: "10\.200\.0\.0\/13": field is immutable/,
    ],
  ])('%s', async (field, change, message) => {
    // Gardener caps project + shoot name at 21 characters.
    const shoot = await liveShoot(`t-im-${field.split(' ').at(-1) ?? ''}`);
    change(shoot);
    const result = await update(shoot);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.status).toBe(422);
    expect(result.error.message).toMatch(message);
  });
});

describe('Gardener demands a confirmation before deleting a Shoot', () => {
  it('refuses a DELETE without confirmation.gardener.cloud/deletion, accepts it with', async () => {
    const shoot = await liveShoot('t-delete');
    const ref = {
      apiVersion: 'core.gardener.cloud/v1beta1',
      kind: 'Shoot',
      namespace: project.namespace,
      name: shoot.metadata.name,
    };
    const refused = await env.garden.delete(ref);
    expect(refused.ok).toBe(false);
    if (refused.ok) return;
    expect(refused.status).toBe(403);
    expect(refused.error.message).toContain('confirmation.gardener.cloud/deletion');

    const confirmed = await env.garden.patch(
      ref,
      { metadata: { annotations: { 'confirmation.gardener.cloud/deletion': 'true' } } },
      CONTENT_TYPE.mergePatch,
    );
    expect(confirmed.ok).toBe(true);
    const deleted = await env.garden.delete(ref);
    expect(deleted.ok).toBe(true);
  });
});

describe('server-side apply by field manager kimops', () => {
  it('owns what it applies and records how dropping a worker behaves', async () => {
    const runtime = exampleRuntime('aws.yaml', 't-ssa');
    const main = runtime.spec.shoot.provider.workers[0];
    if (!main) throw new Error('KEB Runtimes have a main worker');
    runtime.spec.shoot.provider.additionalWorkers = [{ ...structuredClone(main), name: 'extra' }];
    names.push('t-ssa');
    const rendered = render(runtime, project.settings);
    for (const companion of rendered.companions)
      await env.garden.apply(companion as unknown as KubeObject, 'kimops', { force: true });
    const applied = await env.garden.apply(rendered.shoot as unknown as KubeObject, 'kimops', { force: true });
    expect(applied.ok ? 'applied' : applied.error.message).toBe('applied');
    const managers = (
      (applied.ok ? applied.body.metadata.managedFields : []) as { manager: string; operation: string }[]
    ).map((m) => `${m.manager}/${m.operation}`);
    expect(managers).toContain('kimops/Apply');

    // The Runtime loses its extra worker; kimops applies the render without it.
    runtime.spec.shoot.provider.additionalWorkers = [];
    const live = await getShoot(env.garden, project.namespace, 't-ssa');
    const without = render(runtime, project.settings, live);
    expect(without.shoot.spec.provider.workers.map((w) => w.name)).toEqual([main.name]);
    const reapplied = await env.garden.apply(without.shoot as unknown as KubeObject, 'kimops', { force: true });
    expect(reapplied.ok ? 'applied' : reapplied.error.message).toBe('applied');
    const after = await getShoot(env.garden, project.namespace, 't-ssa');
    // Finding (docs/testenv.md): gardener-apiserver publishes spec.provider.workers as a list-map keyed
    // by name, so an apply by the worker's only owner removes it — no full Update() needed, unlike KIM.
    expect(after?.spec.provider.workers.map((w) => w.name)).toEqual([main.name]);
  });
});
