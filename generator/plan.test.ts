// The decisions of a generator pass, one row each, on an in-memory main: the same steps generate.ts takes
// (select, render, read main's folders, plan) without a repository or a forge. What the PRs then do on a
// real repo and forge: generate-deletions.test.ts and test/integration/standalone/generate-*.test.ts.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../model/errors.js';
import {
  DEFAULT_APPLY,
  DEFAULT_COMMIT_AUTHOR,
  DEFAULT_DEPROVISIONING_BATCH_SIZE,
  DEFAULT_MASS_DELETION,
  DEFAULT_MERGE_POLICY,
  DEFAULT_ROLLOUT_WAVE_SIZE,
  KIMOPS_CONFIG_API_VERSION,
  type KimopsConfig,
} from '../model/kimops-config.js';
import { conversionSettingsOf, type ConversionSettings } from '../model/landscape.js';
import { parseLandscape } from '../model/landscape-parse.js';
import { runtimeRef, type Runtime } from '../model/runtime.js';
import type { Shoot } from '../model/shoot.js';
import { parseYaml11 } from '../model/yaml-input.js';
import { fileMapOf } from '../rules/landscape-layout.js';
import { gatherPassInput } from './gather.js';
import type { MainFolder, MainSnapshot } from './main-snapshot.js';
import { planPass, type PassPlan } from './plan.js';
import type { PassInput } from './plan-input.js';
import { renderRuntimes, type RuntimeInput } from './render-runtimes.js';

const read = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8');
const SETTINGS = conversionSettingsOf(parseLandscape(read('landscapes/dev/landscape.yaml'), 'dev', 'dev'));
const PLANS = ['aws', 'azure', 'gcp', 'sap-converged-cloud', 'trial'] as const;
type Plan = (typeof PLANS)[number];

/** The example Runtimes at generation 1, as KEB wrote them. */
const RUNTIMES: Record<Plan, RuntimeInput> = Object.fromEntries(
  PLANS.map((plan) => {
    const source = `examples/runtimes/keb/${plan}.yaml`;
    const runtime = parseYaml11(read(source), source) as Runtime;
    runtime.metadata.generation = 1;
    return [plan, { source, runtime }];
  }),
) as Record<Plan, RuntimeInput>;
const shootOf = (plan: Plan) => RUNTIMES[plan].runtime.spec.shoot.name;
const refOf = (plan: Plan) => runtimeRef(RUNTIMES[plan].runtime);
const branch = (plan: Plan) => `kimops/dev/${shootOf(plan)}`;

const CONFIG: KimopsConfig = {
  apiVersion: KIMOPS_CONFIG_API_VERSION,
  kind: 'KimopsConfig',
  landscape: 'dev',
  gardener: { project: 'kyma-dev' },
  policySet: 'default',
  drift: 'correct',
  mergePolicy: { ...DEFAULT_MERGE_POLICY },
  massDeletion: { ...DEFAULT_MASS_DELETION },
  deprovisioning: { batchSize: DEFAULT_DEPROVISIONING_BATCH_SIZE },
  rollout: { waveSize: DEFAULT_ROLLOUT_WAVE_SIZE },
  commit: { author: { ...DEFAULT_COMMIT_AUTHOR } },
  apply: DEFAULT_APPLY,
};

/** main after the creates of these Runtimes merged: folder name → files. */
function seeded(plans: readonly Plan[] = PLANS, settings = SETTINGS): Map<string, Map<string, string>> {
  const { rendered } = renderRuntimes(
    plans.map((plan) => RUNTIMES[plan]),
    settings,
  );
  return new Map(rendered.map((r) => [r.shootName, fileMapOf(r.manifests)]));
}

