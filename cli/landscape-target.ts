// Where a landscape repo is and how kimops reaches it, shared by the commands that take --repo:
// a local bare repository (the embedded `local` forge keeps its PRs in it), or the http(s) URL of
// a remote one, fetched into a cache folder and reviewed on GitHub. Credentials come from the
// environment only (environment.ts). And the landscape such a command runs for: --landscape, or the
// landscape.yaml the repo holds on main (kimops init commits it), which must name the same landscape.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { LANDSCAPE_FILE, readLandscape } from '../adapters/files/landscape.js';
import type { Forge } from '../adapters/forge/forge.js';
import { githubForge, githubGitToken, secretFile, type GitHubAuth, type SecretFile } from '../adapters/forge/github.js';
import { GITHUB_API } from '../adapters/forge/github-api.js';
import { localForge } from '../adapters/forge/local.js';
import { withRetries } from '../adapters/forge/retrying.js';
import { LandscapeRepo } from '../adapters/git/landscape-repo.js';
import { redacted, type RemoteAuth } from '../adapters/git/remote.js';
import { ConfigError } from '../model/errors.js';
import { MAIN_BRANCH } from '../model/contract.js';
import type { Landscape } from '../model/landscape.js';
import { parseLandscape } from '../model/landscape-parse.js';
import { GIT_TOKEN_SOURCES, GITHUB_APP_ENV, GITHUB_TOKEN_ENV, GITHUB_TOKEN_SOURCES } from './environment.js';
import { branchSync, type LandscapeRemote } from '../generator/branch-sync.js';

export type ForgeKind = 'local' | 'github';

export interface TargetOptions {
  repo: string;
  forge?: ForgeKind;
  cacheDir?: string;
  githubApiUrl?: string;
  githubRepo?: string;
}

export interface LandscapeTarget {
  repo: LandscapeRepo;
  remote?: LandscapeRemote;
  forge: Forge;
}

export function isHttpUrl(target: string): boolean {
  return /^https?:\/\//i.test(target);
}

/** ssh://, file:// and the like, or git's scp-like user@host:path: refused with the fix. */
export function refuseOtherUrls(target: string, option: string): void {
  if (isHttpUrl(target)) return;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(target) || /^[^/\\:]+@[^/\\:]+:/.test(target)) {
    throw new ConfigError(
      option,
      '',
      `${redacted(target)}: only local paths and http(s) URLs are supported; pass the https URL of the same repository`,
    );
  }
}

/** The git token from the environment (environment.ts's GIT_TOKEN_SOURCES); a token file is read again at each fetch or push. */
export function gitAuthFromEnv(): RemoteAuth | undefined {
  const token = tokenFromEnv(GIT_TOKEN_SOURCES);
  if (token === undefined) return undefined;
  if (typeof token === 'string') return { token };
  return {
    token: () => {
      token.refresh();
      return Promise.resolve(token.value());
    },
  };
}

/**
 * The landscape repo alone, for commands that only read it (apply): a local bare repository, or an
 * https URL's cache (the same folder generate uses) with git credentials from the environment.
 */
export async function openLandscapeRepo(
  options: Pick<TargetOptions, 'repo' | 'cacheDir'>,
): Promise<{ repo: LandscapeRepo; remote?: LandscapeRemote }> {
  refuseOtherUrls(options.repo, '--repo');
  if (!isHttpUrl(options.repo)) {
    const gitdir = resolve(options.repo);
    // LandscapeRepo.open would create a missing repo; a typo must not.
    if (!existsSync(`${gitdir}/HEAD`))
      throw new ConfigError('--repo', '', `${options.repo} is not a bare git repository; create it with kimops init`);
    return { repo: await LandscapeRepo.open(gitdir) };
  }
  const auth = gitAuthFromEnv();
  return {
    repo: await LandscapeRepo.open(options.cacheDir ? resolve(options.cacheDir) : defaultCacheDir(options.repo)),
    remote: { url: options.repo, ...(auth && { auth }) },
  };
}

