// `kimops init`: a new landscape repo (DESIGN §1.4) from repo-template/, for one landscape. Wiring only:
// the template is read in adapters/files/template.ts, the target checked in adapters/git/new-repo.ts,
// the commit made in adapters/git/landscape-repo.ts.
import { resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { readLandscape } from '../adapters/files/landscape.js';
import { fillPlaceholders, readTemplate } from '../adapters/files/template.js';
import { DEFAULT_BRANCH, LandscapeRepo } from '../adapters/git/landscape-repo.js';
import { checkNewRepoTarget } from '../adapters/git/new-repo.js';
import { ConfigError } from '../model/errors.js';
import { parseKimopsConfig } from '../model/kimops-config.js';
import { EXIT, type CliIo } from './cli-io.js';

const KIMOPS_YAML = 'kimops.yaml';

interface InitOptions {
  landscape: string;
}

/** Who makes the initial commit; fixed, so every landscape repo starts the same way. */
export const INIT_AUTHOR = { name: 'kimops', email: 'kimops@localhost' } as const;

const HELP = `
Creates a bare git repository at <dir> with one commit on ${DEFAULT_BRANCH}: the landscape-repo template
(README.md for reviewers, kimops.yaml, CODEOWNERS, .github/workflows/validate.yml, shoots/), with the
landscape's name and Gardener project filled in. <dir> must not exist, be empty, or be a bare repository
without commits on ${DEFAULT_BRANCH}. Only local paths are supported yet (no URLs).

Exit codes: 0 created; 2 usage error, unknown landscape, or <dir> already holds a landscape repo.

Examples:
  kimops init --landscape dev ./landscape-dev.git && git clone ./landscape-dev.git
  kimops init --landscape ./my-landscape /srv/git/my-landscape.git`;

export function registerInit(program: Command, io: CliIo, setExitCode: (code: number) => void): void {
  program
    .command('init')
    .description('create a landscape repo (a bare git repository) from the kimops template')
    .addOption(new Option('--landscape <name|dir>', 'a landscape shipped with kimops (dev), or a folder/file with landscape.yaml').makeOptionMandatory())
    .argument('<dir>', 'where to create the bare repository (a local path)')
    .addHelpText('after', HELP)
    .action(async (dir: string, options: InitOptions) => {
      setExitCode(await init(dir, options, io));
    });
}

async function init(dir: string, options: InitOptions, io: CliIo): Promise<number> {
  if (looksLikeUrl(dir)) throw new ConfigError('<dir>', '', `${dir} looks like a URL; only local paths are supported yet — create the repo locally and push it`);
  const landscape = await readLandscape(options.landscape);
  const gitdir = resolve(dir);
  const { head: existingHead } = await checkNewRepoTarget(dir, gitdir);

  const values = { landscape: landscape.name, project: landscape.gardener.project };
  const template = await readTemplate();
  const files = new Map([...template].map(([path, text]) => [path, fillPlaceholders(text, values)]));
  // A landscape whose name or project kimops.yaml cannot hold is refused before anything is written.
  parseKimopsConfig(files.get(KIMOPS_YAML) ?? '', `${KIMOPS_YAML} for landscape ${landscape.name}`);

  const repo = await LandscapeRepo.open(gitdir);
  const { oid } = await repo.commitFiles({
    branch: DEFAULT_BRANCH,
    files,
    message: `Landscape repo for ${landscape.name}\n\nCreated by kimops init from its repo-template/ (Gardener project ${landscape.gardener.project}).`,
    author: INIT_AUTHOR,
  });

  io.stdout(`created landscape repo ${dir} (bare) for landscape ${landscape.name}, Gardener project ${landscape.gardener.project}\n`);
  io.stdout(`commit ${oid ?? '?'} on ${DEFAULT_BRANCH} with ${files.size} files:\n`);
  for (const path of [...files.keys()].sort()) io.stdout(`  ${path}\n`);
  io.stdout(`\nclone it with:\n  git clone ${dir}\n`);
  if (existingHead !== undefined && existingHead !== `ref: refs/heads/${DEFAULT_BRANCH}`) {
    // A repo made by `git init --bare` elsewhere may name another default branch; clones check out HEAD.
    io.stderr(`note: HEAD of ${dir} is "${existingHead}", not ${DEFAULT_BRANCH}; for clones to check out ${DEFAULT_BRANCH} run:\n  git --git-dir ${dir} symbolic-ref HEAD refs/heads/${DEFAULT_BRANCH}\n`);
  }
  return EXIT.ok;
}

/** http(s)://, ssh://, file:// and the like, or git's scp-like user@host:path. */
function looksLikeUrl(target: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(target) || /^[^/\\:]+@[^/\\:]+:/.test(target);
}
