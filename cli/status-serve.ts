// `kimops status --watch`: the status read every --interval (and at once when a local repo's main moves) and, with
// --port, served as the status page (adapters/status-page/server.ts) with /metrics, /healthz and /readyz on the same
// port. It writes nothing anywhere: a replica needs no Lease. Its options: commands/status.ts.
import { Registry } from 'prom-client';
import { kimopsVersion } from '../adapters/files/package-version.js';
import { registerBuildInfo } from '../adapters/metrics/build-info.js';
import { startStatusServer, type StatusServer } from '../adapters/status-page/server.js';
import { ConfigError } from '../model/errors.js';
import type { LandscapeStatus } from '../status/landscape-status.js';
import { statusFeed, type StatusFeed } from '../status/status-feed.js';
import { summaryLine } from '../status/status-text.js';
import { EXIT, type CliIo } from './cli-io.js';
import { loggingIo, logLine, reportingFailures } from './logging.js';
import { LoopHealth } from './loop-health.js';
import { mainRefWatchOf } from './main-ref-watch.js';
import { intervalMsOf } from './options.js';
import type { StatusOptions } from './status.js';
import { openStatusSources } from './status-sources.js';
import { runUntilStopped } from './until-stopped.js';
import type { WatchLoop } from '../generator/watch.js';

export interface StatusServeOptions extends StatusOptions {
  watch?: boolean;
  interval: string;
  /** The status page's port; no page without it (the reads are then only logged). */
  port?: string;
  host: string;
}

export async function statusWatching(options: StatusServeOptions, commandIo: CliIo): Promise<number> {
  let io = loggingIo(commandIo, options, { component: 'status', landscape: options.landscape ?? '' }, true);
  return reportingFailures(io, async () => {
    const intervalMs = intervalMsOf(options.interval);
    const sources = await openStatusSources(options, (...line) => logLine(io)(...line));
    io = loggingIo(commandIo, options, { component: 'status', landscape: sources.landscape.name }, true);
    const health = new LoopHealth(intervalMs);
    const feed = statusFeed();
    const page = await pageServerOf(options, io, feed, health);
    let loop: WatchLoop | undefined;
    const mainWatch =
      options.repo === undefined ? undefined : await mainRefWatchOf(options.repo, io, () => loop?.trigger());
    const sourcesSaid = sourceProblemsLogger(io);
    try {
      await runUntilStopped({
        pass: async () => {
          const now = new Date();
          const status = await sources.read(now);
          feed.publish(status);
          sourcesSaid(status);
          logLine(io)(summaryLine(status, now));
        },
        intervalMs,
        io,
        started: (started) => (loop = started),
        health,
      });
    } finally {
      mainWatch?.close();
      sources.close();
      await page?.close();
    }
    return EXIT.ok;
  });
}

/** The page with the probes and kimops_build_info, on --port; none without it. */
async function pageServerOf(
  options: StatusServeOptions,
  io: CliIo,
  feed: StatusFeed,
  health: LoopHealth,
): Promise<StatusServer | undefined> {
  if (options.port === undefined) return undefined;
  const port = Number(options.port);
  if (!/^\d+$/.test(options.port) || port > 65_535)
    throw new ConfigError('--port', '', `${options.port} is not a port (0-65535)`);
  const registry = new Registry();
  registerBuildInfo(registry, kimopsVersion());
  try {
    const server = await startStatusServer({ port, host: options.host, feed, registry, probes: health });
    logLine(io)(`status page at ${server.url}`);
    return server;
  } catch (error) {
    throw new ConfigError(
      '--port',
      '',
      `cannot listen on ${options.host}:${options.port}: ${error instanceof Error ? error.message : String(error)}; pass a free port and an address of this host`,
    );
  }
}

/**
 * A source that cannot be read is a warning when it starts failing or its reason changes, and an info line when it
 * reads again: said once, not every interval (the page shows it all along).
 */
function sourceProblemsLogger(io: CliIo): (status: LandscapeStatus) => void {
  const said = new Map<string, string>();
  return (status) => {
    for (const source of status.sources) {
      const before = said.get(source.name);
      if (source.state === 'failed') {
        const message = source.message ?? 'failed';
        if (before !== message) logLine(io)(`${source.name}: ${message}`, {}, 'warn');
        said.set(source.name, message);
      } else if (before !== undefined) {
        logLine(io)(`${source.name}: read again`);
        said.delete(source.name);
      }
    }
  };
}
