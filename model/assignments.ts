// `key=value` arguments (repeatable CLI options), read into a map with a clear error for a bad one.
import { ConfigError } from './errors.js';

/** `option` names the source in errors; `example` shows a correct value. */
export function parseAssignments(pairs: readonly string[], option: string, example: string): Map<string, string> {
  const result = new Map<string, string>();
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0 || at === pair.length - 1)
      throw new ConfigError(option, '', `"${pair}" is not <key>=<value>, e.g. ${example}`);
    result.set(pair.slice(0, at), pair.slice(at + 1));
  }
  return result;
}
