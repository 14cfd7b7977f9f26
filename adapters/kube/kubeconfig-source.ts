// Where a command's credentials for one cluster come from, resolved as kubectl resolves them, and kept
// current while the command runs. The order: the kubeconfig file the command's flag names; else the
// KUBECONFIG environment variable (a list of files, merged by kubectl's rules); else the Pod's
// ServiceAccount (KUBERNETES_SERVICE_HOST/PORT and the token, CA and namespace files the kubelet mounts);
// else a ConfigError naming the flag and the fix. `~/.kube/config` is deliberately not a fallback: kimops
// talks to two clusters, and one default for both would point the Garden client at the KCP.
//
// Rotation: a kubeconfig mounted from a Secret is replaced by the kubelet (an atomic swap of the `..data`
// symlink), and the ServiceAccount's projected token is renewed about hourly. The files are read again
// when a request finds the last look older than CHECK_EVERY_MS (a time comparison on the hot path,
// a read of a few small files every 10 s at most), and at once after a 401 (the caller then retries
// once: a credential revoked with its replacement already mounted costs one refused request). A file
// that does not parse (caught mid-write by a writer that is not atomic) keeps the last good credentials.
import { existsSync, readFileSync } from 'node:fs';
import { isIPv6 } from 'node:net';
import { delimiter, dirname, join } from 'node:path';
import { KubeConfig, type Cluster, type Context, type User } from '@kubernetes/client-node';
import { ConfigError } from '../../model/errors.js';

/** Where the kubelet mounts a Pod's ServiceAccount token, its cluster's CA and its namespace. */
const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';
/** kubectl's list of kubeconfig files, separated by `:` (`;` on Windows). */
const KUBECONFIG_ENV = 'KUBECONFIG';
/**
 * How old the last look at the files may be before a request looks again. client-go re-reads a token file
 * every minute; the kubelet renews a projected token at 80 % of its life (48 min of an hour), so the old
 * token stays valid long after the new one is there. A replaced kubeconfig Secret may revoke the old
 * credential at once: the 401 path covers that.
 */
const CHECK_EVERY_MS = 10_000;

export interface ClusterOptions {
  /** The kubeconfig file the user named (the command's flag); KUBECONFIG and the Pod are not consulted then. */
  kubeconfig?: string | undefined;
  /** The context to use instead of the kubeconfig's current-context (the command's --context/--garden-context). */
  context?: string | undefined;
  /** The flag naming the kubeconfig, e.g. `--kcp-kubeconfig`: every ConfigError names it. */
  option: string;
  /** The flag naming the context, e.g. `--garden-context`; `--context` when unset. */
  contextOption?: string | undefined;
  /**
   * false: never the Pod's ServiceAccount (a cluster kimops does not run in, such as the Garden, where the Pod's
   * own credentials would reach the wrong cluster); the error then names the flag and KUBECONFIG only.
   */
  inCluster?: boolean | undefined;
}

/** What resolution reads besides the options: injectable, so tests point it at a temporary folder. */
export interface ClusterEnvironment {
  /** process.env unless given. */
  env?: Readonly<Record<string, string | undefined>>;
  /** SERVICE_ACCOUNT_DIR unless given. */
  serviceAccountDir?: string;
  /** CHECK_EVERY_MS unless given; 0 looks at the files on every request. */
  checkEveryMs?: number;
  /** Date.now unless given. */
  now?: () => number;
}

/** A cluster's credentials as a client uses them: the current config, re-read when its files change. */
export interface CredentialSource {
  /** Names the credentials in messages: a path, `KUBECONFIG=…`, the ServiceAccount's folder. Never a secret. */
  readonly label: string;
  /** The config as last read; the files are looked at again first when the last look is older than checkEveryMs. */
  current(): KubeConfig;
  /** Looks at the files now (after a 401, or once per sync); true when the config changed. */
  refresh(): boolean;
  /**
   * What the credentials connect to, for a cache that must start over when that changes: a kubeconfig's selected
   * context and its cluster's server and CA, or the in-cluster server and CA — never the credentials (tokens
   * rotate, hourly for a ServiceAccount, and the client picks them up by itself).
   */
  identity(): string;
  /** Why the last look at the files could not be used (the last good config is kept), if it could not. */
  problem(): string | undefined;
}

/** A config that never changes (built in memory, or by a test). */
export function fixedSource(config: KubeConfig, label: string): CredentialSource {
  return {
    label,
    current: () => config,
    refresh: () => false,
    identity: () => JSON.stringify([label, config.getCurrentContext()]),
    problem: () => undefined,
  };
}

/**
 * The credentials `options` and the environment name: the flag's file, else KUBECONFIG's files, else the
 * Pod's ServiceAccount; the context selected. A ConfigError names the flag (or KUBECONFIG, or the context
 * flag) and the fix. Nothing a file holds is ever quoted in a message.
 */
