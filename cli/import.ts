// `kimops import`, run: the Shoots of garden-<project>, the ConfigMaps beside them, the Runtimes that exist (the
// KCP's or --runtimes) and the KCP's GardenerClusters are read; each Shoot no Runtime names becomes a Runtime
// (rules/runtime-from-shoot.ts), checked against the Shoot (import-check.ts) before its file is written. With
// --skr each Shoot's cluster is read too, through Gardener's admin kubeconfig (its administrators, its OIDC).
// Reads the KCP, the Garden and the clusters (with --skr it asks the Garden for admin kubeconfigs); writes only
// files (or stdout).
import { stat } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import { listShoots } from '../applier/sync-commit.js';
import { readLandscape } from '../adapters/files/landscape.js';
import { readRuntimes } from '../adapters/files/manifests.js';
import { writeFileWhole } from '../adapters/files/write-files.js';
import { KubeClient } from '../adapters/kube/kube-client.js';
import { skrClient } from '../adapters/kube/skr-client.js';
import { COMPANION_OF_LABEL, FIELD_MANAGER, gardenNamespaceOf } from '../model/contract.js';
import { ConfigError, TransportError } from '../model/errors.js';
import type { KubeObject } from '../model/kube-object.js';
import { conversionSettingsOf, type ConversionSettings } from '../model/landscape.js';
import { printable, printableLines } from '../model/printable.js';
import { RUNTIME_API_VERSION } from '../model/runtime.js';
import { oidcExtensionEnabled, type ConfigMap, type Shoot } from '../model/shoot.js';
import { toCanonicalYaml, toYamlStream } from '../rules/canonical-yaml.js';
import {
  runtimeFromShoot,
  runtimeIdOf,
  type ImportedRuntime,
  type ImportSources,
  type UnknownField,
} from '../rules/runtime-from-shoot.js';
import {
  additionalOidcOf,
  administratorsOf,
  ADMINISTRATOR_BINDING_SELECTORS,
  OIDC_SELECTOR,
} from '../rules/runtime-from-skr.js';
import { EXIT, type CliIo } from './cli-io.js';
import { checkImport } from './import-check.js';
import { refuseExampleLandscape } from './landscape-target.js';
import { gardenCluster } from './service-options.js';

export interface ImportOptions {
  landscape: string;
  gardenKubeconfig: string;
  gardenContext?: string;
  kcpKubeconfig?: string;
  context?: string;
  kcpNamespace: string;
  runtimes?: string;
  shoot?: string[];
  out?: string;
  output?: 'yaml';
  skr?: boolean;
  force?: boolean;
  /** The landscape truly has no Runtime yet: an empty known set is not taken for a wrong source. */
  landscapeHasNoRuntimes?: boolean;
  allowExampleLandscape?: boolean;
}

/** Pages of 500, as the applier lists (sync-commit.ts): a landscape's objects are never held as one JSON. */
const LIST_PAGE = 500;

/**
 * One Shoot without a Runtime: the Runtime to write (`kept`: its file exists and was left as it is), why there is
 * none (a problem: exit 1), or why it needs none (a note: no Kyma runtime).
 */
type Outcome =
  | {
      shoot: string;
      runtime: ImportedRuntime;
      unknown: UnknownField[];
      notes: string[];
      bookkeeping: string[];
      kept?: boolean;
    }
  | { shoot: string; problem: string }
  | { shoot: string; note: string };