export async function openLandscapeTarget(
  options: TargetOptions,
  log: (line: string) => void,
): Promise<LandscapeTarget> {
  const remote = isHttpUrl(options.repo);
  const kind = options.forge ?? (remote ? 'github' : 'local');
  if (!remote && kind !== 'local')
    throw new ConfigError(
      '--forge',
      '',
      `${kind} reviews a remote repository; pass its https URL as --repo, or --forge local for ${options.repo}`,
    );
  if (remote && kind !== 'github')
    throw new ConfigError(
      '--forge',
      '',
      'the local forge keeps its pull requests in a repository on this machine; pass a local path as --repo, or --forge github for a remote one',
    );
  const { repo, remote: target } = await openLandscapeRepo(options);
  if (!target) return { repo, forge: localForge(repo) };
  // withRetries is the one retry layer: octokit's own would repeat a POST whose answer was lost (a
  // second PR attempt); its throttling stays on, spacing writes as GitHub asks.
  const github = {
    ...githubRepoOf(target.url, options.githubRepo),
    baseUrl: options.githubApiUrl ?? GITHUB_API,
    auth: githubAuthFromEnv(),
    retry: false,
  };
  // A git token of its own wins; otherwise git uses the API's credentials (an App's installation token).
  const auth = target.auth ?? { token: await githubGitToken(github) };
  const forge = withRetries(await githubForge(github), { log: (event) => log(event.message) });
  return { repo, remote: { url: target.url, auth }, forge };
}

/** The landscape.yaml a landscape repo holds (its text, undefined when there is none) and where it was read. */
export interface RepoLandscapeFile {
  text: string | undefined;
  /** The repo as the user named it, for messages. */
  repo: string;
  /** Which landscape.yaml of it, for messages: `landscape.yaml on main`. */
  where: string;
}

/**
 * The landscape a command on a landscape repo runs for: the one --landscape names (`given`), else the repo's
 * own landscape.yaml. When both are there they must name the same landscape; when their content differs the
 * given one is used and `note` says so. Neither: a ConfigError with both ways out.
 */
export async function chooseLandscape(
  given: string | undefined,
  inRepo: RepoLandscapeFile,
  note: (line: string) => void,
): Promise<Landscape> {
  const source = `${inRepo.where} of ${inRepo.repo}`;
  const own = inRepo.text === undefined ? undefined : parseLandscape(inRepo.text, source);
  if (given === undefined) {
    if (own) return own;
    throw new ConfigError(
      '--landscape',
      '',
      `is needed: ${inRepo.repo} has no ${inRepo.where}; pass --landscape <name|dir>, or commit the landscape's ${LANDSCAPE_FILE} to the repo's root (kimops init does)`,
    );
  }
  const chosen = await readLandscape(given);
  if (!own) return chosen;
  if (chosen.name !== own.name)
    throw new ConfigError(
      '--landscape',
      '',
      `${inRepo.repo} holds landscape ${own.name}, not ${chosen.name}; pass the matching landscape or repo, or leave out --landscape to use the repo's ${inRepo.where}`,
    );
  if (!isDeepStrictEqual(chosen, own))
    note(
      `note: --landscape ${given} differs from ${source}; using --landscape — commit it to the repo to make it the landscape's`,
    );
  return chosen;
}

/**
 * A landscape a writing command may use: one marked `example: true` only with --allow-example-landscape. The shipped
 * stage and prod are examples (their values are invented), so `generate --landscape prod` cannot auto-merge Shoots
 * with an audit-log tenant under example.invalid.
 */
export function refuseExampleLandscape(landscape: Landscape, allowExample: boolean | undefined): Landscape {
  if (landscape.example !== true || allowExample === true) return landscape;
  throw new ConfigError(
    '--landscape',
    '',
    `landscape ${landscape.name} is an example (example: true): its values are invented and must not reach a Shoot; ` +
      "pass a landscape file with the real values (kimops landscape from-kim writes one from KIM's configuration), " +
      'or --allow-example-landscape to try kimops with it',
  );
}

/**
 * chooseLandscape with the landscape.yaml on main of the repo `repo` and `remote` name (fetched first when
 * remote, unless `fetch` is false: main as last fetched); `label` is the repo as the user named it.
 */
