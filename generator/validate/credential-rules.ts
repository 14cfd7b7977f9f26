// What the credentials scan counts as a credential: token formats with a known shape (the patterns are
// facts from gitleaks' public rule set, written here as JavaScript regular expressions), the keys whose
// literal value is a credential, and what is no value at all (references, placeholders). Pure; the
// scans over parsed documents (credential-documents.ts) and over lines (credential-lines.ts) share it.

export type CredentialRule =
  | 'secret-object'
  | 'private-key'
  | 'kubeconfig-client-key'
  | 'registry-credential'
  | 'service-account-key'
  | 'credential-value'
  | 'token-pattern';

export interface TokenPattern {
  pattern: RegExp;
  rule: Extract<CredentialRule, 'token-pattern' | 'private-key'>;
  what: string;
  /** How many leading characters are the format's public prefix (`ghp_`): shown in the mask, never more. */
  prefix: number;
}

/** Token formats with a fixed shape: found in any file, any field, any comment. */
const TOKEN_PATTERNS: readonly TokenPattern[] = [
  {
    pattern: /-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----/,
    rule: 'private-key',
    what: 'a PEM private key',
    prefix: 0,
  },
  { pattern: /ghp_[0-9A-Za-z]{36}/, rule: 'token-pattern', what: 'a GitHub personal access token', prefix: 4 },
  { pattern: /gho_[0-9A-Za-z]{36}/, rule: 'token-pattern', what: 'a GitHub OAuth token', prefix: 4 },
  { pattern: /gh[us]_[0-9A-Za-z]{36}/, rule: 'token-pattern', what: 'a GitHub App token', prefix: 4 },
  { pattern: /ghr_[0-9A-Za-z]{36}/, rule: 'token-pattern', what: 'a GitHub refresh token', prefix: 4 },
  { pattern: /github_pat_\w{82}/, rule: 'token-pattern', what: 'a GitHub fine-grained token', prefix: 11 },
  {
    pattern: /\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}\b/,
    rule: 'token-pattern',
    what: 'an AWS access key id',
    prefix: 4,
  },
  { pattern: /xox[bpeosar]-[0-9A-Za-z-]{10,}/, rule: 'token-pattern', what: 'a Slack token', prefix: 5 },
  { pattern: /xapp-\d-[A-Z0-9]+-\d+-[a-z0-9]+/i, rule: 'token-pattern', what: 'a Slack app token', prefix: 5 },
  {
    pattern: /hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9+/]{43,56}/,
    rule: 'token-pattern',
    what: 'a Slack webhook URL',
    prefix: 15,
  },
  { pattern: /\bAIza[\w-]{35}/, rule: 'token-pattern', what: 'a Google API key', prefix: 4 },
  { pattern: /\bglpat-[\w-]{20}/, rule: 'token-pattern', what: 'a GitLab personal access token', prefix: 6 },
  { pattern: /\bnpm_[A-Za-z0-9]{36}/, rule: 'token-pattern', what: 'an npm access token', prefix: 4 },
  { pattern: /\b(?:sk|rk)_live_[0-9A-Za-z]{10,99}/, rule: 'token-pattern', what: 'a Stripe live key', prefix: 8 },
  {
    pattern: /AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}/,
    rule: 'token-pattern',
    what: 'an age secret key',
    prefix: 15,
  },
  // Three base64url segments, the first two JSON objects: a service-account token in a kubeconfig, an OIDC token.
  {
    pattern: /\bey[A-Za-z0-9]{17,}\.ey[A-Za-z0-9/\\_-]{17,}\.(?:[A-Za-z0-9/\\_-]{10,}={0,2})?/,
    rule: 'token-pattern',
    what: 'a JSON Web Token',
    prefix: 2,
  },
];

/** One test that rules out every pattern at once for most strings (all of them, case-insensitive, is a superset). */
const ANY_TOKEN = new RegExp(TOKEN_PATTERNS.map((p) => p.pattern.source).join('|'), 'i');

export interface TokenMatch {
  pattern: TokenPattern;
  token: string;
}

/** Every token format found in the text, once each. */
export function tokensIn(text: string): TokenMatch[] {
  if (!ANY_TOKEN.test(text)) return [];
  const found: TokenMatch[] = [];
  for (const pattern of TOKEN_PATTERNS) {
    const match = pattern.pattern.exec(text);
    if (match) found.push({ pattern, token: match[0] });
  }
  return found;
}

