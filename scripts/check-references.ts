// `npx tsx scripts/check-references.ts`: fails when a file of the repository points at something its reader
// cannot open — a path that leaves the repository, a design or contract document that is not in it, a
// markdown link to a missing file. What the code relies on is written into docs/ (docs/design.md,
// docs/contracts/) and cited there. The check is a pure function over (path, text); main only reads git.
import { execFileSync } from 'node:child_process';
import { lstatSync, readFileSync } from 'node:fs';
import { posix } from 'node:path';
import { fileURLToPath } from 'node:url';

export type ProblemKind = 'outside-repository' | 'missing-document' | 'broken-link';

export interface Problem {
  file: string;
  line: number;
  kind: ProblemKind;
  reference: string;
}

/** The repository as the check sees it: every file and folder (repo-relative, `/`), and the files' names. */
export interface RepoIndex {
  paths: ReadonlySet<string>;
  basenames: ReadonlySet<string>;
}

export function repoIndex(files: readonly string[]): RepoIndex {
  const paths = new Set<string>();
  for (const file of files) {
    paths.add(file);
    for (let dir = posix.dirname(file); dir !== '.'; dir = posix.dirname(dir)) paths.add(dir);
  }
  return { paths, basenames: new Set(files.map((file) => posix.basename(file))) };
}

// A sibling checkout next to the repository, or this machine's absolute paths.
const OUTSIDE = /(?:\.\.\/)+shared\b[\w./-]*|(?<![\w.~-])\/work\/[\w./-]*/g;
// The design cited by its title and a section sign instead of a file (its `.md` form is checked as a path).
const DESIGN_SECTION = /\bDESIGN\s*§/g;
// A markdown link's target: `[text](target)` or `[text](target "title")`.
const MD_LINK = /\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g;
// A document named by a path or a bare file name ending in `.md`.
const MD_PATH = /(?<![\w./-])([\w./-]*[\w-]\.md)(?![\w/-])/g;
// What makes such a name a citation: a section sign after it, a contracts folder, the design's old file name.
// (Other `.md` names are often test data: a file a test writes into a landscape repo.)
const SECTION_AFTER = /^[`'"*_]*\s*§/;
const CITED_FOLDER = /(?:^|\/)contracts\//;
const CITED_NAME = /^DESIGN\.md$/;
// URLs name other sites' files, not ours.
const URL = /\b[a-z][a-z0-9+.-]*:\/\/\S+/gi;

const blank = (found: string) => ' '.repeat(found.length);

/** Every reference in `text` (the content of the repository's file `file`) that a reader cannot follow. */
export function findProblems(file: string, text: string, repo: RepoIndex): Problem[] {
  const problems: Problem[] = [];
  const dir = posix.dirname(file);
  for (const [index, raw] of text.split('\n').entries()) {
    const report = (kind: ProblemKind, reference: string) => problems.push({ file, line: index + 1, kind, reference });
    let line = raw.replace(URL, blank);
    for (const [found] of line.matchAll(OUTSIDE)) report('outside-repository', found);
    line = line.replace(OUTSIDE, blank);
    for (const [found] of line.matchAll(DESIGN_SECTION)) report('missing-document', found);
    if (file.endsWith('.md')) {
      for (const [, target = ''] of line.matchAll(MD_LINK)) {
        const kind = linkProblem(dir, target, repo);
        if (kind) report(kind, target);
      }
      line = line.replace(MD_LINK, blank);
    }
    for (const match of line.matchAll(MD_PATH)) {
      const name = match[1] ?? '';
      const after = line.slice(match.index + name.length);
      const cited = SECTION_AFTER.test(after) || CITED_FOLDER.test(name) || CITED_NAME.test(posix.basename(name));
      const kind = cited ? documentProblem(dir, name, repo) : undefined;
      if (kind) report(kind, name);
    }
  }
  return problems;
}

function linkProblem(dir: string, target: string, repo: RepoIndex): ProblemKind | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#')) return undefined;
  const path = decodeURI(target.replace(/[#?].*$/, ''));
  if (path === '') return undefined;
  // GitHub reads a leading `/` as the repository's root.
  const resolved = path.startsWith('/') ? posix.normalize(path.slice(1)) : posix.join(dir, path);
  if (leaves(resolved)) return 'outside-repository';
  return resolved === '.' || repo.paths.has(resolved.replace(/\/$/, '')) ? undefined : 'broken-link';
}

function documentProblem(dir: string, name: string, repo: RepoIndex): ProblemKind | undefined {
  if (name.startsWith('/')) return 'outside-repository';
  const fromFile = posix.join(dir, name);
  if (name.startsWith('../') && leaves(fromFile)) return 'outside-repository';
  // Relative to the citing file, or from the repository's root (how code comments name files).
  if (repo.paths.has(fromFile) || repo.paths.has(posix.normalize(name))) return undefined;
  // A bare name (no folder) is fine while some file of the repository has it.
  if (!name.includes('/') && repo.basenames.has(name)) return undefined;
  return 'missing-document';
}

function leaves(path: string): boolean {
  return path === '..' || path.startsWith('../');
}

const WHAT: Record<ProblemKind, string> = {
  'outside-repository': 'leaves the repository',
  'missing-document': 'names a document that is not in the repository',
  'broken-link': 'links to a path that does not exist',
};

/** One line per problem, in the form editors jump to. */
export function formatProblem(problem: Problem): string {
  const { file, line, kind, reference } = problem;
  return `${file}:${line}: reference ${reference} ${WHAT[kind]} — write it into docs/ and cite that`;
}

// The test's cases are the forbidden forms themselves.
const EXEMPT = new Set(['scripts/check-references.test.ts']);
// Generated, or data too large to hold prose.
const SKIPPED = new Set(['package-lock.json']);
const MAX_BYTES = 1_000_000;

function isFile(path: string): boolean {
  return lstatSync(path, { throwIfNoEntry: false })?.isFile() ?? false;
}

function main(): void {
  process.chdir(execFileSync('git', ['rev-parse', '--show-toplevel'], { encoding: 'utf8' }).trim());
  // Tracked files, and new ones not ignored yet, so a document is checked before its first commit.
  const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    encoding: 'utf8',
  });
  // Regular files only: a deleted file is still listed until staged, and a symbolic link is no text of ours.
  const files = [...new Set(listed.split('\0'))].filter((file) => file !== '' && isFile(file)).sort();
  const repo = repoIndex(files);
  const problems: Problem[] = [];
  for (const file of files) {
    if (EXEMPT.has(file) || SKIPPED.has(file) || lstatSync(file).size > MAX_BYTES) continue;
    const bytes = readFileSync(file);
    if (bytes.includes(0)) continue; // binary
    problems.push(...findProblems(file, bytes.toString('utf8'), repo));
  }
  for (const problem of problems) console.error(formatProblem(problem));
  if (problems.length > 0) {
    const counts = (Object.keys(WHAT) as ProblemKind[])
      .map((kind) => `${problems.filter((problem) => problem.kind === kind).length} ${kind}`)
      .join(', ');
    console.error(`\n${problems.length} reference(s) a reader of this repository cannot follow (${counts})`);
    process.exit(1);
  }
  console.log(`references: ${files.length} files checked, every reference stays inside the repository`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
