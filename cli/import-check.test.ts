import { describe, expect, it } from 'vitest';
import { LABEL_PLATFORM_REGION } from '../model/contract.js';
import { runtimeFromShoot } from '../rules/runtime-from-shoot.js';
import { exampleRuntime, landscapeSettings, render } from '../test/helpers/shoots.js';
import { checkImport } from './import-check.js';

const settings = landscapeSettings('dev');

/** A Shoot KIM (kimops's converter) made from KEB's example, its ConfigMap, and the Runtime imported from them. */
function importedFrom(edit: (labels: Record<string, string> | undefined) => Record<string, string> | undefined) {
  const runtime = exampleRuntime('aws.yaml');
  const { shoot, companions } = render(runtime, settings);
  const live = structuredClone(shoot);
  const labels = edit(live.metadata.labels);
  if (labels) live.metadata.labels = labels;
  else delete live.metadata.labels;
  const result = runtimeFromShoot({
    shoot: live,
    ...(companions[0] && { structuredAuth: companions[0] }),
    gardenerClusterLabels: { ...runtime.metadata.labels, [LABEL_PLATFORM_REGION]: runtime.spec.shoot.platformRegion },
    settings,
  });
  if (!result.ok) throw new Error(result.reason);
  return checkImport(result.runtime, live, companions, settings);
}

describe('checkImport', () => {
  it("passes a Runtime whose take-over adds only kimops's labels", () => {
    expect(importedFrom((labels) => labels)).toMatchObject({ ok: true });
  });

  it("refuses a take-over that adds a whole labels map holding more than kimops's labels", () => {
    const check = importedFrom(() => undefined);
    expect(check).toEqual({ ok: false, changes: ['metadata.labels'] });
  });
});
