// `kimops validate`, run: the checkout (or the files), the base's files and kimops.yaml read, checked by
// generator/validate/repo-check.ts, with a Garden also dry-run; the findings printed as text or GitHub
// annotations. Its options: commands/validate.ts.
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { readLandscape } from '../adapters/files/landscape.js';
import { readTextFile } from '../adapters/files/read-text.js';
import { readRepoFiles } from '../adapters/files/repo-files.js';
import { LandscapeRepo } from '../adapters/git/landscape-repo.js';
import { KubeClient, refOf } from '../adapters/kube/kube-client.js';
import { describeFailure } from '../model/kube-result.js';
import type { KubeObject } from '../model/kube-object.js';
import { YAML_CHECK } from '../generator/validate/folder-check.js';
import {
  checkLandscapeFiles,
  checkShootFiles,
  foundInsteadOfShoots,
  type Finding,
  type RepoCheckReport,
} from '../generator/validate/repo-check.js';
import { SHOOTS_FOLDER } from '../rules/landscape-layout.js';
import { ConfigError, TransportError } from '../model/errors.js';
import { KIMOPS_YAML, parseKimopsConfig } from '../model/kimops-config.js';
import { printable } from '../model/printable.js';
import { parseYamlDocuments } from '../model/yaml-input.js';
import { EXIT, type CliIo } from './cli-io.js';
import { policySource } from './policy-context.js';
import { FIELD_MANAGER } from '../model/contract.js';

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
  // The rules come from the base when there is one: a pull request must not choose its own.
  const config = repoDir
    ? parseKimopsConfig(
        base?.kimopsYaml ?? files.get(KIMOPS_YAML) ?? '',
        base ? `${KIMOPS_YAML} at ${options.base}` : join(repoDir, KIMOPS_YAML),
      )
    : undefined;
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
  const source = await policySource(landscape, garden);
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
  if (garden) report.findings.push(...(await dryRun(garden, files, report)));

  print(report, options, io);
  return report.findings.some((f) => f.severity === 'deny') ? EXIT.conversionFailed : EXIT.ok;
}

/**
 * kimops.yaml and the files at the base ref the change is compared with — its Shoot folders, and every
 * other file the checkout also holds (one the checkout lacks was deleted: nothing to judge) — from the
 * checkout's own git data.
 */
async function readBase(
  repoDir: string,
  ref: string,
  checkout: ReadonlyMap<string, string>,
): Promise<{ kimopsYaml: string | undefined; files: Map<string, string> }> {
  const gitdir = join(repoDir, '.git');
  if (!isDirectory(gitdir))
    throw new ConfigError(
      '--base',
      '',
      `${repoDir} is not a git checkout (no .git folder); check out the repo with its history (fetch-depth: 0)`,
    );
  const repo = await LandscapeRepo.open(gitdir);
  const commit = (await repo.resolve(ref)) ?? (await repo.resolve(`refs/remotes/${ref}`));
  if (commit === undefined)
    throw new ConfigError(
      '--base',
      '',
      `${ref} is not a branch, remote branch or commit of ${repoDir}; fetch it (actions/checkout with fetch-depth: 0)`,
    );
  const files = new Map<string, string>();
  for (const [path, file] of await repo.readFiles(commit)) {
    if (path.startsWith(`${SHOOTS_FOLDER}/`) || checkout.has(path)) files.set(path, await file.read());
  }
  return { kimopsYaml: await repo.readFile(commit, KIMOPS_YAML), files };
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

/**
 * Each created or updated Shoot applied with dryRun=All, its companions first. A dry-run creates
 * nothing, so a Shoot whose companion the Garden does not have yet cannot pass gardener-apiserver's
 * reference checks: it is not dry-run, and a warning says why.
 */
async function dryRun(
  garden: KubeClient,
  files: ReadonlyMap<string, string>,
  report: RepoCheckReport,
): Promise<Finding[]> {
  const findings: Finding[] = [];
  const parsed = (file: string) => {
    const [document] = parseYamlDocuments(files.get(file) ?? '', file);
    return document && !document.error ? (document.value as KubeObject) : undefined; // a broken file is reported by the checks
  };
  const refused = async (file: string, object: KubeObject) => {
    // The applier's field manager: the dry-run sees what its apply would.
    const applied = await garden.apply(object, FIELD_MANAGER, { dryRun: true });
    if (applied.ok) return false;
    if (applied.status === 0) throw new TransportError(`kubeconfig ${garden.label}`, describeFailure(applied));
    findings.push({
      path: file,
      check: 'dry-run',
      severity: 'deny',
      message: `the Garden refuses it: ${describeFailure(applied)}`,
    });
    return true;
  };
  for (const { path, operation } of report.shoots) {
    const shoot = operation === 'DELETE' ? undefined : parsed(path);
    if (!shoot) continue;
    const folder = path.slice(0, path.lastIndexOf('/') + 1);
    const missing: string[] = [];
    for (const file of [...files.keys()]
      .filter((p) => p.startsWith(folder) && p !== path && p.endsWith('.yaml'))
      .sort()) {
      const companion = parsed(file);
      if (!companion || (await refused(file, companion))) continue;
      const existing = await garden.get(refOf(companion));
      if (!existing.ok && existing.status === 404) missing.push(`${companion.kind} ${companion.metadata.name}`);
    }
    if (missing.length > 0) {
      findings.push({
        path,
        check: 'dry-run',
        severity: 'warn',
        message: `not checked by the Garden: it refers to ${missing.join(', ')}, which the Garden gets only when the applier creates it (a dry-run creates nothing)`,
      });
      continue;
    }
    await refused(path, shoot);
  }
  return findings;
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
