// `kimops validate`, run: the checkout (or the files) and the base (generator/validate/change-base.ts) read,
// the landscape chosen (the repo's landscape.yaml, landscape-target.ts), checked by
// generator/validate/repo-check.ts, with a Garden also dry-run (generator/validate/garden-dry-run.ts); the
// findings printed as text or GitHub annotations, and with GitHub a job summary (validate-summary.ts).
// Its options: commands/validate.ts.
import { existsSync, statSync } from 'node:fs';
import { appendFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { readKebZones } from '../adapters/files/keb-zones.js';
import { LANDSCAPE_FILE, readLandscape } from '../adapters/files/landscape.js';
import { readPolicySet } from '../adapters/files/policies.js';
import { readTextFile } from '../adapters/files/read-text.js';
import { readRepoFiles } from '../adapters/files/repo-files.js';
import { LandscapeRepo } from '../adapters/git/landscape-repo.js';
import { KubeClient } from '../adapters/kube/kube-client.js';
import { changeConfig, readChangeBase, type ChangeBase } from '../generator/validate/change-base.js';
import { YAML_CHECK } from '../generator/validate/folder-check.js';
import { gardenDryRun } from '../generator/validate/garden-dry-run.js';
import { policySource } from '../generator/validate/policy-source.js';
import {
  checkLandscapeFiles,
  checkShootFiles,
  foundInsteadOfShoots,
  type Finding,
  type RepoCheckReport,
} from '../generator/validate/repo-check.js';
import { ConfigError, TransportError } from '../model/errors.js';
import { KIMOPS_YAML, type KimopsConfig } from '../model/kimops-config.js';
import type { Landscape } from '../model/landscape.js';
import { parseLandscape } from '../model/landscape-parse.js';
import { printable } from '../model/printable.js';
import { EXIT, type CliIo } from './cli-io.js';
import { chooseLandscape } from './landscape-target.js';
import { stepSummary } from './validate-summary.js';

/** Where a GitHub Actions step writes its Markdown summary (the runner sets it). */
const STEP_SUMMARY_ENV = 'GITHUB_STEP_SUMMARY';

export interface ValidateOptions {
  base?: string;
  landscape?: string;
  policySet?: string;
  output: 'text' | 'github';
  gardenKubeconfig?: string;
}

export async function validate(paths: string[], options: ValidateOptions, io: CliIo): Promise<number> {
  try {
    return await validateWith(paths, options, io);
  } catch (error) {
    // In a workflow, a check that could not run says why where the reviewer looks: an annotation and the summary.
    if (options.output === 'github' && (error instanceof ConfigError || error instanceof TransportError)) {
      io.stdout(`::error title=${property('kimops validate')}::${data(printable(error.message))}\n`);
      await writeStepSummary(`### kimops validate\n\n❌ could not run: ${printable(error.message)}\n`, io);
    }
    throw error;
  }
}

async function validateWith(paths: string[], options: ValidateOptions, io: CliIo): Promise<number> {
  const [only] = paths;
  const repoDir =
    paths.length === 1 && only !== undefined && isDirectory(only) && existsSync(join(only, KIMOPS_YAML))
      ? resolve(only)
      : undefined;
  if (options.base !== undefined && repoDir === undefined)
    throw new ConfigError('--base', '', 'compares a landscape repo checkout; pass the folder that holds kimops.yaml');

  const files = repoDir ? await readRepoFiles(repoDir) : await readGivenFiles(paths);
  const base = repoDir && options.base !== undefined ? await readBase(repoDir, options.base, files) : undefined;
  const config = repoDir ? changeConfig(files, base, join(repoDir, KIMOPS_YAML)) : undefined;
  if (options.landscape === undefined && (repoDir === undefined || config === undefined))
    throw new ConfigError(
      '--landscape',
      '',
      'is needed for files outside a landscape repo; pass dev, stage, prod or a folder',
    );
  const landscape =
    repoDir !== undefined && config !== undefined
      ? await repoLandscape(repoDir, files, base, config, options.landscape, io)
      : await readLandscape(options.landscape as string);
  const garden =
    options.gardenKubeconfig === undefined
      ? undefined
      : KubeClient.fromKubeconfigOption(options.gardenKubeconfig, '--garden-kubeconfig');
  const source = await policySource(landscape, { readPolicySet, readKebZones }, garden);
  const context = {
    policies: await source.policies(options.policySet ?? config?.policySet ?? 'default'),
    params: await source.params(undefined),
    landscape: landscape.name,
  };

  const report = repoDir
    ? checkLandscapeFiles({ files, context, ...(base && { base: base.files }) })
    : checkShootFiles(files, context);
  if (repoDir && config) report.findings.push(...landscapeFileFindings(files, config, base));
  if (!repoDir && report.shoots.length === 0 && !report.findings.some((f) => f.check === YAML_CHECK)) {
    // "0 Shoots checked, exit 0" would pass a Runtime file or an empty folder as if it had been checked.
    printFindings(report.findings, options, io);
    const found =
      files.size === 0
        ? `found no .yaml, .yml or .json file in ${paths.join(', ')}`
        : foundInsteadOfShoots([...files.keys()], report.others ?? []);
    throw new ConfigError('<files>', '', `${found}: pass Shoot manifests or a landscape repo checkout`);
  }
  if (garden) report.findings.push(...(await gardenDryRun(garden, files, report)));

  const headline = print(report, options, io);
  if (options.output === 'github') await writeStepSummary(stepSummary(report, headline), io);
  return report.findings.some((f) => f.severity === 'deny') ? EXIT.conversionFailed : EXIT.ok;
}

/**
 * The landscape a checkout is checked with: --landscape, else the repo's landscape.yaml — the base's when the
 * base has one (a pull request must not choose its own landscape facts, as with kimops.yaml), else the
 * checkout's — else, in a repo made before landscape.yaml was committed, the shipped landscape kimops.yaml names.
 */
async function repoLandscape(
  repoDir: string,
  files: ReadonlyMap<string, string>,
  base: ChangeBase | undefined,
  config: KimopsConfig,
  given: string | undefined,
  io: CliIo,
): Promise<Landscape> {
  const fromBase = base?.files.get(LANDSCAPE_FILE);
  const text = fromBase ?? files.get(LANDSCAPE_FILE);
  const where = fromBase !== undefined ? `${LANDSCAPE_FILE} at ${base?.ref}` : LANDSCAPE_FILE;
  if (text === undefined && given === undefined) return readLandscape(config.landscape);
  const landscape = await chooseLandscape(given, { text, repo: repoDir, where }, (line) => io.stderr(`${line}\n`));
  if (text !== undefined && landscape.name !== config.landscape)
    throw new ConfigError(
      `${where} of ${repoDir}`,
      'name',
      `is ${landscape.name}, but ${KIMOPS_YAML} names landscape ${config.landscape}: make them the same`,
    );
  return landscape;
}

/**
 * The checkout's landscape.yaml judged as a file of the change (a pull request may change it, while the base's is
 * the one checked with): it must parse and name kimops.yaml's landscape, or it would stop the generator and the
 * applier once merged.
 */
function landscapeFileFindings(
  files: ReadonlyMap<string, string>,
  config: KimopsConfig,
  base: ChangeBase | undefined,
): Finding[] {
  const text = files.get(LANDSCAPE_FILE);
  if (text === undefined)
    return base?.files.has(LANDSCAPE_FILE)
      ? [
          {
            path: LANDSCAPE_FILE,
            check: 'landscape',
            severity: 'deny',
            message: 'is deleted, but generate and apply read the landscape from it: keep it',
          },
        ]
      : [];
  const finding = (message: string): Finding => ({
    path: LANDSCAPE_FILE,
    check: 'landscape',
    severity: 'deny',
    message,
  });
  try {
    const proposed = parseLandscape(text, LANDSCAPE_FILE);
    if (proposed.name !== config.landscape)
      return [
        finding(`names landscape ${proposed.name}, but ${KIMOPS_YAML} names ${config.landscape}: make them the same`),
      ];
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return [finding(error.message)];
    throw error;
  }
}

/** The summary for the job's page, when the runner asks for one; a summary that cannot be written is only a warning. */
async function writeStepSummary(markdown: string, io: CliIo): Promise<void> {
  const path = process.env[STEP_SUMMARY_ENV];
  if (!path) return;
  try {
    await appendFile(path, markdown);
  } catch (error) {
    io.stderr(`warning: cannot write the job summary to ${STEP_SUMMARY_ENV} (${path}): ${(error as Error).message}\n`);
  }
}

/** The base the checkout's change is judged against, from the checkout's own git data. */
async function readBase(repoDir: string, ref: string, checkout: ReadonlyMap<string, string>): Promise<ChangeBase> {
  const gitdir = join(repoDir, '.git');
  if (!isDirectory(gitdir))
    throw new ConfigError(
      '--base',
      '',
      `${repoDir} is not a git checkout (no .git folder); check out the repo with its history (fetch-depth: 0)`,
    );
  // The base's landscape.yaml is read even when the checkout deleted it: the check runs with it, and the deletion is judged.
  const withLandscape = checkout.has(LANDSCAPE_FILE) ? checkout : new Map([...checkout, [LANDSCAPE_FILE, '']]);
  return readChangeBase(await LandscapeRepo.open(gitdir), ref, withLandscape, repoDir);
}

async function readGivenFiles(paths: readonly string[]): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const path of paths) {
    if (isDirectory(path)) {
      for (const [name, text] of await readRepoFiles(path))
        if (/\.(ya?ml|json)$/i.test(name)) files.set(join(path, name), text);
    } else {
      files.set(path, await readTextFile(path, (reason) => new ConfigError('<files>', '', `${path} ${reason}`)));
    }
  }
  return files;
}