export function resolveCluster(options: ClusterOptions, environment: ClusterEnvironment = {}): CredentialSource {
  const env = environment.env ?? process.env;
  const contextOption = options.contextOption ?? '--context';
  const timing = { checkEveryMs: environment.checkEveryMs ?? CHECK_EVERY_MS, now: environment.now ?? Date.now };
  // An empty flag (an unset variable in a script) must not fall through to KUBECONFIG: that may be another cluster.
  if (options.kubeconfig === '')
    throw new ConfigError(options.option, '', 'is empty; pass the path of a kubeconfig file');
  if (options.kubeconfig !== undefined) {
    const path = options.kubeconfig;
    if (!existsSync(path))
      throw new ConfigError(options.option, '', `${path} does not exist; pass the path of a kubeconfig file`);
    return watchedSource(
      [path],
      (contents) => kubeconfigOf([path], contents, options.context, contextOption),
      labelOf(path, options.context),
      timing,
      (error) => new ConfigError(options.option, '', error),
    );
  }
  const list = env[KUBECONFIG_ENV];
  if (list !== undefined && list !== '') {
    const files = list.split(delimiter).filter((file) => file !== '');
    // kubectl skips listed files that do not exist; all of them missing is a mistake, not a reason to try the Pod.
    if (!files.some((file) => existsSync(file)))
      throw new ConfigError(
        KUBECONFIG_ENV,
        '',
        `none of its files exists (${files.join(delimiter)}); set it to kubeconfig files, or pass ${options.option} <file>`,
      );
    return watchedSource(
      files,
      (contents) => kubeconfigOf(files, contents, options.context, contextOption),
      labelOf(`${KUBECONFIG_ENV}=${files.join(delimiter)}`, options.context),
      timing,
      (error) => new ConfigError(KUBECONFIG_ENV, '', `${error}; fix the file, or pass ${options.option} <file>`),
    );
  }
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT;
  if (host && port && options.inCluster !== false) {
    if (options.context !== undefined)
      throw new ConfigError(
        contextOption,
        '',
        `selects a context of a kubeconfig, but there is none (kimops runs in a Pod with its ServiceAccount); pass ${options.option} <file> or set ${KUBECONFIG_ENV}, or drop ${contextOption}`,
      );
    const dir = environment.serviceAccountDir ?? SERVICE_ACCOUNT_DIR;
    const token = join(dir, 'token');
    if (!existsSync(token))
      throw new ConfigError(
        options.option,
        '',
        `kimops runs in a Pod (KUBERNETES_SERVICE_HOST is set) but ${token} does not exist: mount the ServiceAccount's token (automountServiceAccountToken: true), or pass ${options.option} <file>`,
      );
    const server = `https://${isIPv6(host) ? `[${host}]` : host}:${port}`;
    return watchedSource(
      [token, join(dir, 'ca.crt')],
      (contents) => inClusterConfig(server, token, contents),
      `in-cluster ServiceAccount ${dir}`,
      timing,
      (error) => new ConfigError(options.option, '', `${error}; or pass ${options.option} <file>`),
    );
  }
  const pod = options.inCluster === false ? '' : ', or run kimops in a Pod with a ServiceAccount token';
  throw new ConfigError(
    options.option,
    '',
    `no kubeconfig: pass ${options.option} <file>${pod ? ',' : ' or'} set ${KUBECONFIG_ENV}${pod}`,
  );
}

/**
 * Whether resolveCluster would find credentials without a flag: KUBECONFIG set, or a Pod's ServiceAccount. For a
 * command to which a cluster is optional (`kimops status`): it reads the KCP the way kubectl finds it, and leaves
 * it out only when nothing names one.
 */
export function clusterFromEnvironment(environment: Pick<ClusterEnvironment, 'env'> = {}): boolean {
  const env = environment.env ?? process.env;
  return (
    (env[KUBECONFIG_ENV] ?? '') !== '' || (Boolean(env.KUBERNETES_SERVICE_HOST) && Boolean(env.KUBERNETES_SERVICE_PORT))
  );
}

/** The namespace of the Pod kimops runs in (the ServiceAccount's namespace file), or undefined outside a Pod. */
export function podNamespace(environment: Pick<ClusterEnvironment, 'serviceAccountDir'> = {}): string | undefined {
  try {
    const namespace = readFileSync(
      join(environment.serviceAccountDir ?? SERVICE_ACCOUNT_DIR, 'namespace'),
      'utf8',
    ).trim();
    return namespace === '' ? undefined : namespace;
  } catch {
    return undefined;
  }
}

function labelOf(where: string, context: string | undefined): string {
  return context === undefined ? where : `${where}, context ${context}`;
}

/** A file's bytes, or undefined while it does not exist (or cannot be read). */
function readIfThere(path: string): Buffer | undefined {
  try {
    return readFileSync(path);
  } catch {
    return undefined;
  }
}

interface Built {
  config: KubeConfig;
  identity: string;
}

