// `--log-format` and `--log-level` of the loops (generate, apply, backfill). `text` and `json` make every line a
// record with time, level, component and landscape (adapters/log/structured-log.ts) — the default of --watch,
// where kimops runs as a service; `plain` prints the lines alone, the default of --once, whose output is a report
// read in a terminal or a CI log. Whatever the format, no credential reaches a line (adapters/log/redact.ts).
import { readFileSync, statSync } from 'node:fs';
import { redactCredentials } from '../adapters/log/redact.js';
import { structuredLog } from '../adapters/log/structured-log.js';
import type { LogFields, LogLevel, LogLine } from '../model/log.js';
import { printableLines } from '../model/printable.js';
import { reportFailure, type CliIo } from './cli-io.js';
import { GIT_TOKEN_SOURCES, GITHUB_TOKEN_SOURCES, WEBHOOK_SECRET_ENV } from './environment.js';
import type { LogOptions } from './service-options.js';

/** The credential values kimops holds (tokens from the environment and its files): cut out of every line whatever their shape. */
function credentialValues(): string[] {
  // The git and the API token lists name the same four sources in other orders: each is read once.
  const sources = new Set<string>();
  const values = [process.env[WEBHOOK_SECRET_ENV] ?? ''];
  for (const source of [...GIT_TOKEN_SOURCES, ...GITHUB_TOKEN_SOURCES]) {
    const name = 'file' in source ? source.file : source.variable;
    if (sources.has(name)) continue;
    sources.add(name);
    values.push('file' in source ? fileContent(process.env[name]) : (process.env[name] ?? ''));
  }
  return values.map((value) => value.trim()).filter((value) => value !== '');
}

const fileCache = new Map<string, { mtimeMs: number; content: string }>();

/** A token file's content, read again only when it changed (a log line must not cost a read). */
function fileContent(path: string | undefined): string {
  if (!path) return '';
  try {
    const { mtimeMs } = statSync(path);
    const cached = fileCache.get(path);
    if (cached?.mtimeMs === mtimeMs) return cached.content;
    const content = readFileSync(path, 'utf8');
    fileCache.set(path, { mtimeMs, content });
    return content;
  } catch {
    return ''; // unreadable: kimops's own read of it reports that
  }
}

const RANK: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };
const toStderr = (level: LogLevel) => RANK[level] >= RANK.warn;

/**
 * The command's io with its lines logged as `options` asks: what the command writes to stdout becomes info
 * lines and what it writes to stderr warnings (errors when they say `error:`), and `io.log` takes the lines
 * whose fields the command knows. `watching` picks the default format.
 */
export function loggingIo(
  io: CliIo,
  options: LogOptions,
  labels: { component: string; landscape: string },
  watching: boolean,
): CliIo {
  const format = options.logFormat ?? (watching ? 'text' : 'plain');
  if (format === 'plain') return plainIo(io, options.logLevel ?? 'debug');
  const write = structuredLog({
    format,
    level: options.logLevel ?? 'info',
    ...labels,
    secrets: credentialValues,
    stdout: io.stdout,
    stderr: io.stderr,
  });
  return {
    ...io,
    stdout: (text) => {
      if (text === '') return;
      for (const line of text.replace(/\n$/, '').split('\n')) write('info', line);
    },
    // A message and the lines under it (a stack, a list of problems) stay one record.
    stderr: (text) => write(/^error:/.test(text) ? 'error' : 'warn', text),
    log: write,
  };
}

/**
 * Plain lines, as kimops printed them before records existed: what the command writes passes unchanged but
 * for credentials; a line logged with fields is printed alone, its control characters escaped.
 */
function plainIo(io: CliIo, level: LogLevel): CliIo {
  const redact = (text: string) => redactCredentials(text, credentialValues());
  return {
    ...io,
    stdout: (text) => io.stdout(redact(text)),
    stderr: (text) => io.stderr(redact(text)),
    log: (lineLevel, message) => {
      if (RANK[lineLevel] < RANK[level]) return;
      const line = `${redact(printableLines(message))}\n`;
      if (toStderr(lineLevel)) io.stderr(line);
      else io.stdout(line);
    },
  };
}

/** `run`'s exit code, or the one of the failure that escaped it, reported through `io` (a record, redacted). */
export async function reportingFailures(io: CliIo, run: () => Promise<number>): Promise<number> {
  try {
    return await run();
  } catch (error) {
    return reportFailure(error, io);
  }
}

/** A loop's lines at `level` (unless a line says otherwise), with their fields where `io` keeps them. */
export function logLine(io: CliIo, level: LogLevel = 'info'): LogLine {
  return (message: string, fields?: LogFields, lineLevel: LogLevel = level) => {
    if (io.log) io.log(lineLevel, message, fields);
    else if (toStderr(lineLevel)) io.stderr(`${message}\n`);
    else io.stdout(`${message}\n`);
  };
}
