// Policy benchmark (issue 5): 10,000 synthetic Runtimes converted into Shoots, each evaluated against the
// whole default policy pack as an UPDATE of a live Shoot that differs in one worker's maximum (so the
// UPDATE-only policies — immutable fields, no downgrade — really run), with the landscape facts of all
// 10,000 Runtimes; and, separately, each Shoot's schema check (model/schemas/shoot-schema.ts) beside it.
// Beside them, each Shoot as the one folder check the generator's PRs and `kimops validate` share
// (generator/validate/folder-check.ts): its file read, schema, pack and the credentials scan.
// One core: a plain loop. Baselines in the same run: a JSON round trip of each Shoot, and hand-written
// TypeScript doing the checks of three policies. Target: ≥ 5,000 Shoots/s for the pack.
// Exits non-zero when any policy errors on the corpus (the figures would then measure failures).
import { readKebZones } from '../../adapters/files/keb-zones.js';
import { readLandscape } from '../../adapters/files/landscape.js';
import { readPolicySet } from '../../adapters/files/policies.js';
import { convertRuntime } from '../../generator/convert/index.js';
import { toCanonicalYaml } from '../../rules/canonical-yaml.js';
import { evaluatePolicies, type PolicyInput, type PolicyStatus } from '../../generator/validate/evaluate.js';
import { checkShootFolder } from '../../generator/validate/folder-check.js';
import { landscapeParams, type RuntimeFact } from '../../generator/validate/params.js';
import { parsePolicyFiles } from '../../generator/validate/policy-file.js';
import { conversionSettingsOf, type Landscape } from '../../model/landscape.js';
import type { Runtime } from '../../model/runtime.js';
import { validateShootSchema } from '../../model/schemas/shoot-schema.js';
import { syntheticRuntimes } from './synthetic-runtimes.js';

const RUNTIMES = Number(process.env.KIMOPS_BENCH_RUNTIMES ?? 10_000);
const TARGET_PER_SECOND = 5_000;
/** The shipped landscapes compared for how many policies apply; the one where most apply is measured. */
const CANDIDATE_LANDSCAPES = ['dev', 'stage', 'prod'];
/** Preferred on a tie: the landscape issue 5 names. */
const PREFERRED_LANDSCAPE = 'stage';
const SAMPLE = 500;
const WARM_UP = 500;

type Json = Record<string, unknown>;

interface Case {
  object: Json;
  oldObject: Json;
}

function percentile(sortedNanos: number[], p: number): number {
  return sortedNanos[Math.min(sortedNanos.length - 1, Math.floor((p / 100) * sortedNanos.length))] ?? 0;
}

const micros = (nanos: number) => `${(nanos / 1e3).toFixed(1)} µs`;
const perSecond = (count: number, nanos: number) => (count / (nanos / 1e9)).toFixed(0).padStart(7);

/** Each Runtime's Shoot as a plain JSON object (as read back from the landscape repo), and its live twin. */
function cases(runtimes: readonly Runtime[], landscape: Landscape): Case[] {
  const settings = conversionSettingsOf(landscape);
  return runtimes.map((runtime) => {
    const result = convertRuntime({ runtime, settings });
    if (!result.ok)
      throw new Error(`benchmark Runtime ${runtime.metadata.name} failed to convert: ${result.error.message}`);
    const object = JSON.parse(JSON.stringify(result.shoot)) as Json;
    const oldObject = structuredClone(object);
    // The one change: the live Shoot's first worker pool has a lower maximum (higher when that would invert it).
    const worker = (oldObject.spec as { provider: { workers: { minimum: number; maximum: number }[] } }).provider
      .workers[0];
    if (worker) worker.maximum = worker.maximum > worker.minimum ? worker.maximum - 1 : worker.maximum + 1;
    return { object, oldObject };
  });
}

function runtimeFacts(runtimes: readonly Runtime[]): RuntimeFact[] {
  return runtimes.map((r) => ({
    id: r.metadata.labels?.['kyma-project.io/runtime-id'] ?? r.metadata.name,
    platformRegion: r.spec.shoot.platformRegion ?? '',
  }));
}

interface Tally {
  byStatus: Record<PolicyStatus, number>;
  failedByPolicy: Map<string, number>;
  erroredByPolicy: Map<string, { count: number; first: string }>;
}

const newTally = (): Tally => ({
  byStatus: { passed: 0, failed: 0, error: 0, 'not-applicable': 0 },
  failedByPolicy: new Map(),
  erroredByPolicy: new Map(),
});

function tallyResults(tally: Tally, results: ReturnType<typeof evaluatePolicies>): void {
  for (const r of results) {
    tally.byStatus[r.status]++;
    if (r.status === 'failed') tally.failedByPolicy.set(r.policy, (tally.failedByPolicy.get(r.policy) ?? 0) + 1);
    if (r.status === 'error') {
      const seen = tally.erroredByPolicy.get(r.policy);
      if (seen) seen.count++;
      else tally.erroredByPolicy.set(r.policy, { count: 1, first: r.messages[0] ?? '' });
    }
  }
}