/** A main in memory: what readMainSnapshot reads from a repository, read from these folders. */
function snapshotOf(folders: ReadonlyMap<string, ReadonlyMap<string, string>>, config: KimopsConfig): MainSnapshot {
  const textOf = (files: ReadonlyMap<string, string>) => JSON.stringify([...files].sort());
  const broken = new Map<string, ConfigError>();
  const parse = (shoot: string): Shoot | undefined => {
    const path = `shoots/${shoot}/shoot.yaml`;
    const text = folders.get(shoot)?.get(path);
    if (text === undefined) return undefined;
    const value = parseYaml11(text, path) as Shoot | null;
    if (value?.kind === 'Shoot') return value;
    broken.set(shoot, new ConfigError(`${path} on main`, 'kind', 'must be a core.gardener.cloud/v1beta1 Shoot'));
    return undefined;
  };
  return {
    ref: 'main',
    config,
    folders: new Map([...folders].map(([name, files]) => [name, textOf(files)])),
    holds: (shoot, files) => folders.has(shoot) && textOf(folders.get(shoot) as Map<string, string>) === textOf(files),
    shoot: async (shoot) => parse(shoot),
    folder: async (shoot): Promise<MainFolder> => {
      const value = parse(shoot);
      const error = broken.get(shoot);
      return {
        files: folders.get(shoot) ?? new Map(),
        ...(value && { shoot: value }),
        ...(error && { broken: error }),
      };
    },
    broken,
  };
}

interface Scenario {
  runtimes: RuntimeInput[];
  /** main's Shoot folders; the Runtimes' creates, merged, unless given. */
  main?: Map<string, Map<string, string>>;
  settings?: ConversionSettings;
  config?: Partial<KimopsConfig>;
  gardenShoots?: Map<string, Shoot>;
  runtimesComplete?: boolean;
  allowMassDeletion?: number;
}

/** The inputs generate.ts gathers for a pass (gather.ts), gathered from an in-memory main with no memo. */
function inputOf(scenario: Scenario): Promise<PassInput> {
  const snapshot = snapshotOf(scenario.main ?? seeded(), { ...CONFIG, ...scenario.config });
  return gatherPassInput(
    {
      landscape: 'dev',
      settings: scenario.settings ?? SETTINGS,
      runtimes: scenario.runtimes,
      runtimesComplete: scenario.runtimesComplete ?? true,
      ...(scenario.gardenShoots && { gardenShoots: scenario.gardenShoots }),
      ...(scenario.allowMassDeletion !== undefined && { allowMassDeletion: scenario.allowMassDeletion }),
      log: () => {},
    },
    snapshot,
    { isUnchanged: () => false },
  );
}

/** Each PR of the plan on one line, then why deletions wait, then the failures. */
function summary(plan: PassPlan): string[] {
  const shoots = (proposals: PassPlan['deletions'][number]['proposals']) =>
    proposals.map((p) => `${p.shoot} ${p.classification.class}${p.runtime.absent ? ' (Runtime absent)' : ''}`);
  return [
    ...plan.shoots.map((pr) => `${pr.kind} ${pr.branch}: ${shoots(pr.proposals).join(', ')}`),
    ...(plan.rollout
      ? [
          `rollout ${plan.rollout.branch}: ${shoots(plan.rollout.proposals).join(', ')}; ${plan.rollout.rollout.later} later`,
        ]
      : []),
    ...plan.deletions.map((pr) => `deletion ${pr.branch}: ${shoots(pr.proposals).join(', ')}`),
    ...(plan.deletionRefused ? [`deletions refused: ${plan.deletionRefused}`] : []),
    ...plan.failures.map((f) => `failure ${f.runtime} ${f.field}`),
  ];
}

