// The informer against the real kube-apiserver of the test plane: Runtimes created, patched and
// deleted show up as changes through the watch, and a paged LIST over more objects than one page
// returns them all. What a real server cannot be made to do on demand (410, stalls, outages) is
// covered by adapters/kube/informer.test.ts.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Informer, type Change } from '../../adapters/kube/informer.js';
import { describeFailure } from '../../model/kube-result.js';
import type { KubeObject } from '../../model/kube-object.js';
import type { Runtime } from '../../model/runtime.js';
import { createTestNamespace } from '../helpers/projects.js';
import { exampleRuntime } from '../helpers/shoots.js';
import { connect, eventually } from '../helpers/testenv.js';

const env = connect(inject('testenvStateDir'));
const RUNTIME = { apiVersion: 'infrastructuremanager.kyma-project.io/v1', kind: 'Runtime' };
let namespace: string;
const created: string[] = [];
const informers: Informer<Runtime & KubeObject>[] = [];

beforeAll(async () => {
  namespace = await createTestNamespace(env.kcp, 'kcp-informer-');
});

afterAll(async () => {
  await Promise.all(informers.map((i) => i.stop()));
  for (const name of created) await env.kcp.delete({ ...RUNTIME, namespace, name });
  await env.kcp.delete({ apiVersion: 'v1', kind: 'Namespace', name: namespace });
});

/** KEB's AWS example Runtime, renamed into the test namespace. */
async function createRuntime(name: string, labels: Record<string, string> = {}): Promise<void> {
  const runtime = exampleRuntime('aws.yaml');
  runtime.metadata = { ...runtime.metadata, name, namespace, labels: { ...runtime.metadata.labels, ...labels } };
  const result = await env.kcp.create(runtime as Runtime & KubeObject);
  if (!result.ok) throw new Error(`create Runtime ${namespace}/${name}: ${describeFailure(result)}`);
  created.push(name);
}

function informer(options: { labelSelector?: string; pageSize?: number } = {}) {
  const logs: string[] = [];
  const changes: string[] = [];
  const runtimes = new Informer<Runtime & KubeObject>(env.kcp, RUNTIME, {
    namespace,
    ...options,
    log: (m) => logs.push(m),
  });
  runtimes.onChange((c: Change<Runtime & KubeObject>) => changes.push(`${c.type} ${c.object.metadata.name}`));
  informers.push(runtimes);
  runtimes.start();
  return { runtimes, changes, logs };
}

const seen = (changes: string[], change: string) => () => Promise.resolve(changes.includes(change) ? true : undefined);

describe('Informer on the real kube-apiserver', () => {
  it('sees Runtimes added, modified and deleted through its watch, and stop() ends it', async () => {
    const timersBefore = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const { runtimes, changes, logs } = informer({ labelSelector: 'kimops-test/informer=watch' });
    await runtimes.synced();
    expect(runtimes.items()).toEqual([]);

    await createRuntime('t-inf-1', { 'kimops-test/informer': 'watch' });
    await createRuntime('t-inf-2', { 'kimops-test/informer': 'watch' });
    await eventually('both added', seen(changes, 'added t-inf-2'));
    expect(changes).toEqual(['added t-inf-1', 'added t-inf-2']);

    const patched = await env.kcp.patch(
      { ...RUNTIME, namespace, name: 't-inf-1' },
      { metadata: { annotations: { 'kimops-test/touched': 'yes' } } },
    );
    expect(patched.ok).toBe(true);
    await eventually('t-inf-1 modified', seen(changes, 'modified t-inf-1'));
    expect(runtimes.get(namespace, 't-inf-1')?.metadata.annotations).toMatchObject({ 'kimops-test/touched': 'yes' });

    expect((await env.kcp.delete({ ...RUNTIME, namespace, name: 't-inf-2' })).ok).toBe(true);
    await eventually('t-inf-2 deleted', seen(changes, 'deleted t-inf-2'));
    expect(runtimes.items().map((r) => r.metadata.name)).toEqual(['t-inf-1']);

    await runtimes.stop();
    // A second informer sees a further Runtime through its watch; the stopped one must not.
    const second = informer({ labelSelector: 'kimops-test/informer=watch' });
    await second.runtimes.synced();
    await createRuntime('t-inf-3', { 'kimops-test/informer': 'watch' });
    await eventually('the second informer to see t-inf-3', seen(second.changes, 'added t-inf-3'));
    await second.runtimes.stop();
    expect(changes).toEqual(['added t-inf-1', 'added t-inf-2', 'modified t-inf-1', 'deleted t-inf-2']);
    expect(logs).toEqual([]);
    expect(process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length).toBeLessThanOrEqual(timersBefore);
  });

  it('lists more Runtimes than fit a page by following continue tokens', async () => {
    const names = Array.from({ length: 30 }, (_, i) => `t-inf-page-${String(i).padStart(2, '0')}`);
    for (const name of names) await createRuntime(name, { 'kimops-test/informer': 'page' });
    // The server really pages: a page of 7 comes with a continue token.
    const page = await env.kcp.listPage(
      { ...RUNTIME, namespace },
      { labelSelector: 'kimops-test/informer=page', limit: 7 },
    );
    expect(page.ok && page.body.items?.length).toBe(7);
    expect(page.ok && page.body.metadata.continue).toBeTruthy();

    const { runtimes, changes } = informer({ labelSelector: 'kimops-test/informer=page', pageSize: 7 });
    await runtimes.synced();
    expect(
      runtimes
        .items()
        .map((r) => r.metadata.name)
        .sort(),
    ).toEqual(names);
    expect(changes).toHaveLength(30);
    await runtimes.stop();
  });
});
