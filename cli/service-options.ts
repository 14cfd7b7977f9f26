// The flags of kimops running as a service (generate, apply and backfill): logs, leader election, the clusters'
// contexts, and the checks that tie them to --watch. Declarations only, light like options.ts: `kimops --help`
// loads them; what they do is in logging.ts, leader-option.ts and adapters/kube/kubeconfig-source.ts.
import { Option, type Command } from 'commander';
import { DEFAULT_KCP_NAMESPACE } from '../model/contract.js';
import { LOG_LEVELS, type LogLevel } from '../model/log.js';
import type { ClusterOptions } from '../adapters/kube/kubeconfig-source.js';
import { EXIT } from './cli-io.js';

const LOG_FORMATS = ['plain', 'text', 'json'] as const;

export interface LogOptions {
  logFormat?: (typeof LOG_FORMATS)[number];
  logLevel?: LogLevel;
}

export interface LeaderOptions {
  leaderElect?: boolean;
  leaderElectionNamespace?: string;
}

/** `command` with --log-format, --log-level, --leader-elect and --leader-election-namespace. */
export function withServiceOptions(command: Command): Command {
  for (const option of serviceOptionList()) command.addOption(option);
  return command;
}

/** --log-format and --log-level, for a command that logs as the loops do but takes no Lease (compare). */
export function logOptions(): Option[] {
  return [
    new Option(
      '--log-format <format>',
      'plain lines, or records with time, level, component and landscape (default: text with --watch, plain with --once)',
    ).choices(LOG_FORMATS),
    new Option('--log-level <level>', 'leave out lines below this level (default: info; plain: every line)').choices(
      LOG_LEVELS,
    ),
  ];
}

function serviceOptionList(): Option[] {
  return [
    ...logOptions(),
    new Option(
      '--leader-elect',
      "with --watch: run passes only while holding the loop's Lease on the KCP (for more than one replica)",
    ),
    new Option(
      '--leader-election-namespace <name>',
      `with --leader-elect: where the Lease lives (default: the pod's namespace, else ${DEFAULT_KCP_NAMESPACE})`,
    ),
  ];
}

/** --context: the KCP kubeconfig's context to use, as kubectl's --context. */
export function contextOption(): Option {
  return new Option('--context <name>', "the KCP kubeconfig's context to use (default: its current-context)");
}

/** --garden-context: the Garden kubeconfig's context to use. */
export function gardenContextOption(): Option {
  return new Option('--garden-context <name>', "the Garden kubeconfig's context to use (default: its current-context)");
}

/** The Garden as --garden-kubeconfig and --garden-context name it, for every command that reaches it. */
export function gardenCluster(options: { gardenKubeconfig: string; gardenContext?: string }): ClusterOptions {
  return {
    kubeconfig: options.gardenKubeconfig,
    context: options.gardenContext,
    option: '--garden-kubeconfig',
    contextOption: '--garden-context',
    // The pod's ServiceAccount belongs to the KCP kimops runs on: the Garden is always named, never taken from it.
    inCluster: false,
  };
}

/**
 * Refuses the service flags without --watch: a single pass needs no Lease, probes or metrics. `alsoNeedWatch` names
 * more flags (their long names, e.g. `--interval`) that mean nothing without --watch; refused only when given, as
 * their defaults are always there.
 */
export function requireWatchFor(
  options: LeaderOptions & { watch?: boolean; metricsPort?: string },
  command: Command,
  alsoNeedWatch: readonly string[] = [],
): void {
  if (options.watch) return;
  if (options.leaderElect) command.error('error: --leader-elect needs --watch', { exitCode: EXIT.usage });
  if (options.metricsPort !== undefined) command.error('error: --metrics-port needs --watch', { exitCode: EXIT.usage });
  for (const flag of alsoNeedWatch) {
    const source = command.getOptionValueSource(command.options.find((o) => o.long === flag)?.attributeName() ?? '');
    if (source !== undefined && source !== 'default')
      command.error(`error: ${flag} needs --watch`, { exitCode: EXIT.usage });
  }
}