function watchedSource(
  files: string[],
  build: (contents: (Buffer | undefined)[]) => Built,
  label: string,
  timing: { checkEveryMs: number; now: () => number },
  configError: (detail: string) => ConfigError,
): CredentialSource {
  let contents = files.map(readIfThere);
  let built: Built;
  try {
    built = build(contents);
  } catch (error) {
    throw error instanceof ConfigError ? error : configError(safeMessage(error));
  }
  let lastLook = timing.now();
  let problem: string | undefined;
  const refresh = (): boolean => {
    lastLook = timing.now();
    const now = files.map(readIfThere);
    if (now.every((content, i) => sameBytes(content, contents[i]))) return false;
    try {
      built = build(now);
    } catch (error) {
      // Kept for the next look: the file may be mid-write, and the last good credentials may still work.
      problem = `${label} changed but cannot be used: ${error instanceof ConfigError ? error.detail : safeMessage(error)}`;
      return false;
    }
    contents = now;
    problem = undefined;
    return true;
  };
  return {
    label,
    current: () => {
      if (timing.now() - lastLook >= timing.checkEveryMs) refresh();
      return built.config;
    },
    refresh,
    identity: () => built.identity,
    problem: () => problem,
  };
}

function sameBytes(a: Buffer | undefined, b: Buffer | undefined): boolean {
  return a === undefined || b === undefined ? a === b : a.equals(b);
}

/**
 * The first line of a loader's error: js-yaml quotes the lines around a syntax error below it, and a
 * kubeconfig's lines hold tokens and keys.
 */
function safeMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return (message.split('\n')[0] ?? '').slice(0, 300);
}

/**
 * kubectl's merge of a list of kubeconfig files: missing files are skipped; for each cluster, user and
 * context name the first file that defines it wins, and so does the first current-context. (client-node's
 * loadFromDefault refuses a name two files define and lets the last current-context win; kubectl's rules
 * are the ones users know from `kubectl --context`.) Relative file paths are resolved against the folder of
 * the file that holds them.
 */
function kubeconfigOf(
  files: string[],
  contents: (Buffer | undefined)[],
  context: string | undefined,
  contextOption: string,
): Built {
  const clusters = new Map<string, Cluster>();
  const users = new Map<string, User>();
  const contexts = new Map<string, Context>();
  let currentContext = '';
  const present: string[] = [];
  files.forEach((file, i) => {
    const content = contents[i];
    if (content === undefined) return;
    const one = new KubeConfig();
    try {
      one.loadFromString(content.toString('utf8'));
    } catch (error) {
      // eslint-disable-next-line preserve-caught-error -- the loader's error quotes the file's lines, secrets included
      throw new Error(`${file} is not a usable kubeconfig: ${safeMessage(error)}`);
    }
    one.makePathsAbsolute(dirname(file));
    for (const cluster of one.getClusters()) if (!clusters.has(cluster.name)) clusters.set(cluster.name, cluster);
    for (const user of one.getUsers()) if (!users.has(user.name)) users.set(user.name, user);
    for (const ctx of one.getContexts()) if (!contexts.has(ctx.name)) contexts.set(ctx.name, ctx);
    if (currentContext === '' && one.getCurrentContext()) currentContext = one.getCurrentContext();
    present.push(content.toString('base64'));
  });
  if (present.length === 0) throw new Error(`${files.join(delimiter)} does not exist`);
  const names = [...contexts.keys()];
  const known = names.length === 0 ? 'it has no contexts' : `its contexts: ${names.join(', ')}`;
  const where = files.join(delimiter);
  if (context !== undefined && !contexts.has(context))
    throw new ConfigError(contextOption, '', `context ${context} is not in ${where}; pass one of ${known}`);
  const selected = context ?? currentContext;
  if (selected === '' || !contexts.has(selected))
    throw new Error(
      `${where} has ${selected === '' ? 'no current-context' : `no context ${selected} (its current-context)`}; pass ${contextOption} <name> (${known})`,
    );
  const chosen = contexts.get(selected) as Context;
  if (!clusters.has(chosen.cluster))
    throw new Error(`${where}: context ${selected} names cluster ${chosen.cluster}, which it does not define`);
  const config = new KubeConfig();
  config.loadFromOptions({
    clusters: [...clusters.values()],
    users: [...users.values()],
    contexts: [...contexts.values()],
    currentContext: selected,
  });
  // The cluster, not the credentials: a rotated token (a TokenRequest Secret renewed hourly) must not make the
  // applier's caches list 10,000 Shoots again; another server, CA or context does.
  const cluster = clusters.get(chosen.cluster) as Cluster;
  return {
    config,
    identity: JSON.stringify([
      selected,
      cluster.server,
      cluster.caData ?? cluster.caFile ?? null,
      cluster.skipTLSVerify,
    ]),
  };
}

/** The Pod's ServiceAccount as a config: the token (trimmed) as a bearer token, the CA when mounted. */
function inClusterConfig(server: string, tokenPath: string, [token, ca]: (Buffer | undefined)[]): Built {
  const bearer = token?.toString('utf8').trim();
  if (!bearer) throw new Error(`${tokenPath} is empty or missing`);
  const config = new KubeConfig();
  config.loadFromClusterAndUser(
    {
      name: 'in-cluster',
      server,
      skipTLSVerify: false,
      // Without the CA file the system's roots verify the server, as client-go does.
      ...(ca === undefined ? {} : { caData: ca.toString('base64') }),
    },
    { name: 'service-account', token: bearer },
  );
  return { config, identity: JSON.stringify([server, ca?.toString('base64') ?? null]) };
}
