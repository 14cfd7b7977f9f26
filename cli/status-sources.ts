// Where `kimops status` reads a landscape from, and the reading: the KCP's Runtimes and the kubeconfig Secrets' last
// sync (metadata only), the Garden's Shoots, the landscape repo's main (as the generator reads it) and the forge's
// pull requests, each compacted to what status/status-input.ts holds, then built into a LandscapeStatus. Each source
// is optional (its flag absent: skipped) and read on its own: one that fails is said in the status, the rest are
// still read. The clients, the repo and the memos (merge times, drift, PRs seen) live across reads, so a watching
// status page reads again without starting over. Reads only: GET and LIST, nothing is written anywhere.
import type { Forge, PullRequest } from '../adapters/forge/forge.js';
import { readLandscape } from '../adapters/files/landscape.js';
import type { LandscapeRepo } from '../adapters/git/landscape-repo.js';
import { redacted } from '../adapters/git/remote.js';
import { kcpRuntimeSource } from '../adapters/kube/kcp-runtimes.js';
import { KubeClient } from '../adapters/kube/kube-client.js';
import { clusterFromEnvironment } from '../adapters/kube/kubeconfig-source.js';
import { listShoots } from '../applier/sync-commit.js';
import { branchSync, type LandscapeRemote } from '../generator/branch-sync.js';
import { readMainSnapshot, type MainSnapshot } from '../generator/main-snapshot.js';
import {
  ANNOTATION_LAST_SYNC,
  APPLIED_COMMIT_ANNOTATION,
  APPLIED_TREE_ANNOTATION,
  FIELD_MANAGER,
  gardenNamespaceOf,
  KUBECONFIG_SECRET_PREFIX,
  LABEL_MANAGED_BY,
  LABEL_RUNTIME_ID,
  MAIN_BRANCH,
  MANAGED_BY_KIM,
  PIPELINE_ANNOTATION,
} from '../model/contract.js';
import { ConfigError, TransportError } from '../model/errors.js';
import { mapInParallel } from '../model/in-parallel.js';
import type { KubeObject } from '../model/kube-object.js';
import type { Landscape } from '../model/landscape.js';
import type { LogLine } from '../model/log.js';
import { readPipelineAnnotation } from '../model/pipeline-facts.js';
import type { LiveRuntime, Runtime } from '../model/runtime.js';
import { readRuntimeStatus } from '../model/runtime-status.js';
import type { Shoot } from '../model/shoot.js';
import { differingFields } from '../rules/field-differences.js';
import { LEADER_LABEL } from '../rules/leader.js';
import { buildStatus } from '../status/build-status.js';
import type { LandscapeStatus, SourceState } from '../status/landscape-status.js';
import { pullRequestNumberOf } from '../status/pull-requests.js';
import type {
  ManagedFieldsEntry,
  StatusInput,
  StatusMain,
  StatusRuntime,
  StatusShoot,
} from '../status/status-input.js';
import { landscapeOnMain, openLandscapeTarget, type ForgeKind } from './landscape-target.js';
import { kubeconfigExpirationSecondsOf } from './options.js';
import { gardenCluster } from './service-options.js';

export interface StatusSourceOptions {
  /** Absent: the landscape.yaml on the repo's main. */
  landscape?: string;
  repo?: string;
  cacheDir?: string;
  forge?: ForgeKind;
  githubApiUrl?: string;
  githubRepo?: string;
  kcpKubeconfig?: string;
  context?: string;
  kcpNamespace: string;
  gardenKubeconfig?: string;
  gardenContext?: string;
  /** false (--no-kubeconfigs): the kubeconfig Secrets are not read, so the KCP identity needs no right on Secrets. */
  kubeconfigs: boolean;
  kubeconfigExpiration: string;
}

export interface StatusSources {
  readonly landscape: Landscape;
  /** One reading of every source, built into the landscape's status at `now`. */
  read(now: Date): Promise<LandscapeStatus>;
  close(): void;
}

