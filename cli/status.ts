// `kimops status`, run once: the sources opened (cli/status-sources.ts), read, the rows filtered and printed as
// text, wide text or the LandscapeStatus JSON document. Its options and help: commands/status.ts.
import { clusterFromEnvironment } from '../adapters/kube/kubeconfig-source.js';
import type { LandscapeStatus } from '../status/landscape-status.js';
import { filterRows } from '../status/filter.js';
import { statusText } from '../status/status-text.js';
import { EXIT, type CliIo } from './cli-io.js';
import { loggingIo, logLine, reportingFailures } from './logging.js';
import type { LogOptions } from './service-options.js';
import { openStatusSources, type StatusSourceOptions } from './status-sources.js';

export interface StatusOptions extends StatusSourceOptions, LogOptions {
  output: 'text' | 'wide' | 'json';
  /** Only rows in one of these states (Runtime state, stage or sync state). */
  state?: string[];
  /** Only rows whose PR has one of these classes. */
  class?: string[];
}

/** Whether the options (or the environment, for the KCP: KUBECONFIG, a Pod) name anything to read. */
export function namesASource(options: StatusOptions): boolean {
  const named = [options.repo, options.kcpKubeconfig, options.gardenKubeconfig].some((flag) => flag !== undefined);
  return named || clusterFromEnvironment();
}

/** One status, printed; exit 0 when every source given was read, 69 when one could not be (the rest is shown). */
export async function statusOnce(options: StatusOptions, commandIo: CliIo): Promise<number> {
  // The status is the command's output: stdout holds it alone (a JSON document stays one, whatever --log-format
  // says); every log line goes to stderr, labelled with the landscape once it is known.
  const logIo = (landscape: string) =>
    loggingIo({ ...commandIo, stdout: commandIo.stderr }, options, { component: 'status', landscape }, false);
  let io = logIo(options.landscape ?? '');
  return reportingFailures(io, async () => {
    const sources = await openStatusSources(options, (...line) => logLine(io)(...line));
    io = logIo(sources.landscape.name);
    try {
      const now = new Date();
      const status = await sources.read(now);
      commandIo.stdout(printed(status, options, now));
      return status.sources.some((source) => source.state === 'failed') ? EXIT.unavailable : EXIT.ok;
    } finally {
      sources.close();
    }
  });
}

/** The status as --output asks, its rows as --state and --class ask. */
function printed(status: LandscapeStatus, options: StatusOptions, now: Date): string {
  const shown = filterRows(status, {
    ...(options.state && { states: options.state }),
    ...(options.class && { classes: options.class }),
  });
  return options.output === 'json' ? `${JSON.stringify(shown, null, 2)}\n` : statusText(shown, options.output, now);
}
