// One generator pass (issue 4, "Proposing changes"): Runtimes → rendered Shoots → one branch and one PR
// per changed Shoot on the landscape repo, merged per the repo's kimops.yaml. The repo and the forge are
// passed in (adapters/ builds them); this module only decides what to write where. Everything it needs
// to resume is in Git and the forge, so running it again with the same inputs writes nothing.
import type { Forge, ForgeResult, PullRequest } from '../adapters/forge/forge.js';
import { VALIDATE_CONTEXT } from '../adapters/forge/forge.js';
import type { LandscapeRepo, Signature } from '../adapters/git/landscape-repo.js';
import { ConfigError } from '../model/errors.js';
import { parseKimopsConfig, type KimopsConfig } from '../model/kimops-config.js';
import type { ConversionSettings } from '../model/landscape.js';
import { LABEL_RUNTIME_ID, runtimeRef } from '../model/runtime.js';
import type { Shoot } from '../model/shoot.js';
import { parseYamlDocuments } from '../model/yaml-input.js';
import { classifyChange, type ChangeClass } from './propose/classify.js';
import { decideMerge, massDeletionGuard, type CheckResult, type MergeAction } from './propose/merge-policy.js';
import { GITHUB_BODY_LIMIT, renderPullRequest, type ShootProposal } from './propose/pr-body.js';
import { filesOf, SHOOT_FILE, SHOOTS_FOLDER } from './render/landscape-layout.js';
import { renderRuntimes, type RenderBug, type RenderFailure, type RuntimeInput } from './render/render-runtimes.js';

const MAIN = 'main';
const KIMOPS_YAML = 'kimops.yaml';

/** Until the validation issue lands, a rendered Shoot has passed the converter's schema checks. */
const CHECKS: CheckResult[] = [{ name: VALIDATE_CONTEXT, passed: true, messages: [] }];

/** Hidden in the PR body: the branch head kimops wrote, so a head that differs was pushed by someone else. */
const WROTE = /<!-- kimops:wrote ([0-9a-f]{40}) -->/;
const wroteLine = (sha: string) => `<!-- kimops:wrote ${sha} -->`;

export interface GenerateInput {
  /** The landscape's name (landscape.yaml); must match kimops.yaml on main. */
  landscape: string;
  settings: ConversionSettings;
  runtimes: readonly RuntimeInput[];
  /** False when some Runtime files could not be read: then no Shoot is proposed for deletion. */
  runtimesComplete: boolean;
  repo: LandscapeRepo;
  forge: Forge;
  author: Signature;
  /** Progress, one line each. */
  log: (line: string) => void;
  /** Deletions a human confirmed beyond the mass-deletion guard. */
  allowMassDeletion?: number;
}

export interface ShootOutcome {
  shoot: string;
  class: ChangeClass['class'];
  disruptive: boolean;
  pr: number;
  /** merge-refused: the forge refused the auto-merge; left-to-human: someone else pushed to the branch. */
  action: MergeAction | 'merge-refused' | 'left-to-human';
}

export interface GenerateResult {
  proposed: ShootOutcome[];
  unchanged: number;
  closed: number[];
  /** Open PRs whose change disappeared but whose branch a human pushed to. */
  leftOpen: number[];
  failures: RenderFailure[];
  bugs: RenderBug[];
  /** The mass-deletion guard's message when deletions were refused. */
  deletionRefused?: string;
}

/** Main's Shoots: each one parsed, and its folder's files as they are (for the byte comparison). */
interface LiveShoot {
  shoot: Shoot;
  files: Map<string, string>;
}

