// examples/runtimes/keb/ is meant to hold a Runtime as KEB writes it for each plan KEB offers (docs/design.md).
// These tests hold it to KEB's own plan data: the catalogue (test/fixtures/keb/, see its README) and the plan
// values the test plane is seeded from, so a plan KEB adds, or an example KEB could not have written, fails here.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { exampleRuntimes } from '../test/helpers/shoots.js';
import { LABEL_BROKER_PLAN_ID, LABEL_BROKER_PLAN_NAME, LABEL_PLATFORM_REGION, LABEL_REGION } from './contract.js';
import { parseYaml11 } from './yaml-input.js';

/** KEB's label naming the cloud provider; kimops itself never reads it. */
const LABEL_PROVIDER = 'kyma-project.io/provider';

interface Catalogue {
  plans: Record<string, { id: string; providers: string[] }>;
  providers: Record<string, { type: string; values: string }>;
}

/** Machines and regions of one entry of KEB's plansConfiguration; regions by platform region or `default`. */
interface PlanValues {
  regularMachines?: string[];
  additionalMachines?: string[];
  regions: Record<string, string[]>;
}

interface KebValues {
  broker: { additionalVolumeSizeGiPlans: string; enablePlans: string };
  plansConfiguration: Record<string, PlanValues>;
  providersConfiguration: Record<string, { machines: Record<string, string>; regions: Record<string, unknown> }>;
  hap: { rule: string[] };
}

const read = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8');
const catalogue = parseYaml11(read('test/fixtures/keb/plans.yaml'), 'plans.yaml') as Catalogue;
const values = parseYaml11(
  read('scripts/testenv/fixtures/keb/plans-and-regions.values.yaml'),
  'plans-and-regions.values.yaml',
) as KebValues;

const planNames = Object.keys(catalogue.plans).sort();
const list = (csv: string) => csv.split(',').map((name) => name.trim());

/** KEB's plansConfiguration keys name several plans that share one entry (`gcp,build-runtime-gcp`). */
const planValues = new Map(
  Object.entries(values.plansConfiguration).flatMap(([names, entry]) => list(names).map((name) => [name, entry])),
);

const examples = exampleRuntimes().map(({ file, runtime }) => ({
  file,
  runtime,
  labels: runtime.metadata.labels ?? {},
}));

describe("KEB's example Runtimes", () => {
  it("takes its plan list from KEB: every plan KEB's plan values name is in the catalogue", () => {
    const named = [
      ...planValues.keys(),
      ...list(values.broker.additionalVolumeSizeGiPlans),
      ...list(values.broker.enablePlans),
      // A HAP rule starts with the plan it applies to: `aws(PR=cf-eu11) -> EU`.
      ...values.hap.rule.map((rule) => /^[\w-]+/.exec(rule)?.[0] ?? rule),
    ];
    expect([...new Set(named)].filter((name) => !planNames.includes(name))).toEqual([]);
  });

  it('has an example for every plan KEB offers, and none for a plan it does not', () => {
    const examplePlans = [...new Set(examples.map(({ labels }) => labels[LABEL_BROKER_PLAN_NAME]))].sort();
    expect(examplePlans).toEqual(planNames);
  });

  it.each(examples)(
    "$file carries KEB's plan ID, a provider of its plan and a region and machine type KEB allows",
    ({ runtime, labels }) => {
      const planName = labels[LABEL_BROKER_PLAN_NAME] ?? '';
      const plan = catalogue.plans[planName];
      expect(plan, `plan ${planName} is in KEB's catalogue`).toBeDefined();
      expect(labels[LABEL_BROKER_PLAN_ID]).toBe(plan?.id);

      const providerName = labels[LABEL_PROVIDER] ?? '';
      expect(plan?.providers).toContain(providerName);
      const provider = catalogue.providers[providerName];
      const { shoot } = runtime.spec;
      expect(shoot.provider.type).toBe(provider?.type);
      const providerValues = values.providersConfiguration[provider?.values ?? ''];

      expect(labels[LABEL_REGION]).toBe(shoot.region);
      expect(labels[LABEL_PLATFORM_REGION]).toBe(shoot.platformRegion);
      // Where KEB's values configure the plan, its regions (the platform region's own list, else the default) and
      // machines; for the plans they leave out (trial, free, build-runtime-alicloud), what the provider offers.
      const configured = planValues.get(planName);
      const regions = configured
        ? (configured.regions[shoot.platformRegion ?? ''] ?? configured.regions['default'] ?? [])
        : Object.keys(providerValues?.regions ?? {});
      const machines = configured
        ? [...(configured.regularMachines ?? []), ...(configured.additionalMachines ?? [])]
        : Object.keys(providerValues?.machines ?? {});
      expect(regions).toContain(shoot.region);
      for (const worker of [...shoot.provider.workers, ...(shoot.provider.additionalWorkers ?? [])])
        expect(machines).toContain(worker.machine.type);
    },
  );
});
