// `--metrics-port` / `--metrics-host` of the watching commands (generate, apply, backfill): the scrape endpoint
// with the loop's /healthz and /readyz, or none.
import type { Registry } from 'prom-client';
import { kimopsVersion } from '../adapters/files/package-version.js';
import { registerBuildInfo } from '../adapters/metrics/build-info.js';
import { startMetricsServer, type MetricsServer, type Probes } from '../adapters/metrics/server.js';
import { ConfigError } from '../model/errors.js';
import type { CliIo } from './cli-io.js';
import { logLine } from './logging.js';

export interface MetricsOptions {
  metricsPort?: string;
  metricsHost: string;
}

/** The scrape endpoint `--metrics-port` asks for (with kimops_build_info beside the command's metrics), or none. */
export async function metricsServerOf(
  options: MetricsOptions,
  io: CliIo,
  registry: Registry,
  probes?: Probes,
): Promise<MetricsServer | undefined> {
  if (options.metricsPort === undefined) return undefined;
  const port = Number(options.metricsPort);
  if (!/^\d+$/.test(options.metricsPort) || port > 65_535)
    throw new ConfigError('--metrics-port', '', `${options.metricsPort} is not a port (0-65535)`);
  registerBuildInfo(registry, kimopsVersion());
  try {
    const server = await startMetricsServer({ port, host: options.metricsHost, registry, ...(probes && { probes }) });
    logLine(io)(`metrics at ${server.url}`);
    return server;
  } catch (error) {
    throw new ConfigError(
      '--metrics-port',
      '',
      `cannot listen on ${options.metricsHost}:${options.metricsPort}: ${error instanceof Error ? error.message : String(error)}; pass a free port and an address of this host`,
    );
  }
}
