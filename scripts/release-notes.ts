// The notes of a release: `tsx scripts/release-notes.ts v1.2.3` prints CHANGELOG.md's section for 1.2.3, after
// checking that the tag names the version package.json carries. The release workflow runs it before anything is
// built, so a tag without its version or its changelog section fails first (docs/release.md). Once the package is
// packed, `tsx scripts/release-notes.ts --pin v1.2.3 <kimops-1.2.3.tgz> <its download URL>` prints the section on
// installing it pinned: its sha512 and what a landscape repo's workflow names.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { readReleaseTarball } from '../adapters/files/release-tarball.js';
import { defaultReleaseUrl } from '../cli/init-values.js';

const ROOT = new URL('../', import.meta.url);

/** Semantic versions as tags name them: v1.2.3, v1.2.3-rc.1 (no build metadata). */
const TAG = /^v(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)$/;

/** The version a release tag names, or undefined when it names none. */
export function tagVersion(tag: string): string | undefined {
  return TAG.exec(tag)?.[1];
}

/**
 * The body of a version's section in a Keep a Changelog file (`## [1.2.3] - 2026-12-01` up to the next `## `),
 * trimmed; undefined when there is no such section or it is empty.
 */
export function changelogSection(changelog: string, version: string): string | undefined {
  const lines = changelog.split(/\r?\n/);
  const heading = (line: string) => /^## \[?([^\]\s]+)\]?(?:\s|$)/.exec(line)?.[1];
  const start = lines.findIndex((line) => heading(line) === version);
  if (start < 0) return undefined;
  const end = lines.findIndex((line, i) => i > start && line.startsWith('## '));
  // Link reference definitions ([0.2.0]: https://…) close the file, not a section.
  const body = lines
    .slice(start + 1, end < 0 ? undefined : end)
    .filter((line) => !/^\[[^\]]+\]:\s/.test(line))
    .join('\n')
    .trim();
  return body === '' ? undefined : body;
}

/** How to install the release pinned, for its notes: the download checked against its sha512, and a landscape repo's workflow values. */
export function pinNotes({ version, url, sha512 }: { version: string; url: string; sha512: string }): string {
  const file = `kimops-${version}.tgz`;
  const urlOption = url === defaultReleaseUrl(version) ? '' : ` --release-url ${url}`;
  return [
    '### Install it pinned',
    '',
    `\`${file}\` holds kimops and its \`npm-shrinkwrap.json\`, which pins every dependency with its integrity. Its sha512:`,
    '',
    '```',
    sha512,
    '```',
    '',
    'Download and check it, then install exactly the pinned dependencies:',
    '',
    '```sh',
    `curl -fLO ${url}`,
    `echo "${sha512}  ${file}" | sha512sum --check`,
    `mkdir kimops && tar -xzf ${file} -C kimops --strip-components=1 && (cd kimops && npm ci --omit=dev --ignore-scripts)`,
    '```',
    '',
    'A new landscape repo whose validate workflow installs this release (checked against the sha512 on every run):',
    '',
    '```sh',
    `kimops init --landscape <name|dir> --release-tarball ${file}${urlOption} --reviewers @<org>/<team> <dir|url>`,
    '```',
    '',
    'An existing landscape repo: set these in its `.github/workflows/validate.yml`:',
    '',
    '```yaml',
    'env:',
    `  KIMOPS_VERSION: '${version}'`,
    `  KIMOPS_TARBALL_URL: '${url}'`,
    `  KIMOPS_TARBALL_SHA512: '${sha512}'`,
    '```',
  ].join('\n');
}

async function mainPin(tag: string | undefined, tarball: string | undefined, url: string | undefined): Promise<number> {
  const version = tagVersion(tag ?? '');
  if (version === undefined || tarball === undefined || url === undefined) {
    process.stderr.write(
      'usage: release-notes.ts --pin v<major>.<minor>.<patch> <kimops-<version>.tgz> <download URL>\n',
    );
    return 2;
  }
  const release = await readReleaseTarball(tarball).catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    return undefined;
  });
  if (release === undefined) return 1;
  if (release.version !== version) {
    process.stderr.write(`tag ${tag} names ${version}, but ${tarball} holds kimops ${release.version}\n`);
    return 1;
  }
  process.stdout.write(`\n${pinNotes({ version, url, sha512: release.sha512 })}\n`);
  return 0;
}

function main(tag: string | undefined): number {
  const version = tagVersion(tag ?? '');
  if (version === undefined) {
    process.stderr.write(`usage: release-notes.ts v<major>.<minor>.<patch>, got ${JSON.stringify(tag ?? '')}\n`);
    return 2;
  }
  const pkg = JSON.parse(readFileSync(new URL('package.json', ROOT), 'utf8')) as { version?: unknown };
  if (pkg.version !== version) {
    process.stderr.write(`tag ${tag} names ${version}, but package.json's version is ${String(pkg.version)}\n`);
    return 1;
  }
  const notes = changelogSection(readFileSync(new URL('CHANGELOG.md', ROOT), 'utf8'), version);
  if (notes === undefined) {
    process.stderr.write(`CHANGELOG.md has no section for ${version}: add "## [${version}] - <date>" with its notes\n`);
    return 1;
  }
  process.stdout.write(`${notes}\n`);
  return 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [first, ...rest] = process.argv.slice(2);
  if (first === '--pin') process.exitCode = await mainPin(rest[0], rest[1], rest[2]);
  else process.exitCode = main(first);
}
