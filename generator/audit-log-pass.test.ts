// The pass's writes to the AuditLog pool and what it hands the render, on a pool that behaves as the API server does
// for these writes: a merge patch whose resourceVersion is not the stored one is refused with 409. The real API
// server (and the CRD's rules) in test/integration/audit-log-generate.test.ts.
import { describe, expect, it } from 'vitest';
import {
  AUDIT_LOG_API_VERSION,
  AUDIT_LOG_KIND,
  AUDIT_LOG_NAMESPACE,
  LABEL_RESERVED_AT,
  LABEL_RESERVED_FOR_RUNTIME_ID,
  type AuditLog,
  type AuditLogPatchResult,
  type AuditLogPool,
} from '../model/audit-log.js';
import { LABEL_RUNTIME_ID } from '../model/contract.js';
import type { LogFields, LogLevel } from '../model/log.js';
import type { Runtime } from '../model/runtime.js';
import { exampleRuntime } from '../test/helpers/shoots.js';
import { settleAuditLogs } from './audit-log-pass.js';

const base = exampleRuntime('aws.yaml');
const REGION = base.spec.shoot.region;

function runtime(name: string, edit: (r: Runtime) => void = () => {}): Runtime {
  const r = structuredClone(base);
  r.metadata.name = name;
  r.metadata.labels = { ...r.metadata.labels, [LABEL_RUNTIME_ID]: `id-${name}` };
  r.spec.shoot.name = `s-${name}`;
  r.spec.auditLogAccessEnabled = true;
  edit(r);
  return r;
}
const provisioned = (r: Runtime) => {
  r.status = {
    state: 'Pending',
    conditions: [{ type: 'Configured', status: 'True', reason: 'AdministratorsConfigured', message: '' }],
  };
};

function auditLog(name: string, edit: (a: AuditLog) => void = () => {}): AuditLog {
  const a: AuditLog = {
    apiVersion: AUDIT_LOG_API_VERSION,
    kind: AUDIT_LOG_KIND,
    metadata: { name, namespace: AUDIT_LOG_NAMESPACE, resourceVersion: '1' },
    spec: {
      platformRegion: 'cf-eu10',
      regions: [REGION],
      subaccountID: `sub-${name}`,
      config: { serviceURL: `https://${name}.example`, gardenerSecretName: `write-${name}` },
    },
    status: { state: 'SiemApproved' },
  };
  edit(a);
  return a;
}

/** RFC 7386 on plain JSON. */
function mergePatch(target: unknown, patch: unknown): unknown {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> =
    typeof target === 'object' && target !== null && !Array.isArray(target)
      ? { ...(target as Record<string, unknown>) }
      : {};
  for (const [key, value] of Object.entries(patch)) out[key] = value === null ? undefined : mergePatch(out[key], value);
  return Object.fromEntries(Object.entries(out).filter(([, value]) => value !== undefined));
}

/** The pool as the API server keeps it; `refuse` answers a write to that AuditLog instead. */
function pool(items: AuditLog[], refuse: Record<string, Extract<AuditLogPatchResult, { ok: false }>> = {}) {
  const stored = new Map(items.map((a) => [a.metadata.name, structuredClone(a)]));
  const patches: { name: string; patch: Record<string, unknown> }[] = [];
  const gets: string[] = [];
  const port: AuditLogPool = {
    list: async () => [...stored.values()].map((a) => structuredClone(a)),
    patch: async (name, patch) => {
      patches.push({ name, patch });
      const refused = refuse[name];
      if (refused) return refused;
      const current = stored.get(name);
      if (!current) return { ok: false, conflict: false, message: `404: auditlogs "${name}" not found` };
      const version = (patch.metadata as { resourceVersion?: string } | undefined)?.resourceVersion;
      if (version !== current.metadata.resourceVersion)
        return { ok: false, conflict: true, message: '409 Conflict: the object has been modified' };
      const next = mergePatch(current, patch) as AuditLog;
      next.metadata.resourceVersion = String(Number(current.metadata.resourceVersion) + 1);
      stored.set(name, next);
      return { ok: true, auditLog: structuredClone(next) };
    },
    get: async (name) => {
      gets.push(name);
      const current = stored.get(name);
      return current
        ? { ok: true, auditLog: structuredClone(current) }
        : { ok: false, notFound: true, message: `auditlogs "${name}" not found` };
    },
  };
  /** Another writer (KALM's status update) changes an AuditLog after the pass listed the pool. */
  const touchAfterList = (name: string) => {
    const list = port.list;
    port.list = async () => {
      const listed = await list();
      const current = stored.get(name) as AuditLog;
      stored.set(name, {
        ...current,
        metadata: { ...current.metadata, resourceVersion: `${current.metadata.resourceVersion}0` },
      });
      return listed;
    };
  };
  return { port, stored, patches, gets, touchAfterList };
}

