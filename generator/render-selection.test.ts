// The selection's part of the dedicated audit log: a Runtime held for want of an AuditLog is not rendered, and a
// claimed tenant is a render input (the rest of the selection is covered through plan.test.ts).
import { describe, expect, it } from 'vitest';
import { exampleRuntime, landscapeSettings } from '../test/helpers/shoots.js';
import { RenderMemo } from './render-memo.js';
import { selectRenders } from './render-selection.js';

const runtime = exampleRuntime('aws.yaml');
const ref = `${runtime.metadata.namespace}/${runtime.metadata.name}`;
const shoot = runtime.spec.shoot.name;
const settings = landscapeSettings('dev');
const tenant = { tenantID: 'sub-a', serviceURL: 'https://a.example', secretName: 'write-a' };

const select = (memo: RenderMemo, auditLogs?: Parameters<typeof selectRenders>[0]['auditLogs']) =>
  selectRenders({
    runtimes: [{ source: 'kcp', runtime }],
    settings,
    folders: new Map([[shoot, 'tree-1']]),
    memo,
    ...(auditLogs && { auditLogs }),
  });

describe('selectRenders with the AuditLog pool', () => {
  it('leaves a held Runtime unrendered and says why', () => {
    const selection = select(new RenderMemo(), {
      tenants: new Map(),
      held: new Map([[ref, 'no available AuditLogCR for region eu-central-1']]),
    });
    expect(selection.toRender).toEqual([]);
    expect(selection.auditLogHeld).toEqual([shoot]);
    expect(selection.log).toEqual([
      `audit-log held      ${shoot}: ${ref}: no available AuditLogCR for region eu-central-1; nothing proposed`,
    ]);
  });

  it('renders a Runtime the memo knows unchanged again once it claims a tenant, and hands the tenant on', () => {
    const memo = new RenderMemo();
    const before = select(memo);
    memo.remember(shoot, before.keys.get(shoot) ?? '');
    expect(select(memo).toRender).toEqual([]);
    const claimed = select(memo, { tenants: new Map([[ref, tenant]]), held: new Map() });
    expect(claimed.toRender.map((e) => e.runtime)).toEqual([runtime]);
    expect(claimed.dedicatedAuditLogs.get(ref)).toEqual(tenant);
  });
});