/** Folders and merge commits read at once: reading is waiting on the disk (compare reads as many). */
const READ_LANES = 8;
/** The drifted fields a row names: a few, for the eye (`kimops compare` lists them all). */
const DRIFT_FIELDS_SHOWN = 10;
const LIST_PAGE = 500;
/** Merged PRs this reader never saw open, asked for per read (newest first) for their opening times. */
const MERGED_LOOKUPS = 100;
const NO_KCP = 'no KCP named: pass --kcp-kubeconfig, set KUBECONFIG, or run kimops in a Pod with a ServiceAccount';
const SECRET = { apiVersion: 'v1', kind: 'Secret' } as const;

/** What one source gave, or why it could not. */
type Read<T> = { state: 'read'; value: T } | { state: 'skipped' | 'failed'; message: string };

interface RepoTarget {
  repo: LandscapeRepo;
  remote?: LandscapeRemote;
  forge: Forge;
}

/**
 * The sources the options name, opened; the landscape chosen (--landscape, else the repo's landscape.yaml on main).
 * A flag that cannot work (a kubeconfig file that is not one, a --forge that does not fit --repo) is a ConfigError
 * here; what cannot be reached is said by each read.
 */
export async function openStatusSources(options: StatusSourceOptions, log: LogLine): Promise<StatusSources> {
  const expirationSeconds = kubeconfigExpirationSecondsOf(options.kubeconfigExpiration);
  const target: RepoTarget | undefined =
    options.repo === undefined
      ? undefined
      : await openLandscapeTarget({ ...options, repo: options.repo }, (line) => log(line, {}, 'warn'));
  const { landscape, fetched } = await landscapeOf(options, target, log);
  // As kubectl finds a cluster (the flag, KUBECONFIG, the Pod's ServiceAccount), so the deployed service reads the
  // KCP it runs on; left out only when nothing names one.
  const kcp =
    options.kcpKubeconfig === undefined && !clusterFromEnvironment()
      ? undefined
      : KubeClient.forCluster({
          kubeconfig: options.kcpKubeconfig,
          context: options.context,
          option: '--kcp-kubeconfig',
        });
  const garden =
    options.gardenKubeconfig === undefined
      ? undefined
      : KubeClient.forCluster(gardenCluster({ ...options, gardenKubeconfig: options.gardenKubeconfig }));
  const reader = new SourceReader(options, landscape, expirationSeconds, log, { target, kcp, garden, fetched });
  return {
    landscape,
    read: (now) => reader.read(now),
    close: () => {
      kcp?.close();
      garden?.close();
    },
  };
}

/**
 * --landscape, else the repo's own; --landscape alone when the repo cannot be fetched (said by the repo's read).
 * `fetched`: main was fetched on the way.
 */
async function landscapeOf(
  options: StatusSourceOptions,
  target: RepoTarget | undefined,
  log: LogLine,
): Promise<{ landscape: Landscape; fetched: boolean }> {
  if (target === undefined) {
    if (options.landscape !== undefined) return { landscape: await readLandscape(options.landscape), fetched: false };
    throw new ConfigError(
      '--landscape',
      '',
      'is needed without --repo: pass --landscape <name|dir>, or --repo with the landscape repo that holds it',
    );
  }
  try {
    const note = (line: string) => log(line, {}, 'warn');
    return { landscape: await landscapeOnMain(options.landscape, target, options.repo ?? '', note), fetched: true };
  } catch (error) {
    if (options.landscape === undefined || !(error instanceof TransportError)) throw error;
    return { landscape: await readLandscape(options.landscape), fetched: false };
  }
}

class SourceReader {
  /** Merge commit → committer time; commits never change. */
  private readonly mergeTimes = new Map<string, string>();
  /** `<tree> <resourceVersion>` → the drifted fields: a Shoot and main's folder, both unchanged, drift alike. */
  private drift = new Map<string, readonly string[]>();
  /** The keys whose drift could not be told, so each is warned about once. */
  private driftNotTold = new Set<string>();
  /**
   * PRs a proposal names that are no longer open (merged, closed), as asked for once: when they were opened does not
   * change. Undefined: the forge has no such PR, or it was open still (the generator's word is older than the forge's).
   */
  private readonly endedPullRequests = new Map<number, PullRequest | undefined>();
  /** PRs this reader saw open: when one ends, it is asked for once, to learn whether it merged. */
  private readonly seenOpen = new Map<number, PullRequest>();
  /** main was fetched for its landscape.yaml as the sources opened: the first read need not fetch it again. */
  private fetched: boolean;
  private readonly target: RepoTarget | undefined;
  private readonly kcp: KubeClient | undefined;
  private readonly garden: KubeClient | undefined;

