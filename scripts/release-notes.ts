// The notes of a release: `tsx scripts/release-notes.ts v1.2.3` prints CHANGELOG.md's section for 1.2.3, after
// checking that the tag names the version package.json carries. The release workflow runs it before anything is
// built, so a tag without its version or its changelog section fails first (docs/release.md).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

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

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exitCode = main(process.argv[2]);
