// The live side of `npm run bench -- apply`: a project's Shoots and companions written by the applier itself,
// only faster. `syncCommit` (applier/sync-commit.ts) — what `kimops apply --once` runs: main read back,
// one LIST, planSync (ownership label, applied-commit annotation), executePlan (companions first, server-side
// apply as field manager kimops with force) — in this process, with the landscape's kimops.yaml except for
// the pace: QPS and burst far above KIM's 5/5 and several Shoots at once. So the live objects carry the
// managedFields of kimops's own apply of the very manifests the measured sync compares against, and the first
// sync after seeding is an honest no-op only if the applier's plan is (nothing else writes in between).
// On a project that already holds Shoots, the same call writes only what differs.
import type { KubeClient } from '../../adapters/kube/kube-client.js';
import type { KubeObject } from '../../model/kube-object.js';
import type { LandscapeRepo } from '../../adapters/git/landscape-repo.js';
import { OWNERSHIP_LABEL, OWNERSHIP_VALUE } from '../../model/contract.js';
import { syncCommit, type GardenApi } from '../../applier/sync-commit.js';
import { EU_ACCESS_PLATFORM_REGIONS } from '../../generator/convert/extenders/placement.js';
import { KIMOPS_YAML, parseKimopsConfig } from '../../model/kimops-config.js';
import type { Runtime } from '../../model/runtime.js';
import { SHOOT_API_VERSION } from '../../model/shoot.js';
import { deleteShoot } from '../../test/helpers/shoots.js';
import { msSince } from './generate-common.js';

const EU_ACCESS_ONLY = 'eu-access-only';
/** kimops.yaml allows at most these; the plane, not the client, is then the limit. */
const UNPACED = { qps: 1_000, burst: 1_000 };
/** KubeClient's methods that send a write. */
const WRITES = new Set(['apply', 'create', 'patch', 'replace', 'delete']);
const PROGRESS_EVERY = Number(process.env.KIMOPS_BENCH_SEED_PROGRESS ?? 1_000);

/** What the Garden's CloudProfiles offer, by provider type and region: what Gardener admits a Shoot against. */
export type GardenRegions = Record<string, Record<string, { zones: string[]; euAccess: boolean }>>;

interface CloudProfile extends KubeObject {
  spec?: {
    type?: string;
    regions?: { name: string; zones?: { name: string }[]; accessRestrictions?: { name: string }[] }[];
  };
}

export async function gardenRegions(garden: KubeClient): Promise<GardenRegions> {
  const profiles = await garden.listAll<CloudProfile>({
    apiVersion: 'core.gardener.cloud/v1beta1',
    kind: 'CloudProfile',
  });
  if (!profiles.ok) throw new Error(profiles.message);
  const catalogue: GardenRegions = {};
  for (const profile of profiles.items) {
    const type = profile.spec?.type;
    if (!type) continue;
    for (const region of profile.spec?.regions ?? []) {
      const known = (catalogue[type] ??= {})[region.name];
      catalogue[type][region.name] = {
        zones: [...new Set([...(known?.zones ?? []), ...(region.zones ?? []).map((z) => z.name)])],
        euAccess:
          (known?.euAccess ?? false) || (region.accessRestrictions ?? []).some((r) => r.name === EU_ACCESS_ONLY),
      };
    }
  }
  return catalogue;
}

/**
 * The synthetic Runtimes (synthetic-runtimes.ts) are made for converting, not for admission, and 13% of
 * them Gardener refuses: zones a/b/c of every region (eu-west-1 has a and b), an EU-access platform region
 * (cf-eu11) with any region of its provider (KEB offers it only EU regions, and Gardener refuses
 * `eu-access-only` where the CloudProfile's region lacks it), and a worker maximum below its zone count.
 * Changed in place, deterministically: an EU-access Runtime gets one of its provider's EU-access regions, each
 * worker as many of the region's real zones as it had (at most all), and a maximum of at least that many.
 */
export function admissible(runtimes: readonly Runtime[], regions: GardenRegions): void {
  runtimes.forEach((runtime, i) => {
    const { shoot } = runtime.spec;
    const offered = regions[shoot.provider.type] ?? {};
    if (EU_ACCESS_PLATFORM_REGIONS.includes(shoot.platformRegion) && !offered[shoot.region]?.euAccess) {
      const eu = Object.keys(offered)
        .filter((name) => offered[name]?.euAccess)
        .sort();
      if (eu.length > 0) {
        shoot.region = eu[i % eu.length] as string;
        runtime.metadata.labels = { ...runtime.metadata.labels, 'kyma-project.io/region': shoot.region };
      }
    }
    const zones = offered[shoot.region]?.zones ?? [];
    for (const worker of [...shoot.provider.workers, ...(shoot.provider.additionalWorkers ?? [])]) {
      const count = worker.zones?.length ?? 0;
      if (count > 0 && zones.length > 0) worker.zones = zones.slice(0, count);
      worker.maximum = Math.max(worker.maximum, worker.zones?.length ?? 0);
    }
  });
}

