// The applier's hand-back against the real gardener-apiserver (ADR 0011): a Shoot kimops applied, marked as KIM's in
// main, is given to field manager `kim` — the API server keeps every field of its spec, drops kimops's ownership
// label and markers, and lists no field as kimops's any more — and the next plan only shadows it.
import { describe, expect, inject, it } from 'vitest';
import {
  KIM_FIELD_MANAGER,
  OWNERSHIP_LABEL,
  OWNERSHIP_VALUE,
  SKR_APPLIED_TREE_ANNOTATION,
} from '../../model/contract.js';
import type { Shoot } from '../../model/shoot.js';
import { withLeader } from '../../rules/leader.js';
import type { DesiredShoot } from '../../applier/desired.js';
import { planSync } from '../../applier/plan.js';
import { executePlan } from '../../applier/sync.js';
import { useTestProject } from '../helpers/projects.js';
import { exampleRuntime, getShoot, render } from '../helpers/shoots.js';
import { connect } from '../helpers/testenv.js';

const env = connect(inject('testenvStateDir'));
const project = useTestProject(env, 'stage');
const POLICY = { maxShoots: 5, maxPercent: 100 };

/** One sync of the applier over one folder holding `shoot` (and the render's companions), against the plane. */
function syncerOf(rendered: ReturnType<typeof render>) {
  const name = rendered.shoot.metadata.name;
  const folder = (shoot: Shoot): DesiredShoot => ({
    name,
    path: `shoots/${name}/shoot.yaml`,
    shoot,
    companions: rendered.companions.map((object) => ({
      path: `shoots/${name}/configmap-${object.metadata.name}.yaml`,
      object,
    })),
    skr: [],
  });
  const sync = async (shoot: Shoot, commit: string) => {
    const live = await getShoot(env.garden, project.namespace, name);
    const plan = planSync({
      desired: { shoots: [folder(shoot)], problems: [] },
      live: live ? [live] : [],
      liveCompanions: [],
      commit,
      massDeletion: POLICY,
    });
    const result = await executePlan({ plan, garden: env.garden, namespace: project.namespace });
    expect(result.failed).toEqual([]);
    return plan.entries.map((entry) => entry.action);
  };
  return { name, sync };
}

describe('kimops apply: hand-back to KIM', () => {
  it('gives the fields to kim, drops the ownership label and every kimops field, changes no spec field', async () => {
    const rendered = render(exampleRuntime('aws.yaml', 'hb-aws'), project.settings);
    const { name, sync } = syncerOf(rendered);

    expect(await sync(rendered.shoot, 'c1')).toEqual(['create']);
    const before = (await getShoot(env.garden, project.namespace, name)) as Shoot;
    expect(before.metadata.labels?.[OWNERSHIP_LABEL]).toBe(OWNERSHIP_VALUE);
    // As the applier records the SKR it configured: by merge patch, which no apply takes back.
    const recorded = await env.garden.patch(
      { apiVersion: before.apiVersion, kind: 'Shoot', namespace: project.namespace, name },
      { metadata: { annotations: { [SKR_APPLIED_TREE_ANNOTATION]: 'tree-1' } } },
    );
    expect(recorded.ok).toBe(true);

    const kims = withLeader(rendered.shoot, 'kim');
    expect(await sync(kims, 'c2')).toEqual(['hand-back']);
    const after = (await getShoot(env.garden, project.namespace, name)) as Shoot;
    expect(after.spec).toEqual(before.spec);
    expect(after.metadata.generation).toBe(before.metadata.generation);
    expect(after.metadata.labels?.[OWNERSHIP_LABEL]).toBeUndefined();
    expect(
      Object.keys(after.metadata.annotations ?? {}).filter((key) => key.startsWith('kimops.kyma-project.io/')),
    ).toEqual([]);
    const managers = (after.metadata.managedFields as { manager: string; operation: string; fieldsV1?: object }[]).map(
      ({ manager, operation, fieldsV1 }) => ({ manager, operation, fields: Object.keys(fieldsV1 ?? {}).sort() }),
    );
    expect(managers.filter((m) => m.manager === 'kimops')).toEqual([]);
    expect(managers.find((m) => m.manager === 'kim')).toMatchObject({
      operation: 'Apply',
      fields: ['f:metadata', 'f:spec'],
    });

    // KIM leads it now: the next plan writes nothing.
    expect(await sync(kims, 'c3')).toEqual(['shadow']);
    expect((await getShoot(env.garden, project.namespace, name))?.metadata.resourceVersion).toBe(
      after.metadata.resourceVersion,
    );
  });

  it('keeps what only KIM set through a take-over and a hand-back: no field lost, the generation unmoved', async () => {
    const rendered = render(exampleRuntime('gcp.yaml', 'hb-kim'), project.settings);
    const { name, sync } = syncerOf(rendered);
    // KIM's Shoot: what the converter writes, plus a label and a spec field kimops's render does not set.
    const kimShoot = structuredClone(rendered.shoot);
    kimShoot.metadata.labels = { ...kimShoot.metadata.labels, 'kim.example/only': 'kept' };
    (kimShoot.spec as Record<string, unknown>).hibernation = { enabled: false };
    for (const companion of rendered.companions)
      expect((await env.garden.apply(companion, KIM_FIELD_MANAGER, { force: true })).ok).toBe(true);
    const created = await env.garden.apply(kimShoot, KIM_FIELD_MANAGER, { force: true });
    expect(created.ok, JSON.stringify(created)).toBe(true);
    const asKim = (await getShoot(env.garden, project.namespace, name)) as Shoot;

    expect(await sync(rendered.shoot, 'c1')).toEqual(['take-over']);
    const taken = (await getShoot(env.garden, project.namespace, name)) as Shoot;
    expect(taken.metadata.labels?.[OWNERSHIP_LABEL]).toBe(OWNERSHIP_VALUE);
    expect(taken.metadata.generation).toBe(asKim.metadata.generation);

    expect(await sync(withLeader(rendered.shoot, 'kim'), 'c2')).toEqual(['hand-back']);
    const back = (await getShoot(env.garden, project.namespace, name)) as Shoot;
    expect(back.metadata.labels?.['kim.example/only']).toBe('kept');
    expect((back.spec as Record<string, unknown>).hibernation).toEqual({ enabled: false });
    expect(back.spec).toEqual(asKim.spec);
    expect(back.metadata.generation).toBe(asKim.metadata.generation);
    expect(back.metadata.labels?.[OWNERSHIP_LABEL]).toBeUndefined();
  });
});
