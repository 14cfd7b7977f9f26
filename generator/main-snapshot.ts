// What a generator pass reads from the landscape repo's main: kimops.yaml and the Shoot folders. A
// folder is known by its tree oid first and read only when asked, so a pass over 10,000 unchanged
// Shoots reads one tree (render-memo.ts says which folders need reading at all); parsed Shoots are
// kept for the pass, file texts only as long as the caller keeps a `folder()` it asked for.
import type { LandscapeRepo } from '../adapters/git/landscape-repo.js';
import { folderOid } from '../model/git-object-id.js';
import { ConfigError } from '../model/errors.js';
import { KIMOPS_YAML, landscapeRepoConfig, type KimopsConfig } from '../model/kimops-config.js';
import { describeKind, isJsonObject } from '../model/json.js';
import { SHOOT_API_VERSION, type Shoot } from '../model/shoot.js';
import { parseYamlDocuments } from '../model/yaml-input.js';
import { SHOOT_FILE, SHOOTS_FOLDER } from '../model/contract.js';

export interface MainSnapshot {
  /** The ref the pass renders against: `main`, or `refs/remotes/origin/main` for a remote repo. */
  ref: string;
  config: KimopsConfig;
  /** Shoot name → the tree oid of its folder (a folder without shoot.yaml has no `shoot()`). */
  folders: ReadonlyMap<string, string>;
  /** The folder's files and its Shoot, read on each call (the Shoot parsed once): what a plan needs of a folder. */
  folder(shoot: string): Promise<MainFolder>;
  /**
   * Whether main's folder holds exactly these files (repo path → text), decided by hashing them as git
   * would and comparing the folder's oid: nothing is read from the repository.
   */
  holds(shoot: string, files: ReadonlyMap<string, string>): boolean;
  /** The folder's Shoot, parsed once; undefined when main has no such folder, no shoot.yaml, or a broken one. */
  shoot(shoot: string): Promise<Shoot | undefined>;
  /** Shoots whose shoot.yaml on main could not be read, found so far by `shoot()` and `folder()`. */
  broken: ReadonlyMap<string, ConfigError>;
}

/** One Shoot folder of main as read. */
export interface MainFolder {
  /** Repo path → text; none when main has no such folder. */
  files: ReadonlyMap<string, string>;
  /** Absent when the folder has no shoot.yaml, or a broken one. */
  shoot?: Shoot;
  /** Why its shoot.yaml could not be read: nothing is proposed for the Shoot then. */
  broken?: ConfigError;
}

export async function readMainSnapshot(repo: LandscapeRepo, ref: string, landscape: string): Promise<MainSnapshot> {
  const config = await readConfig(repo, ref, landscape);
  const folders = new Map<string, string>();
  for (const [name, entry] of await repo.listFolder(ref, SHOOTS_FOLDER))
    if (entry.type === 'tree') folders.set(name, entry.oid);
  const shoots = new Map<string, Promise<Shoot | undefined>>();
  const broken = new Map<string, ConfigError>();

  const readFolder = async (shoot: string) => {
    const texts = new Map<string, string>();
    const oid = folders.get(shoot);
    if (oid)
      for (const [path, file] of await repo.readTreeFiles(oid, `${SHOOTS_FOLDER}/${shoot}/`))
        texts.set(path, await file.read());
    return texts;
  };
  const pathOf = (shoot: string) => `${SHOOTS_FOLDER}/${shoot}/${SHOOT_FILE}`;
  const parse = (shoot: string, text: string | undefined): Shoot | undefined => {
    if (text === undefined) return undefined;
    const path = pathOf(shoot);
    const source = `${path} on ${ref}`;
    const documents = parseYamlDocuments(text, source);
    const [document] = documents;
    // A broken Shoot on main must not render as a create that overwrites it: it is reported instead.
    const error =
      document?.error ??
      (documents.length !== 1
        ? new ConfigError(
            source,
            '',
            documents.length === 0
              ? 'is empty'
              : `holds ${documents.length} YAML documents; a Shoot file holds exactly one`,
          )
        : shootProblem(document?.value, shoot, source));
    if (!error) return document?.value as Shoot;
    broken.set(shoot, error);
    return undefined;
  };

  return {
    ref,
    config,
    folders,
    broken,
    holds: (shoot, files) => {
      const folder = `${SHOOTS_FOLDER}/${shoot}/`;
      const names = new Map<string, string>();
      for (const [path, text] of files) {
        const name = path.slice(folder.length);
        // Only files in the Shoot's folder (and its subfolders, as skr/) make up its oid; anything else is a difference.
        if (!path.startsWith(folder) || name.split('/').includes('')) return false;
        names.set(name, text);
      }
      return folders.get(shoot) === folderOid(names);
    },
    shoot: (shoot) => parsed(shoot, async () => (await readFolder(shoot)).get(pathOf(shoot))),
    async folder(shoot) {
      const files = await readFolder(shoot);
      const value = await parsed(shoot, async () => files.get(pathOf(shoot)));
      const error = broken.get(shoot);
      return { files, ...(value && { shoot: value }), ...(error && { broken: error }) };
    },
  };

  /** The folder's Shoot, parsed from `text()` the first time it is asked for. */
  function parsed(shoot: string, text: () => Promise<string | undefined>): Promise<Shoot | undefined> {
    if (!folders.has(shoot)) return Promise.resolve(undefined);
    let value = shoots.get(shoot);
    if (value === undefined) shoots.set(shoot, (value = text().then((read) => parse(shoot, read))));
    return value;
  }
}

/**
 * Why the value of `shoots/<folder>/shoot.yaml` is no Shoot the generator can render against: valid YAML that
 * is a ConfigMap, a list or a string, or a Shoot of another name, would otherwise be read as that Shoot.
 */
function shootProblem(value: unknown, folder: string, source: string): ConfigError | undefined {
  if (!isJsonObject(value) || value.kind !== 'Shoot' || value.apiVersion !== SHOOT_API_VERSION) {
    return new ConfigError(source, 'kind', `must be a ${SHOOT_API_VERSION} Shoot, found ${describeKind(value)}`);
  }
  const name = isJsonObject(value.metadata) ? value.metadata.name : undefined;
  if (name !== folder)
    return new ConfigError(
      source,
      'metadata.name',
      `is ${JSON.stringify(name)}, but the folder is ${SHOOTS_FOLDER}/${folder}/`,
    );
  if (!isJsonObject(value.spec)) return new ConfigError(source, 'spec', 'is missing: a Shoot manifest needs its spec');
  return undefined;
}

/** kimops.yaml on main: the merge policy and guards; a repo of another landscape is refused. */
async function readConfig(repo: LandscapeRepo, ref: string, landscape: string): Promise<KimopsConfig> {
  const source = `${KIMOPS_YAML} on ${ref} of ${repo.gitdir}`;
  return landscapeRepoConfig(await repo.readFile(ref, KIMOPS_YAML), { repo: repo.gitdir, ref, source }, landscape);
}
