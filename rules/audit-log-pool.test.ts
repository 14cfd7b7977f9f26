import { describe, expect, it } from 'vitest';
import {
  AUDIT_LOG_API_VERSION,
  AUDIT_LOG_KIND,
  LABEL_RESERVED_FOR_RUNTIME_ID,
  type AuditLog,
} from '../model/audit-log.js';
import { assignedTo, auditLogOf, firstAvailable, reservedFor, tenantOfAuditLog } from './audit-log-pool.js';

function auditLog(
  name: string,
  more: { state?: string; regions?: string[]; assigned?: string; reserved?: string } = {},
): AuditLog {
  return {
    apiVersion: AUDIT_LOG_API_VERSION,
    kind: AUDIT_LOG_KIND,
    metadata: {
      name,
      ...(more.reserved !== undefined && { labels: { [LABEL_RESERVED_FOR_RUNTIME_ID]: more.reserved } }),
    },
    spec: {
      regions: more.regions ?? ['eu-central-1'],
      ...(more.assigned !== undefined && { assignedToRuntimeID: more.assigned }),
    },
    status: { state: more.state ?? 'SiemApproved' },
  };
}

describe("KIM's lookups in the AuditLog pool", () => {
  it('finds the first free one by name, in a pool state, unassigned, unreserved, serving the region exactly', () => {
    const pool = [
      auditLog('e', { state: 'RegistrationReady' }),
      auditLog('a', { state: 'Pending' }),
      auditLog('b', { assigned: 'other' }),
      auditLog('c', { reserved: '' }),
      auditLog('d', { regions: ['eu-central-1a'] }),
    ];
    expect(firstAvailable(pool, 'eu-central-1')?.metadata.name).toBe('e');
    expect(firstAvailable([...pool, auditLog('da')], 'eu-central-1')?.metadata.name).toBe('da');
    expect(firstAvailable(pool, 'us-east-1')).toBeUndefined();
  });

  it("finds a Runtime's by claim before its reservation, and never for an empty Runtime ID", () => {
    const pool = [auditLog('a', { reserved: 'rt-1' }), auditLog('b', { assigned: 'rt-1', state: 'Assigned' })];
    expect(assignedTo(pool, 'rt-1')?.metadata.name).toBe('b');
    expect(reservedFor(pool, 'rt-1')?.metadata.name).toBe('a');
    expect(auditLogOf(pool, 'rt-1')?.metadata.name).toBe('b');
    expect(auditLogOf([auditLog('a', { reserved: 'rt-1' })], 'rt-1')?.metadata.name).toBe('a');
    expect(auditLogOf([auditLog('x', { reserved: '', assigned: '' })], '')).toBeUndefined();
  });

  it('reads the tenant a Shoot sends to from the subaccount, service URL and Garden Secret', () => {
    const a = auditLog('a');
    a.spec = { ...a.spec, subaccountID: 'sub', config: { serviceURL: 'https://u', gardenerSecretName: 's' } };
    expect(tenantOfAuditLog(a)).toEqual({ tenantID: 'sub', serviceURL: 'https://u', secretName: 's' });
  });
});
