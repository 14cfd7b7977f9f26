// The decisions of a generator pass, one row each, on an in-memory main: the same steps generate.ts takes
// (select, render, read main's folders, plan) without a repository or a forge. What the PRs then do on a
// real repo and forge: generate-deletions.test.ts and test/integration/standalone/generate-*.test.ts.
import { readdirSync, readFileSync } from 'node:fs';
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
import { withGardenerDefaults } from '../test/helpers/gardener-defaults.js';
import { gatherPassInput } from './gather.js';
import type { MainFolder, MainSnapshot } from './main-snapshot.js';
import { planPass, type PassPlan } from './plan.js';
import type { PassInput } from './plan-input.js';
import { renderRuntimes, type RuntimeInput } from './render-runtimes.js';
import { markedForLeader } from './leaders.js';
import { pullRequestClass } from './propose/pr-body.js';
import { LEADER_ANNOTATION, LEADER_LABEL } from '../rules/leader.js';

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
  requiredChecks: ['kimops/validate'],
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
  /** landscape.yaml's defaultLeader. */
  defaultLeader?: 'kimops' | 'kim';
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
      ...(scenario.defaultLeader && { defaultLeader: scenario.defaultLeader }),
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
    ...(plan.firstSkr ? [`first-skr ${plan.firstSkr.branch}: ${shoots(plan.firstSkr.proposals).join(', ')}`] : []),
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

/** main's Shoot of `plan` as created: what the applier sent the Garden. */
function created(plan: Plan): Shoot {
  return parseYaml11(
    seeded([plan])
      .get(shootOf(plan))
      ?.get(`shoots/${shootOf(plan)}/shoot.yaml`) as string,
    'main',
  ) as Shoot;
}

/** main's Shoot of `plan` as the Garden holds it after Gardener's maintenance raised its Kubernetes version. */
function maintained(plan: Plan): Shoot {
  const live = created(plan);
  live.spec.kubernetes.version = '1.33.9';
  return live;
}

