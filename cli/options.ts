// What several commands' flags share: the options declared alike, their defaults and the parsers of their
// values. Light (commander, model/ and rules/ only): the declarations in commands/ import it, so `kimops --help` does.
import { Option } from 'commander';
import type { KimInputs } from '../adapters/files/kim-settings.js';
import { ConfigError } from '../model/errors.js';
import { parseGoDuration } from '../model/go-time.js';
import { parseDeletionCount } from '../rules/mass-deletion.js';

/**
 * --interval of the watching commands: a pass at least this often, whatever the events (Flux polls its sources
 * every minute by default). Merges and approvals on the forge reach the generator, merges the applier, and
 * kubeconfig rotation the backfiller within it.
 */
export const DEFAULT_INTERVAL_SECONDS = 60;

/** A day: longer intervals overflow Node's timers (~24.8 days) and would mean no resync at all. */
const MAX_INTERVAL_SECONDS = 86_400;

export function landscapeOption(): Option {
  return new Option(
    '--landscape <name|dir>',
    'a landscape shipped with kimops (dev), or a folder/file with landscape.yaml',
  );
}

/**
 * The commands that write (generate, apply, backfill, bootstrap) refuse a landscape marked `example: true` without
 * it: the shipped stage and prod hold invented values (an audit-log URL under example.invalid), which must never
 * reach a Shoot by accident. Reading commands (render, validate, policies) take examples freely.
 */
export function allowExampleLandscapeOption(): Option {
  return new Option(
    '--allow-example-landscape',
    'accept a landscape marked example: true (invented values; for trying kimops out, never for a real landscape)',
  );
}

/** KIM's own configuration, for `render --kim-config` and `landscape from-kim`: the config file and what it reads. */
export function kimConfigOptions(configDescription: string): Option[] {
  return [
    new Option('--kim-config <file>', configDescription),
    new Option(
      '--kim-flag <name=value>',
      'a KIM conversion flag, e.g. api-server-acl-enabled=true (repeatable)',
    ).argParser(collect),
    new Option('--kim-configmap <file>', 'a KCP ConfigMap KIM reads: the API-server ACL list (repeatable)').argParser(
      collect,
    ),
    new Option(
      '--kim-file <path=file>',
      'where a file KIM reads from its mounts is here, e.g. /gardener/tenant/config=./tenants.json (repeatable)',
    ).argParser(collect),
  ];
}

/** The values of kimConfigOptions, as commander hands them over. */
export interface KimConfigFlags {
  kimConfig?: string;
  kimFlag?: string[];
  kimConfigmap?: string[];
  kimFile?: string[];
}

/** What the KIM reader (adapters/files/kim-settings.ts) takes, from the options. */
export function kimInputsOf(options: KimConfigFlags & { kimConfig: string }, project?: string): KimInputs {
  return {
    kimConfig: options.kimConfig,
    kimFlags: options.kimFlag ?? [],
    kimConfigMaps: options.kimConfigmap ?? [],
    kimFiles: options.kimFile ?? [],
    ...(project !== undefined && { project }),
  };
}

/** A repeatable option's values, in order. */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** Where the PRs of generate and bootstrap live. */
export function forgeOption(): Option {
  return new Option('--forge <kind>', 'where pull requests live (default: local for a path, github for a URL)').choices(
    ['local', 'github'],
  );
}

/** The local clone of a remote landscape repo, shared by the commands that read or write it. */
export function cacheDirOption(): Option {
  return new Option(
    '--cache-dir <dir>',
    'where a remote repo is fetched to (default: ~/.cache/kimops/repos/<hash>.git)',
  );
}

export function githubRepoOption(): Option {
  return new Option(
    '--github-repo <owner/name>',
    "the repository on GitHub (default: the URL's last two path segments)",
  );
}

export function repoOption(): Option {
  return new Option(
    '--repo <dir|url>',
    'the landscape repo: a bare repository made by kimops init, or its https URL',
  ).makeOptionMandatory();
}

/** `--interval <seconds>` as milliseconds, refused outside 1 s – a day. */
export function intervalMsOf(text: string): number {
  const ms = Number(text) * 1000;
  if (!(ms >= 1000 && ms <= MAX_INTERVAL_SECONDS * 1000))
    throw new ConfigError('--interval', '', `${text} is not a number of seconds between 1 and ${MAX_INTERVAL_SECONDS}`);
  return ms;
}

/** `--allow-mass-deletion <n>`: the deletions a human confirmed beyond kimops.yaml's massDeletion, if given. */
export function allowMassDeletionOf(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const count = parseDeletionCount(text);
  if (count === undefined)
    throw new ConfigError('--allow-mass-deletion', '', `${text} is not a number of Shoots (0 or more)`);
  return count;
}

/**
 * `--kubeconfig-expiration <duration>` (Go's form, KIM's --kubeconfig-expiration-time: 24h, 90m) in seconds: how long
 * the kubeconfigs Gardener issues are valid. The backfiller rotates by it; `kimops status` tells expiry by it.
 */
export function kubeconfigExpirationSecondsOf(text: string): number {
  const nanos = parseGoDuration(text);
  if (nanos === undefined || nanos <= 0)
    throw new ConfigError('--kubeconfig-expiration', '', `${text} is not a duration such as 24h or 90m`);
  return nanos / 1e9;
}
