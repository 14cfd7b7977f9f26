import { describe, expect, it } from 'vitest';
import {
  AUDIT_LOG_API_VERSION,
  AUDIT_LOG_KIND,
  AUDIT_LOG_NAMESPACE,
  LABEL_RESERVED_AT,
  LABEL_RESERVED_FOR_RUNTIME_ID,
  type AuditLog,
} from '../model/audit-log.js';
import { LABEL_RUNTIME_ID } from '../model/contract.js';
import type { Runtime } from '../model/runtime.js';
import { exampleRuntime } from '../test/helpers/shoots.js';
import {
  auditLogWrite,
  auditLogWriteFailure,
  decideAuditLog,
  tenantToRender,
  type AuditLogDecision,
} from './audit-log-claim.js';

const base = exampleRuntime('aws.yaml');
const RUNTIME_ID = base.metadata.labels?.[LABEL_RUNTIME_ID] ?? '';
const REGION = base.spec.shoot.region;

function runtime(edit: (r: Runtime) => void = () => {}): Runtime {
  const r = structuredClone(base);
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
    metadata: { name, namespace: AUDIT_LOG_NAMESPACE, resourceVersion: `rv-${name}` },
    spec: {
      platformRegion: 'cf-eu10',
      regions: [REGION, 'eu-west-1'],
      subaccountID: `sub-${name}`,
      config: { serviceURL: `https://${name}.example`, gardenerSecretName: `write-${name}` },
    },
    status: { state: 'SiemApproved' },
  };
  edit(a);
  return a;
}
const reserved = (a: AuditLog) => (a.metadata.labels = { [LABEL_RESERVED_FOR_RUNTIME_ID]: RUNTIME_ID });
const assigned = (a: AuditLog) => {
  reserved(a);
  a.spec = { ...a.spec, assignedToRuntimeID: RUNTIME_ID };
  a.status = { state: 'Assigned' };
};

const decide = (r: Runtime, pool: AuditLog[], shootExists = true, enabled = true) =>
  decideAuditLog({ enabled, runtime: r, shootExists, pool });
const picked = (d: AuditLogDecision) => ({
  kind: d.kind,
  name: 'auditLog' in d ? d.auditLog.metadata.name : undefined,
});