export async function importRuntimes(options: ImportOptions, io: CliIo): Promise<number> {
  const landscape = refuseExampleLandscape(await readLandscape(options.landscape), options.allowExampleLandscape);
  const settings = conversionSettingsOf(landscape);
  const namespace = gardenNamespaceOf(landscape.gardener.project);
  const kcp = options.kcpKubeconfig
    ? KubeClient.forCluster({ kubeconfig: options.kcpKubeconfig, context: options.context, option: '--kcp-kubeconfig' })
    : undefined;
  const garden = KubeClient.forCluster(gardenCluster(options));
  try {
    // The known Runtimes first: a --runtimes that cannot be read stops the run before the Garden is asked.
    const known = await knownRuntimes(options, kcp, io);
    if (known === undefined) return EXIT.usage;
    const shoots = await listShoots(garden, namespace, FIELD_MANAGER);
    io.stderr(`${known.count} Runtime(s) known from ${known.source}; ${shoots.length} Shoot(s) in ${namespace}\n`);
    if (known.count === 0 && shoots.length > 0 && options.landscapeHasNoRuntimes !== true) {
      io.stderr(
        `error: ${known.source} holds no Runtime, but ${namespace} has ${shoots.length} Shoot(s): each would be imported as if KEB had no Runtime for it, and kubectl apply of its file would overwrite KEB's Runtime of that name; check ${options.runtimes ? '--runtimes' : '--kcp-namespace and --kcp-kubeconfig'}, or pass --landscape-has-no-runtimes if the landscape truly has none\n`,
      );
      return EXIT.usage;
    }
    const configMaps = await listed<ConfigMap>(garden, 'Garden', { apiVersion: 'v1', kind: 'ConfigMap', namespace });
    const clusters = kcp
      ? await listed(kcp, 'KCP', {
          apiVersion: RUNTIME_API_VERSION,
          kind: 'GardenerCluster',
          namespace: options.kcpNamespace,
        })
      : [];
    const clusterLabels = new Map(clusters.map((c) => [c.metadata.name, c.metadata.labels ?? {}]));

    const wanted = options.shoot ? new Set(options.shoot) : undefined;
    const missing = [...(wanted ?? [])].filter((name) => !shoots.some((s) => s.metadata.name === name));
    for (const name of missing) io.stderr(`shoot ${namespace}/${printable(name)}: not found\n`);
    const candidates = shoots
      .filter((shoot) => !wanted || wanted.has(shoot.metadata.name))
      .filter((shoot) => {
        const hasRuntime = known.shoots.has(shoot.metadata.name) || known.ids.has(runtimeIdOf(shoot) ?? '');
        const ref = `shoot ${namespace}/${printable(shoot.metadata.name)}`;
        if (hasRuntime && wanted) io.stderr(`note: ${ref} has a Runtime\n`);
        // Its Runtime is gone because KEB deprovisions it: a new one would only hold the deletion up.
        if (!hasRuntime && shoot.metadata.deletionTimestamp) io.stderr(`note: ${ref} is being deleted; not imported\n`);
        return !hasRuntime && !shoot.metadata.deletionTimestamp;
      })
      .sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1));
    const companions = companionsOf(configMaps);
    const outcomes: Outcome[] = [];
    for (const shoot of candidates) {
      if (runtimeIdOf(shoot) === undefined) {
        outcomes.push({ shoot: shoot.metadata.name, note: 'names no Runtime ID: no Kyma runtime, not imported' });
        continue;
      }
      // One Shoot kimops cannot read (or a bug it meets) is that Shoot's problem: the others are still imported.
      try {
        const skr = options.skr ? await readSkr(garden, shoot) : undefined;
        const sources = {
          companions: companions(shoot),
          clusterLabels,
          settings,
          kcpNamespace: options.kcpNamespace,
          skr,
        };
        outcomes.push(importOne(shoot, sources));
      } catch (error) {
        outcomes.push({ shoot: shoot.metadata.name, problem: `kimops could not import it: ${errorText(error)}` });
      }
    }
    const checked = withUniqueIds(outcomes);
    const done = options.out ? await writeEach(checked, options.out, namespace, options.force === true) : checked;
    if (!options.out) io.stdout(toYamlStream(done.flatMap((o) => ('runtime' in o ? [o.runtime] : []))));
    report(done, namespace, options, io);
    return done.some((o) => 'problem' in o) || missing.length > 0 ? EXIT.conversionFailed : EXIT.ok;
  } finally {
    garden.close();
    kcp?.close();
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Each Runtime's file written whole (a temporary renamed into place), an existing one only with `force`: it may
 * hold what someone filled in. A file that cannot be written makes its Shoot's outcome a problem; the others go on.
 */
async function writeEach(
  outcomes: readonly Outcome[],
  out: string,
  namespace: string,
  force: boolean,
): Promise<Outcome[]> {
  const done: Outcome[] = [];
  for (const outcome of outcomes) {
    if (!('runtime' in outcome)) {
      done.push(outcome);
      continue;
    }
    const path = join(out, `${outcome.runtime.metadata.name}.yaml`);
    // The name is checked to be a Kubernetes object name (runtime-from-shoot.ts); this is the last guard.
    if (!resolve(path).startsWith(resolve(out) + sep)) {
      done.push({ shoot: outcome.shoot, problem: `its Runtime's file ${printable(path)} would be outside --out` });
      continue;
    }
    try {
      if (!force && (await exists(path))) {
        done.push({ ...outcome, kept: true });
        continue;
      }
      await writeFileWhole(path, fileOf(outcome, namespace), force, '--out');
      done.push(outcome);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      done.push({ shoot: outcome.shoot, problem: error.message });
    }
  }
  return done;
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

/**
 * One line per Shoot on stderr (the unknown fields of each Runtime under it, and with -o yaml its notes, which a
 * file carries in its header), then the count.
 */
function report(outcomes: readonly Outcome[], namespace: string, options: ImportOptions, io: CliIo): void {
  const imported = outcomes.filter((o) => 'runtime' in o);
  const kept = imported.filter((o) => o.kept).length;
  const problems = outcomes.filter((o) => 'problem' in o).length;
  for (const outcome of outcomes) {
    const ref = `shoot ${namespace}/${printable(outcome.shoot)}`;
    if ('problem' in outcome) io.stderr(`${ref}: not imported: ${printableLines(outcome.problem)}\n`);
    else if ('note' in outcome) io.stderr(`note: ${ref} ${outcome.note}\n`);
    else {
      const file = `${printable(options.out ?? '')}/${printable(outcome.runtime.metadata.name)}.yaml`;
      const where = !options.out ? 'stdout' : outcome.kept ? `${file} exists and is kept; --force replaces it` : file;
      io.stderr(
        `${ref}: imported as Runtime ${options.kcpNamespace}/${printable(outcome.runtime.metadata.name)} (${where})\n`,
      );
      for (const unknown of outcome.unknown) io.stderr(`  unknown ${unknown.field}: ${unknown.fix}\n`);
      if (!options.out) for (const note of outcome.notes) io.stderr(`  note: ${printable(note)}\n`);
    }
  }
  const written = options.skr
    ? 'nothing was written to the KCP or the Garden (but the admin kubeconfig requests of --skr)'
    : 'nothing was written to the KCP or the Garden';
  io.stderr(
    `${imported.length + problems} Shoot(s) in ${namespace} without a Runtime: ${imported.length} imported${kept > 0 ? ` (${kept} kept as they were)` : ''}, ${problems} not; ${written}\n`,
  );
}

interface ShootSources {
  companions: ConfigMap[];
  clusterLabels: ReadonlyMap<string, Record<string, string>>;
  settings: ConversionSettings;
  kcpNamespace: string;
  skr: ImportSources['skr'];
}

function importOne(shoot: Shoot, { companions, clusterLabels, settings, kcpNamespace, skr }: ShootSources): Outcome {
  const name = shoot.metadata.name;
  const authName = shoot.spec.kubernetes.kubeAPIServer?.structuredAuthentication?.configMapName;
  const structuredAuth = companions.find((c) => c.metadata.name === authName);
  const id = runtimeIdOf(shoot);
  const gardenerClusterLabels = id === undefined ? undefined : clusterLabels.get(id);
  const result = runtimeFromShoot({
    shoot,
    ...(structuredAuth && { structuredAuth }),
    ...(gardenerClusterLabels && { gardenerClusterLabels }),
    settings,
    namespace: kcpNamespace,
    ...(skr && { skr }),
  });
  if (!result.ok) return { shoot: name, problem: result.reason };
  const check = checkImport(result.runtime, shoot, companions, settings);
  if (!check.ok)
    return {
      shoot: name,
      problem:
        'changes' in check
          ? `rendering its Runtime in update mode would change ${check.changes.join(', ')}${result.unknown.length > 0 ? ` (unknown: ${result.unknown.map((u) => u.field).join(', ')})` : ''}`
          : `kimops would not render its Runtime: ${check.refusal}`,
    };
  return {
    shoot: name,
    runtime: result.runtime,
    unknown: result.unknown,
    notes: result.notes,
    bookkeeping: check.bookkeeping,
  };
}

/** Two Shoots naming one Runtime ID get no file: the Runtime could only be one of them. */
function withUniqueIds(outcomes: Outcome[]): Outcome[] {
  const byId = new Map<string, string[]>();
  for (const o of outcomes)
    if ('runtime' in o) byId.set(o.runtime.metadata.name, [...(byId.get(o.runtime.metadata.name) ?? []), o.shoot]);
  return outcomes.map((o) => {
    if (!('runtime' in o)) return o;
    const others = (byId.get(o.runtime.metadata.name) ?? []).filter((s) => s !== o.shoot);
    return others.length === 0
      ? o
      : {
          shoot: o.shoot,
          problem: `its Runtime ID ${o.runtime.metadata.name} is also named by Shoot ${others.join(', ')}; fix the annotation of the one that is not this Runtime's`,
        };
  });
}

/** The file: a header saying where the Runtime came from and what to fill in, then the Runtime. No time stamp. */
function fileOf(outcome: Extract<Outcome, { runtime: ImportedRuntime }>, namespace: string): string {
  const lines = [
    `Written by kimops import from Shoot ${namespace}/${outcome.shoot}. Checked: rendered in update mode against`,
    "that Shoot, kimops's take-over writes nothing to it but kimops's ownership labels.",
    ...(outcome.bookkeeping.length > 0
      ? [`It records the new Runtime's generation on the Shoot: ${outcome.bookkeeping.join(', ')}.`]
      : []),
    ...(outcome.unknown.length > 0
      ? ['Unknown — fill in before kubectl apply:', ...outcome.unknown.map((u) => `  ${u.field}: ${u.fix}`)]
      : []),
    ...(outcome.notes.length > 0 ? ['Notes:', ...outcome.notes.map((n) => `  ${n}`)] : []),
  ];
  return `${lines.map((line) => `# ${printable(line)}`.trimEnd()).join('\n')}\n${toCanonicalYaml(outcome.runtime)}`;
}

/**
 * The ConfigMaps of each Shoot the applier's plan compares: the one its API server reads (KIM's structured
 * authentication, by the name the Shoot gives) and those labelled as its companions.
 */
function companionsOf(configMaps: readonly ConfigMap[]): (shoot: Shoot) => ConfigMap[] {
  const byName = new Map(configMaps.map((c) => [c.metadata.name, c]));
  const byOwner = new Map<string, ConfigMap[]>();
  for (const configMap of configMaps) {
    const owner = configMap.metadata.labels?.[COMPANION_OF_LABEL];
    if (owner) byOwner.set(owner, [...(byOwner.get(owner) ?? []), configMap]);
  }
  return (shoot) => {
    const auth = byName.get(shoot.spec.kubernetes.kubeAPIServer?.structuredAuthentication?.configMapName ?? '');
    const labelled = byOwner.get(shoot.metadata.name) ?? [];
    return auth && !labelled.includes(auth) ? [auth, ...labelled] : labelled;
  };
}

/**
 * The Shoot names and Runtime IDs of the Runtimes that exist, how many and where from; undefined when --runtimes
 * cannot be read.
 */
async function knownRuntimes(
  options: ImportOptions,
  kcp: KubeClient | undefined,
  io: CliIo,
): Promise<{ shoots: Set<string>; ids: Set<string>; count: number; source: string } | undefined> {
  let runtimes: KubeObject[];
  let source: string;
  if (options.runtimes) {
    const read = await readRuntimes(options.runtimes, () => io.readStdin());
    // An unread file may be the Runtime of a Shoot: importing it again would make a second one.
    for (const error of read.errors) io.stderr(`error: ${printableLines(error.message)}\n`);
    if (read.errors.length > 0) return undefined;
    runtimes = read.runtimes.map((r) => r.runtime as unknown as KubeObject);
    source = `--runtimes ${printable(options.runtimes)}`;
  } else {
    runtimes = await listed(kcp as KubeClient, 'KCP', {
      apiVersion: RUNTIME_API_VERSION,
      kind: 'Runtime',
      namespace: options.kcpNamespace,
    });
    source = `the KCP's namespace ${printable(options.kcpNamespace)}`;
  }
  const shootName = (r: KubeObject) => (r as { spec?: { shoot?: { name?: unknown } } }).spec?.shoot?.name;
  return {
    shoots: new Set(runtimes.map(shootName).filter((n): n is string => typeof n === 'string')),
    ids: new Set(runtimes.map((r) => r.metadata.name)),
    count: runtimes.length,
    source,
  };
}

async function listed<T extends KubeObject>(
  client: KubeClient,
  remote: string,
  ref: { apiVersion: string; kind: string; namespace: string },
): Promise<T[]> {
  const result = await client.listAll<T>(ref, { limit: LIST_PAGE });
  if (!result.ok) throw new TransportError(remote, `list ${ref.kind}s in ${ref.namespace}: ${result.message}`);
  // A LIST's items carry no apiVersion and kind; the render's check compares whole objects.
  return result.items.map((item) => ({ ...item, apiVersion: ref.apiVersion, kind: ref.kind }));
}

/**
 * The administrators and OIDC providers of the Shoot's cluster, through Gardener's short-lived admin kubeconfig
 * (read only; the client is closed after). A cluster that cannot be read leaves them unknown, saying why.
 */
async function readSkr(garden: KubeClient, shoot: Shoot): Promise<ImportSources['skr']> {
  const connected = await skrClient(garden, shoot.metadata.namespace ?? '', shoot.metadata.name);
  if (!connected.ok) return { unreadable: connected.message };
  const { client } = connected;
  try {
    const bindings: KubeObject[] = [];
    for (const labelSelector of ADMINISTRATOR_BINDING_SELECTORS) {
      const listed = await client.listAll(
        { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding' },
        { labelSelector },
      );
      if (!listed.ok) return { unreadable: `list ClusterRoleBindings: ${listed.message}` };
      bindings.push(...listed.items);
    }
    if (!oidcExtensionEnabled(shoot)) return { administrators: administratorsOf(bindings) };
    const oidc = await client.listAll(
      { apiVersion: 'authentication.gardener.cloud/v1alpha1', kind: 'OpenIDConnect' },
      { labelSelector: OIDC_SELECTOR },
    );
    if (!oidc.ok) return { unreadable: `list OpenIDConnects: ${oidc.message}` };
    return { administrators: administratorsOf(bindings), additionalOidcConfig: additionalOidcOf(oidc.items) };
  } finally {
    client.close();
  }
}
