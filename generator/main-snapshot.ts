// What a generator pass reads from the landscape repo's main: kimops.yaml and the Shoot folders. A
// folder is known by its tree oid first and read only when asked, so a pass over 10,000 unchanged
// Shoots reads one tree (render-memo.ts says which folders need reading at all).
import type { LandscapeRepo } from '../adapters/git/landscape-repo.js';
import { ConfigError } from '../model/errors.js';
import { parseKimopsConfig, type KimopsConfig } from '../model/kimops-config.js';
import type { Shoot } from '../model/shoot.js';
import { parseYamlDocuments } from '../model/yaml-input.js';
import { SHOOT_FILE, SHOOTS_FOLDER } from './render/landscape-layout.js';

export const KIMOPS_YAML = 'kimops.yaml';

export interface MainSnapshot {
  /** The ref the pass renders against: `main`, or `refs/remotes/origin/main` for a remote repo. */
  ref: string;
  config: KimopsConfig;
  /** Shoot name → the tree oid of its folder (a folder without shoot.yaml has no `shoot()`). */
  folders: ReadonlyMap<string, string>;
  /** The folder's files (repo path → text), read once. */
  files(shoot: string): Promise<Map<string, string>>;
  /** The folder's Shoot, parsed once; undefined when main has no such folder or it holds no shoot.yaml. */
  shoot(shoot: string): Promise<Shoot | undefined>;
}

export async function readMainSnapshot(repo: LandscapeRepo, ref: string, landscape: string): Promise<MainSnapshot> {
  const config = await readConfig(repo, ref, landscape);
  const folders = new Map<string, string>();
  for (const [name, entry] of await repo.listFolder(ref, SHOOTS_FOLDER)) if (entry.type === 'tree') folders.set(name, entry.oid);
  const files = new Map<string, Promise<Map<string, string>>>();
  const shoots = new Map<string, Promise<Shoot | undefined>>();

  const readFolder = async (shoot: string) => {
    const texts = new Map<string, string>();
    const oid = folders.get(shoot);
    if (oid) for (const [path, file] of await repo.readTreeFiles(oid, `${SHOOTS_FOLDER}/${shoot}/`)) texts.set(path, await file.read());
    return texts;
  };
  const filesOf = (shoot: string) => files.get(shoot) ?? files.set(shoot, readFolder(shoot)).get(shoot) as Promise<Map<string, string>>;
  const parse = async (shoot: string): Promise<Shoot | undefined> => {
    const path = `${SHOOTS_FOLDER}/${shoot}/${SHOOT_FILE}`;
    const text = (await filesOf(shoot)).get(path);
    if (text === undefined) return undefined;
    const [document] = parseYamlDocuments(text, `${path} on ${ref}`);
    // A broken Shoot on main would otherwise render as a create and overwrite it: stop instead.
    if (!document || document.error) throw document?.error ?? new ConfigError(`${path} on ${ref}`, '', 'is empty; restore it with git revert');
    return document.value as Shoot;
  };

  return {
    ref,
    config,
    folders,
    files: filesOf,
    shoot: (shoot) => (folders.has(shoot) ? shoots.get(shoot) ?? shoots.set(shoot, parse(shoot)).get(shoot) as Promise<Shoot | undefined> : Promise.resolve(undefined)),
  };
}

/** kimops.yaml on main: the merge policy and guards; a repo of another landscape is refused. */
async function readConfig(repo: LandscapeRepo, ref: string, landscape: string): Promise<KimopsConfig> {
  const text = await repo.readFile(ref, KIMOPS_YAML);
  if (text === undefined) throw new ConfigError('--repo', '', `${repo.gitdir} has no ${KIMOPS_YAML} on ${ref}; create the landscape repo with kimops init`);
  const config = parseKimopsConfig(text, `${KIMOPS_YAML} on ${ref} of ${repo.gitdir}`);
  if (config.landscape !== landscape) {
    throw new ConfigError('--landscape', '', `${repo.gitdir} holds landscape ${config.landscape}, not ${landscape}; pass the matching landscape or repo`);
  }
  return config;
}
