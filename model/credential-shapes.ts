// The shapes credentials take in kimops's inputs — kubeconfig fields, HTTP authorization values, URL user info,
// PEM keys, JWTs (ServiceAccount tokens), GitHub tokens — and the cut that replaces them. Pure, so what is shown as
// well as what is logged can be cut the same way: the log (adapters/log/redact.ts, which also cuts the exact values
// kimops read) and `kimops status`, whose messages quote Runtime conditions and pipeline errors.

export const REDACTED = '[redacted]';

const PATTERNS: readonly [RegExp, string][] = [
  // PEM blocks: private keys and certificates, whole.
  [/-----BEGIN [A-Z0-9 ]+-----[\s\S]*?(?:-----END [A-Z0-9 ]+-----|$)/g, `${REDACTED} PEM`],
  // User info in URLs (before the fields: `x-access-token:` is not one): https://x-access-token:<token>@github.com/…
  [/(\b[a-z][a-z0-9+.-]*:\/\/)[^/\s:@]+(?::[^/\s@]*)?@/gi, `$1${REDACTED}@`],
  // Kubeconfig and similar fields: `token: …`, `client-key-data: …`, "password":"…".
  [
    /\b(token|client-key-data|client-certificate-data|password|id-token|refresh-token|access-token|private-key|privateKey|client-secret|clientSecret)("?\s*[:=]\s*"?)[^\s",}]+/gi,
    `$1$2${REDACTED}`,
  ],
  // HTTP authorization values: a header quoted whole, and bearer or basic credentials anywhere.
  [/\b(authorization"?\s*[:=]\s*"?)(?:(?:Bearer|Basic|token)\s+)?[^\s",}]+/gi, `$1${REDACTED}`],
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/g, `$1 ${REDACTED}`],
  // JWTs: ServiceAccount and OIDC tokens.
  [/\beyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/g, REDACTED],
  // GitHub's token formats.
  [/\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})/g, REDACTED],
];

/** `text` with every credential-shaped part replaced by "[redacted]". */
export function cutCredentialShapes(text: string): string {
  let out = text;
  for (const [pattern, replacement] of PATTERNS) out = out.replace(pattern, replacement);
  return out;
}
