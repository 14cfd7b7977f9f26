// `drift: correct` never reverts a dedicated audit-log tenant (issue 18): KIM's migration moved the live Shoot to
// the customer's tenant after main's manifest was rendered with the landscape's shared one. The applier's plan holds
// main against the live Shoot (rules/live-rules.ts keepLive) before drift is even looked at, so neither a
// correction nor a Git change of the same Shoot writes the shared tenant back.
import { describe, expect, it } from 'vitest';
import { APPLIED_TREE_ANNOTATION, OWNERSHIP_LABEL, OWNERSHIP_VALUE } from '../model/contract.js';
import type { Shoot, Worker } from '../model/shoot.js';
import { AUDITLOG_EXTENSION_TYPE, auditLogTenantOf } from '../rules/audit-log.js';
import { CUSTOMER_TENANT, migratedToDedicatedAuditLog } from '../test/helpers/dedicated-audit-log.js';
import { withGardenerDefaults } from '../test/helpers/gardener-defaults.js';
import { exampleRuntime, landscapeSettings, render } from '../test/helpers/shoots.js';
import { driftedShoots, withDrift } from './drift.js';
import { planSync, type PlanEntry } from './plan.js';

const TREE = 't-main';
const main = render(exampleRuntime('aws.yaml'), landscapeSettings('dev')).shoot;
const name = main.metadata.name;

/** The live Shoot: applied by kimops from main's folder as it is now (so any difference is drift), then migrated by KIM. */
function liveDedicated(edit: (live: Shoot) => void = () => {}): Shoot {
  const live = withGardenerDefaults(migratedToDedicatedAuditLog(main));
  live.metadata.labels = { ...live.metadata.labels, [OWNERSHIP_LABEL]: OWNERSHIP_VALUE };
  live.metadata.annotations = { ...live.metadata.annotations, [APPLIED_TREE_ANNOTATION]: TREE };
  edit(live);
  return live;
}

function correctedPlan(live: Shoot, desired: Shoot = main, tree = TREE): PlanEntry {
  const plan = planSync({
    desired: {
      shoots: [{ name, path: `shoots/${name}/shoot.yaml`, shoot: desired, companions: [], skr: [] }],
      problems: [],
    },
    live: [live],
    liveCompanions: [],
    commit: 'c2',
    trees: new Map([[name, tree]]),
    massDeletion: { maxShoots: 20, maxPercent: 10 },
  });
  const entry = withDrift(plan, driftedShoots(plan), 'correct').entries[0];
  if (!entry) throw new Error('the plan has no entry');
  return entry;
}

/** The tenant a write of this entry would leave on the Shoot: the live one when nothing is written. */
function tenantAfter(entry: PlanEntry, live: Shoot) {
  const written = entry.object.manifest as Shoot | undefined;
  return auditLogTenantOf(entry.object.action === 'unchanged' || !written ? live : written);
}

describe('drift: correct and a dedicated audit log', () => {
  it('writes nothing when the dedicated tenant is the only difference, and says the live tenant was kept', () => {
    const live = liveDedicated();
    const entry = correctedPlan(live);
    expect(entry.action).toBe('unchanged');
    expect(entry.drift).toBeUndefined();
    expect(entry.kept).toEqual([
      {
        path: `spec.extensions[${AUDITLOG_EXTENSION_TYPE}]`,
        why: expect.stringContaining(`dedicated audit log (tenant ${CUSTOMER_TENANT.tenantID})`) as string,
      },
    ]);
    expect(tenantAfter(entry, live)).toEqual(CUSTOMER_TENANT);
  });

  it('corrects other drift of the same Shoot and keeps the dedicated tenant in what it writes', () => {
    const live = liveDedicated((s) => ((s.spec.provider.workers[0] as Worker).maximum += 7));
    const entry = correctedPlan(live);
    expect(entry).toMatchObject({ action: 'update', drift: true });
    expect(entry.object.changes.map((c) => c.path)).toEqual([
      `spec.provider.workers[${(main.spec.provider.workers[0] as Worker).name}].maximum`,
    ]);
    expect(tenantAfter(entry, live)).toEqual(CUSTOMER_TENANT);
  });

  it("keeps it through a Git change of the same Shoot too (main's folder moved on, still on the shared tenant)", () => {
    const live = liveDedicated();
    const changed = structuredClone(main);
    (changed.spec.provider.workers[0] as Worker).maximum += 1;
    const entry = correctedPlan(live, changed, 't-next');
    expect(entry).toMatchObject({ action: 'update' });
    expect(entry.drift).toBeUndefined();
    expect(tenantAfter(entry, live)).toEqual(CUSTOMER_TENANT);
  });

  it('still corrects a shared tenant someone changed by hand: only the dedicated one is kept', () => {
    const live = liveDedicated((s) => {
      const original = withGardenerDefaults(main);
      s.spec.extensions = original.spec.extensions;
      s.spec.resources = original.spec.resources;
      const audit = s.spec.extensions?.find((e) => e.type === AUDITLOG_EXTENSION_TYPE);
      if (audit?.providerConfig) audit.providerConfig.tenantID = 'edited-by-hand';
    });
    const entry = correctedPlan(live);
    expect(entry).toMatchObject({ action: 'update', drift: true });
    expect(tenantAfter(entry, live)).toEqual(auditLogTenantOf(main));
  });
});