async function settle(p: AuditLogPool, runtimes: Runtime[], shoots: string[] = []) {
  const lines: { message: string; fields?: LogFields; level?: LogLevel }[] = [];
  const result = await settleAuditLogs({
    runtimes: runtimes.map((runtime) => ({ source: 'kcp', runtime })),
    pool: p,
    shootExists: (shoot) => shoots.includes(shoot),
    now: new Date('2026-12-01T10:00:00Z'),
    log: (message, fields, level) => lines.push({ message, ...(fields && { fields }), ...(level && { level }) }),
  });
  return { ...result, lines };
}

describe('settleAuditLogs', () => {
  it('reserves one AuditLog per new Runtime, each deciding on the pool as the one before wrote it', async () => {
    const { port, stored } = pool([auditLog('a'), auditLog('b')]);
    const result = await settle(port, [runtime('one'), runtime('two')]);
    expect(stored.get('a')?.metadata.labels?.[LABEL_RESERVED_FOR_RUNTIME_ID]).toBe('id-one');
    expect(stored.get('b')?.metadata.labels?.[LABEL_RESERVED_FOR_RUNTIME_ID]).toBe('id-two');
    // The creates stay on the landscape's tenant: nothing to render from the pool yet.
    expect(result.tenants.size).toBe(0);
    expect(result.failures.size).toBe(0);
    expect(result.lines.map((l) => l.message)).toEqual([
      'audit-log reserve   s-one: AuditLog a reserved; the Shoot is created on the shared tenant until the Runtime is provisioned',
      'audit-log reserve   s-two: AuditLog b reserved; the Shoot is created on the shared tenant until the Runtime is provisioned',
    ]);
  });

  it("holds a new Runtime the pool has nothing for, with KIM's message, and renders the others", async () => {
    const { port } = pool([auditLog('a')]);
    const result = await settle(port, [
      runtime('one'),
      runtime('two'),
      runtime('off', (r) => delete r.spec.auditLogAccessEnabled),
    ]);
    const message = `no available AuditLogCR in the pool for region ${REGION}`;
    expect(result.held).toEqual(new Map([['kcp-system/two', message]]));
    expect(result.failures).toEqual(new Map([['kcp-system/two', { step: 'reserve', message }]]));
  });

  it('claims the reserved AuditLog once the Runtime is provisioned and hands its tenant to the render', async () => {
    const reserved = auditLog('r', (a) => (a.metadata.labels = { [LABEL_RESERVED_FOR_RUNTIME_ID]: 'id-one' }));
    const { port, stored } = pool([auditLog('a'), reserved]);
    expect((await settle(port, [runtime('one')], ['s-one'])).tenants.size).toBe(0);
    const result = await settle(port, [runtime('one', provisioned)], ['s-one']);
    expect(stored.get('r')?.spec?.assignedToRuntimeID).toBe('id-one');
    expect(stored.get('a')?.spec?.assignedToRuntimeID).toBeUndefined();
    expect(result.tenants).toEqual(
      new Map([['kcp-system/one', { tenantID: 'sub-r', serviceURL: 'https://r.example', secretName: 'write-r' }]]),
    );
    // Claimed: later passes render it with nothing to write.
    const later = pool([stored.get('r') as AuditLog]);
    const again = await settle(later.port, [runtime('one', provisioned)], ['s-one']);
    expect(again.tenants.get('kcp-system/one')?.tenantID).toBe('sub-r');
    expect(later.patches).toEqual([]);
  });

  it('reports a claim the API refused and renders the Shoot as it is; a refused direct claim holds it', async () => {
    const reserved = auditLog('r', (a) => (a.metadata.labels = { [LABEL_RESERVED_FOR_RUNTIME_ID]: 'id-one' }));
    const { port } = pool([reserved, auditLog('free')], {
      r: { ok: false, conflict: false, message: '500: etcd timeout' },
      free: { ok: false, conflict: true, message: '409 Conflict' },
    });
    const result = await settle(port, [runtime('one', provisioned), runtime('two')], ['s-one', 's-two']);
    expect(result.failures).toEqual(
      new Map([
        ['kcp-system/one', { step: 'claim', message: 'failed to claim AuditLogCR: 500: etcd timeout' }],
        [
          'kcp-system/two',
          { step: 'reserve', message: 'conflict claiming AuditLogCR free: another runtime claimed it concurrently' },
        ],
      ]),
    );
    expect([...result.held.keys()]).toEqual(['kcp-system/two']);
    expect(result.tenants.size).toBe(0);
    // The conflict is read again and retried once before it is reported.
    expect(result.lines.map((l) => [l.level ?? 'info', l.message.split(':')[0]])).toEqual([
      ['warn', 'audit-log claim     s-one'],
      ['info', 'audit-log direct-claim s-two'],
      ['warn', 'audit-log direct-claim s-two'],
    ]);
  });

  it('releases the AuditLog of a deleted Runtime; a refused release is only logged', async () => {
    const assigned = (name: string, id: string) =>
      auditLog(name, (a) => {
        a.metadata.labels = { [LABEL_RESERVED_FOR_RUNTIME_ID]: id };
        a.spec = { ...a.spec, assignedToRuntimeID: id };
        a.status = { state: 'Assigned' };
      });
    const deleted = (name: string) => runtime(name, (r) => (r.metadata.deletionTimestamp = '2026-12-01T09:00:00Z'));
    const { port, stored } = pool([assigned('a', 'id-one'), assigned('b', 'id-two')], {
      b: { ok: false, conflict: false, message: '403 Forbidden' },
    });
    const result = await settle(port, [deleted('one'), deleted('two')], ['s-one', 's-two']);
    expect(stored.get('a')?.spec?.orphaned).toBe(true);
    expect(result.failures.size + result.held.size + result.tenants.size).toBe(0);
    expect(result.lines.map((l) => [l.level ?? 'info', l.message])).toEqual([
      ['info', 'audit-log release   s-one: AuditLog a released (orphaned: KALM keeps the logs for their retention)'],
      [
        'warn',
        'audit-log release   s-two: AuditLog b: 403 Forbidden; the Runtime is deleted all the same, the next pass tries again',
      ],
    ]);
  });

  it('leaves a Runtime without a Shoot name or region to the converter, and fails the pass on an unreadable pool', async () => {
    const { port, patches } = pool([auditLog('a')]);
    const broken = runtime('x', (r) => delete (r.spec.shoot as { region?: string }).region);
    expect((await settle(port, [broken])).held.size).toBe(0);
    expect(patches).toEqual([]);
    const unreadable: AuditLogPool = {
      list: () => Promise.reject(new Error('403: auditlogs is forbidden')),
      patch: () => Promise.reject(new Error('not called')),
      get: () => Promise.reject(new Error('not called')),
    };
    await expect(settle(unreadable, [runtime('one')])).rejects.toThrow('403: auditlogs is forbidden');
  });
  it('reads an AuditLog changed since the list again on 409 and decides once more, for every Runtime after too', async () => {
    const { port, stored, patches, gets, touchAfterList } = pool([auditLog('a'), auditLog('b'), auditLog('c')]);
    touchAfterList('a');
    const result = await settle(port, [runtime('one'), runtime('two'), runtime('three')]);
    // One stale write, read again once: the Runtime takes it on the fresh resourceVersion; the others never write on the old one.
    expect(stored.get('a')?.metadata.labels?.[LABEL_RESERVED_FOR_RUNTIME_ID]).toBe('id-one');
    expect(stored.get('b')?.metadata.labels?.[LABEL_RESERVED_FOR_RUNTIME_ID]).toBe('id-two');
    expect(stored.get('c')?.metadata.labels?.[LABEL_RESERVED_FOR_RUNTIME_ID]).toBe('id-three');
    expect(result.failures.size + result.held.size).toBe(0);
    expect(gets).toEqual(['a']);
    expect(patches.map((p) => p.name)).toEqual(['a', 'a', 'b', 'c']);
    expect(result.lines[0]?.message).toBe(
      'audit-log reserve   s-one: AuditLog a changed since the pool was read (409); deciding again on it',
    );
  });

  it("counts a write refused as stale as done when the AuditLog read again is already the Runtime's", async () => {
    const reserved = auditLog('r', (a) => (a.metadata.labels = { [LABEL_RESERVED_FOR_RUNTIME_ID]: 'id-one' }));
    const { port, stored, patches } = pool([reserved]);
    // The claim went through in an earlier attempt the pass did not see (its answer was lost): the list is older.
    const list = port.list;
    port.list = async () => {
      const listed = await list();
      stored.set('r', {
        ...reserved,
        metadata: { ...reserved.metadata, resourceVersion: '2' },
        spec: { ...reserved.spec, assignedToRuntimeID: 'id-one' },
        status: { state: 'Assigned' },
      });
      return listed;
    };
    const result = await settle(port, [runtime('one', provisioned)], ['s-one']);
    expect(result.failures.size).toBe(0);
    expect(result.tenants.get('kcp-system/one')?.tenantID).toBe('sub-r');
    expect(patches).toHaveLength(1);
  });

  it("reports KIM's conflict only when the retry on the AuditLog read again is refused too", async () => {
    const { port } = pool([auditLog('a')], {
      a: { ok: false, conflict: true, message: 'the object has been modified' },
    });
    const result = await settle(port, [runtime('one'), runtime('two')]);
    const message = 'conflict reserving AuditLogCR a: another runtime reserved it concurrently';
    expect(result.failures).toEqual(
      new Map([
        ['kcp-system/one', { step: 'reserve', message }],
        ['kcp-system/two', { step: 'reserve', message }],
      ]),
    );
  });

  it("keeps kimops's fix out of KIM's message: it goes to the log line", async () => {
    const fix = "grant the generator's identity patch on auditlogs.auditlogmanager.kyma-project.io in kcp-system";
    const { port } = pool([auditLog('a')], {
      a: { ok: false, conflict: false, message: 'auditlogs "a" is forbidden', fix },
    });
    const result = await settle(port, [runtime('one')]);
    expect(result.failures.get('kcp-system/one')?.message).toBe(
      'failed to reserve AuditLogCR a: auditlogs "a" is forbidden',
    );
    expect(result.lines.map((l) => l.message)).toEqual([
      `audit-log reserve   s-one: AuditLog a: failed to reserve AuditLogCR a: auditlogs "a" is forbidden — ${fix}; the next pass decides again`,
    ]);
  });

  it('frees the reservation of a Runtime deleted before its claim; an access switched off keeps it', async () => {
    const reserved = (id: string) => (a: AuditLog) =>
      (a.metadata.labels = { [LABEL_RESERVED_FOR_RUNTIME_ID]: id, [LABEL_RESERVED_AT]: '1764583200' });
    const { port, stored, patches } = pool([auditLog('a', reserved('id-one')), auditLog('b', reserved('id-two'))]);
    const deleted = runtime('one', (r) => (r.metadata.deletionTimestamp = '2026-12-01T09:00:00Z'));
    const off = runtime('two', (r) => delete r.spec.auditLogAccessEnabled);
    const result = await settle(port, [deleted, off], ['s-one', 's-two']);
    expect(stored.get('a')?.metadata.labels).toEqual({});
    expect(stored.get('b')?.metadata.labels?.[LABEL_RESERVED_FOR_RUNTIME_ID]).toBe('id-two');
    expect(patches).toEqual([
      {
        name: 'a',
        patch: {
          metadata: {
            resourceVersion: '1',
            labels: { [LABEL_RESERVED_FOR_RUNTIME_ID]: null, [LABEL_RESERVED_AT]: null },
          },
        },
      },
    ]);
    expect(result.lines.map((l) => l.message)).toEqual([
      'audit-log unreserve s-one: AuditLog a unreserved: the Runtime was deleted before it claimed it, the AuditLog is back in the pool',
    ]);
  });

  it('fails a Runtime without a runtime ID before it takes anything from the pool', async () => {
    const { port, patches } = pool([auditLog('a')]);
    const result = await settle(port, [runtime('one', (r) => delete r.metadata.labels?.[LABEL_RUNTIME_ID])]);
    expect(result.failures.get('kcp-system/one')).toEqual({ step: 'reserve', message: 'runtimeID is empty' });
    expect(patches).toEqual([]);
  });
});