  constructor(
    private readonly options: StatusSourceOptions,
    private readonly landscape: Landscape,
    private readonly expirationSeconds: number,
    private readonly log: LogLine,
    opened: { target?: RepoTarget; kcp?: KubeClient; garden?: KubeClient; fetched: boolean },
  ) {
    this.target = opened.target;
    this.kcp = opened.kcp;
    this.garden = opened.garden;
    this.fetched = opened.fetched;
  }

  async read(now: Date): Promise<LandscapeStatus> {
    const [main, runtimes, kubeconfigs] = await Promise.all([this.readMain(), this.readRuntimes(), this.readSecrets()]);
    const snapshot = main.state === 'read' ? main.value : undefined;
    const fieldManager = snapshot?.config.apply.fieldManager ?? FIELD_MANAGER;
    const runtimeList = runtimes.state === 'read' ? runtimes.value : undefined;
    const [shoots, pullRequests, mergedAt] = await Promise.all([
      this.readShoots(fieldManager, snapshot),
      this.readPullRequests(runtimeList ?? []),
      this.readMergeTimes(runtimeList ?? []),
    ]);
    const sources: SourceState[] = [
      sourceState('kcp', runtimes),
      sourceState('garden', shoots),
      sourceState('repo', main),
      sourceState('forge', pullRequests),
      sourceState('kubeconfigs', kubeconfigs),
    ];
    const input: StatusInput = {
      landscape: this.landscape.name,
      ...(this.landscape.defaultLeader && { defaultLeader: this.landscape.defaultLeader }),
      sources,
      ...(runtimeList && { runtimes: runtimeList }),
      ...(shoots.state === 'read' && { shoots: shoots.value }),
      ...(snapshot && { main: await mainOf(snapshot, this.target?.repo) }),
      mergedAt,
      ...(pullRequests.state === 'read' && { pullRequests: pullRequests.value }),
      ...(kubeconfigs.state === 'read' && { kubeconfigSyncs: kubeconfigs.value }),
      kubeconfigExpirationSeconds: this.expirationSeconds,
      fieldManager,
    };
    return buildStatus(input, now);
  }

  private async readMain(): Promise<Read<MainSnapshot & { commit: string }>> {
    const target = this.target;
    if (!target) return { state: 'skipped', message: 'no --repo given' };
    return attempt(`landscape repo ${redacted(this.options.repo ?? '')}`, async () => {
      const sync = branchSync(target.repo, target.remote);
      if (!this.fetched) await sync.refresh();
      this.fetched = false;
      const commit = await target.repo.resolve(sync.baseRef);
      if (commit === undefined)
        throw new ConfigError('--repo', '', `has no ${MAIN_BRANCH} branch; create the landscape repo with kimops init`);
      return { ...(await readMainSnapshot(target.repo, commit, this.landscape.name)), commit };
    });
  }

  private async readRuntimes(): Promise<Read<StatusRuntime[]>> {
    const kcp = this.kcp;
    if (!kcp) return { state: 'skipped', message: `${NO_KCP}: the rows are the Shoots` };
    const namespace = this.options.kcpNamespace;
    return attempt(`Runtimes in ${namespace} of the KCP`, async () => {
      const source = kcpRuntimeSource(kcp, { namespace, watch: false, log: (line) => this.log(line, {}, 'warn') });
      return (await source.read()).inputs.map(({ runtime }) => compactRuntime(runtime, namespace));
    });
  }