export async function generate(input: GenerateInput): Promise<GenerateResult> {
  const { repo, landscape } = input;
  const config = await readConfig(repo, landscape);
  const live = await readLiveShoots(repo);
  const rendered = renderRuntimes(input.runtimes, input.settings, new Map([...live].map(([name, l]) => [name, l.shoot])));
  const result: GenerateResult = { proposed: [], unchanged: 0, closed: [], leftOpen: [], failures: rendered.failures, bugs: rendered.bugs };
  // Shoots whose PRs stay as they are: proposed now, or of a Runtime that failed (its change is unknown).
  const keep = new Set(shootsOfFailedRuntimes(input.runtimes, [...rendered.failures, ...rendered.bugs]));

  for (const r of rendered.rendered) {
    const files = new Map(filesOf(r.manifests).map((f) => [f.path, f.content]));
    const before = live.get(r.shootName);
    if (before && sameFiles(before.files, files)) {
      result.unchanged++;
      continue;
    }
    const after = r.manifests.at(-1)?.object as Shoot;
    // Same Shoot, other companion bytes: still a change to propose, one that replaces no node.
    const classification = classifyChange({ before: before?.shoot, after }) ?? companionsOnly(files, before?.files);
    const [namespace = '', name = ''] = r.runtime.split('/');
    const proposal: ShootProposal = { shoot: r.shootName, runtime: { namespace, name, ...generationOf(input, r.source) }, classification, after, checks: CHECKS, ...(before && { before: before.shoot }) };
    keep.add(r.shootName);
    result.proposed.push(await propose(input, config, proposal, files));
  }

  const gone = [...live.keys()].filter((name) => !requestedShoots(input.runtimes).has(name));
  result.deletionRefused = await proposeDeletions(input, config, live, gone, result, keep);
  await closeStalePullRequests(input, keep, result);
  return result;
}

/** kimops.yaml on main: the merge policy and guard; a repo of another landscape is refused. */
async function readConfig(repo: LandscapeRepo, landscape: string): Promise<KimopsConfig> {
  const file = (await repo.readFiles(MAIN)).get(KIMOPS_YAML);
  if (!file) throw new ConfigError('--repo', '', `${repo.gitdir} has no ${KIMOPS_YAML} on ${MAIN}; create the landscape repo with kimops init`);
  const config = parseKimopsConfig(await file.read(), `${KIMOPS_YAML} on ${MAIN} of ${repo.gitdir}`);
  if (config.landscape !== landscape) {
    throw new ConfigError('--landscape', '', `${repo.gitdir} holds landscape ${config.landscape}, not ${landscape}; pass the matching landscape or repo`);
  }
  return config;
}

/** Main's Shoots are the live state for update-mode rendering when no Garden API is configured. */
async function readLiveShoots(repo: LandscapeRepo): Promise<Map<string, LiveShoot>> {
  const byShoot = new Map<string, Map<string, string>>();
  for (const [path, file] of await repo.readFiles(MAIN, SHOOTS_FOLDER)) {
    const [, shoot] = path.split('/');
    if (shoot === undefined || path.split('/').length !== 3) continue;
    byShoot.set(shoot, (byShoot.get(shoot) ?? new Map<string, string>()).set(path, await file.read()));
  }
  const live = new Map<string, LiveShoot>();
  for (const [name, files] of byShoot) {
    const path = `${SHOOTS_FOLDER}/${name}/${SHOOT_FILE}`;
    const text = files.get(path);
    if (text === undefined) continue; // a folder without a Shoot (e.g. .gitkeep) is nothing kimops wrote
    const [document] = parseYamlDocuments(text, `${path} on ${MAIN}`);
    // A broken Shoot on main would otherwise render as a create and overwrite it: stop instead.
    if (!document || document.error) throw document?.error ?? new ConfigError(`${path} on ${MAIN}`, '', 'is empty');
    live.set(name, { shoot: document.value as Shoot, files });
  }
  return live;
}

