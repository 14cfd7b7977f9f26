// Who owns a file of the landscape repo by its CODEOWNERS file, read as GitHub reads it, and which approvals of a
// pull request count for a class that waits for review. Pure: the file's text, the changed paths, the approvers
// and the team memberships the caller looked up (generator/code-owner-approvals.ts) in; the tally out.
//
// GitHub's rules ("About code owners" on docs.github.com):
// - the file is the first of .github/CODEOWNERS, CODEOWNERS, docs/CODEOWNERS on the base branch;
// - each line is a pattern and its owners, `#` starts a comment (also after a pattern); the last line whose
//   pattern matches a file decides its owners, and a matching line that names none leaves the file unowned;
// - patterns are .gitignore's (`/` anchors to the root, as does a `/` inside; `*` and `?` stay within a folder;
//   `**` spans folders; a trailing `/` means a folder's contents), except that `docs/*` owns only the files
//   directly in docs/, and `!` and `[ ]` are not supported: GitHub skips such a line, and so does this;
// - owners are `@user`, `@org/team` or an e-mail address; an e-mail address owns nothing kimops can check (GitHub
//   maps it to an account kimops cannot see), so it never matches a reviewer.

/** Where GitHub looks for the file, in its order: the first that exists counts. */
export const CODEOWNERS_PATHS = ['.github/CODEOWNERS', 'CODEOWNERS', 'docs/CODEOWNERS'] as const;

export interface CodeOwnersRule {
  pattern: string;
  /** As written: `@user`, `@org/team`, `name@example.com`; empty when the line leaves its files unowned. */
  owners: readonly string[];
  matches: RegExp;
}

/** The changed files that have owners, grouped by who owns them. */
export interface OwnedFiles {
  owners: readonly string[];
  paths: readonly string[];
}

/** Whose approvals count: the code owners of the PR's files, or its collaborators where CODEOWNERS names none. */
type Reviewers = { by: 'code-owners'; owners: readonly string[] } | { by: 'collaborators' };

/** The approvals of a PR's head that count, and for whom. */
export interface ApprovalTally {
  count: number;
  reviewers: Reviewers;
  /** Owned files none of whose owners approved yet: GitHub's rule wants an owner's approval for every one. */
  waitingFor: readonly OwnedFiles[];
  /** Team memberships the forge would not show (so those approvals did not count), each with the fix. */
  unreadable?: readonly string[];
}

/** What nobody but the forge knows: whether `reviewer` is in the team `org/team`. */
export type TeamMembership = (team: string, reviewer: string) => boolean;

// Logins and organisations: letters, digits and hyphens (Enterprise Managed Users add `_shortcode`).
const USER = /^@[A-Za-z0-9][A-Za-z0-9_-]*$/;
const TEAM = /^@([A-Za-z0-9][A-Za-z0-9_-]*)\/([A-Za-z0-9][A-Za-z0-9._-]*)$/;
const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;

