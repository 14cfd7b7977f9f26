// `kimops init`, run: the template read (adapters/files/template.ts) and filled for the landscape, the kimops
// release its workflow installs (adapters/files/release-tarball.ts) and the reviewers (init-values.ts); the
// landscape's own landscape.yaml beside it; the target checked (adapters/git/new-repo.ts), the commit made
// (adapters/git/landscape-repo.ts) and, for a URL, pushed (adapters/git/remote.ts). Its options: commands/init.ts.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { LANDSCAPE_FILE, readLandscapeFile } from '../adapters/files/landscape.js';
import { kimopsVersion } from '../adapters/files/package-version.js';
import { readReleaseTarball } from '../adapters/files/release-tarball.js';
import { fillPlaceholders, readTemplate } from '../adapters/files/template.js';
import { outputFolder, writeProblemReason } from '../adapters/files/write-files.js';
import { LandscapeRepo } from '../adapters/git/landscape-repo.js';
import { MAIN_BRANCH } from '../model/contract.js';
import { checkNewRemoteTarget, checkNewRepoTarget, remoteError } from '../adapters/git/new-repo.js';
import { redacted } from '../adapters/git/remote.js';
import { ConfigError } from '../model/errors.js';
import type { Landscape } from '../model/landscape.js';
import { DEFAULT_COMMIT_AUTHOR, KIMOPS_YAML, parseKimopsConfig } from '../model/kimops-config.js';
import { EXIT, type CliIo } from './cli-io.js';
import { GIT_TOKEN_ENV } from './environment.js';
import {
  githubTargetOf,
  requireWorkflowCheck,
  setUpInitBranchRules,
  type GitHubInitOptions,
} from './init-branch-rules.js';
import { codeownersRule, initNotes, reviewersOf, workflowValues } from './init-values.js';
import { gitAuthFromEnv, isHttpUrl, refuseOtherUrls } from './landscape-target.js';

export interface InitOptions extends GitHubInitOptions {
  landscape: string;
  /** The kimops-<version>.tgz the validate workflow installs, checked against its sha512. */
  releaseTarball?: string;
  /** Where the workflow downloads it (default: kimops's GitHub release of its version). */
  releaseUrl?: string;
  /** `@org/team[,…]` for CODEOWNERS. */
  reviewers?: string;
}

const AUTH_HINT = `kimops reads the token from ${GIT_TOKEN_ENV[0]} (or ${GIT_TOKEN_ENV[1]}); set one that may write the repository's contents`;

export async function init(target: string, options: InitOptions, io: CliIo): Promise<number> {
  refuseOtherUrls(target, '<url>');
  const remote = isHttpUrl(target);
  const { landscape, text } = await readLandscapeFile(options.landscape);
  const reviewers = reviewersOf(options.reviewers);
  const release = options.releaseTarball === undefined ? undefined : await readReleaseTarball(options.releaseTarball);
  const workflow = workflowValues(release, options.releaseUrl);
  const files = await templateFiles(landscape, {
    ...workflow.values,
    codeowners: codeownersRule(reviewers, landscape.name),
  });
  // The landscape as given, comments and all: generate, apply and validate read it from the repo.
  files.set(LANDSCAPE_FILE, text);
  // On GitHub, merges wait for the validate workflow's check too (once it names a release it can install), and
  // main gets branch rules once pushed.
  const github = remote ? githubTargetOf(target, options) : undefined;
  if (github && release) requireWorkflowCheck(files);
  const code = remote ? await initRemote(target, landscape, files, io) : await initLocal(target, landscape, files, io);
  if (github && code === EXIT.ok && options.branchRules !== false) await setUpInitBranchRules(github, files, io);
  if (release && workflow.url)
    io.stdout(
      `\nits validate workflow installs kimops ${release.version} from ${workflow.url}, checked against its sha512\n`,
    );
  for (const note of initNotes({ release, reviewers, runningVersion: kimopsVersion(), github: github !== undefined }))
    io.stderr(`${note}\n`);
  return code;
}