  /** The kubeconfig Secrets' last sync by Runtime ID: each Secret cut to that as its page arrives, its data never kept. */
  private async readSecrets(): Promise<Read<Map<string, string>>> {
    const kcp = this.kcp;
    if (!kcp) return { state: 'skipped', message: NO_KCP };
    if (!this.options.kubeconfigs) return { state: 'skipped', message: '--no-kubeconfigs given' };
    const namespace = this.options.kcpNamespace;
    return attempt(`kubeconfig Secrets in ${namespace} of the KCP`, async () => {
      const listed = await kcp.listAll<KubeObject>(
        { ...SECRET, namespace },
        // Asked for metadata only, so no kubeconfig crosses the wire; cut again in case a server sends whole Secrets.
        {
          labelSelector: `${LABEL_MANAGED_BY}=${MANAGED_BY_KIM}`,
          limit: LIST_PAGE,
          metadataOnly: true,
          map: secretMetadata,
        },
      );
      if (!listed.ok) throw new Error(listed.message);
      const syncs = new Map<string, string>();
      for (const secret of listed.items) {
        const lastSync = secret.metadata.annotations?.[ANNOTATION_LAST_SYNC];
        if (secret.metadata.name.startsWith(KUBECONFIG_SECRET_PREFIX) && lastSync !== undefined)
          syncs.set(secret.metadata.name.slice(KUBECONFIG_SECRET_PREFIX.length), lastSync);
      }
      return syncs;
    });
  }

  private async readShoots(fieldManager: string, main: MainSnapshot | undefined): Promise<Read<StatusShoot[]>> {
    const garden = this.garden;
    if (!garden) return { state: 'skipped', message: 'no --garden-kubeconfig given' };
    const namespace = gardenNamespaceOf(this.landscape.gardener.project);
    return attempt(`Shoots in ${namespace} of the Garden`, async () => {
      const live = await listShoots(garden, namespace, fieldManager);
      const drift = main ? await this.driftOf(live, main) : new Map<string, readonly string[]>();
      return live.map((shoot) => compactShoot(shoot, drift.get(shoot.metadata.name)));
    });
  }

  /**
   * The fields main sets that each Shoot last applied from main's folder as it is now differs in (a Shoot applied
   * from another tree waits for the applier: out of sync, not drifted). Kept by tree and resourceVersion.
   */
  private async driftOf(live: readonly Shoot[], main: MainSnapshot): Promise<Map<string, readonly string[]>> {
    const seen = new Map<string, readonly string[]>();
    const notTold = new Set<string>();
    const result = new Map<string, readonly string[]>();
    const applied = live.filter((shoot) => {
      const tree = main.folders.get(shoot.metadata.name);
      return tree !== undefined && shoot.metadata.annotations?.[APPLIED_TREE_ANNOTATION] === tree;
    });
    await mapInParallel(applied, READ_LANES, async (shoot) => {
      const name = shoot.metadata.name;
      const key = `${main.folders.get(name) ?? ''} ${shoot.metadata.resourceVersion ?? ''}`;
      let fields = this.drift.get(key);
      if (fields === undefined) {
        try {
          const inMain = await main.shoot(name);
          if (inMain === undefined) throw new Error(`shoots/${name}/shoot.yaml on main is not a Shoot kimops can read`);
          fields = differingFields(inMain, shoot)
            .map((difference) => difference.path)
            .slice(0, DRIFT_FIELDS_SHOWN);
        } catch (error) {
          // Not told: the row's sync is unknown, never in-sync by default; said once per folder tree and Shoot.
          if (!this.driftNotTold.has(key))
            this.log(`Shoot ${name}: drift not told: ${(error as Error).message}`, { shoot: name }, 'warn');
          notTold.add(key);
          return;
        }
      }
      seen.set(key, fields);
      result.set(name, fields);
    });
    this.drift = seen;
    this.driftNotTold = notTold;
    return result;
  }

