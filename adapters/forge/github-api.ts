/** github.com's REST API; GitHub Enterprise serves it at https://<host>/api/v3. */
export const GITHUB_API = 'https://api.github.com';
