// The credentials scan line by line: for text that is no YAML or JSON document (Markdown, env files,
// code), for what a parser drops (comments), and as the fallback for a file no reader could parse, so
// nothing escapes the scan for being malformed. Pure.
import {
  describeToken,
  isLiteral,
  keyRule,
  looksRandom,
  masked,
  tokensIn,
  type CredentialRule,
} from './credential-rules.js';

export interface LineHit {
  /** 1-based. */
  line: number;
  rule: CredentialRule;
  /** What was found, the credential masked. */
  what: string;
  /** The token a pattern matched, to tell it apart from the same token found in a document; never printed. */
  token?: string;
}

/** `patterns`: token formats and private keys only (beside a document scan); `all`: keys and Secret objects too. */
export type LineMode = 'patterns' | 'all';

/** A Secret as a document (`kind: Secret` at column 0), a List item (`- kind: Secret`), JSON, or a flow mapping holding data. */
const SECRET_KIND = [
  /^(?: {0,2}- )?kind:\s*["']?Secret["']?\s*(#.*)?$/,
  /^\s{0,6}"kind"\s*:\s*"Secret"\s*,?\s*$/,
  /[{,]\s*["']?kind["']?\s*:\s*["']?Secret["']?\s*[,}].*\b(data|stringData)\b|\b(data|stringData)\b.*[{,]\s*["']?kind["']?\s*:\s*["']?Secret["']?\s*[,}]/,
];
/** `key: value`, `key = value`, `"key": value`, `- key: value`. */
const KEY_VALUE = /^\s*-?\s*["']?([A-Za-z0-9_.-]+)["']?\s*[:=]\s*(.*)$/;

export function scanLines(text: string, mode: LineMode, dataFile: boolean): LineHit[] {
  const hits: LineHit[] = [];
  const lines = text.split(/\r?\n/);
  lines.forEach((line, i) => {
    const tokens = tokensIn(line);
    for (const { pattern, token } of tokens)
      hits.push({ line: i + 1, rule: pattern.rule, what: describeToken(pattern, token), token });
    if (tokens.length > 0 || mode === 'patterns') return;
    if (SECRET_KIND.some((kind) => kind.test(line))) {
      hits.push({ line: i + 1, rule: 'secret-object', what: 'a Secret object' });
      return;
    }
    if (!dataFile) return;
    const entry = KEY_VALUE.exec(line);
    const key = entry?.[1] ?? '';
    const rule = entry ? keyRule(key, undefined) : undefined;
    if (!rule) return;
    const value = valueOf(entry?.[2] ?? '', lines, i);
    if (value === undefined || !isLiteral(value) || (rule.needsEntropy && !looksRandom(value))) return;
    const what = rule.rule === 'kubeconfig-client-key' ? 'a kubeconfig client key' : `a literal value for "${key}"`;
    hits.push({ line: i + 1, rule: rule.rule, what: `${what} (${masked(value)})` });
  });
  return hits;
}

/**
 * The value written after the key: on the line itself (comment, quotes and a trailing comma dropped), in a
 * block scalar below (`key: |`), or on the next, deeper indented line (`key:\n  value`).
 */
function valueOf(raw: string, lines: readonly string[], index: number): string | undefined {
  const value = raw.replace(/\s+#.*$/, '').trim();
  const next = lines[index + 1];
  const deeper = next !== undefined && indentOf(next) > indentOf(lines[index] ?? '') && next.trim() !== '';
  if (/^[|>][-+]?\d*$/.test(value)) return deeper ? (next as string).trim() : undefined;
  if (value === '') {
    // A nested mapping or list below is structure; anything else is the value, written on the next line.
    const below = next?.trim() ?? '';
    return deeper && !/^(- |-$|[\w"'.-]+\s*:(\s|$))/.test(below) ? below.replace(/^(["'])(.*)\1$/, '$2') : undefined;
  }
  // `password: string` in a schema, `secret: {…}` or `token: [...]` are structure, not values.
  if (/^[{[]/.test(value)) return undefined;
  return value
    .replace(/,$/, '')
    .replace(/^(["'])(.*)\1$/, '$2')
    .trim();
}

const indentOf = (line: string) => line.length - line.trimStart().length;
