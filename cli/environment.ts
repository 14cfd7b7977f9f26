// What kimops reads from the environment: credentials only, never flags (they would end up in shell history
// and process lists). Names only, so the help texts can quote them without loading the adapters.

/** Where the token for a remote landscape repo comes from, first set (non-empty) wins. */
export const GIT_TOKEN_ENV = ['KIMOPS_GIT_TOKEN', 'GITHUB_TOKEN'] as const;
/** The GitHub API token; a GitHub App instead when its three variables are set. */
export const GITHUB_TOKEN_ENV = ['GITHUB_TOKEN', 'KIMOPS_GIT_TOKEN'] as const;
export const GITHUB_APP_ENV = {
  id: 'KIMOPS_GITHUB_APP_ID',
  privateKeyFile: 'KIMOPS_GITHUB_APP_PRIVATE_KEY_FILE',
  installationId: 'KIMOPS_GITHUB_APP_INSTALLATION_ID',
} as const;

/** The webhook's shared secret (apply --webhook-port). */
export const WEBHOOK_SECRET_ENV = 'KIMOPS_WEBHOOK_SECRET';