async function initLocal(dir: string, landscape: Landscape, files: Map<string, string>, io: CliIo): Promise<number> {
  const gitdir = resolve(dir);
  const { head: existingHead } = await checkNewRepoTarget(dir, gitdir);
  // A file above <dir> is the user's to fix, said before git's folders are made.
  await outputFolder(gitdir, (reason) => new ConfigError('<dir>', '', `${dir} ${reason}`));
  let oid: string | undefined;
  try {
    oid = await initialCommit(await LandscapeRepo.open(gitdir), landscape, files);
  } catch (error) {
    const reason = writeProblemReason(error);
    if (reason === undefined) throw error;
    throw new ConfigError(
      '<dir>',
      '',
      `${dir} cannot be written (${reason}) — pass a folder you may write to; remove what was made there first`,
    );
  }
  report(io, `${dir} (bare)`, dir, landscape, files, oid);
  if (existingHead !== undefined && existingHead !== `ref: refs/heads/${MAIN_BRANCH}`) {
    // A repo made by `git init --bare` elsewhere may name another default branch; clones check out HEAD.
    io.stderr(
      `note: HEAD of ${dir} is "${existingHead}", not ${MAIN_BRANCH}; for clones to check out ${MAIN_BRANCH} run:\n  git --git-dir ${dir} symbolic-ref HEAD refs/heads/${MAIN_BRANCH}\n`,
    );
  }
  return EXIT.ok;
}

/** The same commit as a local init, made in a throw-away bare repo and pushed; nothing stays on disk. */
async function initRemote(url: string, landscape: Landscape, files: Map<string, string>, io: CliIo): Promise<number> {
  const auth = gitAuthFromEnv();
  await checkNewRemoteTarget(url, auth, AUTH_HINT);
  const scratch = await mkdtemp(join(tmpdir(), 'kimops-init-'));
  try {
    const repo = await LandscapeRepo.open(scratch);
    const oid = await initialCommit(repo, landscape, files);
    const pushed = await repo.push(url, MAIN_BRANCH, auth === undefined ? {} : { auth });
    if (!pushed.ok) {
      // Without force, a main created since the check (our commit has no parent) ends here, not overwritten.
      if (pushed.reason === 'rejected')
        throw new ConfigError(
          '<url>',
          '',
          `${redacted(url)} got a ${MAIN_BRANCH} branch while kimops init ran; kimops init only creates new landscape repos`,
        );
      throw remoteError(pushed, AUTH_HINT);
    }
    report(io, redacted(url), redacted(url), landscape, files, oid);
    return EXIT.ok;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** The template filled with the landscape's name and project and the `more` values (workflow, CODEOWNERS). */
async function templateFiles(landscape: Landscape, more: Record<string, string>): Promise<Map<string, string>> {
  const values = { landscape: landscape.name, project: landscape.gardener.project, ...more };
  const template = await readTemplate();
  const files = new Map([...template].map(([path, text]) => [path, fillPlaceholders(text, values)]));
  // A landscape whose name or project kimops.yaml cannot hold is refused before anything is written.
  parseKimopsConfig(files.get(KIMOPS_YAML) ?? '', `${KIMOPS_YAML} for landscape ${landscape.name}`);
  return files;
}

async function initialCommit(
  repo: LandscapeRepo,
  landscape: Landscape,
  files: Map<string, string>,
): Promise<string | undefined> {
  const { oid } = await repo.commitFiles({
    branch: MAIN_BRANCH,
    files,
    message: `Landscape repo for ${landscape.name}\n\nCreated by kimops init from its repo-template/ (Gardener project ${landscape.gardener.project}).`,
    // Fixed, so every landscape repo starts the same way; later commits follow its kimops.yaml.
    author: DEFAULT_COMMIT_AUTHOR,
  });
  return oid;
}

function report(
  io: CliIo,
  what: string,
  cloneFrom: string,
  landscape: Landscape,
  files: Map<string, string>,
  oid: string | undefined,
): void {
  io.stdout(
    `created landscape repo ${what} for landscape ${landscape.name}, Gardener project ${landscape.gardener.project}\n`,
  );
  io.stdout(`commit ${oid ?? '?'} on ${MAIN_BRANCH} with ${files.size} files:\n`);
  for (const path of [...files.keys()].sort()) io.stdout(`  ${path}\n`);
  io.stdout(`\nclone it with:\n  git clone ${cloneFrom}\n`);
}