/** The Runtime of `plan`, changed (a copy), with its generation bumped as the API server does on a spec change. */
function changed(plan: Plan, change: (runtime: Runtime) => void = () => undefined): RuntimeInput {
  const runtime = structuredClone(RUNTIMES[plan].runtime);
  change(runtime);
  runtime.metadata.generation = (runtime.metadata.generation ?? 0) + 1;
  return { ...RUNTIMES[plan], runtime };
}
const raiseMaximum = (runtime: Runtime) => {
  const [worker] = runtime.spec.shoot.provider.workers;
  if (worker) worker.maximum = (worker.maximum ?? 1) + 1;
};
const kebDeletes = (plan: Plan): RuntimeInput => {
  const runtime = structuredClone(RUNTIMES[plan].runtime);
  runtime.metadata = { ...runtime.metadata, deletionTimestamp: '2026-12-01T10:00:00Z' };
  return { ...RUNTIMES[plan], runtime };
};
const all = (...replacing: RuntimeInput[]) =>
  PLANS.map((plan) => replacing.find((r) => r.source === RUNTIMES[plan].source) ?? RUNTIMES[plan]);
const without = (...plans: Plan[]) => PLANS.filter((plan) => !plans.includes(plan)).map((plan) => RUNTIMES[plan]);

/** The landscape turned on an API server feature gate: a change no Runtime asked for. */
function withFeatureGate(settings: ConversionSettings): ConversionSettings {
  const next = structuredClone(settings);
  const kubeApiServer = next.config.kubernetes?.kubeApiServer;
  next.config.kubernetes = {
    ...next.config.kubernetes,
    kubeApiServer: { ...kubeApiServer, featureGates: { ...kubeApiServer?.featureGates, KimopsTestGate: true } },
  };
  return next;
}

/** The Runtimes whose Shoots come first by name: a rollout's first wave. */
function firstByShootName(count: number): Plan[] {
  return [...PLANS].sort((a, b) => (shootOf(a) < shootOf(b) ? -1 : 1)).slice(0, count);
}

/** The line of a rollout PR with these Shoots in its wave: named after the settings, by a digest. */
function rolloutLine(plans: readonly Plan[], later: number): RegExp {
  const shoots = plans
    .map(shootOf)
    .sort()
    .map((shoot) => `${shoot} rollout`)
    .join(', ');
  return new RegExp(`^rollout kimops/dev-rollout/landscape-[0-9a-f]{8}: ${shoots}; ${later} later$`);
}

/** main's Shoot of `plan` as the Garden holds it after Gardener's maintenance raised its Kubernetes version. */
function maintained(plan: Plan): Shoot {
  const live = parseYaml11(
    seeded([plan])
      .get(shootOf(plan))
      ?.get(`shoots/${shootOf(plan)}/shoot.yaml`) as string,
    'main',
  ) as Shoot;
  live.spec.kubernetes.version = '1.33.9';
  return live;
}

/** main with `plan`'s shoot.yaml replaced by something that is no Shoot. */
function brokenMain(plan: Plan): Map<string, Map<string, string>> {
  const main = seeded();
  main.set(shootOf(plan), new Map([[`shoots/${shootOf(plan)}/shoot.yaml`, 'apiVersion: v1\nkind: ConfigMap\n']]));
  return main;
}

