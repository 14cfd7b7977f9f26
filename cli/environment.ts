// What kimops reads from the environment: credentials only, never flags (they would end up in shell history
// and process lists). Names only, so the help texts can quote them without loading the adapters.
//
// A credential may also come from a file (a mounted Secret, the way a Pod gets it): each *_FILE variable
// names one, and wins over the variables after it. kimops reads such a file again when it is replaced (every
// 10 s at most, and at once after GitHub refused the token), so a rotated token needs no restart. Neither a
// token nor a key is ever printed: messages name the variable or the file.

/** Where the token for a remote landscape repo comes from, first set (non-empty) wins. */
export const GIT_TOKEN_ENV = ['KIMOPS_GIT_TOKEN', 'GITHUB_TOKEN'] as const;
/** The GitHub API token; a GitHub App instead when its three variables are set. */
export const GITHUB_TOKEN_ENV = ['GITHUB_TOKEN', 'KIMOPS_GIT_TOKEN'] as const;
/** A file holding the git token; it wins over KIMOPS_GIT_TOKEN, and serves the GitHub API after GITHUB_TOKEN. */
const GIT_TOKEN_FILE_ENV = 'KIMOPS_GIT_TOKEN_FILE';
/** A file holding the GitHub API token; it wins over GITHUB_TOKEN, and serves git after KIMOPS_GIT_TOKEN. */
const GITHUB_TOKEN_FILE_ENV = 'KIMOPS_GITHUB_TOKEN_FILE';
/**
 * Where each token comes from, in order, first set (non-empty) wins: each credential's file, then its variable.
 * git: KIMOPS_GIT_TOKEN_FILE, KIMOPS_GIT_TOKEN, KIMOPS_GITHUB_TOKEN_FILE, GITHUB_TOKEN;
 * the GitHub API: KIMOPS_GITHUB_TOKEN_FILE, GITHUB_TOKEN, KIMOPS_GIT_TOKEN_FILE, KIMOPS_GIT_TOKEN.
 */
export const GIT_TOKEN_SOURCES = [
  { file: GIT_TOKEN_FILE_ENV },
  { variable: GIT_TOKEN_ENV[0] },
  { file: GITHUB_TOKEN_FILE_ENV },
  { variable: GIT_TOKEN_ENV[1] },
] as const;
export const GITHUB_TOKEN_SOURCES = [
  { file: GITHUB_TOKEN_FILE_ENV },
  { variable: GITHUB_TOKEN_ENV[0] },
  { file: GIT_TOKEN_FILE_ENV },
  { variable: GITHUB_TOKEN_ENV[1] },
] as const;
/** A token source as a help text names it: the variable, or the variable naming a file. */
export function sourcesText(sources: readonly ({ file: string } | { variable: string })[]): string {
  return sources.map((source) => ('file' in source ? `the file in ${source.file}` : source.variable)).join(', ');
}

/** A GitHub App; its private key file is read again when replaced, like the token files. */
export const GITHUB_APP_ENV = {
  id: 'KIMOPS_GITHUB_APP_ID',
  privateKeyFile: 'KIMOPS_GITHUB_APP_PRIVATE_KEY_FILE',
  installationId: 'KIMOPS_GITHUB_APP_INSTALLATION_ID',
} as const;

/** The webhook's shared secret (apply --webhook-port). */
export const WEBHOOK_SECRET_ENV = 'KIMOPS_WEBHOOK_SECRET';