/** Commits the Shoot's branch, opens or updates its PR, reports the status and merges per policy. */
/** `files` is the Shoot's whole folder: what the folder holds beyond them is removed (none for a delete). */
async function propose(input: GenerateInput, config: KimopsConfig, proposal: ShootProposal, files: Map<string, string>): Promise<ShootOutcome> {
  const { repo, forge, landscape } = input;
  const branch = branchOf(landscape, proposal.shoot);
  // Room for the hidden head line appended below.
  const pr = renderPullRequest({ landscape, branch, proposals: [proposal], maxBodySize: GITHUB_BODY_LIMIT - 100 });
  const content = new Map([...files, [pr.reportPath, pr.fullReport]]);
  const open = unwrap(await forge.findOpenPullRequest(branch), forge);
  const outcome = { shoot: proposal.shoot, class: proposal.classification.class, disruptive: proposal.classification.disruptive };
  if (open !== undefined && !wroteByKimops(open)) {
    // Rewriting the branch would throw away someone's commit: they and the reviewers settle it first.
    input.log(`${label(proposal.classification)} ${proposal.shoot}: #${open.number} left as is: its head ${open.headSha.slice(0, 12)} is not what kimops wrote`);
    return { ...outcome, pr: open.number, action: 'left-to-human' };
  }

  // Updated in place: an open PR whose branch already holds these bytes needs no new commit.
  const upToDate = open !== undefined && (await branchHolds(repo, branch, proposal.shoot, content));
  let head = open?.headSha;
  if (!upToDate) {
    // Always from main, so the branch merges cleanly and shows only this Shoot's change.
    const commit = await repo.commitFiles({ branch, base: MAIN, files: content, deletions: [`${SHOOTS_FOLDER}/${proposal.shoot}`], message: `${pr.title}\n\n${proposal.classification.reasons.join('\n')}`, author: input.author });
    head = commit.oid as string;
  }
  const body = `${pr.body}${wroteLine(head as string)}\n`;
  const number = open === undefined
    ? unwrap(await forge.openPullRequest({ branch, base: MAIN, title: pr.title, body, labels: [`kimops:${proposal.classification.class}`] }), forge).number
    : open.number;
  if (open !== undefined && (open.title !== pr.title || open.body !== body)) unwrap(await forge.updatePullRequest(number, { title: pr.title, body }), forge);
  if (!upToDate) unwrap(await forge.setCommitStatus(head as string, { context: VALIDATE_CONTEXT, state: 'success', description: 'schema checks of the model passed' }), forge);

  const approvals = unwrap(await forge.approvals(number), forge).filter((a) => a.commitSha === head).length;
  const decision = decideMerge({ class: proposal.classification.class, disruptive: proposal.classification.disruptive, checks: proposal.checks, approvals, policy: config.mergePolicy });
  let action: ShootOutcome['action'] = decision.action;
  if (decision.action === 'auto-merge') {
    const merged = await forge.mergePullRequest(number, { sha: head as string, method: 'merge' });
    if (!merged.ok) action = 'merge-refused';
    input.log(`${label(proposal.classification)} ${proposal.shoot}: #${number} ${open ? 'updated' : 'opened'}, ${merged.ok ? 'merged' : `not merged: ${merged.failure.message}`}`);
  } else {
    input.log(`${label(proposal.classification)} ${proposal.shoot}: #${number} ${open ? (upToDate ? 'unchanged' : 'updated') : 'opened'}, ${decision.action}: ${decision.reason}`);
  }
  return { ...outcome, pr: number, action };
}

/** Shoots on main whose Runtime is gone: one delete PR each, all of them under the mass-deletion guard. */
async function proposeDeletions(input: GenerateInput, config: KimopsConfig, live: Map<string, LiveShoot>, gone: string[], result: GenerateResult, keep: Set<string>): Promise<string | undefined> {
  if (gone.length === 0) return undefined;
  gone.forEach((name) => keep.add(name));
  if (!input.runtimesComplete) {
    // A Runtime file that could not be read is not a deleted Runtime.
    input.log(`not proposing to delete ${gone.join(', ')}: some Runtime files could not be read`);
    return undefined;
  }
  const guard = massDeletionGuard({ deleting: gone.length, total: live.size, policy: config.massDeletion, ...(input.allowMassDeletion !== undefined && { override: input.allowMassDeletion }) });
  if (!guard.allowed) return guard.message;
  for (const name of gone) {
    const before = (live.get(name) as LiveShoot).shoot;
    const classification = classifyChange({ before, runtimeDeleted: true }) as ChangeClass;
    // The Runtime is gone; its id stays on the Shoot's label.
    const runtime = { namespace: 'kcp-system', name: before.metadata.labels?.[LABEL_RUNTIME_ID] ?? name };
    const proposal: ShootProposal = { shoot: name, runtime, classification, before, checks: CHECKS };
    result.proposed.push(await propose(input, config, proposal, new Map()));
  }
  return undefined;
}

