// Text from outside (a file name, a Runtime's name, a field, a YAML error quoting the input) as it may be
// printed: every control character written as an escape, so a name cannot move the cursor, recolour or clear
// the terminal (ANSI escapes start with ESC), overwrite a line (CR), or forge a line of its own (LF).

/**
 * C0 controls (LF, CR, TAB and ESC among them), DEL, C1 controls, the line and paragraph separators, and the
 * bidirectional overrides that make text display in another order than it reads ("Trojan Source").
 */
// eslint-disable-next-line no-control-regex -- control characters are what this looks for
const CONTROL = /[\u0000-\u001F\u007F-\u009F\u2028\u2029\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;

const SHORT: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function escape(char: string): string {
  const code = char.charCodeAt(0);
  return (
    SHORT[char] ??
    (code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`)
  );
}

/** `text` on one line with every control character escaped (`\n`, `\x1b`, `\u202e`): for names. */
export function printable(text: string): string {
  return text.replace(CONTROL, escape);
}

/**
 * Like `printable`, but a line break that starts an indented line (`\n  `) stays: kimops's own lists of
 * problems are written that way. A name holding such a break still cannot start a line of its own.
 */
export function printableLines(text: string): string {
  return text.replace(CONTROL, (char, offset: number) =>
    char === '\n' && text.startsWith('  ', offset + 1) ? char : escape(char),
  );
}

/**
 * Like `printable`, but line breaks and tabs stay: for whatever a command writes to a terminal, the net under
 * every line no name was escaped for (a log line quoting a file name).
 */
export function printableOutput(text: string): string {
  return text.replace(CONTROL, (char) => (char === '\n' || char === '\t' ? char : escape(char)));
}
