// What several commands' flags share: the options declared alike, their defaults and the parsers of their
// values. Light (commander, model/ and rules/ only): the declarations in commands/ import it, so `kimops --help` does.
import { Option } from 'commander';
import { ConfigError } from '../model/errors.js';
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