  /** The open PRs, and the PRs the Runtimes' proposals name that are not open (once each: when opened is kept). */
  /**
   * The open PRs (one LIST), and the PRs Runtimes' proposals name that are open no more: each asked for once (when
   * it was opened, whether it merged), then kept while a Runtime names it. Those the generator still calls open
   * (merged or closed since its last pass) and those this reader saw open first; of the rest, merged before this
   * reader started, the newest MERGED_LOOKUPS per read: at 10,000 Runtimes asking for every one would be 10,000
   * calls (GitHub allows 5,000 an hour) for opening times only. A lookup that fails leaves that row without them.
   */
  private async readPullRequests(runtimes: readonly StatusRuntime[]): Promise<Read<PullRequest[]>> {
    const forge = this.target?.forge;
    if (!forge) return { state: 'skipped', message: 'no --repo given' };
    return attempt(`pull requests on ${forge.label}`, async () => {
      const open = await forge.listOpenPullRequests();
      if (!open.ok) throw new Error(open.failure.message);
      const openNumbers = new Set(open.value.map((pr) => pr.number));
      const named = new Map<number, boolean>();
      for (const runtime of runtimes) {
        const proposal = readPipelineAnnotation(runtime.annotations).proposal;
        const number = proposal && pullRequestNumberOf(proposal.url);
        if (number !== undefined && !openNumbers.has(number)) named.set(number, proposal?.state === 'merged');
      }
      const unknown = [...named].filter(([number]) => !this.endedPullRequests.has(number));
      const ending = unknown.filter(([number, merged]) => !merged || this.seenOpen.has(number));
      const mergedBefore = unknown
        .filter(([number, merged]) => merged && !this.seenOpen.has(number))
        .sort(([a], [b]) => b - a)
        .slice(0, MERGED_LOOKUPS);
      await mapInParallel([...ending, ...mergedBefore], READ_LANES, async ([number]) => {
        const pr = await forge.getPullRequest(number);
        if (pr.ok) this.endedPullRequests.set(number, pr.value.state === 'closed' ? endedOf(pr.value) : undefined);
        else if (pr.failure.kind === 'not-found') this.endedPullRequests.set(number, undefined);
        else
          this.log(`pull request #${number}: not read (${pr.failure.message}); asked for again next read`, {}, 'warn');
      });
      // Kept while a Runtime names them or they are open: the memo does not grow with the landscape's history.
      for (const memo of [this.seenOpen, this.endedPullRequests])
        for (const number of memo.keys()) if (!named.has(number) && !openNumbers.has(number)) memo.delete(number);
      for (const pr of open.value) this.seenOpen.set(pr.number, endedOf(pr));
      return [...open.value, ...[...named.keys()].flatMap((number) => this.endedPullRequests.get(number) ?? [])];
    });
  }

  /** The committer time of each merge commit a Runtime's merged proposal names, read from the repo once. */
  private async readMergeTimes(runtimes: readonly StatusRuntime[]): Promise<Map<string, string>> {
    const repo = this.target?.repo;
    const commits = new Set<string>();
    for (const runtime of runtimes) {
      const proposal = readPipelineAnnotation(runtime.annotations).proposal;
      if (proposal?.state === 'merged' && proposal.commit !== undefined) commits.add(proposal.commit);
    }
    if (repo)
      await mapInParallel(
        [...commits].filter((commit) => !this.mergeTimes.has(commit)),
        READ_LANES,
        async (commit) => {
          try {
            const at = await repo.committedAt(commit);
            if (at !== undefined) this.mergeTimes.set(commit, at);
          } catch (error) {
            this.log(`merge commit ${commit.slice(0, 12)}: not read: ${(error as Error).message}`, {}, 'warn');
          }
        },
      );
    return new Map(
      [...commits].flatMap((commit) => {
        const at = this.mergeTimes.get(commit);
        return at === undefined ? [] : [[commit, at] as const];
      }),
    );
  }
}

async function mainOf(
  snapshot: MainSnapshot & { commit: string },
  repo: LandscapeRepo | undefined,
): Promise<StatusMain> {
  const committedAt = await repo?.committedAt(snapshot.commit);
  return { commit: snapshot.commit, ...(committedAt !== undefined && { committedAt }), folders: snapshot.folders };
}

/**
 * A source's read, its failure turned into the message that names it and (from the error: the clients' messages
 * name the server, the credentials and the fix) what to do. Any failure: a status shows what the other sources gave.
 */