describe('planPass', () => {
  // The converter's and the Shoot check's schemas compile on first use: outside the time of the first case.
  beforeAll(async () => planPass(await inputOf({ runtimes: all(changed('aws', raiseMaximum)) })));

  it.each<[string, () => Scenario, (string | RegExp)[]]>([
    ['nothing when main holds every render', () => ({ runtimes: all() }), []],
    [
      "a Runtime's own change: its Shoot's own PR",
      () => ({ runtimes: all(changed('aws', raiseMaximum)) }),
      [`runtime-change ${branch('aws')}: ${shootOf('aws')} update`],
    ],
    [
      'a new Runtime: a create on its own PR',
      () => ({ runtimes: all(), main: seeded(PLANS.filter((plan) => plan !== 'gcp')) }),
      [`runtime-change ${branch('gcp')}: ${shootOf('gcp')} create`],
    ],
    [
      'a landscape change no Runtime asked for: one rollout PR for the first wave, by Shoot name',
      () => ({ runtimes: all(), settings: withFeatureGate(SETTINGS), config: { rollout: { waveSize: 2 } } }),
      [rolloutLine(firstByShootName(2), 3)],
    ],
    [
      "a Runtime's own change during a rollout: its own PR, carrying the landscape change, outside the wave",
      () => ({
        runtimes: all(changed('aws', raiseMaximum)),
        settings: withFeatureGate(SETTINGS),
        config: { rollout: { waveSize: 10 } },
      }),
      [
        `runtime-change ${branch('aws')}: ${shootOf('aws')} update`,
        rolloutLine(
          PLANS.filter((plan) => plan !== 'aws'),
          0,
        ),
      ],
    ],
    [
      'what Gardener changed in the live Shoot (a maintenance update): an adopt PR, git follows',
      () => ({ runtimes: all(), gardenShoots: new Map([[shootOf('gcp'), maintained('gcp')]]) }),
      [`adoption ${branch('gcp')}: ${shootOf('gcp')} adopt`],
    ],
    [
      'a landscape change on a Shoot Gardener changed too: the rollout, since rendered against main it changes as well',
      () => ({
        runtimes: [RUNTIMES.gcp],
        main: seeded(['gcp']),
        settings: withFeatureGate(SETTINGS),
        gardenShoots: new Map([[shootOf('gcp'), maintained('gcp')]]),
      }),
      [rolloutLine(['gcp'], 0)],
    ],
    [
      "a Runtime KEB is deleting: its Shoot's delete, proven by the deletionTimestamp",
      () => ({ runtimes: all(kebDeletes('azure')) }),
      [`deletion ${branch('azure')}: ${shootOf('azure')} delete`],
    ],
    [
      'a Runtime simply absent: a delete for a human to approve, naming the Runtime as absent',
      () => ({ runtimes: without('trial') }),
      [`deletion ${branch('trial')}: ${shootOf('trial')} delete (Runtime absent)`],
    ],
    [
      "more absent Runtimes than the mass-deletion guard allows: the guard's refusal, no delete",
      () => ({ runtimes: without('aws', 'gcp'), config: { massDeletion: { maxShoots: 1, maxPercent: 100 } } }),
      [/^deletions refused: refusing to propose deleting 2 of 5 shoots .* re-run with --allow-mass-deletion 2 /],
    ],
    [
      'the same, confirmed by a human (--allow-mass-deletion 2): both deletes',
      () => ({
        runtimes: without('aws', 'gcp'),
        config: { massDeletion: { maxShoots: 1, maxPercent: 100 } },
        allowMassDeletion: 2,
      }),
      [
        ...(['aws', 'gcp'] as const)
          .map((plan) => `deletion ${branch(plan)}: ${shootOf(plan)} delete (Runtime absent)`)
          .sort((a, b) => (a < b ? -1 : 1)),
      ],
    ],
    [
      'Runtimes not all read: no delete without proof, not even the one KEB asked for',
      () => ({ runtimes: all(kebDeletes('azure')).filter((r) => r !== RUNTIMES.trial), runtimesComplete: false }),
      [/^deletions refused: not proposing to delete .*: some Runtime inputs could not be read/],
    ],
    [
      "a Runtime that fails to convert: the failure; an absent Runtime's Shoot waits, KEB's deletion does not",
      () => ({
        runtimes: [
          changed('aws', (r) => delete r.metadata.labels?.['kyma-project.io/region']),
          kebDeletes('azure'),
          RUNTIMES.gcp,
          RUNTIMES['sap-converged-cloud'],
        ],
      }),
      [
        `deletion ${branch('azure')}: ${shootOf('azure')} delete`,
        new RegExp(
          `^deletions refused: not proposing to delete ${shootOf('trial')}, whose Runtime is absent: runtime ${refOf('aws')} failed this pass`,
        ),
        `failure ${refOf('aws')} metadata.labels["kyma-project.io/region"]`,
      ],
    ],
    [
      'a Shoot file on main that cannot be read: the failure naming it, nothing proposed for it',
      () => ({ runtimes: all(changed('gcp', raiseMaximum)), main: brokenMain('gcp') }),
      [`failure ${refOf('gcp')} shoots/${shootOf('gcp')}/shoot.yaml`],
    ],
    [
      'a broken Shoot file no Runtime asks for: the failure, and no delete',
      () => ({ runtimes: without('gcp'), main: brokenMain('gcp') }),
      [`failure (none) shoots/${shootOf('gcp')}/shoot.yaml`],
    ],
  ])('%s', async (_what, scenario, expected) => {
    const plan = planPass(await inputOf(scenario()));
    expect(summary(plan)).toEqual(
      expected.map((line) => (typeof line === 'string' ? line : expect.stringMatching(line))),
    );
  });

  it('keeps the PRs of what it proposes, of failures, of suspended Runtimes and of deletions that wait', async () => {
    const suspended = structuredClone(RUNTIMES.trial);
    suspended.runtime.metadata.annotations = {
      ...suspended.runtime.metadata.annotations,
      'operator.kyma-project.io/suspend-patch-reconciliation': 'true',
    };
    const plan = planPass(
      await inputOf({
        runtimes: [
          changed('aws', raiseMaximum),
          changed('azure', (r) => delete r.metadata.labels?.['kyma-project.io/region']),
          suspended,
        ],
        main: brokenMain('sap-converged-cloud'),
      }),
    );
    expect([...plan.keep].sort()).toEqual(
      [branch('aws'), branch('azure'), branch('trial'), branch('sap-converged-cloud'), branch('gcp')].sort(),
    );
    expect(plan.deletionRefused).toMatch(/^not proposing to delete .*, whose Runtime is absent: runtime .* failed/);
  });

  it("proposes KEB's deletions batchSize per pass and says how many follow", async () => {
    const plan = planPass(
      await inputOf({
        runtimes: all(kebDeletes('aws'), kebDeletes('azure'), kebDeletes('gcp')),
        config: { deprovisioning: { batchSize: 2 }, massDeletion: { maxShoots: 20, maxPercent: 100 } },
      }),
    );
    expect(plan.deletions.map((pr) => pr.proposals[0]?.shoot)).toEqual(
      [shootOf('aws'), shootOf('azure'), shootOf('gcp')].sort().slice(0, 2),
    );
    expect(plan.deprovisioning).toEqual({ proposed: 2, later: 1 });
    expect(plan.deprovisioningNote).toBe(
      'deprovisioning: 2 of 3 deletions KEB asked for proposed in this pass (kimops.yaml deprovisioning.batchSize 2); 1 more follows in later passes',
    );
  });

  it('tells the render memo what main holds and which Shoots are still asked for', async () => {
    const plan = planPass(await inputOf({ runtimes: without('trial').concat(changed('trial', raiseMaximum)) }));
    expect(plan.inMain.sort()).toEqual(
      without('trial')
        .map((r) => runtimeRef(r.runtime))
        .sort(),
    );
    expect(plan.memo.remember.map(([shoot]) => shoot).sort()).toEqual(
      without('trial')
        .map((r) => r.runtime.spec.shoot.name)
        .sort(),
    );
    expect([...plan.memo.keepOnly].sort()).toEqual(PLANS.map(shootOf).sort());
  });

  it('changes none of its inputs', async () => {
    const input = await inputOf({
      runtimes: [changed('aws', raiseMaximum), kebDeletes('azure'), RUNTIMES.gcp],
      settings: withFeatureGate(SETTINGS),
      gardenShoots: new Map([[shootOf('gcp'), maintained('gcp')]]),
    });
    const { main, ...values } = input;
    const before = structuredClone({ values, read: main.read, folders: main.folders, config: main.config });
    planPass(input);
    expect({ values, read: main.read, folders: main.folders, config: main.config }).toEqual(before);
  });
});
