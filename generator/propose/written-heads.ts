// The heads kimops wrote to a PR's branch, hidden in the PR body: a head that is none of them was pushed by
// someone else, whose commit kimops never rewrites, closes over or deletes.
const WROTE = /<!-- kimops:wrote ([0-9a-f]{40}) -->/g;

/** The hidden line naming `sha` as a head kimops wrote. */
export const wroteLine = (sha: string) => `<!-- kimops:wrote ${sha} -->\n`;

/** Whether the PR's head is one kimops wrote. */
export function wroteByKimops(pr: { body: string; headSha: string }): boolean {
  return [...pr.body.matchAll(WROTE)].some((match) => match[1] === pr.headSha);
}
