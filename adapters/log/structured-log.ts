// kimops's log lines as an SRE's log search wants them (`--log-format json|text`): one line per record with the
// time, the level, the component and the landscape, plus the Runtime, Shoot and PR where the line is about one.
// pino builds the records (JSON, its level numbers, bound fields); `text` renders the same record for a
// terminal. Debug and info lines go to stdout, warnings and errors to stderr, as kimops's plain output does.
// Every message passes redactCredentials first: no credential reaches a log line, whatever a message quotes.
import { pino, type Logger } from 'pino';
import type { LogFields, LogLevel } from '../../model/log.js';
import { printableLines } from '../../model/printable.js';
import { redactCredentials } from './redact.js';

type LogFormat = 'text' | 'json';

export interface StructuredLogOptions {
  format: LogFormat;
  /** Lines below this level are dropped. */
  level: LogLevel;
  /** generator, applier, backfiller. */
  component: string;
  landscape: string;
  /** Exact credential values to cut out of every message (tokens read from the environment or files). */
  secrets?: () => readonly string[];
  stdout(text: string): void;
  stderr(text: string): void;
}

export type StructuredLog = (level: LogLevel, message: string, fields?: LogFields) => void;

const TO_STDERR: ReadonlySet<string> = new Set<LogLevel>(['warn', 'error']);

export function structuredLog(options: StructuredLogOptions): StructuredLog {
  const destination = {
    write(record: string) {
      const parsed = JSON.parse(record) as TextRecord;
      const line = options.format === 'json' ? record : textLine(parsed);
      if (TO_STDERR.has(parsed.level)) options.stderr(line);
      else options.stdout(line);
    },
  };
  const logger: Logger = pino(
    {
      level: options.level,
      base: { component: options.component, landscape: options.landscape },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      messageKey: 'msg',
    },
    destination,
  );
  return (level, message, fields = {}) => {
    const clean = redactCredentials(message.replace(/\n+$/, ''), options.secrets?.() ?? []);
    logger[level](fields, clean);
  };
}

interface TextRecord {
  time: string;
  level: LogLevel;
  component: string;
  landscape: string;
  msg: string;
  [field: string]: unknown;
}

/** `2026-12-01T10:00:00.000Z INFO  generator landscape=dev shoot=c-1 pr=12 message`: the record for a terminal. */
function textLine(record: TextRecord): string {
  const { time, level, component, landscape, msg, ...fields } = record;
  const pairs = Object.entries({ landscape, ...fields }).map(([key, value]) => `${key}=${String(value)}`);
  return `${time} ${level.toUpperCase().padEnd(5)} ${component} ${pairs.join(' ')} ${printableLines(msg)}\n`;
}