async function attempt<T>(what: string, read: () => Promise<T>): Promise<Read<T>> {
  try {
    return { state: 'read', value: await read() };
  } catch (error) {
    return { state: 'failed', message: `${what}: ${error instanceof Error ? error.message : String(error)}` };
  }
}

function sourceState(name: SourceState['name'], read: Read<unknown>): SourceState {
  return read.state === 'read' ? { name, state: 'read' } : { name, state: read.state, message: read.message };
}

/** A listed Secret as the status keeps it: its name and last-sync annotation, nothing of its data. */
function secretMetadata(item: KubeObject): KubeObject {
  const lastSync = item.metadata.annotations?.[ANNOTATION_LAST_SYNC];
  return {
    ...SECRET,
    metadata: {
      name: item.metadata.name,
      ...(lastSync !== undefined && { annotations: { [ANNOTATION_LAST_SYNC]: lastSync } }),
    },
  };
}

function compactRuntime(runtime: Runtime, namespace: string): StatusRuntime {
  const metadata = runtime.metadata as Runtime['metadata'] & KubeObject['metadata'];
  const shootName = (runtime as LiveRuntime).spec?.shoot?.name;
  const pipeline = metadata.annotations?.[PIPELINE_ANNOTATION];
  const labels = pick(metadata.labels, [LABEL_RUNTIME_ID, LEADER_LABEL]);
  const managedFields = managedFieldsOf(metadata.managedFields);
  return {
    namespace: metadata.namespace ?? namespace,
    name: metadata.name,
    ...(labels && { labels }),
    ...(pipeline !== undefined && { annotations: { [PIPELINE_ANNOTATION]: pipeline } }),
    ...(typeof metadata.generation === 'number' && { generation: metadata.generation }),
    ...(typeof metadata.creationTimestamp === 'string' && { creationTimestamp: metadata.creationTimestamp }),
    ...(typeof metadata.deletionTimestamp === 'string' && { deletionTimestamp: metadata.deletionTimestamp }),
    ...(managedFields && { managedFields }),
    // A Runtime as the API serves it may lack what the CRD's type promises: no name, no Shoot.
    ...(shootName && { shootName }),
    status: readRuntimeStatus((runtime as LiveRuntime).status),
  };
}

function compactShoot(shoot: Shoot, drift: readonly string[] | undefined): StatusShoot {
  const metadata = shoot.metadata as Shoot['metadata'] & KubeObject['metadata'];
  const annotations = pick(metadata.annotations, [APPLIED_TREE_ANNOTATION, APPLIED_COMMIT_ANNOTATION]);
  const managedFields = managedFieldsOf(metadata.managedFields);
  const lastOperation = shoot.status?.lastOperation;
  return {
    name: metadata.name,
    ...(annotations && { annotations }),
    ...(typeof metadata.generation === 'number' && { generation: metadata.generation }),
    ...(typeof metadata.deletionTimestamp === 'string' && { deletionTimestamp: metadata.deletionTimestamp }),
    ...(managedFields && { managedFields }),
    ...(lastOperation && { lastOperation }),
    ...(drift && { drift }),
  };
}

function managedFieldsOf(value: unknown): ManagedFieldsEntry[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const text = (entry: Record<string, unknown>, key: string) =>
    typeof entry[key] === 'string' ? { [key]: entry[key] } : {};
  return value
    .filter((entry): entry is Record<string, unknown> => typeof entry === 'object' && entry !== null)
    .map((entry) => ({
      ...text(entry, 'manager'),
      ...text(entry, 'operation'),
      ...text(entry, 'time'),
      ...text(entry, 'subresource'),
    }));
}

function pick(
  record: Readonly<Record<string, string>> | undefined,
  keys: readonly string[],
): Record<string, string> | undefined {
  const picked = Object.fromEntries(keys.flatMap((key) => (record?.[key] === undefined ? [] : [[key, record[key]]])));
  return Object.keys(picked).length > 0 ? picked : undefined;
}

/** What the status keeps of a PR: not its body (the PR report, up to 64 KiB each). */
function endedOf(pr: PullRequest): PullRequest {
  return { ...pr, body: '' };
}