/** Keys (compared without case, `-`, `_` and `.`) whose literal value is a credential, whatever it looks like. */
const CREDENTIAL_KEYS = new Set([
  'password',
  'passwd',
  'pwd',
  'token',
  'accesstoken',
  'refreshtoken',
  'idtoken',
  'authtoken',
  'bearertoken',
  'sessiontoken',
  'apikey',
  'apitoken',
  'secret',
  'clientsecret',
  'secretkey',
  'secretaccesskey',
  'awssecretaccesskey',
  'privatekey',
  'serviceaccountkey',
  'encryptionkey',
  'webhooksecret',
]);
/** Parts of a key that make its value a credential when it also looks like one (high entropy): `dbPassword`, `GITHUB_TOKEN`. */
const CREDENTIAL_WORDS = /passw|secret|token|apikey|credential|privatekey|accesskey/;
/** The last word of a key that names, points to or describes a credential rather than holding it: `secretBindingName`, `tokenExpiration`. */
const REFERENCE_WORDS = new Set([
  'name',
  'names',
  'ref',
  'refs',
  'reference',
  'references',
  'namespace',
  'binding',
  'bindings',
  'kind',
  'type',
  'file',
  'path',
  'dir',
  'id',
  'ids',
  'url',
  'uri',
  'endpoint',
  'expiration',
  'ttl',
  'seconds',
  'duration',
  'length',
  'count',
  'enabled',
  'mode',
  'version',
  'provider',
  'field',
  'selector',
  'role',
  'header',
  'format',
  'policy',
  'tokens',
]);
/** Keys of a registry's entry in a Docker config (`auths.<registry>.<key>`). */
const REGISTRY_KEYS = new Set(['auth', 'password', 'identitytoken', 'registrytoken']);

export interface KeyRule {
  rule: Extract<CredentialRule, 'credential-value' | 'kubeconfig-client-key' | 'registry-credential'>;
  /** Only a value that looks random counts (a key that merely contains a credential word). */
  needsEntropy: boolean;
}

/** Whether the value under `key` (its grandparent's key given) is a credential when it is a literal. */
export function keyRule(key: string, grandparent: string | number | undefined): KeyRule | undefined {
  if (grandparent === 'auths' && REGISTRY_KEYS.has(normalized(key)))
    return { rule: 'registry-credential', needsEntropy: false };
  // Keys repeat across documents (a Shoot has a few hundred, mostly the same): each is classified once.
  let rule = rules.get(key);
  if (rule === undefined) {
    rule = ruleOf(key);
    if (rules.size >= MAX_REMEMBERED_KEYS) rules.clear();
    rules.set(key, rule);
  }
  return rule ?? undefined;
}

const MAX_REMEMBERED_KEYS = 10_000;
const rules = new Map<string, KeyRule | null>();
const normalized = (key: string) => key.toLowerCase().replace(/[-_.\s]/g, '');

function ruleOf(key: string): KeyRule | null {
  const name = normalized(key);
  if (name === 'clientkeydata') return { rule: 'kubeconfig-client-key', needsEntropy: false };
  if (CREDENTIAL_KEYS.has(name)) return { rule: 'credential-value', needsEntropy: false };
  if (!CREDENTIAL_WORDS.test(name)) return null;
  const last =
    key
      .split(/[-_.\s]|(?<=[a-z0-9])(?=[A-Z])/)
      .at(-1)
      ?.toLowerCase() ?? '';
  return REFERENCE_WORDS.has(last) ? null : { rule: 'credential-value', needsEntropy: true };
}

/**
 * A value that holds something, not a reference, placeholder or empty: `${X}`, `${{ secrets.X }}`, `$(X)`,
 * `{{ x }}`, `<your token>`, `***`, `xxxx`, `...`, `redacted`, `changeme`, a schema's `string`.
 */
export function isLiteral(value: string): boolean {
  const text = value.trim();
  if (text === '' || text === '~' || /^(null|true|false|\d+)$/i.test(text)) return false;
  if (/^(\$\{.*\}|\$\(.*\)|\{\{.*\}\}|<[^>]*>|\*+|x{3,}|\.\.\.|redacted|changeme|change-me)$/is.test(text))
    return false;
  return !/^(string|integer|boolean|object)$/.test(text);
}

/** Gitleaks' threshold for generic secrets: Shannon entropy of at least 3.5 bits per character. */
const MIN_ENTROPY = 3.5;

/**
 * A value that looks random enough to be a secret: 12+ characters without spaces, high entropy, and not a
 * resource name (lower-case words joined by `-` or `.`, like `shoot-dns-service-aws-route53-secret-dev`,
 * which a key such as a DNS provider's `credentials` refers to).
 */
export function looksRandom(value: string): boolean {
  if (value.length < 12 || /\s/.test(value)) return false;
  if (/^[a-z0-9]{1,12}([-.][a-z0-9]{1,12})+$/.test(value)) return false;
  const counts = new Map<string, number>();
  for (const char of value) counts.set(char, (counts.get(char) ?? 0) + 1);
  let entropy = 0;
  for (const count of counts.values()) entropy -= (count / value.length) * Math.log2(count / value.length);
  return entropy >= MIN_ENTROPY;
}

/** What a token is, as a message may say it: a private key by its kind alone, other tokens masked. */
export function describeToken(pattern: TokenPattern, token: string): string {
  return pattern.rule === 'private-key' ? pattern.what : `${pattern.what} (${masked(token, pattern.prefix)})`;
}

/** The secret as a message may show it: the format's public prefix at most, and its length. */
export function masked(value: string, prefix = 0): string {
  return `${prefix > 0 ? `${value.slice(0, prefix)}…, ` : ''}${value.length} ${value.length === 1 ? 'character' : 'characters'}`;
}