export async function landscapeOnMain(
  given: string | undefined,
  target: { repo: LandscapeRepo; remote?: LandscapeRemote },
  label: string,
  note: (line: string) => void,
  { fetch = true }: { fetch?: boolean } = {},
): Promise<Landscape> {
  const sync = branchSync(target.repo, target.remote);
  if (fetch) await sync.refresh();
  const commit = await target.repo.resolve(sync.baseRef);
  if (commit === undefined && given === undefined)
    throw new ConfigError(
      '--repo',
      '',
      `${redacted(label)} has no ${MAIN_BRANCH} branch; create the landscape repo with kimops init`,
    );
  const text = commit === undefined ? undefined : await target.repo.readFile(commit, LANDSCAPE_FILE);
  return chooseLandscape(given, { text, repo: redacted(label), where: `${LANDSCAPE_FILE} on ${MAIN_BRANCH}` }, note);
}

/** A private clone per remote, under the user's cache; nothing in it is state: it can be deleted any time. */
function defaultCacheDir(url: string): string {
  const base = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(base, 'kimops', 'repos', `${createHash('sha256').update(redacted(url)).digest('hex').slice(0, 16)}.git`);
}

/** `owner/name` from --github-repo, else the URL's last two path segments (https://github.com/acme/landscape-dev.git). */
export function githubRepoOf(url: string, given: string | undefined): { owner: string; repo: string } {
  const [owner, repo] = (
    given ??
    new URL(url).pathname
      .replace(/\.git$/, '')
      .split('/')
      .filter(Boolean)
      .slice(-2)
      .join('/')
  ).split('/');
  if (!owner || !repo || (given !== undefined && given.split('/').length !== 2)) {
    throw new ConfigError(
      '--github-repo',
      '',
      `cannot tell the GitHub repository from ${given ?? redacted(url)}; pass --github-repo <owner>/<name>`,
    );
  }
  return { owner, repo };
}

export function githubAuthFromEnv(): GitHubAuth {
  const appId = process.env[GITHUB_APP_ENV.id];
  if (appId) {
    const keyFile = process.env[GITHUB_APP_ENV.privateKeyFile];
    const installationId = Number(process.env[GITHUB_APP_ENV.installationId]);
    if (!keyFile || !existsSync(keyFile) || !Number.isInteger(installationId)) {
      throw new ConfigError(
        GITHUB_APP_ENV.id,
        '',
        `a GitHub App also needs ${GITHUB_APP_ENV.privateKeyFile} (a readable PEM file) and ${GITHUB_APP_ENV.installationId} (a number)`,
      );
    }
    // Read again when replaced: a rotated key makes a new App client (adapters/forge/github.ts).
    return {
      appId,
      privateKey: readSecretFile(keyFile, GITHUB_APP_ENV.privateKeyFile, 'the PEM file'),
      installationId,
    };
  }
  const token = tokenFromEnv(GITHUB_TOKEN_SOURCES);
  if (token === undefined) {
    throw new ConfigError(
      '--forge github',
      '',
      `no credentials: set ${GITHUB_TOKEN_ENV[0]} (a token that may write pull requests, statuses and contents), or a GitHub App with ${Object.values(GITHUB_APP_ENV).join(', ')}`,
    );
  }
  return { token };
}

/** The first of `sources` set (non-empty): a variable's token, or a file read again when it is replaced. */
function tokenFromEnv(
  sources: readonly ({ readonly file: string } | { readonly variable: string })[],
): string | SecretFile | undefined {
  for (const source of sources) {
    if ('file' in source) {
      const path = process.env[source.file];
      if (path) return readSecretFile(path, source.file, 'a file holding the token');
    } else {
      const token = process.env[source.variable];
      if (token) return token;
    }
  }
  return undefined;
}

/** The file `variable` names; a ConfigError naming the variable and the path (never the content) when it is unusable. */
function readSecretFile(path: string, variable: string, what: string): SecretFile {
  try {
    return secretFile(path);
  } catch (error) {
    throw new ConfigError(variable, '', `${(error as Error).message}; point it at ${what}`);
  }
}