/** Every Shoot of main as gardener-apiserver serves it after its create: with its defaults. */
const liveWithDefaults = (edit: (plan: Plan, live: Shoot) => void = () => undefined) =>
  new Map(
    PLANS.map((plan) => {
      const live = withGardenerDefaults(created(plan));
      edit(plan, live);
      return [shootOf(plan), live];
    }),
  );

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
      "what gardener-apiserver defaulted on the created Shoots (ipFamilies, a worker's updateStrategy, …): nothing",
      () => ({ runtimes: all(), gardenShoots: liveWithDefaults() }),
      [],
    ],
    [
      'a maintenance update on a Shoot with those defaults: an adopt PR for that Shoot only',
      () => ({
        runtimes: all(),
        gardenShoots: liveWithDefaults((plan, live) => {
          if (plan === 'gcp') live.spec.kubernetes.version = '1.33.9';
        }),
      }),
      [`adoption ${branch('gcp')}: ${shootOf('gcp')} adopt`],
    ],
    [
      'a machine image version Gardener raised: an adopt PR',
      () => ({
        runtimes: all(),
        gardenShoots: liveWithDefaults((plan, live) => {
          const image = live.spec.provider.workers[0]?.machine.image;
          if (plan === 'aws' && image) image.version = '1877.99.0';
        }),
      }),
      [`adoption ${branch('aws')}: ${shootOf('aws')} adopt`],
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

  it("proposes only the fields main manages: an adoption or a Runtime's change carries no Gardener default", async () => {
    const plan = planPass(
      await inputOf({
        runtimes: all(changed('aws', raiseMaximum)),
        gardenShoots: liveWithDefaults((p, live) => {
          if (p === 'gcp') live.spec.kubernetes.version = '1.33.9';
        }),
      }),
    );
    const changesOf = (p: Plan) =>
      plan.shoots
        .find((pr) => pr.branch === branch(p))
        ?.proposals[0]?.classification.changes.map(
          (c) => `${c.path}: ${JSON.stringify(c.before)} → ${JSON.stringify(c.after)}`,
        );
    expect(changesOf('gcp')).toEqual(['spec.kubernetes.version: "1.33.3" → "1.33.9"']);
    expect(changesOf('aws')).toEqual([
      'metadata.annotations["infrastructuremanager.kyma-project.io/runtime-generation"]: "1" → "2"',
      'spec.provider.workers[cpu-worker-0].maximum: 20 → 21',
    ]);
    for (const pr of plan.shoots) {
      const shoot = pr.files.get(`shoots/${pr.proposals[0]?.shoot}/shoot.yaml`) ?? '';
      expect(shoot).not.toContain('ipFamilies');
      expect(shoot).not.toContain('updateStrategy');
    }
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

describe('planPass on rotated registry-cache credentials', () => {
  it("proposes the Secret the applier recorded on the live Shoot as the Runtime's own change", async () => {
    const cache = {
      name: 'ghcr',
      namespace: 'default',
      uid: '6f2e7c1a-0d4b-4c1e-9a7b-2f3c4d5e6f70',
      config: { upstream: 'ghcr.io', secretReferenceName: 'ghcr-credentials' },
    };
    const withCache = structuredClone(RUNTIMES.aws);
    withCache.runtime.spec.imageRegistryCache = [cache];
    // main as the generator left it: the Shoot rendered against its live self, naming reg-cache-<uid>.
    const [rendered] = renderRuntimes([withCache], SETTINGS, new Map([[shootOf('aws'), created('aws')]])).rendered;
    const main = seeded();
    main.set(shootOf('aws'), fileMapOf(rendered?.manifests ?? []));
    const live = structuredClone(rendered?.manifests.at(-1)?.object as Shoot);
    const rotated = `reg-cache-${cache.uid}-0123456789`;
    live.metadata.annotations = {
      ...live.metadata.annotations,
      [`registry-cache.kimops.kyma-project.io/${cache.uid}`]: rotated,
    };

    const plan = planPass(
      await inputOf({
        runtimes: all().map((r) => (r.source === withCache.source ? withCache : r)),
        main,
        gardenShoots: new Map([[shootOf('aws'), live]]),
      }),
    );
    expect(summary(plan)).toEqual([`runtime-change ${branch('aws')}: ${shootOf('aws')} update`]);
    expect(plan.shoots[0]?.proposals[0]?.after?.spec.resources).toContainEqual({
      name: rotated,
      resourceRef: { apiVersion: 'v1', kind: 'Secret', name: rotated },
    });
  });
});

describe('planPass on changes inside the clusters (skr/)', () => {
  const addAdministrator = (runtime: Runtime) => runtime.spec.security.administrators.push('alice@example.com');
  /** The Runtime as KEB writes it without OIDC providers of its own: the SKR gets the landscape's default. */
  const ownOidcless = (plan: Plan): RuntimeInput => {
    const runtime = structuredClone(RUNTIMES[plan].runtime);
    delete runtime.spec.shoot.kubernetes?.kubeAPIServer?.additionalOidcConfig;
    return { ...RUNTIMES[plan], runtime };
  };
  const mainOf = (runtimes: readonly RuntimeInput[], settings = SETTINGS) =>
    new Map(renderRuntimes(runtimes, settings).rendered.map((r) => [r.shootName, fileMapOf(r.manifests)]));
  const withIssuer = (issuerURL: string): ConversionSettings => ({
    ...SETTINGS,
    skrDefaultOidc: { ...SETTINGS.skrDefaultOidc, issuerURL },
  });
  const skrOf = (proposal: { skr?: readonly { subject: string; detail: string }[] } | undefined) =>
    proposal?.skr?.map((c) => `${c.subject}: ${c.detail}`);

  it("a Runtime's new administrator: its own PR of class skr, saying who comes", async () => {
    const plan = planPass(await inputOf({ runtimes: all(changed('aws', addAdministrator)) }));
    expect(summary(plan)).toEqual([`runtime-change ${branch('aws')}: ${shootOf('aws')} skr`]);
    const [proposal] = plan.shoots[0]?.proposals ?? [];
    expect(skrOf(proposal)).toEqual(['administrators: + alice@example.com']);
    expect(proposal?.classification.reasons).toEqual([
      expect.stringMatching(/^the Runtime asked for it: only objects inside the cluster change \(administrators\)/),
    ]);
  });

  it('an administrator replaced: + the new user, − the old one', async () => {
    const plan = planPass(
      await inputOf({
        runtimes: all(changed('gcp', (r) => (r.spec.security.administrators = ['alice@example.com']))),
      }),
    );
    expect(summary(plan)).toEqual([`runtime-change ${branch('gcp')}: ${shootOf('gcp')} skr`]);
    expect(skrOf(plan.shoots[0]?.proposals[0])).toEqual(['administrators: + alice@example.com, − admin@example.com']);
  });

  it("a Runtime's own change of the Shoot and its administrators: an update, listing the cluster's changes too", async () => {
    const plan = planPass(
      await inputOf({
        runtimes: all(
          changed('aws', (r) => {
            raiseMaximum(r);
            addAdministrator(r);
          }),
        ),
      }),
    );
    expect(summary(plan)).toEqual([`runtime-change ${branch('aws')}: ${shootOf('aws')} update`]);
    expect(skrOf(plan.shoots[0]?.proposals[0])).toEqual([
      'ConfigMap kyma-provisioning-info: workerPools.kyma.autoScalerMax 20 → 21',
      'administrators: + alice@example.com',
    ]);
  });

  it("the landscape's default OIDC changed: a rollout of skr-unrequested changes, for the Runtimes using it", async () => {
    const runtimes = [ownOidcless('aws'), ownOidcless('gcp'), RUNTIMES.azure];
    const plan = planPass(
      await inputOf({ runtimes, main: mainOf(runtimes), settings: withIssuer('https://new.example') }),
    );
    const shoots = [shootOf('aws'), shootOf('gcp')].sort().map((shoot) => `${shoot} skr-unrequested`);
    expect(summary(plan)).toEqual([
      expect.stringMatching(
        new RegExp(`^rollout kimops/dev-rollout/landscape-[0-9a-f]{8}: ${shoots.join(', ')}; 0 later$`),
      ),
    ]);
    expect(skrOf(plan.rollout?.proposals[0])).toEqual([
      'OIDC kyma-oidc-0: issuerURL https://kymatest.accounts400.ondemand.com → https://new.example',
    ]);
  });

  it('a Runtime that brings an empty list of OIDC providers gets none, and no default', async () => {
    const none = ownOidcless('aws');
    const apiServer = none.runtime.spec.shoot.kubernetes?.kubeAPIServer;
    if (apiServer) apiServer.additionalOidcConfig = [];
    const main = mainOf([none]);
    expect([...(main.get(shootOf('aws'))?.keys() ?? [])].filter((path) => path.includes('openidconnect'))).toEqual([]);
    const plan = planPass(await inputOf({ runtimes: [none], main, settings: withIssuer('https://new.example') }));
    expect(summary(plan)).toEqual([]);
  });

  it('main written before kimops wrote skr/ (a kimops upgrade): one PR of class skr for all, no waves', async () => {
    const main = seeded();
    for (const files of main.values())
      for (const path of [...files.keys()]) if (path.includes('/skr/')) files.delete(path);
    const runtimes = all();
    const plan = planPass(await inputOf({ runtimes, main, config: { rollout: { waveSize: 2 } } }));
    expect(plan.rollout).toBeUndefined();
    expect(plan.shoots).toEqual([]);
    const shoots = runtimes.map((r) => `${r.runtime.spec.shoot.name} skr`).sort();
    expect(summary(plan)).toEqual([`first-skr kimops/dev-rollout/first-skr-objects: ${shoots.join(', ')}`]);
    expect(plan.firstSkr?.rollout.later).toBe(0);
    expect(plan.keep.has('kimops/dev-rollout/first-skr-objects')).toBe(true);
    // Every Shoot's folder with its new skr/ files; nothing else of a folder differs from main.
    const files = plan.firstSkr?.files ?? new Map<string, string>();
    for (const { runtime } of runtimes)
      expect([...files.keys()]).toContain(`shoots/${runtime.spec.shoot.name}/skr/namespace-kyma-system.yaml`);
    for (const [path, content] of files)
      if (!path.includes('/skr/')) expect(content).toBe(main.get(path.split('/')[1] ?? '')?.get(path));
    const aws = plan.firstSkr?.proposals.find((p) => p.shoot === shootOf('aws'));
    expect(skrOf(aws)).toEqual([
      'Namespace kyma-system: added',
      'ConfigMap kyma-provisioning-info: added',
      expect.stringMatching(
        /^OIDC kyma-oidc-0: added \(issuer https:\/\/kymatest\.accounts400\.ondemand\.com, client /,
      ),
      'administrators: + admin@example.com',
    ]);
  });

  it('an SKR change of a Runtime that cannot tell (no generation), shared by no other Shoot: its own skr PR', async () => {
    const fromFile = (input: RuntimeInput): RuntimeInput => {
      const runtime = structuredClone(input.runtime);
      delete runtime.metadata.generation;
      return { ...input, runtime };
    };
    const runtimes = PLANS.map((plan) => fromFile(RUNTIMES[plan]));
    const main = mainOf(runtimes);
    const edited = fromFile(RUNTIMES.trial);
    addAdministrator(edited.runtime);
    const plan = planPass(
      await inputOf({ runtimes: runtimes.map((r) => (r.source === edited.source ? edited : r)), main }),
    );
    expect(summary(plan)).toEqual([`runtime-change ${branch('trial')}: ${shootOf('trial')} skr`]);
    expect(plan.shoots[0]?.proposals[0]?.classification.reasons[0]).toMatch(/^the Runtime asked for it/);
  });
});

/** KEB's 15 example Runtimes as the files hold them: no metadata.generation, as read from a folder. */
const EXAMPLES: RuntimeInput[] = readdirSync(new URL('../examples/runtimes/keb/', import.meta.url))
  .filter((file) => file.endsWith('.yaml'))
  .sort()
  .map((file) => {
    const source = `examples/runtimes/keb/${file}`;
    return { source, runtime: parseYaml11(read(source), source) as Runtime };
  });

/** The landscape raised its default Kubernetes version: a change no Runtime asked for. */
function withKubernetes(version: string): ConversionSettings {
  const next = structuredClone(SETTINGS);
  next.config.kubernetes = { ...next.config.kubernetes, defaultVersion: version };
  return next;
}

/** The example Runtime of this file, edited as a person edits the file: its generation stays absent. */
function edited(file: string, edit: (runtime: Runtime) => void): RuntimeInput {
  const found = EXAMPLES.find((e) => e.source.endsWith(`/${file}`)) as RuntimeInput;
  const runtime = structuredClone(found.runtime);
  edit(runtime);
  return { ...found, runtime };
}

describe('planPass with Runtimes that carry no generation (read from files)', () => {
  const main = () => {
    const { rendered } = renderRuntimes(EXAMPLES, SETTINGS);
    return new Map(rendered.map((r) => [r.shootName, fileMapOf(r.manifests)]));
  };
  const examples = (...replacing: RuntimeInput[]) =>
    EXAMPLES.map((e) => replacing.find((r) => r.source === e.source) ?? e);
  const shootsOfPlan = async (scenario: Omit<Scenario, 'main'>) => {
    const plan = planPass(await inputOf({ ...scenario, main: main() }));
    return {
      own: plan.shoots.map(
        (pr) => `${pr.kind} ${pr.proposals.map((p) => `${p.shoot} ${p.classification.class}`).join()}`,
      ),
      rollout: plan.rollout?.proposals.map((p) => p.shoot).sort(),
      later: plan.rollout?.rollout.later,
    };
  };
  const shootOfFile = (file: string) => edited(file, () => undefined).runtime.spec.shoot.name;

  it('main records their generation as "0"', () => {
    for (const files of main().values())
      expect([...files.values()].join()).toContain('infrastructuremanager.kyma-project.io/runtime-generation: "0"');
  });

  it('a landscape change (Kubernetes 1.33.3 → 1.34.1): one rollout of all 15 Shoots, no PR of their own', async () => {
    expect(EXAMPLES).toHaveLength(15);
    expect(await shootsOfPlan({ runtimes: EXAMPLES, settings: withKubernetes('1.34.1') })).toEqual({
      own: [],
      rollout: EXAMPLES.map((e) => e.runtime.spec.shoot.name).sort(),
      later: 0,
    });
  });

  it("the same with one Runtime's spec edited: that Shoot gets its own PR, carrying the landscape change too", async () => {
    const plan = await shootsOfPlan({
      runtimes: examples(edited('aws.yaml', raiseMaximum)),
      settings: withKubernetes('1.34.1'),
    });
    expect(plan.own).toEqual([`runtime-change ${shootOfFile('aws.yaml')} update`]);
    expect(plan.rollout).toEqual(
      EXAMPLES.map((e) => e.runtime.spec.shoot.name)
        .filter((shoot) => shoot !== shootOfFile('aws.yaml'))
        .sort(),
    );
  });

  it("one Runtime's spec edited, the landscape unchanged: its own PR", async () => {
    expect(await shootsOfPlan({ runtimes: examples(edited('gcp.yaml', raiseMaximum)) })).toEqual({
      own: [`runtime-change ${shootOfFile('gcp.yaml')} update`],
      rollout: undefined,
      later: undefined,
    });
  });

  it('two Runtimes edited differently: a PR each', async () => {
    const plan = await shootsOfPlan({
      runtimes: examples(
        edited('gcp.yaml', raiseMaximum),
        edited('azure.yaml', (r) => {
          const [worker] = r.spec.shoot.provider.workers;
          if (worker) worker.minimum = 4;
        }),
      ),
    });
    expect(plan.own.sort()).toEqual(
      [`runtime-change ${shootOfFile('gcp.yaml')} update`, `runtime-change ${shootOfFile('azure.yaml')} update`].sort(),
    );
    expect(plan.rollout).toBeUndefined();
  });

  it("force-patch-reconciliation makes a shared change the Runtime's own", async () => {
    const forced = edited('trial.yaml', (r) => {
      r.metadata.annotations = {
        ...r.metadata.annotations,
        'operator.kyma-project.io/force-patch-reconciliation': 'true',
      };
    });
    const plan = await shootsOfPlan({ runtimes: examples(forced), settings: withKubernetes('1.34.1') });
    expect(plan.own).toEqual([`runtime-change ${shootOfFile('trial.yaml')} update`]);
    expect(plan.rollout).toHaveLength(14);
  });

  it('what Gardener changed on one live Shoot (a maintenance update): adopted', async () => {
    const live = new Map(
      [...main()].map(([shoot, files]) => {
        const created = parseYaml11(files.get(`shoots/${shoot}/shoot.yaml`) as string, shoot) as Shoot;
        const served = withGardenerDefaults(created);
        if (shoot === shootOfFile('azure.yaml')) served.spec.kubernetes.version = '1.33.9';
        return [shoot, served];
      }),
    );
    expect(await shootsOfPlan({ runtimes: EXAMPLES, gardenShoots: live })).toEqual({
      own: [`adoption ${shootOfFile('azure.yaml')} adopt`],
      rollout: undefined,
      later: undefined,
    });
  });
});

describe('planPass by who leads a Runtime (ADR 0011)', () => {
  /** main after the creates of these Runtimes merged while KIM led them: each Shoot marked `leader: kim`. */
  const seededForKim = (plans: readonly Plan[] = PLANS) =>
    new Map(
      renderRuntimes(
        plans.map((plan) => RUNTIMES[plan]),
        SETTINGS,
      ).rendered.map((r) => [r.shootName, fileMapOf(markedForLeader(r.manifests, 'kim'))]),
    );
  /** The Runtime of `plan` with the leader label set: a label moves no generation. */
  const led = (plan: Plan, value: string): RuntimeInput => {
    const runtime = structuredClone(RUNTIMES[plan].runtime);
    runtime.metadata.labels = { ...runtime.metadata.labels, [LEADER_LABEL]: value };
    return { ...RUNTIMES[plan], runtime };
  };
  const only = (plan: PassPlan) => {
    const [pr, ...others] = plan.shoots;
    expect(others).toEqual([]);
    return pr?.proposals[0];
  };
  const shootFile = (plan: PassPlan, shoot: Plan) =>
    plan.shoots.find((pr) => pr.branch === branch(shoot))?.files.get(`shoots/${shootOf(shoot)}/shoot.yaml`);

  it('renders the Runtimes KIM leads into main marked, as shadows: a create is a shadow', async () => {
    const plan = planPass(
      await inputOf({ runtimes: all(), main: seededForKim(PLANS.filter((p) => p !== 'gcp')), defaultLeader: 'kim' }),
    );
    expect(summary(plan)).toEqual([`runtime-change ${branch('gcp')}: ${shootOf('gcp')} shadow`]);
    expect(shootFile(plan, 'gcp')).toContain(`${LEADER_ANNOTATION}: kim`);
    expect(only(plan)?.classification.reasons[0]).toMatch(/^KIM leads this Runtime .*merging changes nothing live/);
  });

  it("a KIM-led Runtime's own change is a shadow on its own PR", async () => {
    const plan = planPass(
      await inputOf({ runtimes: all(changed('aws', raiseMaximum)), main: seededForKim(), defaultLeader: 'kim' }),
    );
    expect(summary(plan)).toEqual([`runtime-change ${branch('aws')}: ${shootOf('aws')} shadow`]);
  });

  it('a landscape change over KIM-led Shoots is a rollout wave of shadows', async () => {
    const plan = planPass(
      await inputOf({
        runtimes: all(),
        main: seededForKim(),
        settings: withFeatureGate(SETTINGS),
        defaultLeader: 'kim',
      }),
    );
    expect(plan.rollout?.proposals.map((p) => p.classification.class)).toEqual(PLANS.map(() => 'shadow'));
    expect(pullRequestClass(plan.rollout?.proposals ?? [], true)).toEqual({ class: 'shadow', disruptive: false });
  });

  it('nothing while main holds the marked Shoots', async () => {
    expect(summary(planPass(await inputOf({ runtimes: all(), main: seededForKim(), defaultLeader: 'kim' })))).toEqual(
      [],
    );
  });

  it('a hand-back (label kim over a kimops Shoot) is a cut-over on its own PR; without the Garden it waits', async () => {
    const plan = planPass(await inputOf({ runtimes: all(led('aws', 'kim')) }));
    const proposal = only(plan);
    expect(summary(plan)).toEqual([`runtime-change ${branch('aws')}: ${shootOf('aws')} cut-over`]);
    expect(proposal?.classification.disruptive).toBe(true);
    expect(proposal?.classification.reasons).toEqual([
      expect.stringMatching(/^hand-back: KIM now leads this Runtime/),
      expect.stringMatching(/the live Shoot was not read \(no --garden-kubeconfig\)/),
    ]);
    expect(shootFile(plan, 'aws')).toContain(`${LEADER_ANNOTATION}: kim`);
  });

  it('a take-over whose live Shoot is what main says merges alone (not disruptive)', async () => {
    // As a LIST serves them: no apiVersion and kind on the items.
    const gardenShoots = liveWithDefaults((_, live) => {
      delete (live as Partial<Shoot>).apiVersion;
      delete (live as Partial<Shoot>).kind;
    });
    const plan = planPass(
      await inputOf({ runtimes: all(led('aws', 'kimops')), main: seededForKim(), gardenShoots, defaultLeader: 'kim' }),
    );
    const proposal = only(plan);
    expect(proposal?.classification).toMatchObject({ class: 'cut-over', disruptive: false });
    expect(proposal?.classification.reasons).toEqual([
      expect.stringMatching(/^take-over: kimops now leads this Runtime/),
      'the live Shoot matches main in every field main sets: no field of it changes',
    ]);
    expect(shootFile(plan, 'aws')).not.toContain(LEADER_ANNOTATION);
  });

  it('a kimops-led Runtime without a folder in main over a live Shoot KIM wrote is a take-over, not a create', async () => {
    // The bootstrap left its folder out (it failed a check): merging takes KIM's live Shoot over, so it is compared.
    const gardenShoots = liveWithDefaults((plan, live) => {
      if (plan === 'aws') live.spec.purpose = 'development';
    });
    const main = seededForKim(PLANS.filter((plan) => plan !== 'aws'));
    const plan = planPass(
      await inputOf({ runtimes: all(led('aws', 'kimops')), main, gardenShoots, defaultLeader: 'kim' }),
    );
    expect(only(plan)?.classification).toMatchObject({ class: 'cut-over', disruptive: true });
    expect(only(plan)?.classification.reasons[0]).toMatch(/^take-over: kimops now leads this Runtime/);
    // A Shoot nobody wrote yet stays a create.
    const fresh = new Map([...gardenShoots].filter(([name]) => name !== shootOf('aws')));
    const created = planPass(
      await inputOf({ runtimes: all(led('aws', 'kimops')), main, gardenShoots: fresh, defaultLeader: 'kim' }),
    );
    expect(only(created)?.classification.class).toBe('create');
  });

  it('a take-over whose live Shoot differs lists the fields and waits (disruptive)', async () => {
    const gardenShoots = liveWithDefaults((plan, live) => {
      if (plan === 'aws') live.spec.purpose = 'development';
    });
    const plan = planPass(
      await inputOf({ runtimes: all(led('aws', 'kimops')), main: seededForKim(), gardenShoots, defaultLeader: 'kim' }),
    );
    expect(only(plan)?.classification).toMatchObject({ class: 'cut-over', disruptive: true });
    expect(only(plan)?.classification.reasons[1]).toMatch(
      /^the live Shoot differs from main in 1 field main sets: `spec.purpose` \(live development, main production\): once merged, the applier writes main's values$/,
    );
  });

  it("an unreadable leader label: the Runtime's error line, nothing proposed for it, no deletion at all", async () => {
    // Its own change waits too, and so does KEB's deletion of another Runtime.
    const badLabel = changed('aws', raiseMaximum);
    badLabel.runtime.metadata.labels = { ...badLabel.runtime.metadata.labels, [LEADER_LABEL]: 'KIM' };
    const plan = planPass(await inputOf({ runtimes: [badLabel, ...without('aws', 'trial'), kebDeletes('trial')] }));
    expect(summary(plan)).toEqual([
      expect.stringMatching(
        /^deletions refused: not proposing any deletion this pass: 1 Runtime's `kimops.kyma-project.io\/leader` label cannot be read/,
      ),
      `failure ${refOf('aws')} metadata.labels[kimops.kyma-project.io/leader]`,
    ]);
    expect(plan.failures[0]?.message).toBe(
      `runtime ${refOf('aws')}: metadata.labels[kimops.kyma-project.io/leader]: must be "kimops" or "kim"; got "KIM" — treated as led by KIM (kimops writes nothing for it) until the label is fixed: set it to "kimops" or "kim", or remove it to use the landscape's default (kimops)`,
    );
    expect(plan.keep.has(branch('aws'))).toBe(true);
  });

  it("a KIM-led Shoot's folder goes as a shadow only where the Garden shows no live Shoot the applier owns", async () => {
    const absent = { runtimes: without('trial'), main: seededForKim(), defaultLeader: 'kim' as const };
    const unknown = planPass(await inputOf(absent));
    expect(summary(unknown)).toEqual([`deletion ${branch('trial')}: ${shootOf('trial')} delete (Runtime absent)`]);
    const owned = liveWithDefaults((_, live) => {
      live.metadata.labels = { ...live.metadata.labels, 'kimops.kyma-project.io/managed-by': 'kimops' };
    });
    expect(summary(planPass(await inputOf({ ...absent, gardenShoots: owned })))).toEqual([
      `deletion ${branch('trial')}: ${shootOf('trial')} delete (Runtime absent)`,
    ]);
    const kims = planPass(await inputOf({ ...absent, gardenShoots: liveWithDefaults() }));
    expect(summary(kims)).toEqual([`deletion ${branch('trial')}: ${shootOf('trial')} shadow (Runtime absent)`]);
    expect(kims.deletions[0]?.proposals[0]?.classification.reasons[0]).toMatch(
      /^KIM leads this Shoot and the applier owns no part of the live one/,
    );
  });
});