/** An open kimops PR whose Shoot no longer needs a change is closed, unless someone else pushed to it. */
async function closeStalePullRequests(input: GenerateInput, keep: Set<string>, result: GenerateResult): Promise<void> {
  const { forge, landscape } = input;
  const prefix = branchOf(landscape, '');
  for (const pr of unwrap(await forge.listOpenPullRequests(), forge)) {
    if (!pr.branch.startsWith(prefix) || keep.has(pr.branch.slice(prefix.length))) continue;
    if (!wroteByKimops(pr)) {
      result.leftOpen.push(pr.number);
      input.log(`#${pr.number} ${pr.branch}: no change left, but its head ${pr.headSha.slice(0, 12)} is not what kimops wrote; left open for whoever pushed it`);
      continue;
    }
    unwrap(await forge.closePullRequest(pr.number, 'Closed by kimops: the rendered Shoot equals main again, so this change is no longer needed.'), forge);
    result.closed.push(pr.number);
    input.log(`#${pr.number} ${pr.branch}: closed, its change is on main already or no longer wanted`);
  }
}

export function branchOf(landscape: string, shoot: string): string {
  return `kimops/${landscape}/${shoot}`;
}

function wroteByKimops(pr: PullRequest): boolean {
  return WROTE.exec(pr.body)?.[1] === pr.headSha;
}

/** Whether the branch already has exactly these files in the Shoot's folder, and the report. */
async function branchHolds(repo: LandscapeRepo, branch: string, shoot: string, content: Map<string, string>): Promise<boolean> {
  const folder = await repo.readFiles(branch, `${SHOOTS_FOLDER}/${shoot}`);
  const expected = new Map([...content].filter(([path]) => path.startsWith(`${SHOOTS_FOLDER}/${shoot}/`)));
  if (folder.size !== expected.size) return false;
  for (const [path, file] of folder) if (expected.get(path) !== (await file.read())) return false;
  for (const [path, text] of content) {
    if (path.startsWith(`${SHOOTS_FOLDER}/`)) continue;
    const file = (await repo.readFiles(branch, path.slice(0, path.lastIndexOf('/')))).get(path);
    if (!file || (await file.read()) !== text) return false;
  }
  return true;
}

function sameFiles(a: Map<string, string>, b: Map<string, string>): boolean {
  return a.size === b.size && [...a].every(([path, text]) => b.get(path) === text);
}

function companionsOnly(files: Map<string, string>, before: Map<string, string> | undefined): ChangeClass {
  const paths = [...new Set([...files.keys(), ...(before?.keys() ?? [])])].filter((p) => files.get(p) !== before?.get(p)).sort();
  return { class: 'update', disruptive: false, reasons: [`only companion files change: ${paths.join(', ')}`], changes: [] };
}

/** Every Shoot a Runtime asks for, rendered or not: those are never proposed for deletion. */
function requestedShoots(runtimes: readonly RuntimeInput[]): Set<string> {
  return new Set(runtimes.map(({ runtime }) => runtime.spec?.shoot?.name).filter((n): n is string => typeof n === 'string'));
}

function shootsOfFailedRuntimes(runtimes: readonly RuntimeInput[], failed: readonly { runtime: string }[]): string[] {
  const refs = new Set(failed.map((f) => f.runtime));
  return runtimes.filter(({ runtime }) => refs.has(runtimeRef(runtime))).map(({ runtime }) => runtime.spec?.shoot?.name).filter((n): n is string => typeof n === 'string');
}

function generationOf(input: GenerateInput, source: string): { generation?: number } {
  const generation = input.runtimes.find((r) => r.source === source)?.runtime.metadata.generation;
  return typeof generation === 'number' ? { generation } : {};
}

function label({ class: name, disruptive }: ChangeClass): string {
  return (name === 'update' && disruptive ? 'update (disruptive)' : name).padEnd(19);
}

/** A forge failure ends the pass: nothing is lost, the next run starts from what Git and the forge hold. */
function unwrap<T>(result: ForgeResult<T>, forge: Forge): T {
  if (result.ok) return result.value;
  throw new Error(`${forge.label}: ${result.failure.kind}: ${result.failure.message}`);
}