describe('the dedicated audit log of one Runtime', () => {
  it('is nothing without the landscape switch or the Runtime asking: the shared tenant', () => {
    expect(decide(runtime(), [auditLog('a')], false, false)).toEqual({ kind: 'shared' });
    expect(
      decide(
        runtime((r) => delete r.spec.auditLogAccessEnabled),
        [auditLog('a')],
        false,
      ),
    ).toEqual({
      kind: 'shared',
    });
  });

  it('reserves the first free AuditLog serving the region before the create, which stays on the shared tenant', () => {
    const pool = [
      auditLog('d'),
      auditLog('a', (a) => (a.status = { state: 'Pending' })),
      auditLog('b', (a) => (a.spec = { ...a.spec, regions: ['us-east-1'] })),
      auditLog('c', (a) => (a.metadata.labels = { [LABEL_RESERVED_FOR_RUNTIME_ID]: 'someone-else' })),
      auditLog('e', (a) => (a.status = { state: 'RegistrationReady' })),
    ];
    const decision = decide(runtime(), pool, false);
    expect(picked(decision)).toEqual({ kind: 'reserve', name: 'd' });
    expect(tenantToRender(decision)).toBeUndefined();
    expect(auditLogWrite(decision, RUNTIME_ID, new Date('2026-12-01T10:00:00Z'))).toEqual({
      name: 'd',
      patch: {
        metadata: {
          resourceVersion: 'rv-d',
          labels: { [LABEL_RESERVED_FOR_RUNTIME_ID]: RUNTIME_ID, [LABEL_RESERVED_AT]: '1796119200' },
        },
      },
    });
  });

  it("fails the create with KIM's message when the pool has nothing for the region", () => {
    expect(decide(runtime(), [auditLog('a', (a) => (a.spec = { ...a.spec, regions: ['x'] }))], false)).toEqual({
      kind: 'fail',
      failure: { step: 'reserve', message: `no available AuditLogCR in the pool for region ${REGION}` },
    });
  });

  it('waits on the shared tenant while reserved, and claims once the administrators are configured', () => {
    const pool = [auditLog('a'), auditLog('r', reserved)];
    expect(decide(runtime(), pool)).toEqual({ kind: 'shared' });
    const decision = decide(runtime(provisioned), pool);
    expect(picked(decision)).toEqual({ kind: 'claim', name: 'r' });
    expect(tenantToRender(decision)).toEqual({
      tenantID: 'sub-r',
      serviceURL: 'https://r.example',
      secretName: 'write-r',
    });
    expect(auditLogWrite(decision, RUNTIME_ID, new Date())).toEqual({
      name: 'r',
      patch: { metadata: { resourceVersion: 'rv-r' }, spec: { assignedToRuntimeID: RUNTIME_ID } },
    });
  });

  it('claims directly for a Shoot that exists without one (the Runtime turned it on), or fails with KIM’s message', () => {
    const decision = decide(runtime(), [auditLog('a')]);
    expect(picked(decision)).toEqual({ kind: 'direct-claim', name: 'a' });
    expect(tenantToRender(decision)?.tenantID).toBe('sub-a');
    const write = auditLogWrite(decision, RUNTIME_ID, new Date('2026-12-01T10:00:00Z'));
    expect(write?.patch).toEqual({
      metadata: {
        resourceVersion: 'rv-a',
        labels: { [LABEL_RESERVED_FOR_RUNTIME_ID]: RUNTIME_ID, [LABEL_RESERVED_AT]: '1796119200' },
      },
      spec: { assignedToRuntimeID: RUNTIME_ID },
    });
    expect(decide(runtime(), [])).toEqual({
      kind: 'fail',
      failure: { step: 'reserve', message: `no available AuditLogCR for region ${REGION}` },
    });
  });

  it('keeps a claimed AuditLog, also after the Runtime switched the access off (irreversible), with nothing to write', () => {
    const pool = [auditLog('a'), auditLog('mine', assigned)];
    for (const r of [runtime(), runtime((x) => (x.spec.auditLogAccessEnabled = false))]) {
      const decision = decide(r, pool);
      expect(picked(decision)).toEqual({ kind: 'dedicated', name: 'mine' });
      expect(tenantToRender(decision)?.tenantID).toBe('sub-mine');
      expect(auditLogWrite(decision, RUNTIME_ID, new Date())).toBeUndefined();
    }
  });

  it('releases the claimed AuditLog of a deleted Runtime once, and nothing else', () => {
    const deleted = runtime((r) => (r.metadata.deletionTimestamp = '2026-12-01T10:00:00Z'));
    const decision = decide(deleted, [auditLog('mine', assigned)]);
    expect(picked(decision)).toEqual({ kind: 'release', name: 'mine' });
    expect(auditLogWrite(decision, RUNTIME_ID, new Date())?.patch).toEqual({
      metadata: { resourceVersion: 'rv-mine' },
      spec: { orphaned: true },
    });
    const orphaned = auditLog('mine', (a) => {
      assigned(a);
      a.spec = { ...a.spec, orphaned: true };
    });
    expect(decide(deleted, [orphaned])).toEqual({ kind: 'none' });
    expect(decide(deleted, [auditLog('mine', assigned)], true, false)).toEqual({ kind: 'none' });
  });

  it('frees a reservation never claimed only when the Runtime is deleted (a difference from KIM, ADR 0003)', () => {
    const deleted = runtime((r) => (r.metadata.deletionTimestamp = '2026-12-01T10:00:00Z'));
    const decision = decide(deleted, [auditLog('r', reserved)]);
    expect(picked(decision)).toEqual({ kind: 'unreserve', name: 'r' });
    expect(auditLogWrite(decision, RUNTIME_ID, new Date())?.patch).toEqual({
      metadata: {
        resourceVersion: 'rv-r',
        labels: { [LABEL_RESERVED_FOR_RUNTIME_ID]: null, [LABEL_RESERVED_AT]: null },
      },
    });
    expect(auditLogWriteFailure(decision, { conflict: false, message: 'forbidden' })).toBeUndefined();
    expect(decide(deleted, [auditLog('r', reserved)], true, false)).toEqual({ kind: 'none' });
    // The access switched off: the reservation stays (KIM's), nothing to write.
    const off = runtime((r) => delete r.spec.auditLogAccessEnabled);
    expect(decide(off, [auditLog('r', reserved)])).toEqual({ kind: 'shared' });
  });

  it("fails a Runtime without a runtime ID with KIM's message before it looks at the pool", () => {
    const unlabelled = runtime((r) => delete r.metadata.labels?.[LABEL_RUNTIME_ID]);
    const expected = { kind: 'fail', failure: { step: 'reserve', message: 'runtimeID is empty' } };
    expect(decide(unlabelled, [auditLog('free')], false)).toEqual(expected);
    expect(decide(unlabelled, [auditLog('free')], true)).toEqual(expected);
    // Without the switch or the Runtime asking, the ID is not needed.
    expect(decide(unlabelled, [auditLog('free')], false, false)).toEqual({ kind: 'shared' });
  });

  it("says a refused write in KIM's words: a conflict is another Runtime's, a release failure is only logged", () => {
    const conflict = { conflict: true, message: 'the object has been modified' };
    const refused = { conflict: false, message: 'forbidden' };
    const at = (kind: 'reserve' | 'claim' | 'direct-claim' | 'release'): AuditLogDecision => ({
      kind,
      auditLog: auditLog('a'),
    });
    expect(auditLogWriteFailure(at('reserve'), conflict)).toEqual({
      step: 'reserve',
      message: 'conflict reserving AuditLogCR a: another runtime reserved it concurrently',
    });
    expect(auditLogWriteFailure(at('reserve'), refused)?.message).toBe('failed to reserve AuditLogCR a: forbidden');
    expect(auditLogWriteFailure(at('direct-claim'), conflict)?.message).toBe(
      'conflict claiming AuditLogCR a: another runtime claimed it concurrently',
    );
    expect(auditLogWriteFailure(at('claim'), refused)).toEqual({
      step: 'claim',
      message: 'failed to claim AuditLogCR: forbidden',
    });
    expect(auditLogWriteFailure(at('release'), refused)).toBeUndefined();
  });
});
