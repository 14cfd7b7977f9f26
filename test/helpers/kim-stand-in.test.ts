// The KIM stand-in against an API double: it leads only the Runtimes KIM leads, makes their Shoots as KIM does
// (field manager kim, forced, no kimops label), patches on a new Runtime generation, and writes KIM's status strings.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ListAllResult } from '../../adapters/kube/kube-client.js';
import type { ObjectRef } from '../../adapters/kube/resources.js';
import {
  ANNOTATION_RUNTIME_GENERATION,
  OWNERSHIP_LABEL,
  RUNTIME_FINALIZER,
  KIM_FIELD_MANAGER,
} from '../../model/contract.js';
import type { KubeObject } from '../../model/kube-object.js';
import type { KubeResult } from '../../model/kube-result.js';
import { conversionSettingsOf } from '../../model/landscape.js';
import { parseLandscape } from '../../model/landscape-parse.js';
import { RUNTIME_API_VERSION } from '../../model/runtime.js';
import { readRuntimeStatus } from '../../model/runtime-status.js';
import { LEADER_LABEL } from '../../rules/leader.js';
import { KimStandIn, type KimApi } from './kim-stand-in.js';
import { exampleRuntime, render } from './shoots.js';

const NOW = new Date('2026-12-02T07:00:00Z');
const text = readFileSync('landscapes/dev/landscape.yaml', 'utf8').replace(
  /^name: dev$/m,
  'name: dev\ndefaultLeader: kim',
);
const landscape = parseLandscape(text, 'landscape.yaml', 'dev');
const notFound: KubeResult<never> = { ok: false, status: 404, error: { message: 'not found' } };

interface Call {
  method: string;
  what: string;
  body?: unknown;
  fieldManager?: string;
  force?: boolean;
}

/** A Runtime of KEB's aws example in namespace kcp, its Shoot `shoot`. */
function runtime(name: string, labels: Record<string, string> = {}, generation = 1): KubeObject {
  const example = exampleRuntime('aws.yaml', `c-${name}`);
  return {
    ...example,
    apiVersion: RUNTIME_API_VERSION,
    kind: 'Runtime',
    metadata: {
      ...example.metadata,
      name,
      namespace: 'kcp',
      generation,
      resourceVersion: '1',
      finalizers: [RUNTIME_FINALIZER],
      labels: { ...example.metadata.labels, ...labels },
    },
  } as unknown as KubeObject;
}

/** The two clusters as one double: Runtimes listed, the Shoot `live` (or none), every call recorded. */
function api(runtimes: KubeObject[], live?: KubeObject) {
  const calls: Call[] = [];
  const name = (ref: ObjectRef) => `${ref.kind}/${ref.name ?? ''}`;
  const client: KimApi = {
    listAll: async <T extends KubeObject>(ref: Omit<ObjectRef, 'name'>): Promise<ListAllResult<T>> => {
      calls.push({ method: 'list', what: ref.kind });
      return { ok: true, items: runtimes as T[], resourceVersion: '1' };
    },
    get: async <T extends KubeObject>(ref: ObjectRef): Promise<KubeResult<T>> => {
      calls.push({ method: 'get', what: name(ref) });
      if (ref.kind === 'Shoot') return live ? { ok: true, status: 200, body: live as T } : notFound;
      const found = runtimes.find((r) => r.kind === ref.kind && r.metadata.name === ref.name);
      return found ? { ok: true, status: 200, body: found as T } : notFound;
    },
    apply: async <T extends KubeObject>(object: T, fieldManager: string, options?: { force?: boolean }) => {
      calls.push({
        method: 'apply',
        what: `${object.kind}/${object.metadata.name}`,
        body: object,
        fieldManager,
        force: options?.force === true,
      });
      const generation = Number((live?.metadata.generation as number | undefined) ?? 0) + 1;
      return {
        ok: true,
        status: 200,
        body: { ...object, metadata: { ...object.metadata, generation } },
      } as KubeResult<T>;
    },
    patch: async <T extends KubeObject>(ref: ObjectRef, body: unknown) => {
      calls.push({ method: 'patch', what: name(ref), body });
      return { ok: true, status: 200, body: {} as T };
    },
    request: async <T>(
      method: string,
      path: string,
      options?: { body?: unknown; query?: Record<string, string | undefined> },
    ) => {
      calls.push({
        method,
        what: path,
        body: options?.body,
        ...(options?.query?.fieldManager && { fieldManager: options.query.fieldManager }),
      });
      return { ok: true, status: 200, body: (options?.body ?? {}) as T };
    },
  };
  return { client, calls };
}

