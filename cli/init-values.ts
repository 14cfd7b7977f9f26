// What `kimops init` fills into the template beyond the landscape's name and project: the kimops release the
// validate workflow installs (version, URL, sha512) and the CODEOWNERS line. Pure: options and facts in, the
// placeholder values and the notes for the user out. Never a made-up default: without a release the workflow
// is written to fail saying what to fill in, without reviewers CODEOWNERS names nobody and says whom to name.
import { ConfigError } from '../model/errors.js';

/** Where kimops's GitHub releases are; a release's tarball is `<this>/v<version>/kimops-<version>.tgz`. */
const KIMOPS_RELEASES = 'https://github.com/kyma-project/kimops/releases/download';

/** The workflow's placeholders; all empty when no release is pinned (the workflow then fails, saying why). */
export interface WorkflowValues {
  kimopsVersion: string;
  kimopsTarballUrl: string;
  kimopsTarballSha512: string;
}

export interface ReleaseFacts {
  /** The release tarball's version and sha512 (adapters/files/release-tarball.ts). */
  version: string;
  sha512: string;
}

/** A GitHub user (@name), team (@org/team) or an e-mail address, as CODEOWNERS takes them. */
const OWNER = /^(?:@[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:\/[A-Za-z0-9][A-Za-z0-9._-]*)?|[^\s@,]+@[^\s@,]+\.[^\s@,]+)$/;

export function workflowValues(
  release: ReleaseFacts | undefined,
  url: string | undefined,
): { values: WorkflowValues; url?: string } {
  if (release === undefined) {
    if (url !== undefined)
      throw new ConfigError(
        '--release-url',
        '',
        'needs --release-tarball: the checksum the workflow checks is taken from the tarball; pass the file too',
      );
    return { values: { kimopsVersion: '', kimopsTarballUrl: '', kimopsTarballSha512: '' } };
  }
  const where = url === undefined ? defaultReleaseUrl(release.version) : releaseUrl(url);
  return {
    values: { kimopsVersion: release.version, kimopsTarballUrl: where, kimopsTarballSha512: release.sha512 },
    url: where,
  };
}

export function defaultReleaseUrl(version: string): string {
  return `${KIMOPS_RELEASES}/v${version}/kimops-${version}.tgz`;
}

/** An http(s) URL the workflow can fetch, normalised; nothing that a YAML string or a shell would read as more. */
function releaseUrl(given: string): string {
  let parsed: URL | undefined;
  try {
    parsed = new URL(given);
  } catch {
    parsed = undefined;
  }
  const refuse = (why: string) =>
    new ConfigError('--release-url', '', `${given} ${why}; pass the https URL the release tarball is downloaded from`);
  if (!parsed || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')) throw refuse('is not an http(s) URL');
  if (parsed.username || parsed.password) throw refuse('holds credentials, which would be committed to the repo');
  if (/['"\s\\`$]/.test(parsed.href)) throw refuse('holds a quote, space, backslash, ` or $');
  return parsed.href;
}

/** `--reviewers @org/team,@user` → their list; refused when one is no CODEOWNERS owner. */
export function reviewersOf(given: string | undefined): string[] | undefined {
  if (given === undefined) return undefined;
  const owners = given
    .split(',')
    .map((owner) => owner.trim())
    .filter((owner) => owner !== '');
  const bad = owners.find((owner) => !OWNER.test(owner));
  if (owners.length === 0 || bad !== undefined)
    throw new ConfigError(
      '--reviewers',
      '',
      `${JSON.stringify(bad ?? given)} is not a GitHub team (@org/team), user (@name) or e-mail address; pass e.g. --reviewers @acme/landscape-owners`,
    );
  return [...new Set(owners)];
}

/** The CODEOWNERS rule: every file owned by the reviewers, or, with none, a comment saying whom to name. */
export function codeownersRule(reviewers: readonly string[] | undefined, landscape: string): string {
  if (reviewers !== undefined) return `* ${reviewers.join(' ')}`;
  return [
    "# No reviewers are named yet (kimops init ran without --reviewers): GitHub requests nobody's review, and no",
    `# code-owner approval can be required. Name the team that owns landscape ${landscape} on a line of its own:`,
    '#   * @<org>/<team>',
  ].join('\n');
}

/** What the user should know about a repo made without a release or reviewers. */
export function initNotes(facts: {
  release: ReleaseFacts | undefined;
  reviewers: readonly string[] | undefined;
  runningVersion: string;
  /** A GitHub repository, whose merges would wait for the workflow's check once it runs. */
  github?: boolean;
}): string[] {
  const notes: string[] = [];
  if (facts.release === undefined) {
    notes.push(
      "note: .github/workflows/validate.yml names no kimops release and fails until it does: set KIMOPS_VERSION, KIMOPS_TARBALL_URL and KIMOPS_TARBALL_SHA512 in it (a kimops release's notes give them), or create the repo with --release-tarball kimops-<version>.tgz",
    );
    // A required check that cannot pass would hold every PR: it is required only once the workflow can run.
    if (facts.github === true)
      notes.push(
        'note: merges do not wait for the workflow\'s check "validate" until it runs: once the workflow names a release, add "validate" to requiredChecks in kimops.yaml and to the required checks of the ruleset "kimops: main" (docs/github.md)',
      );
  } else if (facts.release.version !== facts.runningVersion)
    notes.push(
      `note: the validate workflow installs kimops ${facts.release.version}, this is kimops ${facts.runningVersion}: the repo's checks may differ from the generator's; pass the release tarball of the version the generator runs`,
    );
  if (facts.reviewers === undefined)
    notes.push(
      'note: CODEOWNERS names no reviewers: add "* @<org>/<team>" to it (or pass --reviewers @<org>/<team> to kimops init); until then no review by code owners can be required',
    );
  return notes;
}