/**
 * The baseline's hand-written checks, the same as three policies of the pack: ssh-access-disabled,
 * worker-scaling-bounds and immutable-fields-unchanged (region and provider type). True when all pass.
 */
function handWrittenChecks(object: Json, oldObject: Json): boolean {
  const spec = object.spec as {
    region: string;
    provider: {
      type: string;
      workers?: { name: string; minimum?: number; maximum?: number }[];
      workersSettings?: { sshAccess?: { enabled?: boolean } };
    };
  };
  const live = oldObject.spec as typeof spec;
  const sshDisabled = spec.provider.workersSettings?.sshAccess?.enabled === false;
  const inverted = (spec.provider.workers ?? [])
    .filter((w) => w.minimum !== undefined && w.maximum !== undefined && w.minimum > w.maximum)
    .map((w) => `${w.name} (${w.minimum} > ${w.maximum})`);
  return (
    sshDisabled && inverted.length === 0 && spec.region === live.region && spec.provider.type === live.provider.type
  );
}

export async function benchValidate(): Promise<void> {
  const policies = parsePolicyFiles(await readPolicySet('default'));
  const zones = await readKebZones();
  const runtimes = syntheticRuntimes(RUNTIMES);
  const facts = runtimeFacts(runtimes);

  // Which landscape makes the most policy evaluations applicable (on the first SAMPLE Shoots)?
  const applicableIn = new Map<string, number>();
  const landscapes = new Map<string, Landscape>();
  for (const name of CANDIDATE_LANDSCAPES) {
    const landscape = await readLandscape(name);
    landscapes.set(name, landscape);
    const params = landscapeParams({ landscape, zones, runtimes: facts });
    let applicable = 0;
    for (const c of cases(runtimes.slice(0, SAMPLE), landscape)) {
      applicable += evaluatePolicies(policies, { ...c, operation: 'UPDATE', params, landscape: name }).filter(
        (r) => r.status !== 'not-applicable',
      ).length;
    }
    applicableIn.set(name, applicable);
  }
  const most = Math.max(...applicableIn.values());
  const chosen =
    applicableIn.get(PREFERRED_LANDSCAPE) === most
      ? PREFERRED_LANDSCAPE
      : ([...applicableIn].find(([, n]) => n === most)?.[0] ?? PREFERRED_LANDSCAPE);
  const landscape = landscapes.get(chosen) as Landscape;
  const params = landscapeParams({ landscape, zones, runtimes: facts });
  const corpus = cases(runtimes, landscape);
  const input = (c: Case): PolicyInput => ({
    object: c.object,
    oldObject: c.oldObject,
    operation: 'UPDATE',
    params,
    landscape: chosen,
  });

  // Warm-up on a slice, so every measurement runs optimised code (and the schema validator is compiled).
  for (const c of corpus.slice(0, WARM_UP)) {
    evaluatePolicies(policies, input(c));
    validateShootSchema(c.object);
    handWrittenChecks(c.object, c.oldObject);
    JSON.parse(JSON.stringify(c.object));
  }

  // (1) The whole pack, policies only.
  const tally = newTally();
  const perShootPolicies: number[] = [];
  let start = process.hrtime.bigint();
  for (const c of corpus) {
    const t0 = process.hrtime.bigint();
    const results = evaluatePolicies(policies, input(c));
    perShootPolicies.push(Number(process.hrtime.bigint() - t0));
    tallyResults(tally, results);
  }
  const policiesTotal = Number(process.hrtime.bigint() - start);

  // (2) Schema check + the whole pack, as validation of one rendered Shoot does.
  const perShootBoth: number[] = [];
  let schemaProblems = 0;
  let shootsWithSchemaProblems = 0;
  let firstSchemaProblem: unknown;
  start = process.hrtime.bigint();
  for (const c of corpus) {
    const t0 = process.hrtime.bigint();
    const problems = validateShootSchema(c.object);
    evaluatePolicies(policies, input(c));
    perShootBoth.push(Number(process.hrtime.bigint() - t0));
    if (problems.length > 0) {
      schemaProblems += problems.length;
      shootsWithSchemaProblems++;
      firstSchemaProblem ??= problems[0];
    }
  }
  const bothTotal = Number(process.hrtime.bigint() - start);

  // (3) The schema check alone, to split (2).
  start = process.hrtime.bigint();
  for (const c of corpus) validateShootSchema(c.object);
  const schemaTotal = Number(process.hrtime.bigint() - start);

  // (4) The folder check of each Shoot as an UPDATE: its file and main's parsed, schema, pack, credentials.
  // The texts are written per Shoot outside the measured time (kept, they would double the peak RSS).
  let folderTotal = 0;
  let folderDenied = 0;
  const context = { policies, params, landscape: chosen };
  for (const c of corpus) {
    const folder = `shoots/${(c.object.metadata as { name: string }).name}/`;
    const change = {
      folder,
      files: new Map([[`${folder}shoot.yaml`, toCanonicalYaml(c.object)]]),
      base: new Map([[`${folder}shoot.yaml`, toCanonicalYaml(c.oldObject)]]),
    };
    const t0 = process.hrtime.bigint();
    const checked = checkShootFolder(context, change);
    folderTotal += Number(process.hrtime.bigint() - t0);
    if (checked.checks.some((check) => !check.passed)) folderDenied++;
  }

  // Baselines: a JSON round trip of each Shoot; hand-written checks equal to three of the policies.
  start = process.hrtime.bigint();
  let bytes = 0;
  for (const c of corpus) bytes += Object.keys(JSON.parse(JSON.stringify(c.object)) as Json).length;
  const jsonTotal = Number(process.hrtime.bigint() - start);
  start = process.hrtime.bigint();
  let handPassed = 0;
  for (const c of corpus) if (handWrittenChecks(c.object, c.oldObject)) handPassed++;
  const handTotal = Number(process.hrtime.bigint() - start);

  perShootPolicies.sort((a, b) => a - b);
  perShootBoth.sort((a, b) => a - b);
  const n = corpus.length;
  const rate = n / (policiesTotal / 1e9);
  const evaluations = n * policies.length;
  const applicable = evaluations - tally.byStatus['not-applicable'];
  const peakRssMiB = process.resourceUsage().maxRSS / 1024;
  const landscapeChoice = CANDIDATE_LANDSCAPES.map((l) => `${l} ${applicableIn.get(l)}`).join(', ');

  console.log(
    `\nvalidate: ${n} Shoots from synthetic Runtimes, landscape ${chosen}, ${policies.length} policies (policies/default), UPDATE against the live Shoot with one worker maximum changed`,
  );
  console.log(
    `  one core (a plain loop); params: landscape facts + zones (KEB) + ${facts.length} Runtimes (${Object.keys(params).length} keys)`,
  );
  console.log(`  landscape chosen by applicable evaluations on the first ${SAMPLE} Shoots: ${landscapeChoice}`);
  console.log(
    `  whole pack (policies only)  ${perSecond(n, policiesTotal)} Shoots/s   ${(policiesTotal / 1e6).toFixed(0)} ms   p50 ${micros(percentile(perShootPolicies, 50))}   p99 ${micros(percentile(perShootPolicies, 99))}`,
  );
  console.log(
    `  schema + policies           ${perSecond(n, bothTotal)} Shoots/s   ${(bothTotal / 1e6).toFixed(0)} ms   p50 ${micros(percentile(perShootBoth, 50))}   p99 ${micros(percentile(perShootBoth, 99))}`,
  );
  console.log(
    `  schema check alone          ${perSecond(n, schemaTotal)} Shoots/s   ${(schemaTotal / 1e6).toFixed(0)} ms`,
  );
  console.log(
    `  folder check (files)        ${perSecond(n, folderTotal)} Shoots/s   ${(folderTotal / 1e6).toFixed(0)} ms   (both files parsed, schema, pack, credentials; ${folderDenied} denied)`,
  );
  console.log(
    `  baseline JSON round trip    ${perSecond(n, jsonTotal)} Shoots/s   ${(jsonTotal / 1e6).toFixed(0)} ms   (JSON.parse(JSON.stringify(shoot)), ${bytes > 0 ? 'checked' : 'empty'})`,
  );
  console.log(
    `  baseline hand-written TS    ${perSecond(n, handTotal)} Shoots/s   ${(handTotal / 1e6).toFixed(1)} ms   (ssh-access-disabled, worker-scaling-bounds, immutable region/provider; ${handPassed}/${n} pass)`,
  );
  console.log(`  pack vs JSON round trip     ${(policiesTotal / jsonTotal).toFixed(1)}× the time`);
  console.log(
    `  evaluations                 ${evaluations}: ${applicable} applicable (${tally.byStatus.passed} passed, ${tally.byStatus.failed} failed, ${tally.byStatus.error} error), ${tally.byStatus['not-applicable']} not applicable`,
  );
  for (const policy of policies) {
    const failed = tally.failedByPolicy.get(policy.name) ?? 0;
    const errored = tally.erroredByPolicy.get(policy.name);
    if (failed > 0 || errored)
      console.log(
        `    ${policy.name.padEnd(34)} ${failed} failed${errored ? `, ${errored.count} error: ${errored.first}` : ''}`,
      );
  }
  if (tally.byStatus.failed === 0 && tally.byStatus.error === 0)
    console.log('    no policy failed or errored on the corpus');
  console.log(
    `  schema problems             ${schemaProblems} in ${shootsWithSchemaProblems} Shoots${firstSchemaProblem ? ` (first: ${JSON.stringify(firstSchemaProblem)})` : ''}`,
  );
  console.log(`  peak RSS                    ${peakRssMiB.toFixed(0)} MiB`);
  console.log(
    `  target                      ≥ ${TARGET_PER_SECOND} Shoots/s (whole pack, one core): ${rate >= TARGET_PER_SECOND ? 'met' : 'MISSED'}`,
  );
  if (tally.byStatus.error > 0) {
    console.error(
      `  ${tally.byStatus.error} policy evaluations errored; the benchmark would measure failures, not validation`,
    );
    process.exitCode = 1;
  }
}
