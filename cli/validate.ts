// `kimops validate`, run: the checkout (or the files) and the base (generator/validate/change-base.ts) read,
// checked by generator/validate/repo-check.ts, with a Garden also dry-run (generator/validate/garden-dry-run.ts);
// the findings printed as text or GitHub annotations. Its options: commands/validate.ts.
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { readKebZones } from '../adapters/files/keb-zones.js';
import { readLandscape } from '../adapters/files/landscape.js';
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
import { ConfigError } from '../model/errors.js';
import { KIMOPS_YAML } from '../model/kimops-config.js';
import { printable } from '../model/printable.js';
import { EXIT, type CliIo } from './cli-io.js';

export interface ValidateOptions {
  base?: string;
  landscape?: string;
  policySet?: string;
  output: 'text' | 'github';
  gardenKubeconfig?: string;
}

export async function validate(paths: string[], options: ValidateOptions, io: CliIo): Promise<number> {
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
  const landscapeName = options.landscape ?? config?.landscape;
  if (landscapeName === undefined)
    throw new ConfigError(
      '--landscape',
      '',
      'is needed for files outside a landscape repo; pass dev, stage, prod or a folder',
    );
  const landscape = await readLandscape(landscapeName);
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

  print(report, options, io);
  return report.findings.some((f) => f.severity === 'deny') ? EXIT.conversionFailed : EXIT.ok;
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
  return readChangeBase(await LandscapeRepo.open(gitdir), ref, checkout, repoDir);
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

function print(report: RepoCheckReport, options: ValidateOptions, io: CliIo): void {
  const denied = report.findings.filter((f) => f.severity === 'deny').length;
  const warned = report.findings.length - denied;
  printFindings(report.findings, options, io);
  const changed = options.base === undefined ? '' : ` changed against ${options.base} (${report.unchanged} unchanged)`;
  const operations = report.shoots.map((s) => s.operation.toLowerCase());
  const counts = ['create', 'update', 'delete']
    .map((op) => `${operations.filter((o) => o === op).length} ${op}`)
    .join(', ');
  io.stdout(
    `${report.shoots.length} Shoots checked${changed}: ${counts}; ${denied} denied, ${warned} ${warned === 1 ? 'warning' : 'warnings'}\n`,
  );
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