const standIn = (client: KimApi) =>
  new KimStandIn({ kcp: client, garden: client, kcpNamespace: 'kcp', landscape, now: () => NOW });

describe('the KIM stand-in', () => {
  it("creates a Runtime's Shoot as field manager kim, forced, without kimops's label, and writes KIM's Pending", async () => {
    const { client, calls } = api([runtime('rt-a')]);
    expect(await standIn(client).reconcileOnce()).toEqual(['kcp/rt-a']);
    const shoot = calls.find((c) => c.method === 'apply' && c.what === 'Shoot/c-rt-a');
    expect(shoot).toMatchObject({ fieldManager: KIM_FIELD_MANAGER, force: true });
    const applied = shoot?.body as KubeObject;
    expect(applied.metadata.labels?.[OWNERSHIP_LABEL]).toBeUndefined();
    expect(applied.metadata.annotations?.[ANNOTATION_RUNTIME_GENERATION]).toBe('1');
    const status = calls.find((c) => c.method === 'PUT');
    expect(status?.what).toBe('/apis/infrastructuremanager.kyma-project.io/v1/namespaces/kcp/runtimes/rt-a/status');
    expect(status?.fieldManager).toBe(KIM_FIELD_MANAGER);
    const written = readRuntimeStatus((status?.body as { status?: unknown }).status);
    expect(written.state).toBe('Pending');
    expect(written.conditions?.map((c) => [c.type, c.reason, c.message])).toEqual([
      ['Provisioned', 'Pending', 'Shoot is pending'],
    ]);
  });

  it('leaves a Runtime kimops leads alone: no request about it at all', async () => {
    const { client, calls } = api([runtime('rt-b', { [LEADER_LABEL]: 'kimops' })]);
    expect(await standIn(client).reconcileOnce()).toEqual([]);
    expect(calls).toEqual([{ method: 'list', what: 'Runtime' }]);
  });

  it("patches the Shoot on a Runtime generation past its runtime-generation, with KIM's words for it", async () => {
    const kept = runtime('rt-c', { [LEADER_LABEL]: 'kim' }, 2);
    const created = render(exampleRuntime('aws.yaml', 'c-rt-c'), conversionSettingsOf(landscape)).shoot;
    const live = {
      ...created,
      metadata: { ...created.metadata, generation: 4 },
      status: { observedGeneration: 4, lastOperation: { type: 'Create', state: 'Succeeded', progress: 100 } },
    } as unknown as KubeObject;
    const { client, calls } = api([kept], live);
    await standIn(client).reconcileOnce();
    const patch = calls.find((c) => c.method === 'apply' && c.what === 'Shoot/c-rt-c');
    expect(patch).toMatchObject({ fieldManager: KIM_FIELD_MANAGER, force: true });
    expect((patch?.body as KubeObject).metadata.annotations?.[ANNOTATION_RUNTIME_GENERATION]).toBe('2');
    const status = readRuntimeStatus((calls.find((c) => c.method === 'PUT')?.body as { status?: unknown }).status);
    expect(status.state).toBe('Pending');
    expect(status.conditions?.find((c) => c.type === 'Provisioned')).toMatchObject({
      status: 'Unknown',
      reason: 'Processing',
      message: 'Shoot is pending for update after patch',
    });
  });
});
