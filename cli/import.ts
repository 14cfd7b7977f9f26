// `kimops import`, run: the Shoots of garden-<project>, the ConfigMaps beside them, the Runtimes that exist (the
// KCP's or --runtimes) and the KCP's GardenerClusters are read; each Shoot no Runtime names becomes a Runtime
// (rules/runtime-from-shoot.ts), checked against the Shoot (import-check.ts) before its file is written. With
// --skr each Shoot's cluster is read too, through Gardener's admin kubeconfig (its administrators, its OIDC).
// Reads the KCP, the Garden and the clusters; writes only files (or stdout).
import { join } from 'node:path';
import { readLandscape } from '../adapters/files/landscape.js';
import { readRuntimes } from '../adapters/files/manifests.js';
import { writeFileWhole } from '../adapters/files/write-files.js';
import { KubeClient } from '../adapters/kube/kube-client.js';
import { skrClient } from '../adapters/kube/skr-client.js';
import { COMPANION_OF_LABEL, gardenNamespaceOf } from '../model/contract.js';
import { ConfigError, TransportError } from '../model/errors.js';
import type { KubeObject } from '../model/kube-object.js';
import { conversionSettingsOf, type ConversionSettings } from '../model/landscape.js';
import { printable, printableLines } from '../model/printable.js';
import { RUNTIME_API_VERSION } from '../model/runtime.js';
import { oidcExtensionEnabled, SHOOT_API_VERSION, type ConfigMap, type Shoot } from '../model/shoot.js';
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
}

/** One Shoot without a Runtime: the Runtime to write, or why there is none. */
type Outcome =
  | { shoot: string; runtime: ImportedRuntime; unknown: UnknownField[]; notes: string[]; bookkeeping: string[] }
  | { shoot: string; problem: string };

export async function importRuntimes(options: ImportOptions, io: CliIo): Promise<number> {
  const landscape = await readLandscape(options.landscape);
  const settings = conversionSettingsOf(landscape);
  const namespace = gardenNamespaceOf(landscape.gardener.project);
  const garden = KubeClient.forCluster(gardenCluster(options));
  const kcp = options.kcpKubeconfig
    ? KubeClient.forCluster({ kubeconfig: options.kcpKubeconfig, context: options.context, option: '--kcp-kubeconfig' })
    : undefined;
  const shoots = await listed<Shoot>(garden, 'Garden', { apiVersion: SHOOT_API_VERSION, kind: 'Shoot', namespace });
  const configMaps = await listed<ConfigMap>(garden, 'Garden', { apiVersion: 'v1', kind: 'ConfigMap', namespace });
  const known = await knownRuntimes(options, kcp, io);
  if (known === undefined) return EXIT.usage;
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
    const skr = options.skr ? await readSkr(garden, shoot) : undefined;
    const sources = { companions: companions(shoot), clusterLabels, settings, kcpNamespace: options.kcpNamespace, skr };
    outcomes.push(importOne(shoot, sources));
  }
  const checked = withUniqueIds(outcomes);
  const done = options.out ? await writeEach(checked, options.out, namespace, options.force === true) : checked;
  if (!options.out) io.stdout(toYamlStream(done.flatMap((o) => ('runtime' in o ? [o.runtime] : []))));
  report(done, namespace, options, io);
  const imported = done.filter((o) => 'runtime' in o);
  return imported.length < done.length || missing.length > 0 ? EXIT.conversionFailed : EXIT.ok;
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
    try {
      await writeFileWhole(
        join(out, `${outcome.runtime.metadata.name}.yaml`),
        fileOf(outcome, namespace),
        force,
        '--out',
      );
      done.push(outcome);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      done.push({ shoot: outcome.shoot, problem: error.message });
    }
  }
  return done;
}

/** One line per Shoot on stderr (the unknown fields of each Runtime under it), then the count. */
function report(outcomes: readonly Outcome[], namespace: string, options: ImportOptions, io: CliIo): void {
  const imported = outcomes.filter((o) => 'runtime' in o).length;
  for (const outcome of outcomes) {
    const ref = `shoot ${namespace}/${printable(outcome.shoot)}`;
    if ('problem' in outcome) io.stderr(`${ref}: not imported: ${printableLines(outcome.problem)}\n`);
    else {
      const where = options.out
        ? `${printable(options.out)}/${printable(outcome.runtime.metadata.name)}.yaml`
        : 'stdout';
      io.stderr(
        `${ref}: imported as Runtime ${options.kcpNamespace}/${printable(outcome.runtime.metadata.name)} (${where})\n`,
      );
      for (const unknown of outcome.unknown) io.stderr(`  unknown ${unknown.field}: ${unknown.fix}\n`);
    }
  }
  io.stderr(
    `${outcomes.length} Shoot(s) in ${namespace} without a Runtime: ${imported} imported, ${outcomes.length - imported} not; nothing was written to the KCP or the Garden\n`,
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

/** The Shoot names and Runtime IDs of the Runtimes that exist; undefined when --runtimes cannot be read. */
async function knownRuntimes(
  options: ImportOptions,
  kcp: KubeClient | undefined,
  io: CliIo,
): Promise<{ shoots: Set<string>; ids: Set<string> } | undefined> {
  let runtimes: KubeObject[];
  if (options.runtimes) {
    const read = await readRuntimes(options.runtimes, () => io.readStdin());
    // An unread file may be the Runtime of a Shoot: importing it again would make a second one.
    for (const error of read.errors) io.stderr(`error: ${printableLines(error.message)}\n`);
    if (read.errors.length > 0) return undefined;
    runtimes = read.runtimes.map((r) => r.runtime as unknown as KubeObject);
  } else {
    runtimes = await listed(kcp as KubeClient, 'KCP', {
      apiVersion: RUNTIME_API_VERSION,
      kind: 'Runtime',
      namespace: options.kcpNamespace,
    });
  }
  const shootName = (r: KubeObject) => (r as { spec?: { shoot?: { name?: unknown } } }).spec?.shoot?.name;
  return {
    shoots: new Set(runtimes.map(shootName).filter((n): n is string => typeof n === 'string')),
    ids: new Set(runtimes.map((r) => r.metadata.name)),
  };
}

async function listed<T extends KubeObject>(
  client: KubeClient,
  remote: string,
  ref: { apiVersion: string; kind: string; namespace: string },
): Promise<T[]> {
  const result = await client.listAll<T>(ref);
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