/** The rules of a CODEOWNERS file, in order; lines GitHub would skip as invalid are skipped. */
export function parseCodeOwners(text: string): CodeOwnersRule[] {
  const rules: CodeOwnersRule[] = [];
  for (const line of text.split(/\r?\n/)) {
    // Whitespace separates the pattern and its owners; `\ ` is a space inside a pattern.
    const tokens = line.trim().split(/(?<!\\)\s+/);
    const comment = tokens.findIndex((token) => token.startsWith('#'));
    const [raw, ...owners] = comment === -1 ? tokens : tokens.slice(0, comment);
    if (raw === undefined || raw === '') continue;
    const pattern = raw.replace(/\\([# ])/g, '$1');
    const matches = matcherOf(pattern);
    if (matches === undefined || !owners.every((owner) => USER.test(owner) || TEAM.test(owner) || EMAIL.test(owner)))
      continue;
    rules.push({ pattern, owners, matches });
  }
  return rules;
}

/** The owners of `path` (repo-relative, no leading `/`): the last matching rule's; none when no rule matches. */
export function ownersOf(rules: readonly CodeOwnersRule[], path: string): readonly string[] {
  return rules.findLast((rule) => rule.matches.test(path))?.owners ?? [];
}

/** The changed files that have owners, grouped by their owners, in the order the files come. */
export function ownedFiles(rules: readonly CodeOwnersRule[], paths: readonly string[]): OwnedFiles[] {
  const groups = new Map<string, { owners: readonly string[]; paths: string[] }>();
  for (const path of paths) {
    const owners = ownersOf(rules, path);
    if (owners.length === 0) continue;
    const key = owners.join(' ');
    const group = groups.get(key) ?? { owners, paths: [] };
    group.paths.push(path);
    groups.set(key, group);
  }
  return [...groups.values()];
}

/** The team memberships the tally needs: each approver against each team owning a file they own no other way. */
export function teamLookups(
  owned: readonly OwnedFiles[],
  approvers: readonly string[],
): { team: string; reviewer: string }[] {
  const lookups = new Map<string, { team: string; reviewer: string }>();
  for (const reviewer of approvers)
    for (const { owners } of owned) {
      if (owners.some((owner) => isUser(owner, reviewer))) continue;
      for (const owner of owners) {
        const team = teamOf(owner);
        if (team !== undefined) lookups.set(`${team} ${reviewer}`, { team, reviewer });
      }
    }
  return [...lookups.values()];
}

/**
 * The approvals that count: where CODEOWNERS owns some changed file, those of its owners (directly, or through a
 * team), and every owned file needs one of its own owners' approval; where it owns none, every approval the forge
 * gives (on GitHub only the repository's owners, members and collaborators: adapters/forge/github.ts).
 */
export function tallyApprovals(
  owned: readonly OwnedFiles[],
  approvers: readonly string[],
  inTeam: TeamMembership,
): ApprovalTally {
  const distinct = [...new Map(approvers.map((reviewer) => [normalised(reviewer), reviewer])).values()];
  if (owned.length === 0) return { count: distinct.length, reviewers: { by: 'collaborators' }, waitingFor: [] };
  const owns = (owner: string, reviewer: string) => {
    const team = teamOf(owner);
    return team === undefined ? isUser(owner, reviewer) : inTeam(team, reviewer);
  };
  const ownsAny = (group: OwnedFiles, reviewer: string) => group.owners.some((owner) => owns(owner, reviewer));
  return {
    count: distinct.filter((reviewer) => owned.some((group) => ownsAny(group, reviewer))).length,
    reviewers: { by: 'code-owners', owners: [...new Set(owned.flatMap((group) => group.owners))] },
    waitingFor: owned.filter((group) => !distinct.some((reviewer) => ownsAny(group, reviewer))),
  };
}

/** `@org/team` as `org/team`; undefined for a user or an e-mail address. */
function teamOf(owner: string): string | undefined {
  const found = TEAM.exec(owner);
  return found ? `${found[1]}/${found[2]}` : undefined;
}

function isUser(owner: string, reviewer: string): boolean {
  return USER.test(owner) && owner.slice(1).toLowerCase() === normalised(reviewer);
}

/** GitHub's logins ignore case; a reviewer named on the local forge may carry the `@`. */
function normalised(reviewer: string): string {
  return reviewer.replace(/^@/, '').toLowerCase();
}

/** A pattern as a regular expression over repo-relative paths; undefined for what GitHub does not support. */
function matcherOf(pattern: string): RegExp | undefined {
  if (pattern.startsWith('!') || /[[\]]/.test(pattern)) return undefined;
  const folder = pattern.endsWith('/');
  const body = folder ? pattern.slice(0, -1) : pattern;
  // A `/` at the start or inside anchors to the root; otherwise the pattern matches at any depth.
  const anchored = body.includes('/');
  const segments = body.replace(/^\//, '').split('/');
  if (segments.join('') === '') return /^/;
  let expression = '';
  segments.forEach((segment, index) => {
    const last = index === segments.length - 1;
    if (segment === '**') expression += last ? '.*' : '(?:.*/)?';
    else expression += `${segmentExpression(segment)}${last ? '' : '/'}`;
  });
  const lastSegment = segments.at(-1) ?? '';
  // A folder's name owns what is below it; a wildcard name (docs/*) only what it matches itself.
  const below = folder ? '/.*' : lastSegment === '**' || /[*?]/.test(lastSegment) ? '' : '(?:/.*)?';
  return new RegExp(`^${anchored ? '' : '(?:.*/)?'}${expression}${below}$`);
}

function segmentExpression(segment: string): string {
  return segment
    .split('')
    .map((char) => (char === '*' ? '[^/]*' : char === '?' ? '[^/]' : char.replace(/[.+^${}()|\\]/g, '\\$&')))
    .join('');
}
