// The repo-level rule "no Secret objects or credentials anywhere in the landscape repo": a scan over
// file texts (path → text). Pure; the caller lists and reads the files. It is not a
// ValidatingAdmissionPolicy: a VAP matches requests by resource, and one denying `secrets` in the
// garden cluster would also deny the Secrets Gardener and its operators create there. In Git, every
// file is ours, so the rule is checked over files instead.

export type CredentialRule = 'secret-object' | 'private-key' | 'kubeconfig-client-key' | 'credential-value' | 'token-pattern';

export interface CredentialFinding {
  path: string;
  /** 1-based line of the finding. */
  line: number;
  rule: CredentialRule;
  /** What was found and how to fix it; never the credential itself. */
  message: string;
}

/** A line carrying this marker is not reported (a documented example value, a test fixture). */
export const ALLOW_MARKER = 'kimops: not-a-secret';

const FIX = 'remove it from the repo and rotate it; credentials live in the cluster (Secrets referenced by name), never in Git';

/** A top-level `kind: Secret` (YAML at column 0, or a JSON document's first-level "kind"). */
const SECRET_KIND_YAML = /^kind:\s*["']?Secret["']?\s*(#.*)?$/;
const SECRET_KIND_JSON = /^\s{0,2}"kind"\s*:\s*"Secret"\s*,?\s*$/;
const PRIVATE_KEY = /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY( BLOCK)?-----/;
const KUBECONFIG_CLIENT_KEY = /^\s*-?\s*["']?(client-key-data|client-key)["']?\s*:\s*(.*)$/;
/** Keys whose value is a credential when it is a literal (not a reference or placeholder). */
const CREDENTIAL_KEY =
  /^\s*-?\s*["']?(password|passwd|pwd|token|access[_-]?token|refresh[_-]?token|id[_-]?token|auth[_-]?token|bearer[_-]?token|api[_-]?key|apikey|secret|client[_-]?secret|secret[_-]?access[_-]?key|aws[_-]?secret[_-]?access[_-]?key|private[_-]?key|service[_-]?account[_-]?key)["']?\s*[:=]\s*(.*)$/i;
const TOKEN_PATTERNS: { pattern: RegExp; what: string }[] = [
  { pattern: /\bgh[pousr]_[A-Za-z0-9]{36,}\b/, what: 'a GitHub token' },
  { pattern: /\bgithub_pat_[A-Za-z0-9_]{40,}\b/, what: 'a GitHub fine-grained token' },
  { pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/, what: 'an AWS access key id' },
  { pattern: /\bxox[abprs]-[A-Za-z0-9-]{10,}\b/, what: 'a Slack token' },
  { pattern: /\bAIza[0-9A-Za-z_-]{35}\b/, what: 'a Google API key' },
];
/** Files whose `key: value` lines are data (configs, manifests, docs), not program code. */
const DATA_FILE = /(\.(ya?ml|json|env|ini|properties|conf|cfg|toml|md|txt)|\/[^./]+|^[^./]+|kubeconfig[^/]*)$/i;

/** Finds Secret objects and credentials in the given files, sorted by path and line. */
export function scanForCredentials(files: ReadonlyMap<string, string> | Readonly<Record<string, string>>): CredentialFinding[] {
  const entries = files instanceof Map ? [...files.entries()] : Object.entries(files);
  const findings: CredentialFinding[] = [];
  for (const [path, text] of entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) findings.push(...scanFile(path, text));
  return findings;
}

function scanFile(path: string, text: string): CredentialFinding[] {
  const findings: CredentialFinding[] = [];
  const isData = DATA_FILE.test(path);
  const lines = text.split(/\r?\n/);
  const add = (index: number, rule: CredentialRule, message: string) => findings.push({ path, line: index + 1, rule, message });
  lines.forEach((line, i) => {
    if (line.includes(ALLOW_MARKER)) return;
    if (SECRET_KIND_YAML.test(line) || (path.endsWith('.json') && SECRET_KIND_JSON.test(line))) {
      add(i, 'secret-object', `a Secret object; ${FIX}`);
      return;
    }
    if (PRIVATE_KEY.test(line)) {
      add(i, 'private-key', `a PEM private key; ${FIX}`);
      return;
    }
    for (const { pattern, what } of TOKEN_PATTERNS) {
      if (pattern.test(line)) {
        add(i, 'token-pattern', `${what}; ${FIX}`);
        return;
      }
    }
    if (!isData) return;
    const clientKey = KUBECONFIG_CLIENT_KEY.exec(line);
    if (clientKey && isLiteral(clientKey[2] ?? '', lines[i + 1])) {
      add(i, 'kubeconfig-client-key', `a kubeconfig with a client key (${clientKey[1]}); ${FIX}`);
      return;
    }
    const credential = CREDENTIAL_KEY.exec(line);
    if (credential && isLiteral(credential[2] ?? '', lines[i + 1])) {
      add(i, 'credential-value', `a literal value for "${credential[1]}"; ${FIX}`);
    }
  });
  return findings;
}

/** A value that is a credential, not a reference, placeholder or empty: `${X}`, `{{ x }}`, `<x>`, null, "". */
function isLiteral(raw: string, nextLine: string | undefined): boolean {
  let value = raw.replace(/\s+#.*$/, '').trim();
  if (/^[|>][-+]?\d*$/.test(value)) return nextLine !== undefined && nextLine.trim() !== ''; // a block scalar holds the value below
  value = value.replace(/,$/, '').replace(/^(["'])(.*)\1$/, '$2').trim();
  if (value === '' || value === '~' || /^(null|true|false|\d+)$/i.test(value)) return false;
  if (/^(\$\{.*\}|\$\(.*\)|\{\{.*\}\}|<[^>]*>|\*+|x{3,}|\.\.\.|redacted)$/i.test(value)) return false;
  // `password: string` in a schema, `secret: {…}` or `token: [...]` are structure, not values.
  if (/^[{[]/.test(value) || /^(string|integer|boolean|object)$/.test(value)) return false;
  return true;
}
