// The vocabulary of kimops's log lines: a level, a message, and the fields an SRE searches by. The loops hand
// their lines to a `LogLine` with the fields they know (the Runtime, the Shoot, the PR); how a line is written
// (plain, text or JSON, which level goes where) is the CLI's choice (adapters/log/).

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** What a line is about, where it applies: `runtime` is `<namespace>/<name>`, `pr` the PR's number. */
export interface LogFields {
  runtime?: string;
  shoot?: string;
  pr?: number;
  branch?: string;
}

/** A log line of a loop: info unless it says otherwise (debug for what repeats every pass unchanged). */
export type LogLine = (message: string, fields?: LogFields, level?: LogLevel) => void;
