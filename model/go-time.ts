// Time as Go and Kubernetes print it, in one place. KIM decodes durations with time.ParseDuration and
// Kubernetes prints metav1.Duration with Duration.String(), so "15m" in config becomes "15m0s" in a Shoot;
// metav1.Time is RFC 3339 in whole seconds, so a status or Event time never carries milliseconds.

const UNIT_NANOS: Record<string, number> = {
  ns: 1,
  us: 1e3,
  µs: 1e3,
  μs: 1e3,
  ms: 1e6,
  s: 1e9,
  m: 60e9,
  h: 3600e9,
};

/** Go durations are int64 nanoseconds; longer ones (about 292 years) do not parse. */
const MAX_GO_DURATION_NANOS = 2 ** 63 - 1;

/** Parses a Go duration into nanoseconds; undefined when Go would refuse it. */
export function parseGoDuration(text: string): number | undefined {
  let rest = text;
  let sign = 1;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    sign = rest.startsWith('-') ? -1 : 1;
    rest = rest.slice(1);
  }
  if (rest === '0') return 0;
  if (rest === '') return undefined;
  let total = 0;
  const part = /^(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/;
  while (rest !== '') {
    const match = part.exec(rest);
    if (!match) return undefined;
    total += Number(match[1]) * (UNIT_NANOS[match[2] as string] as number);
    rest = rest.slice(match[0].length);
  }
  if (!(total <= MAX_GO_DURATION_NANOS)) return undefined;
  return sign * Math.round(total);
}

/** Formats nanoseconds like Go's Duration.String(): 720h0m0s, 15m0s, 1.5s, 300ms, 0s. */
export function formatGoDuration(nanos: number): string {
  if (nanos === 0) return '0s';
  const sign = nanos < 0 ? '-' : '';
  const abs = Math.abs(nanos);
  if (abs < 1e9) {
    const [unit, size] = abs < 1e3 ? ['ns', 1] : abs < 1e6 ? ['µs', 1e3] : ['ms', 1e6];
    return `${sign}${trimFraction(abs / (size as number))}${unit as string}`;
  }
  const hours = Math.floor(abs / 3600e9);
  const minutes = Math.floor((abs % 3600e9) / 60e9);
  const seconds = trimFraction((abs % 60e9) / 1e9);
  if (hours > 0) return `${sign}${hours}h${minutes}m${seconds}s`;
  if (minutes > 0) return `${sign}${minutes}m${seconds}s`;
  return `${sign}${seconds}s`;
}

function trimFraction(value: number): string {
  return Number(value.toFixed(9)).toString();
}

/**
 * A duration in milliseconds cut to whole seconds, as Go prints `d.Truncate(time.Second)`: `13h40m48s`, `59s`.
 * Counted in whole seconds, not nanoseconds, so a huge age (a sync time of Go's zero time) prints exactly.
 */
export function formatGoDurationMs(ms: number): string {
  const total = Math.floor(Math.abs(ms) / 1000);
  const sign = ms < 0 && total > 0 ? '-' : '';
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = total % 60;
  if (hours > 0) return `${sign}${hours}h${minutes}m${seconds}s`;
  if (minutes > 0) return `${sign}${minutes}m${seconds}s`;
  return `${sign}${seconds}s`;
}

/** metav1.Time's form: RFC 3339 in UTC, whole seconds (`2026-01-02T03:04:05Z`). */
export function rfc3339Seconds(date: Date): string {
  return date.toISOString().replace(/\.\d+Z$/, 'Z');
}