export interface SeedFigures {
  /** Shoots created or updated (on a kept project only those that differ from main). */
  shoots: number;
  created: number;
  /** Companions among the writes. */
  companions: number;
  /** Requests sent (retries included), by the applier's writer. */
  requests: number;
  ms: number;
  /** One line per Shoot that failed: the applier's own message. */
  failed: string[];
}

export interface SeedInput {
  repo: LandscapeRepo;
  commit: string;
  garden: KubeClient;
  namespace: string;
  /** Shoots written at the same time (kimops.yaml's apply.concurrency). */
  lanes: number;
  log: (text: string) => void;
}

/** `kimops apply --once` of `commit`, in this process, unpaced: every Shoot of main made live as the applier makes it. */
export async function seedAsApplier({ repo, commit, garden, namespace, lanes, log }: SeedInput): Promise<SeedFigures> {
  const configText = await repo.readFile(commit, KIMOPS_YAML);
  if (configText === undefined) throw new Error(`the benchmark's landscape repo has no ${KIMOPS_YAML}`);
  const config = parseKimopsConfig(configText);
  let requests = 0;
  let shootWrites = 0;
  const start = process.hrtime.bigint();
  const progress = () => {
    if (++shootWrites % PROGRESS_EVERY !== 0) return;
    const seconds = msSince(start) / 1000;
    log(`seeded ${shootWrites} Shoots in ${seconds.toFixed(0)} s (${(shootWrites / seconds).toFixed(1)} Shoots/s)`);
  };
  // The KubeClient itself, its writes counted (and Shoot applies reported as progress).
  const counted = new Proxy(garden, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function' || !WRITES.has(String(property))) return value;
      return (...args: unknown[]) => {
        requests++;
        if (property === 'apply' && (args[0] as KubeObject | undefined)?.kind === 'Shoot') progress();
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  }) satisfies GardenApi;
  const report = await syncCommit({
    repo,
    commit,
    garden: counted,
    namespace,
    config: { ...config, apply: { ...config.apply, ...UNPACED, concurrency: lanes } },
    write: true,
  });
  const result = report.result;
  if (result?.unreachable) throw new Error('the Garden became unreachable while seeding');
  if (report.plan.refused) throw new Error(`seeding refused: ${report.plan.refused.message}`);
  const written = report.plan.entries.filter(
    (e) => e.action === 'create' || e.action === 'update' || e.action === 'take-over',
  );
  const blocked = report.plan.entries
    .filter((e) => e.action === 'blocked')
    .map((e) => `${e.shoot}: blocked: ${e.reasons.join('; ')}`);
  return {
    shoots: written.length,
    created: written.filter((e) => e.action === 'create').length,
    companions: written.reduce(
      (sum, entry) => sum + entry.companions.filter((c) => c.action === 'create' || c.action === 'update').length,
      0,
    ),
    requests,
    ms: msSince(start),
    failed: [...blocked, ...(result?.failed ?? []).map((f) => `${f.shoot}: ${f.lines.join('; ')}`)],
  };
}

/** On a shared plane: the bench's Shoots confirmed and deleted, its companions deleted in one request. */
export async function removeSeeded({
  garden,
  namespace,
  lanes,
  log,
}: Pick<SeedInput, 'garden' | 'namespace' | 'lanes' | 'log'>): Promise<void> {
  const selector = `${OWNERSHIP_LABEL}=${OWNERSHIP_VALUE}`;
  const shoots = await garden.listAll<KubeObject>(
    { apiVersion: SHOOT_API_VERSION, kind: 'Shoot', namespace },
    { labelSelector: selector, limit: 500 },
  );
  if (!shoots.ok) throw new Error(shoots.message);
  const names = shoots.items.map((s) => s.metadata.name as string);
  const start = process.hrtime.bigint();
  let next = 0;
  const lane = async () => {
    for (let i = next++; i < names.length; i = next++) await deleteShoot(garden, namespace, names[i] as string);
  };
  await Promise.all(Array.from({ length: Math.max(1, lanes) }, lane));
  const companions = await garden.request('DELETE', `/api/v1/namespaces/${namespace}/configmaps`, {
    query: { labelSelector: selector },
  });
  if (!companions.ok)
    throw new Error(`delete the bench's ConfigMaps in ${namespace}: ${companions.error.message ?? companions.status}`);
  log(
    `removed ${names.length} Shoots and their ConfigMaps from ${namespace} in ${(msSince(start) / 1000).toFixed(0)} s`,
  );
}
