// The last line of defence before a log line leaves the process: whatever a message quotes (an error from a
// library, a YAML error quoting a kubeconfig line, a git URL), credentials are cut out. The patterns are the
// shapes credentials take in kimops's inputs — kubeconfig fields, HTTP authorization values, URL user info,
// PEM keys, JWTs (ServiceAccount tokens), GitHub tokens — plus the exact values kimops read from its
// credential environment variables and files, whatever their shape.

const REDACTED = '[redacted]';

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

/** `text` with every credential-shaped part and every one of `secrets` replaced by "[redacted]". */
export function redactCredentials(text: string, secrets: readonly string[] = []): string {
  let out = text;
  // The known values first: a token of an unknown shape is still cut.
  for (const secret of secrets) if (secret.length >= 8) out = out.split(secret).join(REDACTED);
  for (const [pattern, replacement] of PATTERNS) out = out.replace(pattern, replacement);
  return out;
}