/** Prints the findings and the headline; returns the headline. */
function print(report: RepoCheckReport, options: ValidateOptions, io: CliIo): string {
  const denied = report.findings.filter((f) => f.severity === 'deny').length;
  const warned = report.findings.length - denied;
  printFindings(report.findings, options, io);
  const changed = options.base === undefined ? '' : ` changed against ${options.base} (${report.unchanged} unchanged)`;
  const operations = report.shoots.map((s) => s.operation.toLowerCase());
  const counts = ['create', 'update', 'delete']
    .map((op) => `${operations.filter((o) => o === op).length} ${op}`)
    .join(', ');
  const headline = `${report.shoots.length} Shoots checked${changed}: ${counts}; ${denied} denied, ${warned} ${warned === 1 ? 'warning' : 'warnings'}`;
  io.stdout(`${headline}\n`);
  return headline;
}

function printFindings(findings: readonly Finding[], options: ValidateOptions, io: CliIo): void {
  // File names and messages quote the checked files: no control character of theirs reaches the terminal or the log.
  for (const { path, message, ...rest } of findings) {
    const finding = { ...rest, path: printable(path), message: printable(message) };
    if (options.output === 'github') {
      const line = finding.line === undefined ? '' : `,line=${finding.line}`;
      io.stdout(
        `::${finding.severity === 'deny' ? 'error' : 'warning'} file=${property(finding.path)}${line},title=${property(`kimops ${finding.check}`)}::${data(finding.message)}\n`,
      );
    } else {
      io.stdout(
        `${finding.severity === 'deny' ? '✗' : '!'} ${finding.path}${finding.line === undefined ? '' : `:${finding.line}`}: ${finding.check}: ${finding.message}\n`,
      );
    }
  }
}

/** GitHub workflow command escaping (actions/toolkit): data escapes %, CR, LF; properties also : and ,. */
function data(text: string): string {
  return text.replaceAll('%', '%25').replaceAll('\r', '%0D').replaceAll('\n', '%0A');
}

function property(text: string): string {
  return data(text).replaceAll(':', '%3A').replaceAll(',', '%2C');
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
